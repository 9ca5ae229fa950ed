// Each forward-dynamics strategy (derive/forward_dynamics.hpp): where its candidate is found, its
// pivots and groups, and that its q̈ and λ solve the system at a state.
#include "derive/forward_dynamics.hpp"
#include "derive/rate_structure.hpp"
#include "derive/tree_algorithms.hpp"
#include "symbolic/dag.hpp"

#include <set>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using GiNaC::ex;
using namespace test_support;

namespace {

// Quasi-velocities (derive/quasi_velocity.cpp): where they are found, from what, and where not.

std::string const quaternion_tail =
    "kinetic 0.5*(J1*w[0]^2 + J2*w[1]^2 + J3*w[2]^2)\ntorque [tau1, tau2, tau3] at w\n"
    "constraint q0^2 + q1^2 + q2^2 + q3^2 = 1\nbaumgarte alpha = k, beta = k\n";
std::string const quaternion_head =
    "model qb\nparameter J1 = 0.08, J2 = 0.12, J3 = 0.15, k = 10\ncoordinate q0, q1, q2, q3\n"
    "input tau1, tau2, tau3\nlet G = [[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]]\n"
    "let w = 2*G*[der(q0), der(q1), der(q2), der(q3)]\n";

TEST(QuasiVelocities, RotationMatrixFromTheNamedW) {
    lagc::derived const d = derived_of(bundled_model("rotation_matrix_body"));
    auto const* q = lagc::candidate_of(d, lagc::fd_method::quasi_velocities);
    ASSERT_NE(q, nullptr);
    ASSERT_EQ(q->qdd.size(), 9u);
    EXPECT_EQ(q->lambda.size(), 6u);
    // Three blocks R^T, one determinant to check; D's three pivots in one group, no Schur's.
    EXPECT_EQ(q->blocks.size(), 2u);
    ASSERT_EQ(q->groups.size(), 1u);
    EXPECT_EQ(q->groups[0].end - q->groups[0].begin, 3u);
    EXPECT_EQ(q->groups[0].status, 1);
}

TEST(QuasiVelocities, AMisleadingNamedValueFallsBackToTheRowsOwnBlock) {
    // v's four entries are linear in q' and cover the quaternion's coordinates, but the rates
    // are no rational combination of them: the rates' and the norm's rows make the block.
    std::string const v = "let v = [sin(q0)*der(q1), cos(q1)*der(q2), q3*der(q3) + der(q0), q0*der(q0)]\n";
    lagc::derived const d = derived_of(quaternion_head + v + quaternion_tail);
    auto const* q = lagc::candidate_of(d, lagc::fd_method::quasi_velocities);
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->qdd.size(), 4u);
    EXPECT_EQ(q->groups.size(), 1u);
}

TEST(QuasiVelocities, NotWhereNoBlocksMakeTheRowsRational) {
    // A pendulum in x, y and theta: its rates and rows share three coordinates four ways, so
    // there is no block and the dense path (M + rho A^T A) stays.
    lagc::derived const d = derived_of(bundled_model("circle_three_coordinates"));
    EXPECT_TRUE(d.mass_singular);
    EXPECT_EQ(lagc::candidate_of(d, lagc::fd_method::quasi_velocities), nullptr);
}

TEST(QuasiVelocities, ATetherIsItsOwnPartWithASchurPivot) {
    lagc::derived const d = derived_of(bundled_model("kite_quaternion"));
    auto const* q = lagc::candidate_of(d, lagc::fd_method::quasi_velocities);
    ASSERT_NE(q, nullptr);
    ASSERT_EQ(q->qdd.size(), 7u);
    ASSERT_EQ(q->groups.size(), 2u);
    EXPECT_EQ(q->groups[1].status, 2);
    EXPECT_EQ(q->groups[1].end - q->groups[1].begin, 1u); // the tether's 1 x 1 complement
}

