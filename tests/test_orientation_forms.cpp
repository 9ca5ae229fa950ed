// One free rigid body, two ways of writing its orientation: the nine entries of its rotation
// matrix with the symmetric constraint transpose(R)*R = I (six rows: its upper triangle),
// and a unit quaternion (models/rotation_matrix_body.lag, models/quaternion_body.lag). From
// the same orientation and body rates under the same torques, both give the same motion.
#include "kite_quaternion.hpp"
#include "kite_rotation_matrix.hpp"
#include "quaternion_body.hpp"
#include "rotation_matrix_body.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

// R of a unit quaternion (w, a, b, c).
void rotation_of(double const* q, double* R) {
    double const w = q[0], a = q[1], b = q[2], c = q[3];
    double const r[9] = {w * w + a * a - b * b - c * c, 2 * (a * b - w * c), 2 * (a * c + w * b),
                         2 * (a * b + w * c), w * w - a * a + b * b - c * c, 2 * (b * c - w * a),
                         2 * (a * c - w * b), 2 * (b * c + w * a), w * w - a * a - b * b + c * c};
    for (int i = 0; i < 9; ++i) R[i] = r[i];
}

// One orientation turning at body rates om, both ways: the quaternion (0.9, 0.3, 0.2, 0.1)
// normalised with q' = 1/2 q (x) (0, om), and its rotation matrix with R' = R [om]x.
struct orientation {
    double q[4], qd[4], R[9], Rd[9];
    explicit orientation(double const* om) {
        double const n = std::sqrt(0.9 * 0.9 + 0.3 * 0.3 + 0.2 * 0.2 + 0.1 * 0.1);
        double const w = 0.9 / n, a = 0.3 / n, b = 0.2 / n, c = 0.1 / n;
        double const Q[4][3] = {{-a, -b, -c}, {w, -c, b}, {c, w, -a}, {-b, a, w}};
        q[0] = w, q[1] = a, q[2] = b, q[3] = c;
        for (int r = 0; r < 4; ++r) qd[r] = 0.5 * (Q[r][0] * om[0] + Q[r][1] * om[1] + Q[r][2] * om[2]);
        rotation_of(q, R);
        double const S[9] = {0, -om[2], om[1], om[2], 0, -om[0], -om[1], om[0], 0};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                Rd[i * 3 + j] = 0;
                for (int k = 0; k < 3; ++k) Rd[i * 3 + j] += R[i * 3 + k] * S[k * 3 + j];
            }
    }
};

// The two bodies after 2 s of RK4 steps of dt (each projected onto its constraints): the
// largest differences of their body rates and of their rotations.
void difference_after_two_seconds(double dt, double& dw, double& dR) {
    quaternion_body::Parameters pq;
    rotation_matrix_body::Parameters pr;
    double const om[3] = {1.0, -2.0, 0.5};
    orientation const o(om);
    double xq[8], xr[18];
    for (int i = 0; i < 4; ++i) xq[i] = o.q[i], xq[4 + i] = o.qd[i];
    for (int i = 0; i < 9; ++i) xr[i] = o.R[i], xr[9 + i] = o.Rd[i];
    double const u[3] = {0.1, 0.0, -0.2};
    int const steps = static_cast<int>(std::lround(2.0 / dt));
    for (int k = 0; k < steps; ++k) {
        ASSERT_EQ(quaternion_body::rk4_step(xq, u, pq, dt), 0);
        ASSERT_GE(quaternion_body::project_state(xq, xq + 4, pq), 0);
        ASSERT_EQ(rotation_matrix_body::rk4_step(xr, u, pr, dt), 0);
        ASSERT_GE(rotation_matrix_body::project_state(xr, xr + 9, pr), 0);
    }
    double wq[3], wr[3];
    quaternion_body::output_angular_velocity(xq, xq + 4, pq, wq);
    rotation_matrix_body::output_angular_velocity(xr, xr + 9, pr, wr);
    double Rq[9];
    rotation_of(xq, Rq);
    dw = 0, dR = 0;
    for (int i = 0; i < 3; ++i) dw = std::max(dw, std::abs(wq[i] - wr[i]));
    for (int i = 0; i < 9; ++i) dR = std::max(dR, std::abs(Rq[i] - xr[i]));
}

} // namespace

