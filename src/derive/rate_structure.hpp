// Stage 3, structure the rate form can use (bilinear_form.cpp): which rates are angular
// velocities (rate_structure.cpp), the composites found in the form (composite_inertia.hpp,
// point_composite.hpp), and what the tree strategies take from the model.
#pragma once

#include "derive/composite_inertia.hpp"
#include "derive/derive_support.hpp"
#include "derive/point_composite.hpp"

#include <optional>

namespace lagc {

// The angular velocities among the rates (bilinear_form::angular_velocity).
std::vector<bilinear_form::angular_velocity> angular_velocities(model const& m, bilinear_form const& f);

// The bodies' rotational inertias as the model wrote them (model::quadratic_forms).
std::vector<rotational_body> rotational_bodies(model const& m);

// τ besides the tree's inertia (and, with uniform gravity, besides its weights): Q − ∂V/∂q,
// or Q − ∂(V's other terms)/∂q where gravity is the base's acceleration instead (the
// articulated-body strategies, articulated_body.cpp and floating_articulated_body.cpp).
GiNaC::exvector joint_forces(model const& m, derived const& d,
                             std::optional<point_composite::uniform_gravity> const& gravity);

// ½ a q̇_j² terms of T (a free of q and q̇: a rotor's armature), by coordinate: the tree
// strategies add a q̈_j to joint j's force (floating_articulated_body.cpp); a kinetic
// statement free of q is taken term by term.
GiNaC::exvector armatures(model const& m);

// The rate form and the composites found in it, once per model (each search samples the
// model's expressions): M, h and C use them, and so does M q̈ for the control API. Not
// copyable: the composites refer to the form and to each other.
struct rate_structures {
    rate_structures(model const& m, bilinear_form const& f)
        : form(f), rotational(m, f), points(m, f, rotational), framed_points(points) {
        framed_points.root_frame();
    }
    rate_structures(rate_structures const&) = delete;
    rate_structures& operator=(rate_structures const&) = delete;
    bilinear_form const& form;
    composite_inertia rotational;
    point_composite points;
    // The same in the root body's axes (point_composite::root_frame), where they apply
    // (framed()); M and h take them first.
    point_composite framed_points;
    // The composites M and h took (mass_and_bias_from_bilinear_form), whose momentum M q̈
    // then cancels theirs term by term.
    mutable point_composite const* summed = nullptr;
    point_composite const& sums() const { return summed ? *summed : points; }
    // The configuration the algorithms in local axes fix their frames at, besides q = 0: a
    // floating base's quaternion where its frame is the identity (local_frames.hpp).
    GiNaC::exmap reference() const {
        return framed_points.framed() ? framed_points.tree().root.identity : GiNaC::exmap{};
    }
};

} // namespace lagc