// Forward dynamics by the articulated-body algorithm where the root node has several
// coordinates (derive/floating_articulated_body.cpp): q̈ and λ solve [[M, Aᵀ], [A, 0]] [q̈; λ] = [Q − h; r]
// at a state, M, h, Q, A and r from the derivation's own closed forms.
void expect_solves(lagc::model const& m, lagc::derived const& d, GiNaC::exvector const& qdd, GiNaC::exvector const& lambda) {
    std::size_t const n = d.nq, nc = d.nc;
    ASSERT_EQ(qdd.size(), n);
    ASSERT_EQ(lambda.size(), nc);
    GiNaC::exmap x;
    for (std::size_t i = 0; i < n; ++i) x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
    for (std::size_t k = 0; k < m.u.size(); ++k) x[m.u[k]] = 1.5 - 0.8 * double(k);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    auto value = [&](ex const& e) { // each shared part once (subs and evalf walk every path)
        auto const v = lagc::evaluate(e, x);
        return v ? v->to_double() : std::nan("");
    };
    std::vector<double> a(n), l(nc);
    for (std::size_t i = 0; i < n; ++i) a[i] = value(qdd[i]);
    for (std::size_t k = 0; k < nc; ++k) l[k] = value(lambda[k]);
    for (std::size_t i = 0; i < n; ++i) {
        double row = value(d.bias[i]) - value(d.generalized_forces[i]), scale = std::abs(row) + 1;
        for (std::size_t j = 0; j < n; ++j) row += value(d.mass_matrix[i * n + j]) * a[j], scale += std::abs(value(d.mass_matrix[i * n + j]) * a[j]);
        for (std::size_t k = 0; k < nc; ++k) row += value(d.constraint_jacobian[k * n + i]) * l[k];
        EXPECT_NEAR(row, 0, 1e-12 * scale) << "row " << i;
    }
    for (std::size_t k = 0; k < nc; ++k) {
        double row = -value(d.constraint_rhs[k]);
        for (std::size_t j = 0; j < n; ++j) row += value(d.constraint_jacobian[k * n + j]) * a[j];
        EXPECT_NEAR(row, 0, 1e-12 * (1 + std::abs(value(d.constraint_rhs[k])))) << "constraint " << k;
    }
}

// A free base (the importer's form: Q/|e|², w = 2 G ė/|e|², |e|² = 1) with a body of two
// hinges whose second turns about an anchor off the body's origin, under gravity.
std::string const floating_two_hinges =
    "model floating\nparameter m0 = 3.0, m1 = 1.2, g = 9.81, k = 10\n"
    "coordinate x, y, z, e0, e1, e2, e3, a, b\ninput fx, t1, t2\n"
    "let N = e0^2 + e1^2 + e2^2 + e3^2\n"
    "let R0 = [[e0^2 + e1^2 - e2^2 - e3^2, 2*(e1*e2 - e0*e3), 2*(e1*e3 + e0*e2)],\n"
    "  [2*(e1*e2 + e0*e3), e0^2 - e1^2 + e2^2 - e3^2, 2*(e2*e3 - e0*e1)],\n"
    "  [2*(e1*e3 - e0*e2), 2*(e2*e3 + e0*e1), e0^2 - e1^2 - e2^2 + e3^2]]/N\n"
    "let w0 = 2/N*[[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]]*[der(e0), der(e1), der(e2), der(e3)]\n"
    "let o0 = [x, y, z]\nlet p0 = o0 + R0*[0, 0, 0.02]\n"
    "kinetic 0.5*m0*dot(der(p0), der(p0)) + 0.5*dot(w0, [[0.07, 0, 0], [0, 0.06, 0], [0, 0, 0.08]]*w0)\n"
    "let T1 = rotz(a)*roty(b)\nlet R1 = R0*T1\n"
    "let o1 = o0 + R0*([0, 0.1, -0.05] + rotz(a)*([0, 0, 0.02] - roty(b)*[0, 0, 0.02]))\n"
    "let w1 = transpose(T1)*w0 + (der(a)*(transpose(roty(b))*[0, 0, 1]) + [0, der(b), 0])\n"
    "let p1 = o1 + R1*[0.01, 0, -0.2]\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.004]]*w1)\n"
    "kinetic 0.5*0.01*der(a)^2 + 0.5*0.01*der(b)^2\n"
    "potential g*(m0*p0[2] + m1*p1[2])\n"
    "force [fx, 0, 0] at o0\nforce t1 on a\nforce t2 on b\n"
    "constraint e0^2 + e1^2 + e2^2 + e3^2 = 1\nbaumgarte alpha = k, beta = k\n";

TEST(FloatingArticulated, AFreeBaseWithABodyOfTwoHinges) {
    auto const [m, d] = model_and_derived(floating_two_hinges);
    auto const* f = lagc::candidate_of(d, lagc::fd_method::floating_articulated_body);
    ASSERT_NE(f, nullptr);
    // The hinges' pivots, then the base's 6 x 6 articulated inertia's: the base's twists and
    // the norm's row are orthogonal, so no system of the base's own coordinates is solved.
    ASSERT_EQ(f->groups.size(), 2u);
    EXPECT_EQ(f->groups[0].end - f->groups[0].begin, 2u);
    EXPECT_EQ(f->groups[1].end - f->groups[1].begin, 6u);
    expect_solves(m, d, f->qdd, f->lambda);
}

TEST(FloatingArticulated, ArmatureOnTheBaseSolvesTheBasesOwnSystem) {
    // ½ a ẋ² on a translation of the base: its coordinates' system [[Sᵀ I^A S + diag(a), Aᵀ],
    // [A, 0]] then, as M + ρ AᵀA: seven pivots and the norm's Schur complement.
    auto const [m, d] = model_and_derived(floating_two_hinges + "kinetic 0.5*0.3*der(x)^2\n");
    auto const* f = lagc::candidate_of(d, lagc::fd_method::floating_articulated_body);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->groups.size(), 3u);
    EXPECT_EQ(f->groups[1].end - f->groups[1].begin, 7u);
    EXPECT_EQ(f->groups[2].status, 2);
    expect_solves(m, d, f->qdd, f->lambda);
}

