// Stage 3, the control API: inverse dynamics, the input matrix and the residual Jacobians
// that make A = ∂ẋ/∂x and B = ∂ẋ/∂u exact derivatives of forward_dynamics' q̈.
//
// At a solution of M q̈ + h + Aᵀλ = Q, A q̈ = r (r: the Baumgarte right-hand side), the
// residuals R = M q̈ + h − Q + Aᵀλ and S = A q̈ − r vanish. Differentiating along x with q̈
// and λ as functions of x (implicit function theorem):
//   [[M, Aᵀ], [A, 0]] [∂q̈/∂x; ∂λ/∂x] = −[∂R/∂x; ∂S/∂x]   (q̈ and λ held fixed in ∂R, ∂S),
// so the generated linearization evaluates −∂R/∂x and −∂S/∂x at forward_dynamics'
// solution and solves with the same factorisations: one factorisation and 2nq + nu
// solves instead of 4nq + 2nu calls of forward_dynamics for central differences.
// The derivatives themselves are taken on the code generator's DAG (differentiate.cpp),
// where shared subexpressions are differentiated once.
#include "derive/derive_support.hpp"
#include "symbolic/chain_rule.hpp"
#include "derive/rate_structure.hpp"
#include "derive/tree_algorithms.hpp"
#include "symbolic/simplify.hpp"
#include "derive/random_states.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

exvector bias_parts(derived const& d, std::size_t i, bool evaluated) {
    if (evaluated && !d.bias_compact.empty()) return {d.bias_compact[i]};
    if (d.velocity_bias.empty()) return {d.bias[i]};
    return {d.velocity_bias[i], d.potential_gradient[i]};
}

