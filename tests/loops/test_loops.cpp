// Closed loops from MJCF <equality> (issue 49): robot files whose loops lagc closes with
// exact holonomic constraints, checked against models written independently of the
// importer — the bundled four-bar, a slider-crank's closed form, a gripper's loops written by
// hand — at random states the generated project_state puts on the loop.
#include "couplings.hpp"
#include "fb_robot.hpp"
#include "four_bar.hpp"
#include "grip_hand.hpp"
#include "grip_robot.hpp"
#include "sc_robot.hpp"
#include "weld_ref.hpp"
#include "weld_robot.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

namespace {

double const pi = 3.14159265358979323846;

double largest(double const* v, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = std::max(m, std::abs(v[i]));
    return m;
}

// The four-bar's closed form: crank angle t1 gives the coupler's and the rocker's absolute
// angles (the branch of the file's drawn pose: the joint above the line from crank tip to
// rocker pivot).
void four_bar_angles(double t1, double l1, double l2, double l3, double d, double& t2, double& t3) {
    double const px = l1 * std::cos(t1), py = l1 * std::sin(t1);
    double const dx = d - px, dy = -py, dist = std::hypot(dx, dy);
    double const a = (l2 * l2 - l3 * l3 + dist * dist) / (2 * dist), h = std::sqrt(l2 * l2 - a * a);
    double const mx = px + a * dx / dist, my = py + a * dy / dist;
    double bx = mx - h * dy / dist, by = my + h * dx / dist; // left of P→D: cross > 0
    if (dx * (by - py) - dy * (bx - px) < 0) bx = mx + h * dy / dist, by = my - h * dx / dist;
    t2 = std::atan2(by - py, bx - px);
    t3 = std::atan2(by, bx - d);
}

} // namespace

// The robot file's coordinates are relative angles (crank, coupler relative to the crank,
// rocker) from the drawn pose; the bundled model's are absolute: θ = θ₀ + J q with
// J = [[1,0,0],[1,1,0],[0,0,1]]. M = Jᵀ M_bundled J; θ̈ = J q̈; the loop's residual is the
// same function, so the multipliers are equal.
TEST(Loops, FourBarRobotFileAgreesWithTheBundledModel) {
    fb_robot::Parameters pr;
    four_bar::Parameters pb;
    pb.l1 = 0.2, pb.l2 = 0.75, pb.l3 = 0.65, pb.d = 0.6;
    double const c2 = std::atan2(0.8, 0.6); // the coupler's drawn turn relative to the crank
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1, 1);
    int checked = 0;
    for (int trial = 0; trial < 20; ++trial) {
        double const t1 = pi * U(rng);
        double t2, t3;
        four_bar_angles(t1, pb.l1, pb.l2, pb.l3, pb.d, t2, t3);
        double q[3] = {t1 - pi / 2 + 1e-3 * U(rng), t2 - t1 + c2 + 1e-3 * U(rng), t3 - pi / 2 + 1e-3 * U(rng)};
        double qd[3] = {3 * U(rng), 3 * U(rng), 3 * U(rng)};
        double const left = fb_robot::project_state(q, qd, pr);
        ASSERT_GE(left, 0);
        ASSERT_LT(left, 1e-10) << "trial " << trial;
        double th[3] = {q[0] + pi / 2, q[0] + q[1] + pi / 2 - c2, q[2] + pi / 2};
        double thd[3] = {qd[0], qd[0] + qd[1], qd[2]};
        double c[2], v[2];
        four_bar::constraint_residuals(th, thd, pb, c);
        four_bar::constraint_velocity(th, thd, pb, v);
        EXPECT_LT(largest(c, 2), 1e-12) << "the robot file's loop is the bundled model's";
        EXPECT_LT(largest(v, 2), 1e-12);
        double Mr[9], Mb[9];
        fb_robot::mass_matrix(q, pr, Mr);
        four_bar::mass_matrix(th, pb, Mb);
        double const J[9] = {1, 0, 0, 1, 1, 0, 0, 0, 1};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double s = 0;
                for (int k = 0; k < 3; ++k)
                    for (int l = 0; l < 3; ++l) s += J[k * 3 + i] * Mb[k * 3 + l] * J[l * 3 + j];
                EXPECT_NEAR(Mr[i * 3 + j], s, 1e-13) << i << "," << j;
            }
        double const tau = 2 * U(rng);
        double ur[3] = {tau, 0, 0}, ub[1] = {tau};
        double qddr[3], lr[2], qddb[3], lb[2];
        ASSERT_EQ(fb_robot::forward_dynamics(q, qd, ur, pr, qddr, lr), 0);
        ASSERT_EQ(four_bar::forward_dynamics(th, thd, ub, pb, qddb, lb), 0);
        double const mapped[3] = {qddr[0], qddr[0] + qddr[1], qddr[2]};
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(mapped[i], qddb[i], 1e-9 * (1 + std::abs(qddb[i]))) << "trial " << trial;
        for (int i = 0; i < 2; ++i) EXPECT_NEAR(lr[i], lb[i], 1e-9 * (1 + std::abs(lb[i]))) << "trial " << trial;
        ++checked;
    }
    EXPECT_EQ(checked, 20);
    EXPECT_EQ(fb_robot::nc, 2); // the rows along z, the hinges' axis, are left out
}