TEST(FloatingArticulated, ARootBodyOfTwoHingesWithoutConstraints) {
    // A fixed base whose first body turns on two hinges (the second about an anchor off the
    // body's origin) and carries a body on one hinge: no single joint at the root, so the
    // root's 2 x 2 system is solved once the last hinge is eliminated (no constraints: q̈ as
    // the unconstrained algorithm's, one pivot per coordinate).
    std::string const two_bodies =
        "model two_bodies\n"
        "parameter m1 = 1.2, m2 = 0.8, g = 9.81\n"
        "coordinate a, b, c\n"
        "input t1, t2, t3\n"
        "let T1 = rotz(a)*roty(b)\n"
        "let R1 = T1\n"
        "let o1 = [0, 0, 0.5] + rotz(a)*([0, 0, 0.02] - roty(b)*[0, 0, 0.02])\n"
        "let w1 = der(a)*(transpose(roty(b))*[0, 0, 1]) + [0, der(b), 0]\n"
        "let p1 = o1 + R1*[0.01, 0, -0.2]\n"
        "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.004]]*w1)\n"
        "let T2 = rotx(c)\n"
        "let R2 = R1*T2\n"
        "let o2 = o1 + R1*[0, 0, -0.4]\n"
        "let w2 = transpose(T2)*w1 + [der(c), 0, 0]\n"
        "let p2 = o2 + R2*[0, 0.02, -0.15]\n"
        "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.01, 0, 0], [0, 0.012, 0], [0, 0, 0.003]]*w2)\n"
        "kinetic 0.5*0.01*der(a)^2 + 0.5*0.01*der(b)^2\n"
        "potential g*(m1*p1[2] + m2*p2[2])\n"
        "force t1 on a\n"
        "force t2 on b\n"
        "force t3 on c\n";
    auto const [m, d] = model_and_derived(two_bodies);
    // The fixed-base form needs one joint per node; the floating-root form solves the root's.
    EXPECT_EQ(lagc::candidate_of(d, lagc::fd_method::articulated_body), nullptr);
    auto const* f = lagc::candidate_of(d, lagc::fd_method::floating_articulated_body);
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->qdd.size(), 3u);
    EXPECT_EQ(f->pivots.size(), 3u);
    expect_solves(m, d, f->qdd, {});
}

// A slide under a floating base (a linear stage on a free torso, carrying a hinge): the stage's
// body turns with the torso, as the torso's own does, so the nodes its rotational inertia could
// sit at differ by the slide alone, and a massless rotational inertia is the same spatial
// inertia about every point: the floating-root form takes it at the upper node (it fell back to
// the closed form, silently, before the strategies said why).
std::string const slide_under_free_base =
        "model slide\nparameter m0 = 4, m1 = 0.8, m2 = 0.3, g = 9.81, k = 10\n"
        "coordinate x, y, z, e0, e1, e2, e3, s, a\ninput f, tq\n"
        "let N = e0^2 + e1^2 + e2^2 + e3^2\n"
        "let R0 = [[e0^2 + e1^2 - e2^2 - e3^2, 2*(e1*e2 - e0*e3), 2*(e1*e3 + e0*e2)],\n"
        "  [2*(e1*e2 + e0*e3), e0^2 - e1^2 + e2^2 - e3^2, 2*(e2*e3 - e0*e1)],\n"
        "  [2*(e1*e3 - e0*e2), 2*(e2*e3 + e0*e1), e0^2 - e1^2 - e2^2 + e3^2]]/N\n"
        "let w0 = 2/N*[[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]]*[der(e0), der(e1), der(e2), der(e3)]\n"
        "let o0 = [x, y, z]\nlet p0 = o0 + R0*[0.01, -0.02, 0.03]\n"
        "kinetic 0.5*m0*dot(der(p0), der(p0)) + 0.5*dot(w0, [[0.05, 0.001, 0], [0.001, 0.07, 0], [0, 0, 0.09]]*w0)\n"
        "let o1 = o0 + R0*[0.1 + s, 0, 0.05]\nlet p1 = o1 + R0*[0.02, 0.01, 0]\n"
        "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w0, [[0.002, 0, 0], [0, 0.003, 0], [0, 0, 0.004]]*w0)\n"
        "let T2 = roty(a)\nlet R2 = R0*T2\nlet o2 = o1 + R0*[0.05, 0, 0.02]\n"
        "let w2 = transpose(T2)*w0 + [0, der(a), 0]\nlet p2 = o2 + R2*[0, 0, -0.1]\n"
        "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.001, 0, 0], [0, 0.0012, 0], [0, 0, 0.0005]]*w2)\n"
        "potential g*(m0*p0[2] + m1*p1[2] + m2*p2[2])\n"
        "force f on s\nforce tq on a\n"
        "constraint e0^2 + e1^2 + e2^2 + e3^2 = 1\nbaumgarte alpha = k, beta = k\n";