namespace {

// Σ_j M_ij q̈_j, q̈ as derived::qdd's symbols: the form every other M q̈ is checked against.
exvector mass_times_qdd(derived const& d) {
    std::size_t const n = d.nq;
    exvector out(n);
    for (std::size_t i = 0; i < n; ++i) {
        ex mq = 0;
        for (std::size_t j = 0; j < n; ++j) mq += d.mass_matrix[i * n + j] * d.qdd[j];
        out[i] = mq;
    }
    return out;
}

// M q̈ as the generalized momentum at velocity q̈: for T = ½ q̇ᵀ M q̇ (homogeneous of
// degree two in q̇, no 'lagrangian' terms: exactly when coriolis_matrix applies),
// ∂/∂q̇_i (Σ_j ∂T/∂q̇_j q̈_j) = (M q̈)_i. Taken by the chain rule on T's own structure it is
// Σ_bodies (∂v/∂q̇_i)·(m v at q̈): each body's velocity at q̈ once, then one product per
// joint, where Σ_j M_ij q̈_j has n² entries of M. Smaller for relative-angle chains (10
// links: 735 operations instead of 1,181), larger where M is simpler than T as written
// (sin² + cos² = 1 applied to M, composite inertias); its derivatives, which the
// linearization takes, can be much smaller (n² derivatives of n terms, not of n² entries).
// Checked against Σ_j M_ij q̈_j at two random states (parameters and q̈ random too).
struct momentum_form {
    exvector p;                        // (M q̈)_i; empty when T is not of the form or the check fails
    std::size_t operations = 0;        // of p, as converted (before CSE's rewrites)
    double derivative_work = 0;        // of p's derivatives along q, q̇, with h's (the residual's)
};

struct momentum_forms {
    momentum_form smallest, smallest_derivatives; // for inverse_dynamics, for the residual
    std::size_t matrix_operations = 0;  // of Σ_j M_ij q̈_j, the same way
    double matrix_derivative_work = 0;
};

// The candidates: the momentum of T by the chain rule on T's structure, and the rate
// form's with its composites (momentum_from_bilinear_form: the CRBA's and RNEA's sums,
// whose derivatives along q are O(n²) where T's are O(n³)), each checked against
// Σ_j M_ij q̈_j at two random states (parameters and q̈ random too).
momentum_forms momentum_at_qdd(model const& m, derived const& d, rate_structures const* rs) {
    std::size_t const n = d.nq;
    momentum_forms out;
    if (!d.coriolis_reason.empty() || m.kinetic.is_zero()) return out;
    exvector const qdd(d.qdd.begin(), d.qdd.end());
    std::vector<exvector> candidates;
    ex const s = directional_derivative(m.kinetic, m.qd, qdd);
    exvector p(n);
    for (std::size_t i = 0; i < n; ++i)
        p[i] = simplify(partial(s, m.qd[i]));
    candidates.push_back(std::move(p));
    if (rs)
        if (exvector c = momentum_from_bilinear_form(m, *rs, qdd); !c.empty()) candidates.push_back(std::move(c));
    std::vector<std::string> order;
    auto symbols = graph_spellings(m, order);
    for (std::size_t i = 0; i < n; ++i) {
        symbols[d.qdd[i].get_name()] = {"qdd[" + std::to_string(i) + "]", "x"};
        order.push_back("qdd[" + std::to_string(i) + "]");
    }
    expression_graph g(symbols, codegen_options::for_values());
    std::vector<int> product;
    for (ex const& mq : mass_times_qdd(d)) product.push_back(g.add(mq));
    std::vector<std::vector<int>> roots(candidates.size());
    for (std::size_t c = 0; c < candidates.size(); ++c)
        for (std::size_t i = 0; i < n; ++i) roots[c].push_back(g.add(candidates[c][i]));
    std::vector<char> agrees(candidates.size(), 1);
    std::uint64_t state = 0x6d6f6d656e74ull;
    for (int k = 0; k < 2; ++k) {
        std::vector<double> point = random_point(m, state, parameter_values::random);
        for (std::size_t i = 0; i < n; ++i) point.push_back(std::sin(0.7 * static_cast<double>(point.size()) + k));
        std::vector<double> const b = g.evaluate_all(product, order, point);
        for (std::size_t c = 0; c < candidates.size(); ++c)
            if (!values_agree(g.evaluate_all(roots[c], order, point), b)) agrees[c] = 0;
    }
    std::vector<std::string> x(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(2 * n));
    // The linearization differentiates M q̈ and h together, and they share parts: each form's
    // derivatives are sized with h's (a 4-joint arm: the composite form alone looked smaller).
    std::vector<int> bias;
    for (std::size_t i = 0; i < n; ++i) bias.push_back(g.add_parts(bias_parts(d, i, false)));
    auto with_bias = [&](std::vector<int> r) {
        r.insert(r.end(), bias.begin(), bias.end());
        return r;
    };
    out.matrix_operations = g.operation_count(product);
    out.matrix_derivative_work = g.derivative_work(with_bias(product), x);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (!agrees[c]) continue;
        momentum_form mf{candidates[c], g.operation_count(roots[c]), g.derivative_work(with_bias(roots[c]), x)};
        if (out.smallest.p.empty() || mf.operations < out.smallest.operations) out.smallest = mf;
        if (out.smallest_derivatives.p.empty() || mf.derivative_work < out.smallest_derivatives.derivative_work)
            out.smallest_derivatives = mf;
    }
    return out;
}

