// Stage 3, structure the rate form can use (bilinear_form.cpp): which rates are angular
// velocities, and composite inertias along the velocity transports the model wrote.
#pragma once

#include "graph/expression_graph.hpp"
#include "derive/derive_support.hpp"
#include "derive/random_states.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

namespace lagc {

// The model's frames R with their Ṙ, and angular velocities ω, at two random states: which
// frame each ω turns, Ṙ = R [ω]× (ω in body axes) or Ṙ = [ω]× R (world axes). ω may be
// taken as a signed permutation of the triple given (ω_c = sign_c · omega[pi[c]]).
class frame_turns {
public:
    frame_turns(model const& m, std::vector<std::array<GiNaC::ex, 3>> const& omegas, std::uint64_t seed);
    bool evaluated() const { return evaluated_; }
    bool operator()(std::size_t frame, std::size_t omega, bool body, std::array<int, 3> const& pi = {0, 1, 2},
                    std::array<int, 3> const& sign = {1, 1, 1}) const;

private:
    samples s_;
    std::vector<std::size_t> frame_at_, rate_at_, omega_at_;
    bool evaluated_ = false;
};

// The angular velocities among the rates (bilinear_form::angular_velocity).
std::vector<bilinear_form::angular_velocity> angular_velocities(model const& m, bilinear_form const& f);

// The CRBA's composite inertias, for angular velocities the model transports
// (model::transport: w_k = X_k w_p + s_k, X_k free of q̇). When every term with w's rates
// is ½ wᵀ J w with a constant J, and each coordinate first enters one w (its s), then
// with Φ the products of the X along the tree:
//   Σ_W α(W)_iᵀ J_W α(W)_j = α(B)_iᵀ J^c_B α(B)_j,  J^c_B = J_B + Σ_children X_Cᵀ J^c_C X_C,
// for i entering at an ancestor of B (or at B) and j at B: O(n²) products instead of a sum
// over every body beyond both joints. The result is compared with the term-by-term sum at
// two random states before it is used (a structure misread falls back, it is not trusted).
class composite_inertia {
public:
    composite_inertia(model const& m, bilinear_form const& f);

    bool covers(std::size_t rate) const { return usable_ && rate_node_.count(rate) && eligible_[rate_node_.at(rate)]; }
    bool usable() const { return usable_; }

    // M's lower triangle from the covered rates, if it agrees with `term_by_term` (the same
    // rates' part of M as the gathered sums build it); false (nothing added) otherwise.
    bool add_to(GiNaC::exvector& M, GiNaC::exvector const& term_by_term) const;

    // h_i += α(B)_i·F^c_B (B: where i enters), F^c_B = F_B + Σ_children X_Cᵀ F^c_C, with F each
    // rate's force (indexed by rate), if it agrees with `term_by_term` (Σ α_ai F_a over the
    // covered rates); false (nothing added) otherwise.
    bool add_force(GiNaC::exvector& h, GiNaC::exvector const& F, GiNaC::exvector const& term_by_term,
                   GiNaC::exvector& added) const;
    // The covered triples as bodies: their rates (components of ω, as the model wrote them)
    // and J with ½ rᵀ J r their kinetic energy.
    struct body {
        std::array<GiNaC::ex, 3> rate;
        GiNaC::exvector J; // 3 × 3
    };
    std::vector<body> bodies() const;
    // The same sums unchecked (zero when not usable), for a caller that checks the whole
    // they are part of (M q̈, whose q̈ the random states lack).
    GiNaC::exvector forces(GiNaC::exvector const& F) const;

private:
    model const& m_;
    bilinear_form const& f_;
    std::size_t n_;
    bool usable_ = false;
    std::map<std::size_t, std::size_t> rate_node_;     // rate → its angular triple
    // A triple's rate without its numeric factor → (triple, component).
    std::map<GiNaC::ex, std::pair<std::size_t, std::size_t>, GiNaC::ex_is_less> by_key_;
    std::vector<char> eligible_;
    std::vector<int> parent_;
    std::vector<GiNaC::exvector> X_, J_, Jc_;                  // 3×3, in the triples' own order
    std::vector<int> intro_;                            // coordinate → the node it enters at

    GiNaC::ex const& alpha(std::size_t node, std::size_t c, std::size_t i) const;

