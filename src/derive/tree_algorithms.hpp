// Stage 3: the recursive algorithms over a kinematic tree (kinematic_tree.hpp), one file each
// with its maths: articulated_body.cpp, floating_articulated_body.cpp, rnea_derivatives.cpp,
// local_newton_euler.cpp, local_articulated_body.cpp.
// Each reads the tree and the forces it is given, nothing else; each result is unchecked
// (the strategy that calls it compares it with the model's own equations at random states).
#pragma once

#include "derive/kinematic_tree.hpp"
#include "derive/spatial.hpp"

#include <functional>
#include <string>

namespace lagc {

// q̈ by the articulated-body algorithm (Featherstone's ABA), where every coordinate is the
// joint of one node and every node has one: τ the generalized forces besides the tree's
// inertia (and, with `gravity`, γ of uniform gravity, besides its weights). `pivots` are each
// joint's D = Sᵀ I^A S, all positive exactly where M is positive definite. Empty otherwise.
struct articulated_solution {
    GiNaC::exvector qdd, pivots; // by coordinate
    std::string why = {};        // why it does not apply, where it does not
};
articulated_solution articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                      std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& tau);

// The same in each body's own axes at q = 0 (`reference`'s values where given, as
// local_newton_euler's; local_articulated_body.cpp, with local_frames.hpp): hinges and
// slides, a node's several joints as a chain, a fixed base;
// `armature` (by coordinate, or empty) added to each joint's pivot. Empty, with `why`, where
// it does not apply.
articulated_solution local_articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                            std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& tau,
                                            GiNaC::exvector const& armature, GiNaC::exmap const& reference = {});

// M (n × n, row-major) by the composite-rigid-body algorithm in each body's own axes
// (local_articulated_body.cpp), over the same trees as local_articulated_body and over a
// floating root (its rows by its velocity columns, in its body's axes); `armature` (by
// coordinate, or empty) added to the diagonal. Empty, with `why`, where it does not apply.
struct mass_solution {
    GiNaC::exvector M;
    std::string why = {};
};
mass_solution local_composite_rigid_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         GiNaC::exvector const& armature, GiNaC::exmap const& reference = {});

// The same where the root node has several coordinates that no order chains (a floating
// base: three translations and a quaternion) and constraints may hold on them alone: every
// other node's joints in their order (a body of several hinges as a chain of massless
// frames), `armature` added to each joint's pivot (½ a q̇² terms of T), and at the root the
// system [[Sᵀ I^A S + diag(a), Aᵀ], [A, 0]] [q̈; λ] = [τ − Sᵀ p^A; r] of its own coordinates.
// `A` is nc × n (row-major), `r` nc; `pivots` are the joints' D, then the root system's LDLᵀ
// pivots (`root_pivots` of them), then its Schur complement's (nc): all positive where the
// whole system is regular. Empty, with `why`, where it does not apply.
struct constrained_solution {
    GiNaC::exvector qdd, lambda, pivots;
    std::size_t joint_pivots = 0, root_pivots = 0;
    std::string why = {};
};
constrained_solution floating_articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                               std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& tau,
                                               GiNaC::exvector const& armature, GiNaC::exvector const& A,
                                               GiNaC::exvector const& r);

// τ (the tree's share: M q̈ + h less the forces besides its inertia and, with `gravity`, its
// weights; armature not included) by the recursive Newton–Euler algorithm in each body's own
// axes at the reference configuration (q = 0, `reference`'s values where given: a floating
// base's identity), q̈ as `qdd` (local_newton_euler.cpp): a few products per joint, whatever
// the directions of the tree's offsets and axes. Hinges and slides, a node's several joints
// as a chain, a floating root; the tree in world axes. Empty, with `why`, where it does not
// apply.
struct newton_euler_solution {
    GiNaC::exvector tau; // by coordinate
    std::string why = {};
};
// `mul`: how its products are made (spatial.hpp: held, or plain).
newton_euler_solution local_newton_euler(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& qdd,
                                         GiNaC::exmap const& reference = {},
                                         spatial::multiplication mul = spatial::held_either);

// The tree's shares of ∂τ/∂q and of C = ½ ∂h/∂q̇ (the Christoffel C's share), as the analytic
// RNEA derivatives form them: a few products of 6-vectors per pair of joints; with `bodies`,
// their rotational inertia too, as R J Rᵀ in world axes. With `gravity`, the shares are those
// of h + ∂V/∂q (the base accelerates by γ, which turns every weight into inertia). Empty where
// the tree is in the root body's axes, a node has more than one joint, or a body has no node.
struct share_derivatives {
    GiNaC::exvector dtau_dq, coriolis; // n × n, row-major: ∂τ_i/∂q_k, C_ik
    std::string why = {};              // where empty: why they do not apply (local_rnea_derivatives)
};
share_derivatives rnea_derivatives(kinematic_tree const& t, GiNaC::exvector const& qdd,
                                   std::vector<rotational_body> const& bodies,
                                   std::array<GiNaC::ex, 3> const* gravity = nullptr);

// The formulas' per-joint vectors and pairs (rnea_derivatives.cpp), shared by both forms:
// each joint's twist S and its node's (or link's) world-axes velocity v and acceleration a,
// composite inertia Y, Coriolis operator B (2 B where `twice`) and wrench F; `below(i, k)`:
// joint i's node is joint k's or below it. Products as `mul` says (spatial.hpp).
struct rnea_unit {
    bool used = false; // a joint with no node (none of the tree's points move with it): 0 rows
    spatial::vec6 S, v, a, F;
    spatial::mat6 Y, B;
};
share_derivatives rnea_pairs(std::vector<rnea_unit> const& units, std::function<bool(std::size_t, std::size_t)> const& below,
                             bool twice, spatial::multiplication mul);

// The whole tree's (its points and `bodies`; with `gravity`, its weights too) by the same
// formulas, their world-axes quantities built link by link from the tree in each body's own
// axes at the reference configuration (local_rnea_derivatives.cpp): a few products of the
// parent's per link, whatever the directions of the offsets. Hinges and slides, a node's
// several joints as a chain, a fixed base. Empty where it does not apply.
share_derivatives local_rnea_derivatives(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& qdd,
                                         GiNaC::exmap const& reference = {});

} // namespace lagc
