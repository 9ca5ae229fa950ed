// The 30-segment snake (tests/robots/chain30.xml), whose forward_dynamics lagc writes by the
// articulated-body algorithm (no M formed), against the same file's closed form: q̈ with
// M q̈ = Q − h from mass_matrix, bias_forces and generalized_forces, solved here, at random
// states, inputs and parameters changed at run time (masses and inertias scaled by 0.5–2,
// damping 0–0.1); the last segment made massless at run time (a singular M: status 1, like
// the Cholesky path, qdd untouched); NaN in the state (not 0, qdd untouched); and the
// energy of a free swing without damping over 0.5 s of rk4_step at 0.1 ms (it drifts by less
// than 1e-9).
#include "chain30.hpp"
#include "dense.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace c = chain30;

// The 30 segments' parameters, one LAGC_SEGMENT(i) each.
#define LAGC_SEGMENTS \
    LAGC_SEGMENT(1) LAGC_SEGMENT(2) LAGC_SEGMENT(3) LAGC_SEGMENT(4) LAGC_SEGMENT(5) LAGC_SEGMENT(6) LAGC_SEGMENT(7) LAGC_SEGMENT(8) LAGC_SEGMENT(9) LAGC_SEGMENT(10) \
    LAGC_SEGMENT(11) LAGC_SEGMENT(12) LAGC_SEGMENT(13) LAGC_SEGMENT(14) LAGC_SEGMENT(15) LAGC_SEGMENT(16) LAGC_SEGMENT(17) LAGC_SEGMENT(18) LAGC_SEGMENT(19) LAGC_SEGMENT(20) \
    LAGC_SEGMENT(21) LAGC_SEGMENT(22) LAGC_SEGMENT(23) LAGC_SEGMENT(24) LAGC_SEGMENT(25) LAGC_SEGMENT(26) LAGC_SEGMENT(27) LAGC_SEGMENT(28) LAGC_SEGMENT(29) LAGC_SEGMENT(30)

int main() {
    constexpr int n = c::nq;
    std::mt19937_64 rng(0x636861696e33ull);
    std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-2.0, 2.0), scale(0.5, 2.0), damping(0.0, 0.1);
    double worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
        c::Parameters p;
#define LAGC_SEGMENT(i)                                                                                     \
    p.m_s##i *= scale(rng), p.Jxx_s##i *= scale(rng), p.Jyy_s##i *= scale(rng), p.Jzz_s##i *= scale(rng), \
        p.damping_j##i = damping(rng);
        LAGC_SEGMENTS
#undef LAGC_SEGMENT
        double q[n], qd[n], u[c::nu], qdd[n];
        for (int i = 0; i < n; ++i) q[i] = angle(rng), qd[i] = rate(rng);
        for (int i = 0; i < c::nu; ++i) u[i] = rate(rng);
        if (c::forward_dynamics(q, qd, u, p, qdd, nullptr) != 0) {
            std::fprintf(stderr, "forward_dynamics failed at trial %d\n", trial);
            return 1;
        }
        std::vector<double> M(n * n), h(n), Q(n), b(n);
        c::mass_matrix(q, p, M.data());
        c::bias_forces(q, qd, p, h.data());
        c::generalized_forces(q, qd, u, p, Q.data());
        for (int i = 0; i < n; ++i) b[i] = Q[i] - h[i];
        double const condition = condition_1(M, n);
        std::vector<double> const x = solved(M, b);
        double diff = 0, size = 1e-300;
        for (int i = 0; i < n; ++i) diff = std::max(diff, std::abs(qdd[i] - x[i])), size = std::max(size, std::abs(x[i]));
        // Both solve stably: they agree to about κ(M) ε.
        worst = std::max(worst, diff / size / std::max(1e-12, 10 * condition * DBL_EPSILON));
    }
    // The last segment massless: M singular.
    c::Parameters p;
    p.m_s30 = 0, p.Jxx_s30 = 0, p.Jyy_s30 = 0, p.Jzz_s30 = 0, p.Jxy_s30 = 0, p.Jxz_s30 = 0, p.Jyz_s30 = 0;
    double q[n] = {}, qd[n] = {}, u[c::nu] = {}, qdd[n];
    for (int i = 0; i < n; ++i) qdd[i] = 7;
    int const singular = c::forward_dynamics(q, qd, u, p, qdd, nullptr);
    bool untouched = true;
    for (double v : qdd) untouched = untouched && v == 7;
    q[3] = NAN;
    int const nan = c::forward_dynamics(q, qd, u, c::Parameters{}, qdd, nullptr);
    for (double v : qdd) untouched = untouched && v == 7;
    // A free swing without damping: the energy is conserved.
    c::Parameters free;
#define LAGC_SEGMENT(i) free.damping_j##i = 0;
    LAGC_SEGMENTS
#undef LAGC_SEGMENT
    double state[2 * n] = {};
    for (int i = 0; i < n; ++i) state[i] = 0.3 * std::sin(i), state[n + i] = 0.5 * std::cos(i);
    double const zero[c::nu] = {};
    auto energy = [&] { return c::kinetic_energy(state, state + n, free) + c::potential_energy(state, free); };
    double const E0 = energy();
    double drift = 0;
    for (int step = 0; step < 5000; ++step) {
        if (c::rk4_step(state, zero, free, 1e-4) != 0) {
            std::fprintf(stderr, "rk4_step failed at step %d\n", step);
            return 1;
        }
        drift = std::max(drift, std::abs(energy() - E0) / std::abs(E0));
    }
    std::printf("chain30: recursive forward_dynamics against M^-1 (Q - h): %.2e of what cond(M) eps allows (tolerance 1); "
                "massless last segment: status %d; NaN state: status %d; qdd untouched: %s; energy drift over 0.5 s: %.2e "
                "(tolerance 1e-9)\n",
                worst, singular, nan, untouched ? "yes" : "no", drift);
    return worst <= 1 && singular == 1 && nan != 0 && untouched && drift <= 1e-9 ? 0 : 1;
}
