// The tree as links in each body's own axes at a reference configuration, for the recursive
// algorithms written there (local_newton_euler.cpp, local_articulated_body.cpp): each link's
// constants (its joint's axis, its turn and offset from its parent, its node's mass, first
// moment and inertia about its origin), so that each joint costs a few products with its own
// turn, whatever the directions of the offsets and axes.
//
// The tree is walked as links, one per joint, parents first: a node of several joints (a body
// of several hinges) is a chain of them, the last carrying the node's points and bodies. Each
// link's frame is fixed by the reference configuration q* (q = 0; a floating base's quaternion
// where its frame is the identity): its axes those of its node's first body at q* (the world's
// where it has none), its origin o a point on its joint's axis at q* (o = s × u / |s|² of the
// twist ∂p/∂q_j = s × p + u; a slide's link takes its parent's). A hinge turns the link by
// E = exp([a]× q_j) after the constant turn C from its parent's axes, a = the axis in its own
// axes, a unit vector; a slide moves it by d q_j. Everything an algorithm reads is then a
// constant of the tree at q*: each joint's a or d, each C and offset r (o less its parent's, in
// the parent's axes), each node's mass m, first moment h = Σ m c and inertia I about o (Σ m
// (|c|² 1 − c cᵀ) plus its bodies' inertias turned into the link's axes), held as
// local_frames.cpp's `tidied` says (exact: 17-digit decimals where they are not rationals of
// at most 128 bits over 128).
#pragma once

#include "derive/kinematic_tree.hpp"
#include "derive/spatial.hpp"

#include <optional>
#include <vector>

namespace lagc::local_frames {

using GiNaC::ex;
using GiNaC::exvector;
using spatial::vec3;

// One joint of the tree as the algorithm walks it: a node of several joints (a body of
// several hinges) is a chain of links, the last carrying the node's points and bodies, the
// others massless frames.
struct link {
    int parent = -1;  // the link before it; −1: the world, or the free root (free_root)
    std::size_t joint = 0;
    int node = -1;    // the node whose inertia it carries (the last link of its chain), else −1
    bool hinge = true;
    exvector B;       // its axes at q = 0 (world axes; its node's first body's where it carries one)
    vec3 axis;        // a (a hinge's unit axis) or d (a slide's direction), in its axes
    vec3 offset;      // r: its origin from its parent's, in the parent's axes
    vec3 origin;      // its origin at q = 0, world axes
    exvector C;       // its axes at q = 0 in its parent's (empty: the same)
    exvector E;       // exp([a]× q_j): a hinge's turn
    ex mass = 0;      // m, h and I (row-major) about its origin, in its axes
    vec3 moment = {0, 0, 0};
    exvector inertia = exvector(9, 0);
};

// A root node of several coordinates no order chains (a floating base): its body's frame R(q)
// and a point o(q) of it (its first point) as the model wrote them, its body's ω in its own
// axes (the rates of its rotational inertia), and its inertia about o as a link holds it.
struct free_root {
    int node = -1;
    std::vector<std::size_t> coordinates;
    exvector R;
    vec3 o, omega;
    link frame; // its frame at q*, its inertia about o
};

// The tree as links, parents first, and its free root where it has one.
struct walk {
    std::vector<link> links;
    std::optional<free_root> root;
};

// The tree's walk at q* (q = 0, `reference`'s values where given); why it does not fit, or
// null. Throws where a frame is not defined at q*. Its numbers are exact (17-digit decimals
// where they are not short rationals), not floating-point: GiNaC adds like terms in an order that
// changes from run to run (its hashes hold addresses), and float sums round differently in
// another order, so the algorithms wrote different code on each run (tried, 2026-11-29).
char const* walk_of(kinematic_tree const& t, std::vector<rotational_body> const& bodies, GiNaC::exmap const& reference,
                    walk& w);

// The velocity ȯ of the free root's point o, in the world's axes, as the model wrote o.
vec3 root_point_velocity(model const& m, free_root const& r);

// A vector of the parent's axes in the link's (Eᵀ Cᵀ v), and back (C E v), multiplied as
// `mul` says (spatial.hpp).
vec3 to_child(link const& f, vec3 const& v, spatial::multiplication mul = spatial::plain_product);
vec3 to_parent(link const& f, vec3 const& v, spatial::multiplication mul = spatial::plain_product);

} // namespace lagc::local_frames
