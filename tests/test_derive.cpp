// The derivation: M, h, C and the rate form's composites against their closed forms and
// finite evaluations; the well-posedness pass.
#include "derive/derive_support.hpp"
#include "derive/random_states.hpp"
#include "derive/rate_structure.hpp"
#include "graph/expression_graph.hpp"
#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using GiNaC::ex;
using namespace test_support;

namespace {

TEST(Derivation, PendulumMassMatrixIsMlSquared) {
    auto c = check_text("model p\nparameter m, l, g\ncoordinate th\nlet pos = l * [sin(th), -cos(th)]\n"
                        "kinetic 0.5 * m * dot(der(pos), der(pos))\npotential m * g * pos[1]\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = lagc::derive(*c.m, d);
    ASSERT_TRUE(r.has_value());
    auto const& p = c.m->p;
    EXPECT_TRUE(equal(r->mass_matrix[0], p[0] * p[1] * p[1])) << r->mass_matrix[0];
    EXPECT_TRUE(equal(r->bias[0], p[0] * p[2] * p[1] * GiNaC::sin(c.m->q[0])));
    ASSERT_TRUE(r->coriolis.has_value());
    EXPECT_TRUE(equal((*r->coriolis)[0], 0));
}

// T as ½ q̇ᵀ M q̇ (the kinetic energy where functions share parts): equal to T as written
// where T is a quadratic form in q̇, absent where it is not (M alone does not give T).
TEST(Derivation, KineticEnergyFromTheMassMatrix) {
    auto c = check_text("model p\nparameter m1 = 1.2, m2 = 0.7, l = 0.9\ncoordinate x, th\n"
                        "let pos = [x, 0] + l * [sin(th), -cos(th)]\n"
                        "kinetic 0.5 * m1 * der(x)^2 + 0.5 * m2 * dot(der(pos), der(pos))\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = lagc::derive(*c.m, d);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->kinetic_from_mass.has_value());
    auto const& q = c.m->q;
    auto const& qd = c.m->qd;
    auto const& p = c.m->p;
    // Cart and pendulum: T = ½ (m1 + m2) ẋ² + m2 l cos θ ẋ θ̇ + ½ m2 l² θ̇².
    ex const T = (p[0] + p[1]) * qd[0] * qd[0] / 2 + p[1] * p[2] * GiNaC::cos(q[1]) * qd[0] * qd[1] +
                 p[1] * p[2] * p[2] * qd[1] * qd[1] / 2;
    EXPECT_TRUE(equal(*r->kinetic_from_mass, T)) << *r->kinetic_from_mass;
    for (char const* text : {"model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2 * (1 + t)\n",
                             "model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * (der(x) + 1)^2\n",
                             "model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2\nlagrangian m * x * der(x)\n"}) {
        auto other = check_text(text);
        ASSERT_TRUE(other.m.has_value()) << other.diagnostics;
        auto ro = lagc::derive(*other.m, d);
        ASSERT_TRUE(ro.has_value()) << text;
        EXPECT_FALSE(ro->kinetic_from_mass.has_value()) << text;
    }
}


// The well-posedness pass takes every default as written, 0 included (issue 31): an
// inertia tensor with a zero product of inertia is positive definite, not refused.
TEST(WellPosed, ZeroDefaultsAreTakenAsWritten) {
    std::string const model = "model zero_param\n"
                              "parameter Jxx = 0.001, Jyy = 0.001, Jzz = 0.001, Jxy = 0.0\n"
                              "coordinate a, b\n"
                              "let w = [der(a), der(b), 0]\n"
                              "let J = [[Jxx, Jxy, 0], [Jxy, Jyy, 0], [0, 0, Jzz]]\n"
                              "kinetic 0.5*dot(w, J*w)\n";
    EXPECT_EQ(errors_of(model), "");
    // The same tensor with a written product that makes it indefinite is an error.
    std::string indefinite = model;
    indefinite.replace(indefinite.find("Jxy = 0.0"), 9, "Jxy = 0.5");
    EXPECT_NE(errors_of(indefinite).find("error: the kinetic energy is negative"), std::string::npos)
        << errors_of(indefinite);
}

// Where no default is written, the pass invents values; a defect found with them is a
// warning that names those parameters, never an error (the model may be right with the
// values it will be given).
TEST(WellPosed, DefectsWithInventedValuesAreWarningsNamingThem) {
    std::string const model = "model invented\n"
                              "parameter Jxx = 0.001, Jyy = 0.001, Jzz = 0.001, Jxy\n"
                              "coordinate a, b\n"
                              "let w = [der(a), der(b), 0]\n"
                              "let J = [[Jxx, Jxy, 0], [Jxy, Jyy, 0], [0, 0, Jzz]]\n"
                              "kinetic 0.5*dot(w, J*w)\n";
    std::string const out = errors_of(model);
    EXPECT_EQ(out.find("error:"), std::string::npos) << out;
    EXPECT_NE(out.find("warning: the kinetic energy is negative"), std::string::npos) << out;
    EXPECT_NE(out.find("values lagc chose for Jxy, which have no default"), std::string::npos) << out;
    EXPECT_NE(out.find("[-Winvented-values]"), std::string::npos) << out;
    // A parameter without a default that M does not read changes nothing: still an error.
    std::string written = model;
    written.replace(written.find("Jxy\n"), 4, "Jxy = 0.5, k\n");
    EXPECT_NE(errors_of(written).find("error: the kinetic energy is negative"), std::string::npos) << errors_of(written);
}

TEST(Derivation, CoriolisIsWithheldWithANote) {
    std::string notes = errors_of("model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2 * (1 + t)\n");
    EXPECT_NE(notes.find("note: coriolis_matrix is not emitted: the mass matrix depends on t"), std::string::npos)
        << notes;
    notes = errors_of("model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2\nlagrangian m * x * der(x)\n");
    EXPECT_NE(notes.find("'lagrangian' terms"), std::string::npos) << notes;
}

// Two bodies on hinges z, then y, points off their axes: every coordinate moves the points as
// a joint does (∂p/∂q_i = s_i × p + u_i), so their translational inertia is carried as
// composites, and the composite M q̈ is M q̈.
std::string const two_link_arm =
    "model arm\nparameter m1 = 1.1, m2 = 1.3, g = 9.81\ncoordinate q1, q2\n"
    "let R1 = rotz(q1)\nlet o1 = [0, 0, 0.1]\nlet w1 = [0, 0, der(q1)]\nlet p1 = o1 + R1*[0.2, 0.05, 0.01]\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.01, 0.001, 0], [0.001, 0.02, 0], [0, 0, 0.03]]*w1)\n"
    "let T2 = roty(q2)\nlet R2 = R1*T2\nlet o2 = o1 + R1*[0.4, 0, 0]\nlet w2 = transpose(T2)*w1 + [0, der(q2), 0]\n"
    "let p2 = o2 + R2*[0.3, 0.02, 0.01]\n"
    "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.02, 0, 0.001], [0, 0.03, 0], [0.001, 0, 0.01]]*w2)\n"
    "potential g*(m1*p1[2] + m2*p2[2])\n";

double at_state(ex const& e, lagc::model const& m, std::vector<GiNaC::symbol> const& extra = {}) {
    GiNaC::exmap x;
    for (std::size_t i = 0; i < m.q.size(); ++i) x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    for (std::size_t k = 0; k < extra.size(); ++k) x[extra[k]] = 1.5 - 0.8 * double(k);
    return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(x))).to_double();
}

TEST(RateForm, PointsOfRotatingFramesAreComposites) {
    auto c = check_text(two_link_arm);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    EXPECT_EQ(m.points.size(), 4u); // der(p1) and der(p2), each written twice
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::composite_inertia const rotational(m, *f);
    lagc::point_composite const points(m, *f, rotational);
    ASSERT_TRUE(points.usable());
    std::size_t covered = 0;
    for (std::size_t k = 0; k < f->rates.size(); ++k) covered += points.covers(k) ? 1 : 0;
    EXPECT_EQ(covered, 5u); // the elements of der(p1) and der(p2) but der(p1)[2] = 0
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    std::vector<GiNaC::symbol> qdd = {GiNaC::symbol("a1"), GiNaC::symbol("a2")};
    lagc::rate_structures const structures(m, *f);
    GiNaC::exvector const p = lagc::momentum_from_bilinear_form(m, structures, {qdd[0], qdd[1]});
    ASSERT_EQ(p.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        double const expected = at_state(r->mass_matrix[i * 2] * qdd[0] + r->mass_matrix[i * 2 + 1] * qdd[1], m, qdd);
        EXPECT_NEAR(at_state(p[i], m, qdd), expected, 1e-12 * std::abs(expected)) << i;
    }
}

// A ten-joint arm (hinges about z, y, x, z, … in the turning frames, centres of mass off the
// links): its gravity, V = Σ m g p_z, is Σ w·p over the points, so ∂V/∂q comes from the same
// composite sums, smaller than V's own derivatives and equal to them.
std::string arm_text(int n) {
    std::string t = "model arm\nparameter g = 9.81\n";
    std::string coordinates = "coordinate q1", body;
    char const* rot[3] = {"rotz", "roty", "rotx"};
    char const* axis[3] = {"[0, 0, der(q%)]", "[0, der(q%), 0]", "[der(q%), 0, 0]"};
    for (int k = 1; k <= n; ++k) {
        std::string const K = std::to_string(k), P = std::to_string(k - 1);
        if (k > 1) coordinates += ", q" + K;
        std::string w = axis[(k - 1) % 3];
        w.replace(w.find('%'), 1, K);
        t += "parameter m" + K + " = " + std::to_string(1 + 0.1 * k) + "\n";
        body += "let T" + K + " = " + rot[(k - 1) % 3] + "(q" + K + ")\n";
        body += k == 1 ? "let R1 = T1\nlet o1 = [0, 0, 0.1]\nlet w1 = " + w + "\n"
                       : "let R" + K + " = R" + P + "*T" + K + "\nlet o" + K + " = o" + P + " + R" + P + "*[0.3, 0, 0]\nlet w" + K +
                             " = transpose(T" + K + ")*w" + P + " + " + w + "\n";
        body += "let p" + K + " = o" + K + " + R" + K + "*[0.15, 0.02, 0.01]\n";
        body += "kinetic 0.5*m" + K + "*dot(der(p" + K + "), der(p" + K + ")) + 0.5*dot(w" + K +
                ", [[0.02, 0.001, 0], [0.001, 0.03, 0.002], [0, 0.002, 0.01]]*w" + K + ")\n";
        body += "potential m" + K + "*g*p" + K + "[2]\n";
    }
    return t + coordinates + "\n" + body;
}

TEST(RateForm, GravityOfPointsIsACompositeToo) {
    auto c = check_text(arm_text(10));
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::composite_inertia const rotational(m, *f);
    lagc::point_composite const points(m, *f, rotational);
    ASSERT_TRUE(points.usable());
    GiNaC::exvector gradient;
    for (auto const& q : m.q) gradient.push_back(m.potential.diff(q));
    GiNaC::exvector composite = gradient;
    ASSERT_TRUE(points.potential_gradient(composite));
    std::size_t replaced = 0;
    for (std::size_t i = 0; i < m.q.size(); ++i) {
        replaced += composite[i].is_equal(gradient[i]) ? 0 : 1;
        double const expected = at_state(gradient[i], m);
        EXPECT_NEAR(at_state(composite[i], m), expected, 1e-12 * (1 + std::abs(expected))) << i;
    }
    EXPECT_EQ(replaced, m.q.size() - 1); // all but q1, about the vertical: 0 either way
}

// The same arm's h to evaluate takes the points' accelerations as the RNEA does (Ω̇ × p +
// Ω × ṗ + V̇ from the twists): smaller than the form C and the linearization differentiate,
// and equal to it.
TEST(RateForm, RecursiveAccelerationsMakeACompactBias) {
    auto c = check_text(arm_text(10));
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->bias_compact.size(), m.q.size());
    EXPECT_LT(lagc::operations_of(m, r->bias_compact), lagc::operations_of(m, r->bias));
    lagc::samples values(m); // at random states, on the code generator's DAG
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < m.q.size(); ++i) pairs.push_back({values.add(r->bias[i]), values.add(r->bias_compact[i])});
    ASSERT_TRUE(values.evaluate(m, 12345, 3));
    for (std::size_t k = 0; k < values.count(); ++k)
        for (auto const& [a, b] : pairs)
            EXPECT_NEAR(values(k, b), values(k, a), 1e-11 * (1 + std::abs(values(k, a)))) << k << " " << a;
}