// The slider-crank's closed form in the crank angle θ: the rod's absolute angle ψ with
// L sin ψ = −r sin θ, the slider at s = r cos θ + L cos ψ, their first and second derivatives
// in θ, and θ̈ from the one-coordinate Lagrangian; the multipliers from the slider's and the
// rod's own Newton–Euler equations (the rod's end pulled by −λ).
TEST(Loops, SliderCrankRobotFileAgreesWithItsClosedForm) {
    sc_robot::Parameters p;
    double const r = 0.1, L = 0.35, Jc = 0.02, m2 = 0.8, m3 = 0.5, g = 9.81, I2 = m2 * L * L / 12;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        double const th = pi * U(rng), thd = 4 * U(rng), tau = U(rng);
        double const psi = -std::asin(r * std::sin(th) / L);
        double const p1 = -r * std::cos(th) / (L * std::cos(psi));
        double const p2 = r * std::sin(th) / (L * std::cos(psi)) - r * std::cos(th) * std::sin(psi) * p1 / (L * std::pow(std::cos(psi), 2));
        double const s1 = -r * std::sin(th) - L * std::sin(psi) * p1;
        double const s2 = -r * std::cos(th) - L * std::cos(psi) * p1 * p1 - L * std::sin(psi) * p2;
        double const cx1 = -r * std::sin(th) - L / 2 * std::sin(psi) * p1, cy1 = r * std::cos(th) + L / 2 * std::cos(psi) * p1;
        double const cx2 = -r * std::cos(th) - L / 2 * (std::cos(psi) * p1 * p1 + std::sin(psi) * p2);
        double const cy2 = -r * std::sin(th) + L / 2 * (-std::sin(psi) * p1 * p1 + std::cos(psi) * p2);
        double const Meff = Jc + m2 * (cx1 * cx1 + cy1 * cy1) + I2 * p1 * p1 + m3 * s1 * s1;
        double const Ceff = m2 * (cx1 * cx2 + cy1 * cy2) + I2 * p1 * p2 + m3 * s1 * s2;
        double const thdd = (tau - Ceff * thd * thd - m2 * g * cy1) / Meff;
        double const psidd = p2 * thd * thd + p1 * thdd, sdd = s2 * thd * thd + s1 * thdd;
        double q[3] = {th + 1e-3 * U(rng), psi - th + 1e-3 * U(rng), r * std::cos(th) + L * std::cos(psi)};
        double qd[3] = {thd, (p1 - 1) * thd + 0.1 * U(rng), s1 * thd};
        double const left = sc_robot::project_state(q, qd, p);
        ASSERT_GE(left, 0);
        ASSERT_LT(left, 1e-10);
        // project_state puts the state on the loop, near where it started: the closed form there.
        double const psi_p = -std::asin(r * std::sin(q[0]) / L);
        EXPECT_NEAR(q[0], th, 2e-3);
        EXPECT_NEAR(q[0] + q[1], psi_p, 1e-10);
        EXPECT_NEAR(q[2], r * std::cos(q[0]) + L * std::cos(psi_p), 1e-10);
        EXPECT_NEAR(qd[0] + qd[1], -r * std::cos(q[0]) / (L * std::cos(psi_p)) * qd[0], 1e-9);
        double qe[3] = {th, psi - th, r * std::cos(th) + L * std::cos(psi)};
        double qde[3] = {thd, (p1 - 1) * thd, s1 * thd};
        double u[3] = {tau, 0, 0}, qdd[3], lam[2];
        ASSERT_EQ(sc_robot::forward_dynamics(qe, qde, u, p, qdd, lam), 0);
        EXPECT_NEAR(qdd[0], thdd, 1e-9 * (1 + std::abs(thdd))) << "trial " << trial;
        EXPECT_NEAR(qdd[1], psidd - thdd, 1e-9 * (1 + std::abs(psidd)));
        EXPECT_NEAR(qdd[2], sdd, 1e-9 * (1 + std::abs(sdd)));
        // λ: the slider (m3 s̈ = λx) and the rod's turn about its centre.
        EXPECT_NEAR(lam[0], m3 * sdd, 1e-9 * (1 + std::abs(m3 * sdd)));
        double const ex = L * std::cos(psi), ey = L * std::sin(psi);
        double const cxdd = cx2 * thd * thd + cx1 * thdd, cydd = cy2 * thd * thd + cy1 * thdd;
        double const pcx = -L / 2 * std::cos(psi), pcy = -L / 2 * std::sin(psi); // pin − centre
        double const rhs = I2 * psidd - (pcx * (m2 * cydd + m2 * g) - pcy * (m2 * cxdd));
        double const Fx = -lam[0], Fy = (rhs + ey * Fx) / ex;
        EXPECT_NEAR(lam[1], -Fy, 1e-9 * (1 + std::abs(Fy))) << "trial " << trial;
    }
}

