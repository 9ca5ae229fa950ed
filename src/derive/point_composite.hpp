// Stage 3: the translational inertia of points of rotating frames as composites over the
// kinematic tree they move on (point_structure.cpp, point_axes.cpp, point_frame.cpp).
#pragma once

#include "derive/composite_inertia.hpp"
#include "derive/derive_support.hpp"
#include "derive/kinematic_tree.hpp"

#include <map>
#include <optional>

namespace lagc {

// The translational inertia of points of rotating frames (model::points: the model wrote
// der(p) of a 3-vector p and ½ m |der(p)|²), as composites, where every coordinate moves the
// points as a joint does: ∂p/∂q_i = s_i × p + u_i for every point p it moves (s_i its axis in
// world axes from a rotation matrix R with Ṙ = R [ω]×, zero for a sliding coordinate; u_i
// from one of its points), and the sets of points the coordinates move form a tree. Then,
// for i moving every point j moves, with m^c, c^c = Σ m p and K^c = Σ m (|p|² I − p pᵀ)
// summed over those points once for every j (children into parents, as the CRBA sums),
//   M_ij = s_i·(K^c s_j + c^c × u_j) + u_i·(s_j × c^c + m^c u_j),   h_i = s_i·N^c + u_i·F^c
// (F^c = Σ f, N^c = Σ p × f of the points' forces): O(n²) small products instead of a sum
// over every point beyond both joints, and no Jacobian of any point but one per joint.
// Checked against the term-by-term sums at two random states before use, like the above.
class point_composite {
public:
    point_composite(model const& m, bilinear_form const& f, composite_inertia const& rotational);

    bool covers(std::size_t rate) const;
    bool usable() const { return t_.usable; }
    // M's and h's shares of the covered rates, if they agree with the term-by-term ones and
    // make M and h smaller; false (nothing added) otherwise. `compact_delta` (n entries)
    // receives what turns h into another h to evaluate, with the points' accelerations
    // taken recursively (recursive_forces), where that agrees (the caller keeps it where it
    // is smaller); h itself keeps the form whose derivatives are smaller. `share` receives
    // what was added to h.
    // `report`, where given, receives both forms' operations and why they were not added.
    struct share_report {
        std::size_t with = 0, without = 0; // M's lower triangle and h: with the composites, term by term
        std::string why;                    // empty where they were added
    };
    bool add(GiNaC::exvector& M, GiNaC::exvector& h, GiNaC::exvector const& M_term_by_term,
             GiNaC::exvector const& h_term_by_term, GiNaC::exvector& compact_delta, GiNaC::exvector& share,
             share_report* report = nullptr) const;
    // ∂V/∂q as Σ over the points of their weights' generalized forces, where V is Σ w·p
    // (plus terms free of q), it agrees with `gradient` and is smaller: then replaces it.
    bool potential_gradient(GiNaC::exvector& gradient) const;
    // γ where V is Σ m γ·p over the points + `other` (V's terms that are not one point's
    // coordinate times a factor free of q: springs, say; constants left out) with one γ free
    // of q and q̇ for all of them (uniform gravity: every point's weight is its mass times γ).
    struct uniform_gravity {
        std::array<GiNaC::ex, 3> g;
        GiNaC::ex other;
    };
    std::optional<uniform_gravity> gravity() const;
    // (M q̈)_i's share of the covered rates, q̈ given as symbols: the same sums with each
    // point's force m J q̈ (Ω × p + U, summed from the root down, as the RNEA's
    // accelerations). Unchecked (zero when not usable): the caller checks the whole M q̈.
    GiNaC::exvector momentum(GiNaC::exvector const& qdd) const;
    // Σ J_pᵀ m (a + γ) over the points, a their accelerations at q̈ = 0 the RNEA's way
    // (recursive_forces) and γ (world axes) of gravity(): the points' share of h and ∂V/∂q of
    // their weights in one sum, as the RNEA's base acceleration −g takes them. Empty where
    // recursive_forces() offers none. Unchecked (the caller compares at random states).
    GiNaC::exvector forces_with_weights(std::array<GiNaC::ex, 3> const& gamma) const;

    // Turns the composites into the axes of the root body's frame, about its origin
    // (point_frame.cpp): M, h and ∂V/∂q from them hold fewer terms where the root turns.
    // False (nothing changed) where no frame of the model fits. After it, gravity() offers
    // nothing (formed in world axes), nor do the RNEA derivatives of its tree, nor the
    // articulated-body algorithm unless the root is one joint with a constant twist in F.
    bool root_frame();
    bool framed() const { return t_.framed(); }

    // The tree found (kinematic_tree.hpp): what the recursive algorithms read.
    kinematic_tree const& tree() const { return t_; }

private:
    model const& m_;
    bilinear_form const& f_;
    std::size_t n_;
    kinematic_tree t_;
    // Found while building the tree: each rate's point, each coordinate's candidate axes
    // (axes()), and which points each coordinate moves.
    std::map<std::size_t, std::size_t> rate_point_;
    std::vector<std::vector<std::array<GiNaC::ex, 3>>> axis_candidates_;
    std::vector<std::vector<char>> moves_;

    bool points(composite_inertia const& rotational);
    // A constant point most positions share (the part of their sums free of q, u and t:
    // a base at height 0.333 m), taken off every position (the tree's origin): M, h and the
    // recursive algorithms are the same about any point, and their terms are fewer about
    // this one.
    void common_origin();
    bool axes();
    bool twists();
    void on_axes();
    void choose_axes(std::vector<std::vector<std::array<GiNaC::ex, 3>>> const& J);
    bool nest();

    // A candidate for the root body's frame F (point_frame.cpp).
    struct root_frame_candidate {
        GiNaC::exvector R;                           // R_F (turned to be the identity at `identity`)
        GiNaC::exmap identity;                       // the root coordinates' values where R_F = I
        std::vector<std::array<GiNaC::ex, 3>> sigma; // per root coordinate: ∂ω/∂q̇_i
        std::array<GiNaC::ex, 3> omega;              // F's body angular velocity
    };
    std::vector<root_frame_candidate> root_frames_of(std::vector<std::size_t> const& C) const;
    // F's origin o_F, its value o* at F's identity, and each point's r of p = o_F + R_F r
    // (its position there, less o*).
    struct root_positions {
        std::array<GiNaC::ex, 3> origin, at_identity;
        std::vector<std::array<GiNaC::ex, 3>> r;
    };
    std::optional<root_positions> root_origin(root_frame_candidate const& F, std::vector<std::size_t> const& C) const;
    bool root_accelerations(root_frame_candidate const& F, std::array<GiNaC::ex, 3> const& o,
                            std::vector<tree_point>& moved);
    bool root_twists_hold(GiNaC::exvector const& R, std::vector<tree_point> const& moved,
                          std::vector<std::array<GiNaC::ex, 3>> const& s,
                          std::vector<std::array<GiNaC::ex, 3>> const& u) const;

    GiNaC::exvector mass_matrix() const;
    // The points' weights w with V = Σ w·p (plus terms free of q), each term of V one point's
    // coordinate times a factor free of q; nothing where a term is not, unless `other` is
    // given: such terms are added to it.
    std::optional<std::vector<std::array<GiNaC::ex, 3>>> weights(GiNaC::ex* other = nullptr) const;
};

} // namespace lagc
