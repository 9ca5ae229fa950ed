// The tutorial's program (docs/tutorial.md): simulate the generated pendulum and
// cart-pendulum. Built and run by the test suite, so the tutorial cannot go stale.
#include "cart_pendulum.hpp"
#include "simple_pendulum.hpp"

#include <cmath>
#include <cstdio>

// One RK4 step of the pendulum; forward_dynamics returns 0 on success.
static int step(const simple_pendulum::Parameters& p, double* q, double* qd, double dt) {
    double k1[2], k2[2], k3[2], k4[2], a, x, v;
    if (simple_pendulum::forward_dynamics(q, qd, nullptr, p, &a, nullptr)) return 1;
    k1[0] = qd[0], k1[1] = a;
    x = q[0] + dt / 2 * k1[0], v = qd[0] + dt / 2 * k1[1];
    if (simple_pendulum::forward_dynamics(&x, &v, nullptr, p, &a, nullptr)) return 1;
    k2[0] = v, k2[1] = a;
    x = q[0] + dt / 2 * k2[0], v = qd[0] + dt / 2 * k2[1];
    if (simple_pendulum::forward_dynamics(&x, &v, nullptr, p, &a, nullptr)) return 1;
    k3[0] = v, k3[1] = a;
    x = q[0] + dt * k3[0], v = qd[0] + dt * k3[1];
    if (simple_pendulum::forward_dynamics(&x, &v, nullptr, p, &a, nullptr)) return 1;
    k4[0] = v, k4[1] = a;
    q[0] += dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
    qd[0] += dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
    return 0;
}

int main() {
    // 1. The pendulum: measure the period of a small swing and compare with 2 pi sqrt(l/g).
    simple_pendulum::Parameters p; // m = 1, l = 0.5, g = 9.81 from the model
    double q[1] = {0.01}, qd[1] = {0.0}, t = 0, dt = 1e-4, last_crossing = -1, period = 0;
    while (t < 3.0) {
        double before = qd[0];
        if (step(p, q, qd, dt)) return 1;
        t += dt;
        if (before < 0 && qd[0] >= 0) { // the pendulum turns at the left extreme once per period
            if (last_crossing >= 0) period = t - last_crossing;
            last_crossing = t;
        }
    }
    std::printf("pendulum period: %.4f s (small-angle theory %.4f s)\n", period, 2 * M_PI * std::sqrt(p.l / p.g));

    // 2. The cart-pendulum: the matrices at one state, then the cart pushed for 1 s.
    cart_pendulum::Parameters cp;
    double cq[2] = {0.0, 0.3}, cqd[2] = {0.1, 0.5}, M[4], h[2], u[1] = {2.0}, cqdd[2];
    cart_pendulum::mass_matrix(cq, cp, M);
    cart_pendulum::bias_forces(cq, cqd, cp, h);
    std::printf("M = [[%.4f, %.4f], [%.4f, %.4f]], h = [%.4f, %.4f]\n", M[0], M[1], M[2], M[3], h[0], h[1]);
    if (cart_pendulum::forward_dynamics(cq, cqd, u, cp, cqdd, nullptr)) return 1;
    std::printf("with F = %.1f N: x'' = %.4f m/s^2, theta'' = %.4f rad/s^2\n", u[0], cqdd[0], cqdd[1]);
    return std::abs(period - 2 * M_PI * std::sqrt(p.l / p.g)) < 1e-3 ? 0 : 1;
}