// The gripper: 8 hinges, two connects (2 rows each: the rows along the hinges' axis x are
// left out) and the drivers' coupling: 5 rows, 3 degrees of freedom; M, the accelerations and
// the multipliers equal the hand-written loop's at random states on the loop.
TEST(Loops, GripperImportsAsAClosedLinkageAndAgreesWithTheHandWrittenLoop) {
    static_assert(grip_robot::nq == 8 && grip_robot::nc == 5, "8 coordinates, 5 independent rows: 3 degrees of freedom");
    static_assert(grip_hand::nq == 8 && grip_hand::nc == 5, "");
    grip_robot::Parameters pr;
    grip_hand::Parameters ph;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        double q[8], qd[8], u[8];
        for (int i = 0; i < 8; ++i) q[i] = 0.3 * U(rng), qd[i] = 2 * U(rng), u[i] = 0.05 * U(rng);
        double const left = grip_robot::project_state(q, qd, pr);
        ASSERT_GE(left, 0);
        ASSERT_LT(left, 1e-10) << "trial " << trial;
        double c[5], v[5];
        grip_hand::constraint_residuals(q, qd, ph, c);
        grip_hand::constraint_velocity(q, qd, ph, v);
        EXPECT_LT(largest(c, 5), 1e-13) << "the imported loops are the hand-written ones";
        EXPECT_LT(largest(v, 5), 1e-12);
        double Mr[64], Mh[64];
        grip_robot::mass_matrix(q, pr, Mr);
        grip_hand::mass_matrix(q, ph, Mh);
        for (int i = 0; i < 64; ++i) EXPECT_NEAR(Mr[i], Mh[i], 1e-15 + 1e-12 * std::abs(Mh[i])) << i;
        double qddr[8], lr[5], qddh[8], lh[5];
        ASSERT_EQ(grip_robot::forward_dynamics(q, qd, u, pr, qddr, lr), 0);
        ASSERT_EQ(grip_hand::forward_dynamics(q, qd, u, ph, qddh, lh), 0);
        double const scale = 1 + largest(qddh, 8), lscale = 1e-3 + largest(lh, 5);
        for (int i = 0; i < 8; ++i) EXPECT_NEAR(qddr[i], qddh[i], 1e-9 * scale) << "trial " << trial << " q" << i;
        for (int i = 0; i < 5; ++i) EXPECT_NEAR(lr[i], lh[i], 1e-9 * lscale) << "trial " << trial << " row " << i;
    }
}