    // The covered rates' part of M (add_to), with each far coordinate's α at the near
    // coordinate's node, or (`carry`) with J^c α of the near one carried up to the far one's.
    GiNaC::exvector mass_sums(bool carry) const;

    // Which node and component an expression is, and the number κ with rate = κ expression.
    std::optional<std::tuple<std::size_t, std::size_t, GiNaC::ex>> find(GiNaC::ex const& e) const;

    void nodes();

    // J_W of ½ wᵀ J w: only constant terms within one triple.
    void inertias();

    bool ancestor(int a, int b) const { // a is b or above it
        for (std::size_t steps = 0; b >= 0 && steps <= parent_.size(); ++steps, b = parent_[b])
            if (a == b) return true;
        return false;
    }

    bool tree() { // no cycles; parents of eligible nodes are eligible or absent
        for (std::size_t w = 0; w < parent_.size(); ++w) {
            int b = static_cast<int>(w);
            std::size_t steps = 0;
            while (b >= 0 && steps++ <= parent_.size()) b = parent_[b];
            if (b >= 0) return false;
            if (eligible_[w] && parent_[w] >= 0 && !eligible_[parent_[w]]) parent_[w] = -1;
        }
        return true;
    }

    // Each coordinate enters one eligible node, and every eligible node it moves is below it.
    bool coordinates();

    void composite();

    std::vector<std::size_t> children_first() const;
};

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
    bool usable() const { return usable_; }
    // M's and h's shares of the covered rates, if they agree with the term-by-term ones and
    // make M and h smaller; false (nothing added) otherwise. `compact_delta` (n entries)
    // receives what turns h into another h to evaluate, with the points' accelerations
    // taken recursively (recursive_forces), where that agrees (the caller keeps it where it
    // is smaller); h itself keeps the form whose derivatives are smaller. `share` receives
    // what was added to h.
    bool add(GiNaC::exvector& M, GiNaC::exvector& h, GiNaC::exvector const& M_term_by_term,
             GiNaC::exvector const& h_term_by_term, GiNaC::exvector& compact_delta, GiNaC::exvector& share) const;
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

    // The points' shares of ∂τ/∂q and of C = ½ ∂h/∂q̇ (the Christoffel C's share) from the
    // composites, as the analytic RNEA derivatives form them (point_derivatives.cpp): a few
    // products of 6-vectors per pair of joints; with `bodies` (composite_inertia's), their
    // rotational inertia too, as R J Rᵀ in world axes at the node whose frame turns them
    // (empty result where one has no frame R with Ṙ = R [ω]× or no such node). Unchecked
    // (the caller compares them with the shares' derivatives at random states); empty where
    // a node has more than one joint.
    struct share_derivatives {
        GiNaC::exvector dtau_dq, coriolis; // n × n, row-major: ∂τ_i/∂q_k, C_ik
    };
    // With `gravity` (γ of gravity()), the shares are those of h + ∂V/∂q: the base accelerates
    // by γ (the RNEA's a₀ = −g), which turns every point's weight into inertia.
    share_derivatives derivatives(GiNaC::exvector const& qdd, std::vector<composite_inertia::body> const& bodies,
                                  std::array<GiNaC::ex, 3> const* gravity = nullptr) const;

    // q̈ by the articulated-body algorithm (Featherstone's ABA) over the composites' tree, in
    // world axes at the origin (point_recursive.cpp), where every coordinate is the joint of
    // one node and every node has one: τ the generalized forces besides the tree's inertia
    // (and, with `gravity`, γ of gravity(), besides its weights). `pivots` are each joint's
    // D = Sᵀ I^A S, all positive exactly where M is positive definite. Empty otherwise.
    // Unchecked: the caller compares q̈ with M⁻¹(Q − h − ∂V/∂q) at random states.
    struct articulated_solution {
        GiNaC::exvector qdd, pivots; // by coordinate
    };
    articulated_solution articulated(std::vector<composite_inertia::body> const& bodies,
                                     std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& tau) const;
    // The same where the root node has several coordinates that no order chains (a floating
    // base: three translations and a quaternion) and constraints may hold on them alone
    // (point_floating.cpp): every other node's joints in their order (a body of several
    // hinges as a chain of massless frames), `armature` added to each joint's pivot (½ a q̇²
    // terms of T), and at the root the system [[Sᵀ I^A S + diag(a), Aᵀ], [A, 0]] [q̈; λ] =
    // [τ − Sᵀ p^A; r] of its own coordinates, solved as M + ρ AᵀA with ρ = tr / tr. `A` is
    // nc × n (row-major), `r` nc; `pivots` are the joints' D, then the root system's LDLᵀ
    // pivots (`root_pivots` of them), then its Schur complement's (nc): all positive where
    // the whole system is regular. Empty where it does not apply. Unchecked, as above.
    struct constrained_solution {
        GiNaC::exvector qdd, lambda, pivots;
        std::size_t joint_pivots = 0, root_pivots = 0;
        std::string why = {}; // why it does not apply, where it does not
    };
    constrained_solution floating_articulated(std::vector<composite_inertia::body> const& bodies,
                                              std::array<GiNaC::ex, 3> const* gravity, GiNaC::exvector const& tau,
                                              GiNaC::exvector const& armature, GiNaC::exvector const& A,
                                              GiNaC::exvector const& r) const;