// The points' shares of ∂R/∂q and of C from their composites (the analytic RNEA
// derivatives, derived::composite_derivatives), added to the derivatives of the rest, are
// the derivatives of the whole: ∂R/∂q of the residual rows (q̈ random too) and the
// Christoffel C, at random states on the code generator's DAG. Fails when a term of the
// formulas is dropped (derive's own check then rejects them and this finds them missing)
// or when the rest is not what is left once the shares are taken out.
void expect_composite_derivatives(std::string const& text, bool bodies = false, bool gravity = true) {
    auto c = check_text(text);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    lagc::diagnostics diags;
    auto r = lagc::derive(m, diags);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->point_derivatives.has_value());
    ASSERT_TRUE(r->coriolis.has_value());
    auto const& pd = *r->point_derivatives;
    std::size_t const n = m.q.size();
    EXPECT_EQ(pd.bodies, bodies);
    EXPECT_EQ(pd.gravity, gravity);
    std::vector<std::string> order;
    auto symbols = lagc::graph_spellings(m, order);
    for (std::size_t i = 0; i < n; ++i) {
        symbols[r->qdd[i].get_name()] = {"qdd[" + std::to_string(i) + "]", "x"};
        order.push_back("qdd[" + std::to_string(i) + "]");
    }
    lagc::expression_graph g(symbols, {});
    std::vector<int> whole, rest, half_rest, q, qd;
    for (std::size_t i = 0; i < n; ++i) {
        whole.push_back(g.add_parts(r->residual_rows[i]));
        rest.push_back(g.add_parts(pd.residual_rest[i]));
        half_rest.push_back(g.add(pd.bias_rest[i] / 2));
        q.push_back(g.variable_node(order[i]));
        qd.push_back(g.variable_node(order[n + i]));
    }
    std::vector<int> const dwhole = g.jacobian(whole, q), drest = g.jacobian(rest, q), dhalf = g.jacobian(half_rest, qd);
    std::vector<int> analytic, christoffel, dC;
    for (std::size_t k = 0; k < n * n; ++k) {
        analytic.push_back(g.add(pd.dtau_dq[k]));
        dC.push_back(g.add(pd.coriolis[k]));
        christoffel.push_back(g.add((*r->coriolis)[k]));
    }
    std::uint64_t state = 2718281828;
    for (int k = 0; k < 3; ++k) {
        std::vector<double> x = lagc::random_point(m, state, lagc::parameter_values::random);
        for (std::size_t i = 0; i < n; ++i) x.push_back(std::sin(1.7 * static_cast<double>(i) + k));
        auto value = [&](std::vector<int> const& roots) { return g.evaluate_all(roots, order, x); };
        std::vector<double> const W = value(dwhole), Rs = value(drest), A = value(analytic), H = value(dhalf),
                                  Cs = value(dC), C = value(christoffel);
        double scale = 0;
        for (std::size_t e = 0; e < n * n; ++e) scale = std::max({scale, std::abs(W[e]), std::abs(C[e])});
        for (std::size_t e = 0; e < n * n; ++e) {
            EXPECT_NEAR(Rs[e] + A[e], W[e], 1e-11 * scale) << "dR/dq " << e / n << "," << e % n;
            EXPECT_NEAR(H[e] + Cs[e], C[e], 1e-11 * scale) << "C " << e / n << "," << e % n;
        }
    }
}