// The analytic derivatives `sh` against directional derivatives (random directions δ, ε:
// a wrong entry shows in J δ at a random state) of the shares they stand for — hs of h, ps
// of M q̈ — on the code generator's DAG at two random states, q̈ random too; and p = M q̈
// where p is given.
// Two forward passes over the shares, not 2n.
bool agree_on_graph(model const& m, derived const& d, exvector const& p, exvector const& hs, exvector const& ps,
                    share_derivatives const& sh) {
    std::size_t const n = d.nq;
    std::vector<std::string> order;
    auto symbols = graph_spellings(m, order);
    std::vector<GiNaC::symbol> delta, epsilon;
    auto variable = [&](GiNaC::symbol const& x, std::string const& spelled) {
        symbols[x.get_name()] = {spelled, "x"};
        order.push_back(spelled);
    };
    for (std::size_t i = 0; i < n; ++i) {
        variable(d.qdd[i], "qdd[" + std::to_string(i) + "]");
        delta.emplace_back("delta" + std::to_string(i)), epsilon.emplace_back("epsilon" + std::to_string(i));
        variable(delta.back(), "delta[" + std::to_string(i) + "]");
        variable(epsilon.back(), "epsilon[" + std::to_string(i) + "]");
    }
    expression_graph g(symbols, codegen_options::for_values());
    int const along_q = g.variable_node("along q"), along_qd = g.variable_node("along qd");
    std::vector<int> shares, halves, actual, claimed;
    for (std::size_t i = 0; i < n; ++i) {
        shares.push_back(g.add(hs[i] + ps[i]));
        halves.push_back(g.add(hs[i] / 2));
        g.set_tangent(g.variable_node(order[i]), along_q, g.variable_node("delta[" + std::to_string(i) + "]"));
        g.set_tangent(g.variable_node(order[n + i]), along_qd, g.variable_node("epsilon[" + std::to_string(i) + "]"));
    }
    actual = g.jacobian(shares, {along_q});
    for (int x : g.jacobian(halves, {along_qd})) actual.push_back(x);
    for (auto const& [matrix, direction] : {std::pair{&sh.dtau_dq, &delta}, std::pair{&sh.coriolis, &epsilon}})
        for (std::size_t i = 0; i < n; ++i) {
            ex e = 0;
            for (std::size_t k = 0; k < n; ++k) e += (*matrix)[i * n + k] * (*direction)[k];
            claimed.push_back(g.add(e));
        }
    if (!p.empty()) {
        exvector const mq = mass_times_qdd(d);
        for (std::size_t i = 0; i < n; ++i) actual.push_back(g.add(mq[i])), claimed.push_back(g.add(p[i]));
    }
    std::uint64_t state = 0x64746175ull;
    for (int k = 0; k < 2; ++k) {
        std::vector<double> point = random_point(m, state, parameter_values::random);
        for (std::size_t i = 0; i < n; ++i) {
            double const x = 0.9 * static_cast<double>(i) + k;
            point.insert(point.end(), {std::cos(x), std::sin(1.3 * x + 0.4), std::cos(2.1 * x + 1.1)});
        }
        if (!values_agree(g.evaluate_all(actual, order, point), g.evaluate_all(claimed, order, point))) return false;
    }
    return true;
}

// The same, false where they cannot be judged (a number of theirs leaves the doubles).
bool agree(model const& m, derived const& d, exvector const& p, exvector const& hs, exvector const& ps,
           share_derivatives const& sh) {
    try {
        return agree_on_graph(m, d, p, hs, ps, sh);
    } catch (std::exception const&) { // a number past the doubles, say: not judged
        return false;
    }
}

// ∂τ/∂q, C and ∂τ/∂q̇ = 2 C from `sh`, with the rest of each residual row (`rest`, to which
// the constraints' Aᵀλ is added) and of h.
derived::composite_derivatives derivatives_with(derived const& d, share_derivatives const& sh, std::vector<exvector> rest,
                                                exvector bias_rest, bool bodies, bool gravity) {
    std::size_t const n = d.nq, nc = d.nc;
    derived::composite_derivatives out{d.residual_rows, std::move(bias_rest), sh.dtau_dq, sh.coriolis, {}, bodies, gravity};
    for (ex const& c : sh.coriolis) out.dtau_dqd.push_back(2 * c);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < nc; ++k) rest[i].push_back(d.constraint_jacobian[k * n + i] * d.lambda[k]);
        out.residual_rest[i] = std::move(rest[i]);
    }
    return out;
}