    // Turns the composites into the axes of the root body's frame, about its origin
    // (point_frame.cpp): M, h and ∂V/∂q from them hold fewer terms where the root turns.
    // False (nothing changed) where no frame of the model fits. After it, gravity() and
    // derivatives() offer nothing (formed in world axes), nor articulated() unless the root
    // is one joint with a constant twist in F.
    bool root_frame();
    bool framed() const { return !frame_.empty(); }
    // A vector of world axes in the root body's (R_Fᵀ v), and a frame of the tree beyond the
    // root as seen from the root's (its value where the root's frame is the identity).
    std::array<GiNaC::ex, 3> in_root_axes(std::array<GiNaC::ex, 3> const& v) const;
    GiNaC::exvector in_root_axes(GiNaC::exvector const& R) const;

private:
    struct point {
        // position: as written less origin_ (the composites' reference point)
        std::array<GiNaC::ex, 3> position, kappa; // rate = κ der(p)[c]
        std::array<GiNaC::ex, 3> acceleration;    // d/dt der(p) at q̈ = 0
        std::size_t source;                       // in model::points
        std::array<int, 3> rate;                  // −1: that element of der(p) is zero
        GiNaC::ex mass;
    };
    struct node {
        std::vector<char> members; // the points its coordinates move
        int parent;
        std::vector<std::size_t> own; // members not in a child
        std::size_t size;
    };
    model const& m_;
    bilinear_form const& f_;
    std::size_t n_;
    bool usable_ = false;
    std::vector<point> points_;
    // A constant point most positions share (the part of their sums free of q, u and t:
    // a base at height 0.333 m), taken off every position (common_origin): M, h and the
    // recursive algorithms are the same about any point, and their terms are fewer about
    // this one.
    std::array<GiNaC::ex, 3> origin_ = {0, 0, 0};
    void common_origin();
    // After root_frame(): R_F, the positions in world axes (less origin_), and whether the
    // root is one coordinate of a constant twist in F (the RNEA's accelerations then hold).
    GiNaC::exvector frame_;
    GiNaC::exmap frame_identity_;
    std::vector<std::array<GiNaC::ex, 3>> written_;
    bool single_fixed_root_ = false;
    // After root_frame(): the root's coordinates, F's body ω and ω̇ and its origin's
    // acceleration in its axes (R_Fᵀ ö_F), at q̈ = 0.
    std::vector<std::size_t> root_coordinates_;
    // The root's translations (σ = 0) and ∂o_F/∂q_i in world axes: M's entries between two
    // of them are m^c (R_Fᵀ d_i)·(R_Fᵀ d_j) = m^c d_i·d_j, R_F a rotation.
    std::map<std::size_t, std::array<GiNaC::ex, 3>> root_translations_;
    std::array<GiNaC::ex, 3> root_omega_, root_omega_dot_, root_base_;
    struct root_axes {
        GiNaC::exvector R;                      // R_F (turned to be the identity at `identity`)
        GiNaC::exmap identity;                  // the root coordinates' values where R_F = I
        std::vector<std::array<GiNaC::ex, 3>> sigma; // per root coordinate: ∂ω/∂q̇_i
        std::array<GiNaC::ex, 3> omega;         // F's body angular velocity
    };
    std::vector<root_axes> root_frames_of(std::vector<std::size_t> const& C) const;
    // F's origin o_F, its value o* at F's identity, and each point's r of p = o_F + R_F r
    // (its position there, less o*).
    struct root_positions {
        std::array<GiNaC::ex, 3> origin, at_identity;
        std::vector<std::array<GiNaC::ex, 3>> r;
    };
    std::optional<root_positions> root_origin(root_axes const& F, std::vector<std::size_t> const& C) const;
    std::map<std::size_t, std::size_t> rate_point_;
    std::vector<std::array<GiNaC::ex, 3>> s_, u_;
    std::vector<std::vector<std::array<GiNaC::ex, 3>>> axis_candidates_; // per coordinate (axes())
    std::vector<std::vector<char>> moves_;
    std::vector<node> nodes_;
    std::vector<int> node_of_; // coordinate → node (−1: moves no point)
    GiNaC::exvector mass_;
    std::vector<std::array<GiNaC::ex, 3>> moment_;
    std::vector<GiNaC::exvector> K_;

