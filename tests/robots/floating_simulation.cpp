// A floating body imported from tests/robots/floating_body.xml, simulated for 10 s with
// rk4_step and project_state after each step (the documented way to advance a free joint's
// quaternion): the energy and |quaternion| stay within 1e-10. And off |q| = 1 the model is
// the rigid motion of q/|q|.
#include "floating_body.hpp"

#include <cmath>
#include <cstdio>

namespace fb = floating_body;

int main() {
    fb::Parameters p;
    double x[2 * fb::nq] = {};
    double* q = x;
    double* qd = x + fb::nq;
    // The pose the file draws, then a throw and a spin (body rates w = 2 G q̇, so q̇ = ½ Q(q) w).
    q[fb::coordinate::float_z] = 1;
    double const e[4] = {0.9, 0.3, 0.2, 0.1};
    double const n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
    double const w = e[0] / n, a = e[1] / n, b = e[2] / n, c = e[3] / n;
    q[fb::coordinate::float_qw] = w, q[fb::coordinate::float_qx] = a, q[fb::coordinate::float_qy] = b, q[fb::coordinate::float_qz] = c;
    double const om[3] = {3.0, -1.0, 2.0};
    double const Q[4][3] = {{-a, -b, -c}, {w, -c, b}, {c, w, -a}, {-b, a, w}};
    int const iq = fb::coordinate::float_qw;
    for (int r = 0; r < 4; ++r) qd[iq + r] = 0.5 * (Q[r][0] * om[0] + Q[r][1] * om[1] + Q[r][2] * om[2]);
    qd[fb::coordinate::float_x] = 1.0, qd[fb::coordinate::float_z] = 4.0;
    double const u[fb::nu] = {};
    auto energy = [&]() { return fb::kinetic_energy(q, qd, p) + fb::potential_energy(q, p); };
    double const E0 = energy();
    // Off |q| = 1 the model is the rigid motion of q/|q| (the importer writes the rotation and
    // ω over |q|²): the state with q and its rate scaled by 2 has the same energies.
    double scaled[2 * fb::nq];
    for (int k = 0; k < 2 * fb::nq; ++k) scaled[k] = x[k];
    for (int r = 0; r < 4; ++r) scaled[iq + r] *= 2, scaled[fb::nq + iq + r] *= 2;
    double const T0 = fb::kinetic_energy(q, qd, p), V0 = fb::potential_energy(q, p);
    double const T2 = fb::kinetic_energy(scaled, scaled + fb::nq, p), V2 = fb::potential_energy(scaled, p);
    if (!(std::abs(T2 - T0) <= 1e-14 * std::abs(T0) && std::abs(V2 - V0) <= 1e-14 * std::abs(V0))) {
        std::fprintf(stderr, "the quaternion scaled by 2: T %.17g against %.17g, V %.17g against %.17g\n", T2, T0, V2, V0);
        return 1;
    }
    double const dt = 1e-3;
    double worst_E = 0, worst_norm = 0;
    for (int step = 0; step < 10000; ++step) {
        if (fb::rk4_step(x, u, p, dt) != 0 || fb::project_state(q, qd, p) < 0) {
            std::fprintf(stderr, "step %d failed\n", step);
            return 1;
        }
        double norm = 0;
        for (int r = 0; r < 4; ++r) norm += q[iq + r] * q[iq + r];
        worst_norm = std::max(worst_norm, std::abs(std::sqrt(norm) - 1));
        worst_E = std::max(worst_E, std::abs(energy() - E0) / std::abs(E0));
    }
    std::printf("floating body, 10 s at dt = 1e-3: energy %.2e relative, |quaternion| - 1 %.2e (both within 1e-10)\n",
                worst_E, worst_norm);
    return worst_E <= 1e-10 && worst_norm <= 1e-10 ? 0 : 1;
}
