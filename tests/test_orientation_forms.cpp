// One free rigid body, two ways of writing its orientation: the nine entries of its rotation
// matrix with the symmetric constraint transpose(R)*R = I (six rows: its upper triangle),
// and a unit quaternion (models/rotation_matrix_body.lag, models/quaternion_body.lag). From
// the same orientation and body rates under the same torques, both give the same motion.
#include "quaternion_body.hpp"
#include "rotation_matrix_body.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

// The two bodies after 2 s of RK4 steps of dt (each projected onto its constraints): the
// largest differences of their body rates and of their rotations.
void difference_after_two_seconds(double dt, double& dw, double& dR) {
    quaternion_body::Parameters pq;
    rotation_matrix_body::Parameters pr;
    double const n = std::sqrt(0.9 * 0.9 + 0.3 * 0.3 + 0.2 * 0.2 + 0.1 * 0.1);
    double const w = 0.9 / n, a = 0.3 / n, b = 0.2 / n, c = 0.1 / n;
    double const om[3] = {1.0, -2.0, 0.5};
    // The quaternion and its rates q' = 1/2 q (x) (0, w).
    double xq[8] = {w, a, b, c};
    double const Q[4][3] = {{-a, -b, -c}, {w, -c, b}, {c, w, -a}, {-b, a, w}};
    for (int r = 0; r < 4; ++r) xq[4 + r] = 0.5 * (Q[r][0] * om[0] + Q[r][1] * om[1] + Q[r][2] * om[2]);
    // The same rotation as a matrix and R' = R [w]x.
    double const R[9] = {w * w + a * a - b * b - c * c, 2 * (a * b - w * c), 2 * (a * c + w * b),
                         2 * (a * b + w * c), w * w - a * a + b * b - c * c, 2 * (b * c - w * a),
                         2 * (a * c - w * b), 2 * (b * c + w * a), w * w - a * a - b * b + c * c};
    double const S[9] = {0, -om[2], om[1], om[2], 0, -om[0], -om[1], om[0], 0};
    double xr[18];
    for (int i = 0; i < 9; ++i) xr[i] = R[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += R[i * 3 + k] * S[k * 3 + j];
            xr[9 + i * 3 + j] = s;
        }
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
    double const W = xq[0], A = xq[1], B = xq[2], C = xq[3];
    double const Rq[9] = {W * W + A * A - B * B - C * C, 2 * (A * B - W * C), 2 * (A * C + W * B),
                          2 * (A * B + W * C), W * W - A * A + B * B - C * C, 2 * (B * C - W * A),
                          2 * (A * C - W * B), 2 * (B * C + W * A), W * W - A * A - B * B + C * C};
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
