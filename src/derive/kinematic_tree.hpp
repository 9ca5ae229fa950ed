// Stage 3: the kinematic tree the rate form's points and bodies move on, as data. The points'
// composites (point_composite.hpp) find it in the model; the recursive algorithms
// (tree_algorithms.hpp) read it and nothing else of theirs.
//
// A node is a set of points that the same coordinates move; nodes nest as a tree. Each
// coordinate is one joint: ∂p/∂q_i = s_i × p + u_i for every point p it moves (world axes,
// about the tree's origin; or the root body's axes, root_axes.hpp). A new kind of joint gets
// its `joint_kind`, the test that tells it (name_joints, kinematic_tree.cpp), and its case in
// the algorithms that read the kind.
#pragma once

#include "derive/derive.hpp"
#include "derive/root_axes.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lagc {

// hinge: s ≠ 0 (it turns the points beyond it); slide: s = 0 (u alone moves them); root: a
// coordinate of the one node without a parent where that node has several (a floating base's
// translations and quaternion elements: no order chains them, the floating articulated-body
// algorithm solves them together at the root).
enum class joint_kind { hinge, slide, root };

struct tree_joint {
    joint_kind kind = joint_kind::slide;
    std::size_t coordinate = 0;
    int node = -1;                          // the node of the points it moves (−1: it moves none)
    std::array<GiNaC::ex, 3> s = {0, 0, 0}; // axis (ω part of the twist)
    std::array<GiNaC::ex, 3> u = {0, 0, 0}; // linear part: o × s for a point o on a hinge's axis
    bool turns() const { return !(s[0].is_zero() && s[1].is_zero() && s[2].is_zero()); }
    // The direction that orders a node's joints: a hinge's s, a slide's u.
    std::array<GiNaC::ex, 3> const& axis() const { return turns() ? s : u; }
};

struct tree_point {
    // position: as written less the tree's origin (the composites' reference point)
    std::array<GiNaC::ex, 3> position, kappa; // rate = κ der(p)[c]
    std::array<GiNaC::ex, 3> acceleration;    // d/dt der(p) at q̈ = 0
    std::size_t source = 0;                   // in model::points
    std::array<int, 3> rate = {-1, -1, -1};   // −1: that element of der(p) is zero
    GiNaC::ex mass;
};

struct tree_node {
    std::vector<char> members;    // the points its coordinates move
    int parent = -1;
    std::vector<std::size_t> own; // members not in a child
    std::size_t size = 0;
};

// A rotational inertia ½ rᵀ J r the model wrote (model::quadratic_forms): r a body's angular
// velocity, as the model wrote its elements (composite_inertia.hpp covers those it can).
struct rotational_body {
    std::array<GiNaC::ex, 3> rate;
    GiNaC::exvector J; // 3 × 3
};

struct kinematic_tree {
    kinematic_tree(model const& model, std::size_t coordinates) : m(model), n(coordinates) {}
    model const& m;
    std::size_t n; // coordinates
    bool usable = false;
    std::string why = "no search was made"; // why it is not usable, where it is not
    std::vector<tree_point> points;
    std::vector<tree_node> nodes;
    std::vector<tree_joint> joints; // by coordinate
    // The composite sums over each node's points and its children's, children first (the
    // CRBA's): m^c, c^c = Σ m p and K^c = Σ m (|p|² I − p pᵀ).
    GiNaC::exvector mass;
    std::vector<std::array<GiNaC::ex, 3>> moment;
    std::vector<GiNaC::exvector> K;
    // A constant point most positions share, taken off every position (the base's height).
    std::array<GiNaC::ex, 3> origin = {0, 0, 0};
    root_axes root; // empty: world axes
    bool framed() const { return !root.R.empty(); }

    // Each joint's kind from its twist and node (after the twists or the root's axes change).
    void name_joints();
    // The sums above from the points and nodes.
    void composite();
    std::vector<std::size_t> children_first() const;
    // Node N's own points (not its children's) as (mass, position).
    std::vector<std::pair<GiNaC::ex, std::array<GiNaC::ex, 3>>> own_masses(std::size_t N) const;
    // Σ s_j w_j and Σ u_j w_j over the joints moving each node's points, from the root down:
    // each node frame's angular and linear velocity at rates w (q̇, or q̈ for M q̈).
    std::array<std::vector<std::array<GiNaC::ex, 3>>, 2> sums_down(GiNaC::exvector const& w) const;
    // Each node's joint; empty where a node has more than one (their order is not known).
    std::vector<int> single_joints() const;
    // Each node's joints in their order (a joint's axis turns with those before it), the
    // root's coordinates left out where `floating`, and those of node `skipped`; empty where
    // the order is not clear.
    std::vector<std::vector<std::size_t>> joint_chains(bool floating, int skipped = -1) const;
    // Each node's acceleration at q̈ = 0: Σ q̇_j Ω_<j × s_j and Σ q̇_j (Ω_<j × u_j + V_<j × s_j).
    std::array<std::vector<std::array<GiNaC::ex, 3>>, 2> velocity_accelerations(
        std::vector<std::vector<std::size_t>> const& chains, std::vector<std::array<GiNaC::ex, 3>> const& Omega,
        std::vector<std::array<GiNaC::ex, 3>> const& V) const;
    // Each point's force m a at q̈ = 0, the accelerations taken down the tree as the RNEA
    // takes them; empty where the joints do not chain.
    std::vector<std::array<GiNaC::ex, 3>> recursive_forces() const;
    // Σ_points J_i(p)·f = s_i·N^c + u_i·F^c for each coordinate, f each point's force.
    GiNaC::exvector generalized(std::vector<std::array<GiNaC::ex, 3>> const& f) const;
    // The world-axes inertia R J Rᵀ of each body, added to the node whose frame turns it
    // (false: a body has none); with `frames`, each node's first body's R (in the order of
    // its ω's elements; empty for a node without a body), and with `first`, that body's index.
    bool place(std::vector<rotational_body> const& bodies, std::vector<GiNaC::exvector>& rotational,
               std::vector<GiNaC::exvector>* frames = nullptr, std::vector<int>* first = nullptr) const;
    // The one node without a parent and its coordinates R, where every coordinate moves
    // points and A (nc rows) has entries in R's columns only; −1 otherwise.
    int floating_root(GiNaC::exvector const& A, std::size_t nc, std::vector<std::size_t>& R) const;
    // A vector of world axes in the root body's (R_Fᵀ v), and a frame of the tree beyond the
    // root as seen from the root's (its value where the root's frame is the identity).
    std::array<GiNaC::ex, 3> in_root_axes(std::array<GiNaC::ex, 3> const& v) const;
    GiNaC::exvector in_root_axes(GiNaC::exvector const& R) const;

private:
    bool turns_joint_axes(GiNaC::exvector const& Rp, std::array<GiNaC::ex, 3> const& rate, std::size_t N) const;
};

// "the kinetic energy is not that of points and bodies on one tree of joints: " and t's why:
// what a strategy over the tree says where there is none.
std::string no_tree(kinematic_tree const& t);

} // namespace lagc