TEST(OrientationForms, RotationMatrixAndQuaternionAgreeInSimulation) {
    static_assert(rotation_matrix_body::nq == 9 && rotation_matrix_body::nc == 6, "R^T R = I gives six rows");
    // The same motion: what differs is each formulation's RK4 error, which falls as dt^4.
    double dw1, dR1, dw2, dR2;
    difference_after_two_seconds(1e-3, dw1, dR1);
    difference_after_two_seconds(5e-4, dw2, dR2);
    std::printf("after 2 s: body rates differ by %.2e (dt = 1 ms), %.2e (0.5 ms) rad/s; rotations by %.2e, %.2e\n",
                dw1, dw2, dR1, dR2);
    EXPECT_LT(dw1, 1e-8);
    EXPECT_LT(dR1, 1e-8);
    EXPECT_LT(dw2, dw1 / 8);
    EXPECT_LT(dR2, dR1 / 8);
}

namespace {

// The two tethered kites after 0.5 s of RK4 steps of dt from the same state on both
// constraints (each projected onto its constraints): the largest differences of their
// positions and of their body rates.
void kites_after_half_a_second(double dt, double& dp, double& dw) {
    kite_quaternion::Parameters pq;
    kite_rotation_matrix::Parameters pr;
    double const om[3] = {0.4, -0.3, 0.2};
    orientation const o(om);
    // On the tether (L = 50) at 30 degrees elevation, moving across the wind (p . p' = 0).
    double const pk[3] = {50 * std::sqrt(3.0) / 2, 0.0, 25.0}, vk[3] = {-2.5, 8.0, 2.5 * std::sqrt(3.0)};
    double xq[14], xr[24];
    for (int i = 0; i < 3; ++i) xq[i] = xr[i] = pk[i], xq[7 + i] = xr[12 + i] = vk[i];
    for (int i = 0; i < 4; ++i) xq[3 + i] = o.q[i], xq[10 + i] = o.qd[i];
    for (int i = 0; i < 9; ++i) xr[3 + i] = o.R[i], xr[15 + i] = o.Rd[i];
    double const u[3] = {0.5, -0.2, 0.1};
    int const steps = static_cast<int>(std::lround(0.5 / dt));
    for (int k = 0; k < steps; ++k) {
        ASSERT_EQ(kite_quaternion::rk4_step(xq, u, pq, dt), 0);
        ASSERT_GE(kite_quaternion::project_state(xq, xq + 7, pq), 0);
        ASSERT_EQ(kite_rotation_matrix::rk4_step(xr, u, pr, dt), 0);
        ASSERT_GE(kite_rotation_matrix::project_state(xr, xr + 12, pr), 0);
    }
    double wq[3], wr[3];
    kite_quaternion::output_angular_velocity(xq, xq + 7, pq, wq);
    kite_rotation_matrix::output_angular_velocity(xr, xr + 12, pr, wr);
    dp = 0, dw = 0;
    for (int i = 0; i < 3; ++i) dp = std::max(dp, std::abs(xq[i] - xr[i])), dw = std::max(dw, std::abs(wq[i] - wr[i]));
}

} // namespace

TEST(OrientationForms, TetheredKitesAgreeInSimulation) {
    // The lecture notes' kite with its rotation matrix and with a quaternion: the same flight,
    // up to each formulation's RK4 error (dt^4).
    double dp1, dw1, dp2, dw2;
    kites_after_half_a_second(1e-3, dp1, dw1);
    kites_after_half_a_second(5e-4, dp2, dw2);
    std::printf("kites after 0.5 s: positions differ by %.2e, %.2e m; body rates by %.2e, %.2e rad/s (dt = 1, 0.5 ms)\n",
                dp1, dp2, dw1, dw2);
    EXPECT_LT(dp1, 1e-6);
    EXPECT_LT(dw1, 1e-6);
    EXPECT_LT(dp2, dp1 / 8);
    EXPECT_LT(dw2, dw1 / 8);
}