TEST(RateForm, CompositeDerivativesOfThePoints) { expect_composite_derivatives(arm_text(10)); }

// Gravity is uniform on the arm's points (each weight m γ, γ = [0, 0, g]): ∂V/∂q is in the
// shares, its derivatives from the base's acceleration γ. Other terms of V (springs) stay in
// the rest. A weight that is not m γ (one link counted twice) leaves ∂V/∂q in the rest.
TEST(RateForm, CompositeDerivativesOfGravity) {
    expect_composite_derivatives(arm_text(6) + "potential 0.5*3*q2^2 + 2*cos(q4)\n");
    expect_composite_derivatives(arm_text(6) + "potential m3*g*p3[2]\n", false, false);
}

// The bundled Panda-like arm: its bodies' rotational inertia (½ ωᵀ J ω, composites in body
// axes) is in the analytic shares too, as R J Rᵀ in world axes (R: the frame with
// Ṙ = R [ω]×, ω's elements found in the rate form's order and signs).
TEST(RateForm, CompositeDerivativesOfBodies) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/panda_like.lag");
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty());
    expect_composite_derivatives(text.str(), true);
}

// A base turning about z with two branches of two links each: the points the joints move
// form a tree with a fork (the base's node has two children), and the composite M q̈ summed
// along it equals M q̈.
// `links` links on each branch (2: the model of the test below).
std::string fork_text(int links = 2) {
    std::string text = "model fork\nparameter g = 9.81\ncoordinate q0";
    for (std::string const b : {"a", "b"})
        for (int k = 1; k <= links; ++k) text += ", q" + b + std::to_string(k);
    text += "\nlet R0 = rotz(q0)\nlet o0 = [0, 0, 0.2]\nlet w0 = [0, 0, der(q0)]\nlet p0 = o0 + R0*[0.05, 0.02, 0.1]\n"
            "kinetic 0.5*2*dot(der(p0), der(p0)) + 0.5*dot(w0, [[0.05, 0.001, 0], [0.001, 0.06, 0], [0, 0, 0.04]]*w0)\n";
    for (std::string const b : {"a", "b"}) {
        std::string const side = b == "a" ? "0.15" : "-0.15";
        std::string parent = "0";
        for (int n = 1; n <= links; ++n) {
            bool const first = n == 1, odd = n % 2 == 1;
            std::string const x = b + std::to_string(n);
            std::string const T = odd ? "roty" : "rotx", axis = odd ? "[0, der(q" + x + "), 0]" : "[der(q" + x + "), 0, 0]";
            text += "let T" + x + " = " + T + "(q" + x + ")\nlet R" + x + " = R" + parent + "*T" + x + "\n";
            text += "let o" + x + " = o" + parent + " + R" + parent + "*" + (first ? "[0, " + side + ", 0.1]" : "[0.3, 0, 0]") + "\n";
            text += "let w" + x + " = transpose(T" + x + ")*w" + parent + " + " + axis + "\n";
            text += "let p" + x + " = o" + x + " + R" + x + "*[0.12, 0.02, 0.01]\n";
            text += "kinetic 0.5*dot(der(p" + x + "), der(p" + x + ")) + 0.5*dot(w" + x +
                    ", [[0.01, 0.0005, 0], [0.0005, 0.012, 0], [0, 0, 0.009]]*w" + x + ")\npotential g*p" + x + "[2]\n";
            parent = x;
        }
    }
    return text;
}