TEST(FloatingArticulated, ASlideUnderAFreeBase) {
    auto const [m, d] = model_and_derived(slide_under_free_base);
    auto const* f = lagc::candidate_of(d, lagc::fd_method::floating_articulated_body);
    ASSERT_NE(f, nullptr);
    expect_solves(m, d, f->qdd, f->lambda);
}

// The kinematic tree as data (kinematic_tree.hpp): each coordinate one joint record, its kind,
// node and twist, as the points' composites found them; the algorithms over it say why they
// do not apply.
// Inverse dynamics by Newton–Euler in the bodies' own axes (derive/local_newton_euler.cpp):
// its τ is M q̈ + h − Q at a state, M, h and Q the derivation's own closed forms (the
// derivation kept it only where it agreed at random states; this checks at another state
// against other expressions).
void expect_inverse_dynamics(lagc::model const& m, lagc::derived const& d) {
    std::size_t const n = d.nq;
    ASSERT_EQ(d.inverse_dynamics_recursive.size(), n) << d.inverse_dynamics_recursive_why;
    GiNaC::exmap x;
    for (std::size_t i = 0; i < n; ++i) {
        x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
        x[d.qdd[i]] = -0.2 + 0.6 * double(i);
    }
    for (std::size_t k = 0; k < m.u.size(); ++k) x[m.u[k]] = 1.5 - 0.8 * double(k);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    auto value = [&](ex const& e) {
        auto const v = lagc::evaluate(e, x);
        return v ? v->to_double() : std::nan("");
    };
    for (std::size_t i = 0; i < n; ++i) {
        double tau = 0, row = value(d.bias[i]) - value(d.generalized_forces[i]), scale = std::abs(row) + 1;
        for (std::size_t j = 0; j < n; ++j) {
            double const mq = value(d.mass_matrix[i * n + j]) * value(d.qdd[j]);
            row += mq, scale += std::abs(mq);
        }
        for (ex const& part : d.inverse_dynamics_recursive[i]) tau += value(part);
        EXPECT_NEAR(tau, row, 1e-12 * scale) << "row " << i;
    }
}

// A cart sliding along x, a body on it turned by a fixed rotation about a direction that is
// no axis before its hinge, and a second body beyond, every offset and centre of mass off
// every axis, full inertia tensors, under gravity.
std::string const turned_arm_on_cart =
    "model turned\nparameter g = 9.81, m0 = 2.0, m1 = 1.1, m2 = 0.7\ncoordinate s, a, b\ninput f, t1, t2\n"
    "let o0 = [s, 0, 0]\nlet R1 = rot([0.6, 0, 0.8], 0.4)*roty(a)\nlet o1 = o0 + [0.1, -0.05, 0.2]\n"
    "let w1 = [0, der(a), 0]\nlet p1 = o1 + R1*[0.3, 0.02, -0.01]\n"
    "let T2 = rotx(b)\nlet R2 = R1*T2\nlet o2 = o1 + R1*[0.35, 0.04, 0.03]\n"
    "let w2 = transpose(T2)*w1 + [der(b), 0, 0]\nlet p2 = o2 + R2*[0.12, 0.01, 0.02]\n"
    "kinetic 0.5*m0*dot(der(o0), der(o0))\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.02, 0.001, 0], [0.001, 0.03, 0.002], [0, 0.002, 0.025]]*w1)\n"
    "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.01, 0, 0.001], [0, 0.012, 0], [0.001, 0, 0.009]]*w2)\n"
    "potential g*(m1*p1[2] + m2*p2[2])\nforce f on s\nforce t1 on a\nforce t2 on b\n";

TEST(InverseDynamicsMethods, NewtonEulerInLocalAxesOnABundledArm) {
    auto const [m, d] = model_and_derived(bundled_model("ur5_like"));
    expect_inverse_dynamics(m, d);
}

TEST(InverseDynamicsMethods, ATurnedArmOnASlide) {
    auto const [m, d] = model_and_derived(turned_arm_on_cart);
    expect_inverse_dynamics(m, d);
}

// A free base (its body's ω as written, a point's acceleration) carrying a body of two hinges
// (a chain of two links, the first massless), with armature on both.
TEST(InverseDynamicsMethods, AFreeBaseWithABodyOfTwoHinges) {
    auto const [m, d] = model_and_derived(floating_two_hinges);
    expect_inverse_dynamics(m, d);
}

