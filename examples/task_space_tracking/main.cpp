// Resolved-acceleration (operational-space) control of the planar two-link arm
// (models/planar_arm.lag), built from lagc's task-space functions: the tip follows a
// circle. At every step:
//   x = tip(q), xdot = J qd, a = xdd_d + Kd (xdot_d - xdot) + Kp (x_d - x),
//   qdd* = J^-1 (a - drift)          (xdd = J qdd + drift, so the tip accelerates by a),
//   tau = inverse_dynamics(q, qd, qdd*, 0) = M qdd* + h   (the torques that produce qdd*),
// and the plant is advanced by the generated RK4 step with tau held over it.
//
// Usage: task_space_tracking [trajectory.csv]   prints the tracking error; with a file name
// also writes t, x, y, x_d, y_d, |e| (docs/plot_tracking.sh plots it).
#include "planar_arm.hpp"

#include <cmath>
#include <cstdio>

namespace {
constexpr double center_x = 0.35, center_y = -0.5, radius = 0.15, rate = 2.0; // rad/s
constexpr double kp = 400.0, kd = 40.0;                                       // critically damped, 20 rad/s
} // namespace

int main(int argc, char** argv) {
    planar_arm::Parameters p;
    double x[4] = {0.3, 1.2, 0.0, 0.0}; // [q1, q2, qd1, qd2]: the tip starts off the circle
    double const dt = 1e-3;
    std::FILE* csv = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
    if (csv) std::fprintf(csv, "t,x,y,x_d,y_d,error\n");
    double late_error = 0, first_error = 0;
    for (int k = 0; k <= 4000; ++k) {
        double const t = k * dt, phase = rate * t;
        double const xd[2] = {center_x + radius * std::cos(phase), center_y + radius * std::sin(phase)};
        double const vd[2] = {-radius * rate * std::sin(phase), radius * rate * std::cos(phase)};
        double const ad[2] = {-radius * rate * rate * std::cos(phase), -radius * rate * rate * std::sin(phase)};
        double tip[2], J[4], drift[2];
        planar_arm::output_tip(x, x + 2, p, tip);
        planar_arm::output_tip_jacobian(x, p, J);
        planar_arm::output_tip_drift(x, x + 2, p, drift);
        double const v[2] = {J[0] * x[2] + J[1] * x[3], J[2] * x[2] + J[3] * x[3]};
        double const error = std::hypot(tip[0] - xd[0], tip[1] - xd[1]);
        if (k == 0) first_error = error;
        if (t >= 2.0) late_error = std::fmax(late_error, error);
        if (csv) std::fprintf(csv, "%.3f,%.6f,%.6f,%.6f,%.6f,%.3e\n", t, tip[0], tip[1], xd[0], xd[1], error);
        if (k == 4000) break;
        double a[2];
        for (int i = 0; i < 2; ++i) a[i] = ad[i] + kd * (vd[i] - v[i]) + kp * (xd[i] - tip[i]) - drift[i];
        double const det = J[0] * J[3] - J[1] * J[2];
        if (std::fabs(det) < 1e-9) return 1; // a singular arm pose: not reached on this circle
        double const qdd[2] = {(J[3] * a[0] - J[1] * a[1]) / det, (-J[2] * a[0] + J[0] * a[1]) / det};
        double const none[2] = {0.0, 0.0};
        double tau[2];
        planar_arm::inverse_dynamics(x, x + 2, qdd, none, p, tau);
        if (planar_arm::rk4_step(x, tau, p, dt) != 0) return 1;
    }
    if (csv) std::fclose(csv);
    std::printf("tip error: %.3f m at the start, at most %.2e m from t = 2 s to 4 s\n", first_error, late_error);
    bool const tracked = late_error < 1e-5;
    std::printf("%s\n", tracked ? "tracked" : "NOT tracked");
    return tracked ? 0 : 1;
}