    bool points(composite_inertia const& rotational);
    bool root_accelerations(root_axes const& F, std::array<GiNaC::ex, 3> const& o, std::vector<point>& moved);
    bool root_twists_hold(GiNaC::exvector const& R, std::vector<point> const& moved,
                          std::vector<std::array<GiNaC::ex, 3>> const& s, std::vector<std::array<GiNaC::ex, 3>> const& u) const;
    bool axes();
    bool twists();
    void on_axes();
    void choose_axes(std::vector<std::vector<std::array<GiNaC::ex, 3>>> const& J);
    bool tree();
    void composite();
    std::vector<std::size_t> children_first() const;
    GiNaC::exvector mass_matrix() const;
    // The points' weights w with V = Σ w·p (plus terms free of q), each term of V one point's
    // coordinate times a factor free of q; nothing where a term is not, unless `other` is
    // given: such terms are added to it.
    std::optional<std::vector<std::array<GiNaC::ex, 3>>> weights(GiNaC::ex* other = nullptr) const;
    GiNaC::exvector generalized(std::vector<std::array<GiNaC::ex, 3>> const& f) const;
    std::array<std::vector<std::array<GiNaC::ex, 3>>, 2> sums_down(GiNaC::exvector const& w) const;
    std::vector<std::array<GiNaC::ex, 3>> recursive_forces() const;
    std::vector<int> joints() const;
    // Each node's joints in their order (a body of several hinges: a joint's twist turns
    // with those before it, not with those after), the root's coordinates left out where
    // `floating` (they move F, and the accelerations add F's own terms), and those of node
    // `skipped`; empty where the order is not clear.
    std::vector<std::vector<std::size_t>> joint_chains(bool floating, int skipped = -1) const;
    // The one node without a parent and its coordinates R, where every coordinate moves
    // points and A (nc rows) has entries in R's columns only; −1 otherwise.
    int floating_root(GiNaC::exvector const& A, std::size_t nc, std::vector<std::size_t>& R) const;
    // The world-axes inertia of each body and the node it belongs to (false: one has none).
    bool place(std::vector<composite_inertia::body> const& bodies, std::vector<GiNaC::exvector>& K) const;
    bool turns_joint_axes(GiNaC::exvector const& Rp, std::array<GiNaC::ex, 3> const& rate, std::size_t N) const;
    std::array<std::vector<std::array<GiNaC::ex, 3>>, 2> velocity_accelerations(
        std::vector<std::vector<std::size_t>> const& chains, std::vector<std::array<GiNaC::ex, 3>> const& Omega,
        std::vector<std::array<GiNaC::ex, 3>> const& V) const;
};

// The bodies' rotational inertias as the model wrote them (model::quadratic_forms).
std::vector<composite_inertia::body> rotational_bodies(model const& m);

// τ besides the tree's inertia (and, with uniform gravity, besides its weights): Q − ∂V/∂q,
// or Q − ∂(V's other terms)/∂q where gravity is the base's acceleration instead (the
// articulated-body strategies, point_recursive.cpp and point_floating.cpp).
GiNaC::exvector joint_forces(model const& m, derived const& d,
                             std::optional<point_composite::uniform_gravity> const& gravity);

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
};

} // namespace lagc