// The composites' analytic derivatives (rnea_derivatives, tree_algorithms.hpp) for the points and
// the rotational bodies the composites cover (else for the points alone), with uniform
// gravity (else without), the first of those that agrees, with the rest of the rows:
// R_i − (h° + p°)_i = (h_i − h°_i) + (p_i − p°_i) − Q_i + … (h°, p°:
// the shares as h and the rate form's momentum p hold them, so that GiNaC cancels them term
// by term; p is M q̈ whichever form the residual rows took).
void composite_derivatives(model const& m, derived& d, rate_structures const& rs) {
    std::size_t const n = d.nq;
    if (d.bias_point_share.size() != n || d.bias_body_share.size() != n || !d.velocity_bias.empty()) return;
    exvector const qdd(d.qdd.begin(), d.qdd.end());
    exvector both;
    exvector const p = momentum_from_bilinear_form(m, rs, qdd, &both);
    if (p.size() != n) return;
    std::vector<rotational_body> const bodies = rs.rotational.bodies();
    // Where V is uniform gravity on the points (point_composite::gravity), ∂V/∂q joins the
    // shares: its derivatives then come with the rest's (a constant base acceleration), not
    // by forward mode (the 10-joint arm's linearization: 2,330 operations).
    auto const gravity = rs.points.gravity();
    share_derivatives sh;
    exvector hs, ps;
    bool with_bodies = false, with_gravity = false;
    for (int attempt = 0; attempt < 4 && sh.dtau_dq.empty(); ++attempt) {
        with_bodies = attempt < 2, with_gravity = attempt % 2 == 0;
        if ((with_bodies && bodies.empty()) || (with_gravity && !gravity)) continue;
        hs = d.bias_point_share, ps = with_bodies ? both : rs.sums().momentum(qdd);
        for (std::size_t i = 0; i < n; ++i) {
            if (with_bodies) hs[i] += d.bias_body_share[i];
            if (with_gravity) hs[i] += d.potential_gradient[i] - partial(gravity->other, m.q[i]);
        }
        sh = rnea_derivatives(rs.points.tree(), qdd, with_bodies ? bodies : std::vector<rotational_body>{},
                              with_gravity ? &gravity->g : nullptr);
        if (!sh.dtau_dq.empty() && !agree(m, d, p, hs, ps, sh)) sh = {};
    }
    if (sh.dtau_dq.empty()) return;
    exvector bias_rest;
    std::vector<exvector> rest;
    for (std::size_t i = 0; i < n; ++i) {
        bias_rest.push_back(d.bias[i] - hs[i]);
        rest.push_back({bias_rest[i], p[i] - ps[i], -d.generalized_forces[i]});
    }
    d.point_derivatives = derivatives_with(d, sh, std::move(rest), std::move(bias_rest), with_bodies, with_gravity);
}

// The same for the whole tree, from its Newton–Euler τ in the bodies' own axes where inverse
// dynamics kept it (derived::inverse_dynamics_recursive: the tree's τ, then the forces besides
// it): ∂τ/∂q and C built link by link (local_rnea_derivatives), checked against that τ's own
// derivatives at random states. The rest of each residual row is the rest of that row (the
// forces besides the tree, the armature's a q̈) with the constraints' Aᵀλ; of h, Q less those
// forces (h − Q = τ − forces at q̈ = 0).
void recursive_derivatives(model const& m, derived& d, rate_structures const& rs) {
    std::size_t const n = d.nq;
    auto const& rows = d.inverse_dynamics_recursive;
    std::string& why = d.recursive_derivatives_why;
    if (rows.size() != n || !d.velocity_bias.empty()) {
        why = "no inverse dynamics by Newton-Euler in the bodies' axes to differentiate";
        return;
    }
    auto const gravity = rs.points.gravity();
    share_derivatives sh;
    try {
        sh = local_rnea_derivatives(rs.points.tree(), rotational_bodies(m), gravity ? &gravity->g : nullptr,
                                    exvector(d.qdd.begin(), d.qdd.end()), rs.reference());
    } catch (std::exception const& e) { // q = 0 where a frame is not defined there, say
        sh.why = std::string("its constants at q = 0 could not be formed: ") + e.what();
    }
    if (sh.dtau_dq.empty()) {
        why = sh.why;
        return;
    }
    exvector tau;
    for (auto const& row : rows) tau.push_back(row.front());
    if (!agree(m, d, {}, tau, exvector(n, 0), sh)) {
        why = "they differ from the derivatives of Newton-Euler's tau at random states, or could not be judged";
        return;
    }
    exvector bias_rest;
    std::vector<exvector> rest;
    for (std::size_t i = 0; i < n; ++i) {
        rest.emplace_back(rows[i].begin() + 1, rows[i].end());
        bias_rest.push_back(d.generalized_forces[i] + rows[i][1]);
    }
    d.recursive_derivatives = derivatives_with(d, sh, std::move(rest), std::move(bias_rest), true, gravity.has_value());
}

} // namespace