TEST(InverseDynamicsMethods, NotWhereABodyHasNoNodeAndTheReasonSaysSo) {
    lagc::derived const d = derived_of(bundled_model("arm_on_table"));
    EXPECT_TRUE(d.inverse_dynamics_recursive.empty());
    EXPECT_NE(d.inverse_dynamics_recursive_why.find("no node whose frame turns it"), std::string::npos)
        << d.inverse_dynamics_recursive_why;
}

TEST(InverseDynamicsMethods, NotWithoutTheRateForm) {
    lagc::derived const d = derived_of(bundled_model("double_pendulum"));
    EXPECT_TRUE(d.inverse_dynamics_recursive.empty());
    EXPECT_NE(d.inverse_dynamics_recursive_why.find("not from the rate form"), std::string::npos);
}

// Forward dynamics by the articulated-body algorithm in the bodies' own axes
// (derive/local_articulated_body.cpp): its q̈ solves M q̈ = Q − h at a state, from the
// derivation's own closed forms.
TEST(LocalArticulated, ATurnedArmOnASlide) {
    auto const [m, d] = model_and_derived(turned_arm_on_cart);
    auto const* f = lagc::candidate_of(d, lagc::fd_method::articulated_body_local_axes);
    ASSERT_NE(f, nullptr);
    expect_solves(m, d, f->qdd, {});
    EXPECT_EQ(f->pivots.size(), d.nq);
}

// Rotor armature (½ a q̇² terms the tree does not hold) on a bundled arm: the algorithm adds it
// to the pivots, and its q̈ solves the system with the derivation's M, which holds it.
TEST(LocalArticulated, ABundledArmWithArmature) {
    std::string const text = bundled_model("iiwa_like");
    auto const [m, d] = model_and_derived(text + "kinetic 0.5*0.02*der(q1)^2 + 0.5*0.015*der(q4)^2\n");
    auto const* f = lagc::candidate_of(d, lagc::fd_method::articulated_body_local_axes);
    ASSERT_NE(f, nullptr);
    expect_solves(m, d, f->qdd, {});
}

// M by the composite-rigid-body algorithm in the bodies' own axes (the same file): each entry
// is the derivation's closed form's at a state.
void expect_mass_matrix(lagc::model const& m, lagc::derived const& d) {
    std::size_t const n = d.nq;
    ASSERT_EQ(d.mass_matrix_recursive.size(), n * n) << d.mass_matrix_recursive_why;
    GiNaC::exmap x;
    for (std::size_t i = 0; i < n; ++i) x[m.q[i]] = 0.3 + 0.4 * double(i);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    auto value = [&](ex const& e) {
        auto const v = lagc::evaluate(e, x);
        return v ? v->to_double() : std::nan("");
    };
    double scale = 0;
    for (ex const& e : d.mass_matrix) scale = std::max(scale, std::abs(value(e)));
    for (std::size_t k = 0; k < n * n; ++k)
        EXPECT_NEAR(value(d.mass_matrix_recursive[k]), value(d.mass_matrix[k]), 1e-13 * scale) << "entry " << k;
}

TEST(LocalArticulated, MassMatrixOfATurnedArmOnASlide) {
    auto const [m, d] = model_and_derived(turned_arm_on_cart);
    expect_mass_matrix(m, d);
}

TEST(LocalArticulated, MassMatrixOfABundledArmWithArmature) {
    auto const [m, d] = model_and_derived(bundled_model("iiwa_like") + "kinetic 0.5*0.02*der(q1)^2 + 0.5*0.015*der(q4)^2\n");
    expect_mass_matrix(m, d);
}

// Over a floating root (a position and a quaternion): its rows by its velocity columns ξ
// against the whole tree's composite; M is singular there (no inertia along the quaternion).
TEST(LocalArticulated, MassMatrixOverAFloatingRoot) {
    auto const [m, d] = model_and_derived(floating_two_hinges);
    expect_mass_matrix(m, d);
}

// With armature on the base's translation and on the hinges, and a slide under the base.
TEST(LocalArticulated, MassMatrixOverAFloatingRootWithArmatureAndASlide) {
    auto const [m, d] = model_and_derived(floating_two_hinges + "kinetic 0.5*0.3*der(x)^2\n");
    expect_mass_matrix(m, d);
    auto const [m2, d2] = model_and_derived(slide_under_free_base);
    expect_mass_matrix(m2, d2);
}

TEST(LocalArticulated, NotWithConstraintsAndTheReasonSaysSo) {
    lagc::derived const d = derived_of(floating_two_hinges);
    auto const& a = d.forward_dynamics[2];
    ASSERT_EQ(a.method, lagc::fd_method::articulated_body_local_axes);
    EXPECT_FALSE(a.candidate.has_value());
    EXPECT_NE(a.reason.find("constraints"), std::string::npos) << a.reason;
}