// A weld in three dimensions (every row kept): the payload as a free body welded to the arm
// swings as the payload fixed to it does (weld_fixed.xml, merged into the arm); its origin
// stays where the arm carries it.
TEST(Loops, WeldedFreeBodyMovesAsAFixedOne) {
    static_assert(weld_robot::nq == 8 && weld_robot::nc == 7, "the weld's 6 rows and the quaternion's norm");
    weld_robot::Parameters p;
    weld_ref::Parameters pf;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> U(-1, 1);
    double const n = std::sqrt(0.81 + 0.01 + 0.09 + 0.04);
    for (int trial = 0; trial < 20; ++trial) {
        double q[8] = {0.5 * U(rng), 0.5, 0.05, 0.3, 0.9 / n, 0.1 / n, 0.3 / n, 0.2 / n};
        double qd[8] = {2 * U(rng), 0, 0, 0, 0, 0, 0, 0};
        double const left = weld_robot::project_state(q, qd, p);
        ASSERT_GE(left, 0);
        ASSERT_LT(left, 1e-10) << "trial " << trial;
        double const th = q[0];
        EXPECT_NEAR(q[1], std::cos(th) * 0.5 + std::sin(th) * 0.1, 1e-10);
        EXPECT_NEAR(q[2], 0.05, 1e-10);
        EXPECT_NEAR(q[3], 0.2 - std::sin(th) * 0.5 + std::cos(th) * 0.1, 1e-10);
        double u[7] = {U(rng), 0, 0, 0, 0, 0, 0}, qdd[8], lam[7];
        ASSERT_EQ(weld_robot::forward_dynamics(q, qd, u, p, qdd, lam), 0);
        double qf[1] = {th}, qdf[1] = {qd[0]}, uf[1] = {u[0]}, qddf[1], none[1];
        ASSERT_EQ(weld_ref::forward_dynamics(qf, qdf, uf, pf, qddf, none), 0);
        EXPECT_NEAR(qdd[0], qddf[0], 1e-9 * (1 + std::abs(qddf[0]))) << "trial " << trial;
    }
}

// A fixed tendon held at its drawn length, a + 2 b = 0.2, and a quadratic joint coupling
// about the refs, c + 0.1 = 0.1 + 2 (a − 0.2)²: in x = a − 0.2, b = −x/2 and c = 2x², so
// T = ½ (m1 + m2/4 + 16 m3 x²) ẋ² and (m1 + m2/4 + 16 m3 x²) ẍ + 16 m3 x ẋ² = F − G/2 + 4x H
// for forces F, G, H on a, b, c; the multipliers from b's and c's own equations.
TEST(Loops, TendonAndPolynomialCouplingsAgreeWithTheirClosedForm) {
    static_assert(couplings::nq == 3 && couplings::nc == 2, "");
    couplings::Parameters p;
    double const m1 = 1, m2 = 3, m3 = 0.5;
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        double const x = 0.5 * U(rng), xd = U(rng), F = U(rng), G = U(rng), H = U(rng);
        double q[3] = {0.2 + x, -x / 2, 2 * x * x}, qd[3] = {xd, -xd / 2, 4 * x * xd}, u[3] = {F, G, H};
        double qdd[3], lam[2];
        ASSERT_EQ(couplings::forward_dynamics(q, qd, u, p, qdd, lam), 0);
        double const xdd = (F - G / 2 + 4 * x * H - 16 * m3 * x * xd * xd) / (m1 + m2 / 4 + 16 * m3 * x * x);
        EXPECT_NEAR(qdd[0], xdd, 1e-12 * (1 + std::abs(xdd))) << "trial " << trial;
        EXPECT_NEAR(qdd[1], -xdd / 2, 1e-12 * (1 + std::abs(xdd)));
        double const cdd = 4 * xd * xd + 4 * x * xdd;
        EXPECT_NEAR(qdd[2], cdd, 1e-12 * (1 + std::abs(cdd)));
        EXPECT_NEAR(lam[0], (G - m2 * qdd[1]) / 2, 1e-12 * (1 + std::abs(G)));
        EXPECT_NEAR(lam[1], H - m3 * cdd, 1e-12 * (1 + std::abs(H)));
        // project_state from off the couplings lands on them.
        double qo[3] = {q[0] + 0.01, q[1] - 0.02, q[2] + 0.01}, qdo[3] = {qd[0], qd[1] + 0.1, qd[2]};
        ASSERT_LT(couplings::project_state(qo, qdo, p), 1e-10);
        EXPECT_NEAR(qo[0] - 0.2 + 2 * qo[1], 0, 1e-10);
        EXPECT_NEAR(qo[2], 2 * (qo[0] - 0.2) * (qo[0] - 0.2), 1e-10);
    }
}