namespace {

void derive_task_space(model const& m, derived& d) {
    for (auto const& out : m.outputs) {
        derived::output_derivatives o;
        if (!out.reads_velocities && !out.reads_inputs)
            for (auto const& y : out.val.elems) {
                for (auto const& q : m.q) o.jacobian.push_back(partial(y, q));
                // ÿ with q̈ = 0: d/dt twice, q̇ held constant the second time.
                o.drift.push_back(total_time_derivative(total_time_derivative(y, m), m));
            }
        d.outputs.push_back(std::move(o));
    }
    for (std::size_t k = 0; k < d.nc; ++k) {
        bool const holonomic = k < d.holonomic_rows;
        ex const& c = d.constraint_residuals[k];
        d.constraint_velocity.push_back(holonomic ? total_time_derivative(c, m) : c);
    }
}

// h − Q by the recursive Newton–Euler algorithm at q̈ = 0 (the rows of
// recursive_inverse_dynamics there: its armature's term vanishes), its products plain (fewer
// operations here; local_newton_euler.cpp), kept where they agree with h − Q as derived at
// three random states.
void recursive_bias(model const& m, derived& d, rate_structures const& rs, exvector const& forces) {
    std::size_t const n = d.nq;
    auto const gravity = rs.points.gravity();
    newton_euler_solution x;
    try {
        x = local_newton_euler(rs.points.tree(), rotational_bodies(m), gravity ? &gravity->g : nullptr, exvector(n, 0),
                               rs.reference(), spatial::plain_product);
    } catch (std::exception const&) {
        return;
    }
    if (x.tau.size() != n) return;
    std::vector<exvector> rows(n), difference(n);
    for (std::size_t i = 0; i < n; ++i) {
        rows[i] = {x.tau[i], -forces[i]};
        difference[i] = {-x.tau[i], forces[i], -d.generalized_forces[i]};
        for (ex const& e : bias_parts(d, i, true)) difference[i].push_back(e);
    }
    if (rows_verdict_at_random_states(m, difference, {}, 0x62696173ull) == rows_verdict::vanish)
        d.bias_recursive = std::move(rows);
}

// τ by the recursive Newton–Euler algorithm in the tree's own axes, less the forces besides
// the tree's inertia (and its weights, where gravity is uniform), kept where its rows and
// inverse_dynamics' sum to the same at three random states, q̈ at fixed values.
void recursive_inverse_dynamics(model const& m, derived& d, rate_structures const& rs) {
    std::size_t const n = d.nq;
    auto const gravity = rs.points.gravity();
    exvector const qdd(d.qdd.begin(), d.qdd.end());
    // The frames' constants at q = 0, a floating base's where its frame is the identity.
    GiNaC::exmap const reference = rs.reference();
    newton_euler_solution x;
    try {
        x = local_newton_euler(rs.points.tree(), rotational_bodies(m), gravity ? &gravity->g : nullptr, qdd, reference);
    } catch (std::exception const& e) { // q = 0 where a frame is not defined there, say
        x.why = std::string("its constants at q = 0 could not be formed: ") + e.what();
    }
    if (x.tau.empty()) {
        d.inverse_dynamics_recursive_why = x.why;
        return;
    }
    // With the rotors' ½ a q̇² terms of T (armature) where the tree does not hold them (a
    // kinetic statement free of q may be a point the tree holds: a cart).
    exvector const forces = joint_forces(m, d, gravity), armature = armatures(m);
    bool const armed = std::any_of(armature.begin(), armature.end(), [](ex const& a) { return !a.is_zero(); });
    std::vector<exvector> rows(n);
    GiNaC::exmap at;
    for (std::size_t i = 0; i < n; ++i)
        at[d.qdd[i]] = GiNaC::numeric(i % 2 ? -static_cast<long>(2 * i + 3) : static_cast<long>(2 * i + 3),
                                      static_cast<long>(i + 7));
    auto const agrees = [&](bool with_armature) {
        std::vector<exvector> difference(n);
        for (std::size_t i = 0; i < n; ++i) {
            rows[i] = {x.tau[i], -forces[i]};
            if (with_armature && !armature[i].is_zero()) rows[i].push_back(armature[i] * d.qdd[i]);
            difference[i] = d.inverse_dynamics[i];
            for (ex const& part : rows[i]) difference[i].push_back(-part);
        }
        return rows_verdict_at_random_states(m, difference, at, 0x726e6561ull);
    };
    // The last try's verdict: without armature a model that has some differs, whatever the
    // try with it could judge.
    rows_verdict v = agrees(false);
    if (v != rows_verdict::vanish && armed) v = agrees(true);
    if (v != rows_verdict::vanish) {
        d.inverse_dynamics_recursive_why =
            v == rows_verdict::differ
                ? "it differs from M q̈ + h − Q at random states (terms of T or V outside the tree)"
                : "its agreement with M q̈ + h − Q could not be judged (a value past the doubles)";
        return;
    }
    d.inverse_dynamics_recursive = std::move(rows);
    if (d.nc == 0) recursive_bias(m, d, rs, forces); // the closed form takes it without constraints only
}

// M by the composite-rigid-body algorithm in the tree's own axes, kept where its lower
// triangle and mass_matrix's agree at three random states (with the rotors' armature where
// the tree does not hold it, as above).
void recursive_mass_matrix(model const& m, derived& d, rate_structures const& rs) {
    std::size_t const n = d.nq;
    if (n == 0 || d.mass_matrix.size() != n * n) {
        d.mass_matrix_recursive_why = "the model has no coordinates, or no M of them";
        return;
    }
    exvector const armature = armatures(m);
    bool const armed = std::any_of(armature.begin(), armature.end(), [](ex const& a) { return !a.is_zero(); });
    rows_verdict v = rows_verdict::unjudged;
    for (bool with_armature : {false, true}) {
        if (with_armature && !armed) break;
        mass_solution x;
        try {
            x = local_composite_rigid_body(rs.points.tree(), rotational_bodies(m), with_armature ? armature : exvector{},
                                           rs.reference());
        } catch (std::exception const& e) { // q = 0 where a frame is not defined there, say
            d.mass_matrix_recursive_why = std::string("its constants at q = 0 could not be formed: ") + e.what();
            return;
        }
        if (x.M.empty()) {
            d.mass_matrix_recursive_why = x.why;
            return;
        }
        // Each entry at the scale of its row's and column's diagonal (|M_ij| ≤ √(M_ii M_jj)),
        // carried as parts that cancel: an entry that M holds as 0 and the algorithm as a sum
        // that cancels (a floating root's hinges, 1e-18) is round-off at that scale.
        std::vector<exvector> rows;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                ex const &Mii = d.mass_matrix[i * n + i], &Mjj = d.mass_matrix[j * n + j];
                rows.push_back({x.M[i * n + j], -d.mass_matrix[i * n + j], Mii, -Mii, Mjj, -Mjj});
            }
        v = rows_verdict_at_random_states(m, rows, {}, 0x63726261ull); // the last try's says why
        if (v == rows_verdict::vanish) {
            d.mass_matrix_recursive = std::move(x.M);
            return;
        }
    }
    d.mass_matrix_recursive_why = v == rows_verdict::differ
                                      ? "it differs from M at random states (terms of T outside the tree)"
                                      : "its agreement with M could not be judged (a value past the doubles)";
}

} // namespace