TEST(KinematicTree, AFreeBaseASlideAndAHingeAsJointRecords) {
    auto const [m, d] = model_and_derived(slide_under_free_base);
    auto const form = lagc::bilinear_form_of(m);
    ASSERT_TRUE(form.has_value());
    lagc::rate_structures const rs(m, *form);
    for (lagc::point_composite const* p : {&rs.points, &rs.framed_points}) {
        lagc::kinematic_tree const& t = p->tree();
        ASSERT_TRUE(t.usable) << t.why;
        ASSERT_EQ(t.joints.size(), 9u);
        for (std::size_t i = 0; i < 7; ++i) // x, y, z and the quaternion
            EXPECT_EQ(t.joints[i].kind, lagc::joint_kind::root) << i;
        lagc::tree_joint const &s = t.joints[7], &a = t.joints[8], &base = t.joints[0];
        EXPECT_EQ(s.kind, lagc::joint_kind::slide);
        EXPECT_EQ(a.kind, lagc::joint_kind::hinge);
        EXPECT_EQ(s.coordinate, 7u);
        EXPECT_FALSE(s.turns());
        EXPECT_TRUE(a.turns());
        // The stage's node hangs on the base's, the link's on the stage's.
        ASSERT_GE(s.node, 0);
        ASSERT_GE(a.node, 0);
        EXPECT_EQ(t.nodes[static_cast<std::size_t>(a.node)].parent, s.node);
        EXPECT_EQ(t.nodes[static_cast<std::size_t>(s.node)].parent, base.node);
        EXPECT_EQ(t.nodes[static_cast<std::size_t>(base.node)].parent, -1);
        // The fixed-base algorithm needs one joint per node (and, in the root body's axes, a
        // root of one joint), and says so.
        auto const x = lagc::articulated_body(t, lagc::rotational_bodies(m), nullptr, GiNaC::exvector(9, 0));
        EXPECT_TRUE(x.qdd.empty());
        std::string const expected = t.framed() ? "root body's axes move" : "several joints";
        EXPECT_NE(x.why.find(expected), std::string::npos) << x.why;
    }
    // The world's axes and the root body's: the framed tree's twists are free of the root's
    // coordinates (the quaternion), the world's are not.
    ASSERT_TRUE(rs.framed_points.framed());
    auto const& s = rs.framed_points.tree().joints[7];
    for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t i = 3; i < 7; ++i) EXPECT_FALSE(s.u[c].has(m.q[i])) << c << " " << i;
    bool turned = false;
    for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t i = 3; i < 7; ++i) turned = turned || rs.points.tree().joints[7].u[c].has(m.q[i]);
    EXPECT_TRUE(turned);
}

TEST(KinematicTree, AnArmOfHingesIsOneJointANode) {
    auto const [m, d] = model_and_derived(bundled_model("ur5_like"));
    auto const form = lagc::bilinear_form_of(m);
    ASSERT_TRUE(form.has_value());
    lagc::rate_structures const rs(m, *form);
    lagc::kinematic_tree const& t = rs.points.tree();
    ASSERT_TRUE(t.usable) << t.why;
    for (auto const& j : t.joints) EXPECT_EQ(j.kind, lagc::joint_kind::hinge) << j.coordinate;
    std::vector<int> const single = t.single_joints();
    ASSERT_EQ(single.size(), 6u);
    // Nodes are numbered as the coordinates first move them: joint i of the chain is node i's.
    for (std::size_t N = 0; N < 6; ++N) EXPECT_EQ(single[N], static_cast<int>(N));
    // A chain: each node's parent is the one before it, children first is the reverse.
    std::vector<std::size_t> const up = t.children_first();
    for (std::size_t k = 0; k + 1 < up.size(); ++k) EXPECT_EQ(t.nodes[up[k]].parent, static_cast<int>(up[k + 1]));
}

// Where the rate form has no points there is no tree, and the strategies say why.
TEST(KinematicTree, NoPointsNoTreeAndTheReasonSaysSo) {
    auto const [m, d] = model_and_derived("model r\nparameter J = 0.2\ncoordinate a, b\n"
                                          "let w = rotz(a)*[0, der(b), 0] + [0, 0, der(a)]\n"
                                          "kinetic 0.5*J*dot(w, w)\n");
    auto const form = lagc::bilinear_form_of(m);
    ASSERT_TRUE(form.has_value());
    lagc::rate_structures const rs(m, *form);
    EXPECT_FALSE(rs.points.usable());
    EXPECT_NE(rs.points.tree().why.find("no points"), std::string::npos) << rs.points.tree().why;
    bool said = false;
    for (auto const& attempt : d.forward_dynamics)
        if (attempt.method == lagc::fd_method::articulated_body) said = attempt.reason.find("no points") != std::string::npos;
    EXPECT_TRUE(said);
}