TEST(RateForm, CompositesAlongABranchedTree) {
    std::string const text = fork_text();
    auto c = check_text(text);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::rate_structures const structures(m, *f);
    ASSERT_TRUE(structures.points.usable());
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    std::size_t const n = m.q.size();
    std::vector<GiNaC::symbol> qdd;
    GiNaC::exvector a;
    for (std::size_t j = 0; j < n; ++j) qdd.emplace_back("a" + std::to_string(j)), a.push_back(qdd.back());
    GiNaC::exvector const p = lagc::momentum_from_bilinear_form(m, structures, a);
    ASSERT_EQ(p.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ex mq = 0;
        for (std::size_t j = 0; j < n; ++j) mq += r->mass_matrix[i * n + j] * qdd[j];
        double const expected = at_state(mq, m, qdd);
        EXPECT_NEAR(at_state(p[i], m, qdd), expected, 1e-12 * (1 + std::abs(expected))) << i;
    }
}

// The same on the fork: joints on different branches have no share in each other's τ.
TEST(RateForm, CompositeDerivativesAlongABranchedTree) { expect_composite_derivatives(fork_text(4)); }

// A coordinate that moves two points differently (p1 by s along [1, 1, 0], p2 by s²) is no
// joint: no composites (the points' terms stay term by term). Moved alike, they are.
TEST(RateForm, PointsNotMovedAsByAJointAreNotComposites) {
    auto usable = [](std::string const& second) {
        auto c = check_text("model slide\nparameter m = 1, J = 0.1\ncoordinate s, th\nlet R = rotz(th)\n"
                            "let w = [0, 0, der(th)]\nlet p1 = [s, s, 0] + R*[0.1, 0.05, 0]\nlet p2 = " + second +
                            " + R*[0.2, 0.1, 0]\nkinetic 0.5*m*dot(der(p1), der(p1)) + 0.5*m*dot(der(p2), der(p2)) + "
                            "0.5*J*dot(w, w)\n");
        EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
        auto f = lagc::bilinear_form_of(*c.m);
        EXPECT_TRUE(f.has_value());
        if (!f) return false;
        lagc::composite_inertia const rotational(*c.m, *f);
        lagc::point_composite const points(*c.m, *f, rotational);
        std::size_t covered = 0;
        for (std::size_t k = 0; k < f->rates.size(); ++k) covered += points.covers(k) ? 1 : 0;
        EXPECT_EQ(covered, points.usable() ? 4u : 0u);
        return points.usable();
    };
    EXPECT_FALSE(usable("[s^2, s^2, 0]"));
    EXPECT_TRUE(usable("[s, s, 0]"));
}

} // namespace