void derive_control(model const& m, derived& d, rate_structures const* rs) {
    derive_task_space(m, d);
    std::size_t const n = d.nq, nc = d.nc;
    for (std::size_t i = 0; i < n; ++i) d.qdd.emplace_back("qdd" + std::to_string(i));
    for (std::size_t k = 0; k < nc; ++k) d.lambda.emplace_back("lambda" + std::to_string(k));
    // τ_i = Σ_j M_ij q̈_j + h_i − Q_i, and R_i = τ_i + Σ_k A_ki λ_k.
    d.inverse_dynamics.assign(n, {});
    d.residual_rows.assign(n + nc, {});
    // inverse_dynamics takes the form of M q̈ with fewer operations; the residual, which the
    // linearization differentiates along q and q̇, the one whose derivatives are smaller
    // (an absolute-angle chain: M q̈ itself; a relative-angle chain or a 3-D arm: momentum).
    momentum_forms const mf = momentum_at_qdd(m, d, rs);
    bool const for_tau = !mf.smallest.p.empty() && mf.smallest.operations < mf.matrix_operations;
    bool const for_residual =
        !mf.smallest_derivatives.p.empty() && mf.smallest_derivatives.derivative_work < mf.matrix_derivative_work;
    auto with_matrix = [&](exvector parts, std::size_t i) {
        for (std::size_t j = 0; j < n; ++j) parts.push_back(d.mass_matrix[i * n + j] * d.qdd[j]);
        return parts;
    };
    for (std::size_t i = 0; i < n; ++i) {
        // inverse_dynamics evaluates h (its compact form where there is one); the residual
        // differentiates it (derived::bias_compact).
        exvector tau = bias_parts(d, i, true), residual = bias_parts(d, i, false);
        tau.push_back(-d.generalized_forces[i]);
        residual.push_back(-d.generalized_forces[i]);
        if (for_residual) residual.push_back(mf.smallest_derivatives.p[i]);
        else residual = with_matrix(residual, i);
        if (for_tau) tau.push_back(mf.smallest.p[i]);
        else tau = with_matrix(tau, i);
        d.inverse_dynamics[i] = std::move(tau);
        for (std::size_t k = 0; k < nc; ++k) residual.push_back(d.constraint_jacobian[k * n + i] * d.lambda[k]);
        d.residual_rows[i] = std::move(residual);
    }
    // S_k = Σ_j A_kj q̈_j − r_k.
    for (std::size_t k = 0; k < nc; ++k) {
        exvector s = {-d.constraint_rhs[k]};
        for (std::size_t j = 0; j < n; ++j) s.push_back(d.constraint_jacobian[k * n + j] * d.qdd[j]);
        d.residual_rows[n + k] = s;
    }
    if (rs) recursive_inverse_dynamics(m, d, *rs), recursive_mass_matrix(m, d, *rs);
    else
        d.inverse_dynamics_recursive_why = "M and h are not from the rate form (T of gradients, or L itself): no tree is looked for";
    if (rs) composite_derivatives(m, d, *rs);
    if (rs) recursive_derivatives(m, d, *rs);
    else d.recursive_derivatives_why = "M and h are not from the rate form (T of gradients, or L itself): no tree is looked for";
}