// M and h: the closed list of their forms, the one taken and why each other was not, as
// --explain prints them (derived::mass_bias).
TEST(MassBiasForms, EachModelSaysWhichFormAndWhyNotTheOthers) {
    using method = lagc::mass_bias_method;
    auto const check = [](lagc::derived const& d, method expected) {
        EXPECT_EQ(d.mass_bias.method, expected) << lagc::name_of(d.mass_bias.method);
        EXPECT_FALSE(d.mass_bias.rule.empty());
        ASSERT_EQ(d.mass_bias.trace.size(), lagc::mass_bias_methods.size());
        for (std::size_t k = 0; k < d.mass_bias.trace.size(); ++k) {
            auto const& e = d.mass_bias.trace[k];
            EXPECT_EQ(e.method, lagc::mass_bias_methods[k]);
            if (e.method != expected) EXPECT_FALSE(e.note.empty()) << lagc::name_of(e.method);
        }
    };
    // A 3-D arm: the points' composites in the first link's axes, fewer operations than the
    // rate form term by term (both counted).
    lagc::derived const arm = derived_of(bundled_model("ur5_like"));
    check(arm, method::point_composites_root_axes);
    auto const& taken = arm.mass_bias.trace[static_cast<std::size_t>(method::point_composites_root_axes)];
    auto const& terms = arm.mass_bias.trace[static_cast<std::size_t>(method::rate_form)];
    EXPECT_GT(taken.operations, 0u);
    EXPECT_GT(terms.operations, taken.operations);
    // Points only: the Jacobian form.
    check(derived_of(bundled_model("cart_pendulum")), method::jacobian_form);
    // A body without points: the rate form, and the composites say why not.
    lagc::derived const body = derived_of(bundled_model("quaternion_body"));
    check(body, method::rate_form);
    EXPECT_NE(body.mass_bias.trace[static_cast<std::size_t>(method::point_composites)].note.find("no points"),
              std::string::npos);
    // Terms linear in q̇ (a magnetic field's): L's second derivatives.
    check(derived_of("model l\nparameter m = 1, b = 0.3\ncoordinate x, y\nkinetic 0.5*m*(der(x)^2 + der(y)^2)\n"
                     "lagrangian b*(x*der(y) - y*der(x))\npotential x^2 + y^2\n"),
          method::lagrangian);
}

// The RNEA derivatives built link by link in the bodies' axes (derive/local_rnea_derivatives.cpp,
// derived::recursive_derivatives): with the rest of their rows, ∂R/∂q and C against central
// differences of the derivation's own M q̈ + h − Q and ½ ∂h/∂q̇ at a state.
void expect_recursive_derivatives(lagc::model const& m, lagc::derived const& d) {
    std::size_t const n = d.nq;
    ASSERT_TRUE(d.recursive_derivatives.has_value()) << d.recursive_derivatives_why;
    auto const& rd = *d.recursive_derivatives;
    GiNaC::exmap x;
    for (std::size_t i = 0; i < n; ++i) {
        x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
        x[d.qdd[i]] = -0.2 + 0.6 * double(i);
    }
    for (std::size_t k = 0; k < m.u.size(); ++k) x[m.u[k]] = 1.5 - 0.8 * double(k);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    auto value = [](ex const& e, GiNaC::exmap const& at) {
        auto const v = lagc::evaluate(e, at);
        return v ? v->to_double() : std::nan("");
    };
    auto residual = [&](std::size_t i, GiNaC::exmap const& at) {
        double r = value(d.bias[i], at) - value(d.generalized_forces[i], at);
        for (std::size_t j = 0; j < n; ++j) r += value(d.mass_matrix[i * n + j], at) * value(d.qdd[j], at);
        return r;
    };
    auto moved = [&](GiNaC::symbol const& s, double by) {
        GiNaC::exmap y = x;
        y[s] = GiNaC::ex_to<GiNaC::numeric>(x[s]).to_double() + by;
        return y;
    };
    double const h = 1e-6;
    for (int state = 0; state < 2; ++state) {
    if (state == 1)
        for (std::size_t i = 0; i < n; ++i)
            x[m.q[i]] = -1.1 + 0.7 * double(i), x[m.qd[i]] = 0.4 + 0.3 * double(i), x[d.qdd[i]] = 0.9 - 0.5 * double(i);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
            double const dq = (residual(i, moved(m.q[k], h)) - residual(i, moved(m.q[k], -h))) / (2 * h);
            double const c = (value(d.bias[i], moved(m.qd[k], h)) - value(d.bias[i], moved(m.qd[k], -h))) / (4 * h);
            double claimed_dq = value(rd.dtau_dq[i * n + k], x), claimed_c = value(rd.coriolis[i * n + k], x);
            for (ex const& part : rd.residual_rest[i]) claimed_dq += value(part.diff(m.q[k]), x);
            claimed_c += value(rd.bias_rest[i].diff(m.qd[k]), x) / 2;
            EXPECT_NEAR(claimed_dq, dq, 1e-6 * (1 + std::abs(dq))) << "dR/dq " << i << ", " << k;
            EXPECT_NEAR(claimed_c, c, 1e-6 * (1 + std::abs(c))) << "C " << i << ", " << k << " at state " << state;
        }
    }
}