// M q̈ along the rate form's structure: (M q̈)_i = Σ_a α_ai Σ_terms c r_b(q̈) (r_b(q̈) = α_b·q̈,
// taken by the chain rule on the rate as the model wrote it, so a recursion of ω stays
// one), with the composites where they apply: the rotational ones sum these forces along
// the transports, the points' ones as m J q̈ from the joints' twists. Empty when no
// composite applies (the momentum of T itself is then as good).
GiNaC::exvector momentum_from_bilinear_form(model const& m, rate_structures const& s, GiNaC::exvector const& qdd,
                                           GiNaC::exvector* shares) {
    bilinear_form const& f = s.form;
    composite_inertia const& composite = s.rotational;
    point_composite const& points = s.points;
    std::size_t const n = m.q.size(), nr = f.rates.size();
    if (!composite.usable() && !points.usable()) return {};
    directional_deriver at(m.qd, qdd);
    exvector rate_at(nr, 0), F(nr, 0);
    for (std::size_t k = 0; k < nr; ++k)
        if (!points.covers(k)) rate_at[k] = at(f.rates[k].original);
    for (auto const& t : f.terms) {
        F[t.a] += t.c * rate_at[t.b];
        F[t.b] += t.c * rate_at[t.a];
    }
    // Not checked part by part (q̈ is not a variable of those checks): the caller checks the
    // whole against Σ_j M_ij q̈_j.
    exvector p(n, 0);
    for (std::size_t k = 0; k < nr; ++k) {
        if (composite.covers(k) || points.covers(k)) continue;
        for (std::size_t i = 0; i < n; ++i)
            if (!f.rates[k].a[i].is_zero()) p[i] += f.rates[k].a[i] * F[k];
    }
    exvector const rotational = composite.forces(F), translational = s.sums().momentum(qdd);
    for (std::size_t i = 0; i < n; ++i) p[i] += rotational[i] + translational[i];
    if (shares)
        for (std::size_t i = 0; i < n; ++i) shares->push_back(rotational[i] + translational[i]);
    return p;
}

} // namespace lagc