TEST(RneaDerivativesLocalAxes, ATurnedArmOnASlide) {
    auto const [m, d] = model_and_derived(turned_arm_on_cart);
    expect_recursive_derivatives(m, d);
}

// The bundled arm whose coriolis_matrix they write today (tests/cli.cmake).
TEST(RneaDerivativesLocalAxes, ABundledArm) {
    auto const [m, d] = model_and_derived(bundled_model("panda_like"));
    expect_recursive_derivatives(m, d);
}

// A branch: two bodies on a turning base, each by its own hinge, at offsets off every axis.
// (With isotropic inertias J |ω|², GiNaC writes each |ω|² as a sum of squared rates, which
// no body claims, and the tree forms are rightly refused: "terms of T or V outside the tree".)
std::string const branched_base =
    "model branched\nparameter g = 9.81, m1 = 2.0, m2 = 1.0, m3 = 0.7\ncoordinate q1, q2, q3\n"
    "input t1, t2, t3\nlet R1 = rotz(q1)\nlet w1 = [0, 0, der(q1)]\nlet p1 = R1*[0.05, 0.02, 0.1]\n"
    "let T2 = rot([0.6, 0, 0.8], 0.3)*rotx(q2)\nlet R2 = R1*T2\nlet w2 = transpose(T2)*w1 + [der(q2), 0, 0]\n"
    "let p2 = R1*[0.2, 0.03, 0.3] + R2*[0.01, 0.1, 0.25]\n"
    "let T3 = roty(q3)\nlet R3 = R1*T3\nlet w3 = transpose(T3)*w1 + [0, der(q3), 0]\n"
    "let p3 = R1*[-0.2, 0.05, 0.3] + R3*[0.02, -0.1, 0.2]\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.01, 0, 0], [0, 0.02, 0], [0, 0, 0.03]]*w1)\n"
    "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.012, 0.001, 0], [0.001, 0.02, 0], [0, 0, 0.015]]*w2)\n"
    "kinetic 0.5*m3*dot(der(p3), der(p3)) + 0.5*dot(w3, [[0.02, 0, 0.002], [0, 0.01, 0], [0.002, 0, 0.03]]*w3)\n"
    "potential g*(m1*p1[2] + m2*p2[2] + m3*p3[2])\nforce t1 on q1\nforce t2 on q2\nforce t3 on q3\n";

TEST(RneaDerivativesLocalAxes, ABranchedTree) {
    auto const [m, d] = model_and_derived(branched_base);
    expect_recursive_derivatives(m, d);
}

TEST(RneaDerivativesLocalAxes, NotOverAFloatingBaseAndTheReasonSaysSo) {
    lagc::derived const d = derived_of(floating_two_hinges);
    EXPECT_FALSE(d.recursive_derivatives.has_value());
    EXPECT_NE(d.recursive_derivatives_why.find("floating base"), std::string::npos) << d.recursive_derivatives_why;
}

// The list is closed and every method has one name (as --explain prints it and the table
// test reads it) and one helper; derive reports every method but the closed form, in order,
// each with a candidate or a reason.
TEST(ForwardDynamicsMethods, EveryMethodNamedOnceAndAttempted) {
    std::set<std::string> names, helpers;
    for (auto method : lagc::fd_methods) {
        names.insert(std::string(lagc::name_of(method)));
        helpers.insert(lagc::helper_name(method));
    }
    EXPECT_EQ(names.size(), lagc::fd_methods.size());
    EXPECT_EQ(helpers.size(), lagc::fd_methods.size());
    lagc::derived const d = derived_of(bundled_model("ur5_like"));
    ASSERT_EQ(d.forward_dynamics.size(), lagc::fd_methods.size() - 1);
    for (std::size_t k = 0; k < d.forward_dynamics.size(); ++k) {
        EXPECT_EQ(d.forward_dynamics[k].method, lagc::fd_methods[k + 1]);
        EXPECT_NE(d.forward_dynamics[k].candidate.has_value(), !d.forward_dynamics[k].reason.empty())
            << lagc::name_of(d.forward_dynamics[k].method);
    }
    // Without constraints the quasi-velocities do not apply, and say so.
    EXPECT_EQ(lagc::candidate_of(d, lagc::fd_method::quasi_velocities), nullptr);
    EXPECT_NE(d.forward_dynamics.back().reason.find("no constraints"), std::string::npos);
}

} // namespace
