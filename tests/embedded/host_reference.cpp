// The embedded job's reference (tests/embedded/): forward_dynamics in double on the host at
// the states target_main.cpp evaluates in float, with cond(M) (1-norm) at each, which
// bounds how far a float result may be from it. Prints "cond q̈_0 q̈_1 ..." a line a state.
#include MODEL_HEADER

#include "states.hpp"

#include <cmath>
#include <cstdio>

namespace {

// ||M||_1 ||M^-1||_1, M^-1 by Gauss-Jordan elimination with partial pivoting.
double condition(double const* m, int n) {
    double a[64 * 64], inv[64 * 64];
    for (int i = 0; i < n * n; ++i) a[i] = m[i], inv[i] = i / n == i % n ? 1 : 0;
    for (int k = 0; k < n; ++k) {
        int pivot = k;
        for (int i = k + 1; i < n; ++i)
            if (std::fabs(a[i * n + k]) > std::fabs(a[pivot * n + k])) pivot = i;
        for (int j = 0; j < n; ++j) {
            std::swap(a[k * n + j], a[pivot * n + j]);
            std::swap(inv[k * n + j], inv[pivot * n + j]);
        }
        double const d = a[k * n + k];
        for (int j = 0; j < n; ++j) a[k * n + j] /= d, inv[k * n + j] /= d;
        for (int i = 0; i < n; ++i) {
            if (i == k) continue;
            double const f = a[i * n + k];
            for (int j = 0; j < n; ++j) a[i * n + j] -= f * a[k * n + j], inv[i * n + j] -= f * inv[k * n + j];
        }
    }
    auto norm1 = [n](double const* x) {
        double most = 0;
        for (int j = 0; j < n; ++j) {
            double column = 0;
            for (int i = 0; i < n; ++i) column += std::fabs(x[i * n + j]);
            most = std::fmax(most, column);
        }
        return most;
    };
    return norm1(m) * norm1(inv);
}

} // namespace

int main() {
    using namespace MODEL;
    static_assert(nq <= 64, "the reference's matrices hold 64 x 64");
    Parameters p;
    double q[nq], qd[nq], u[nu > 0 ? nu : 1], qdd[nq], lambda[nc > 0 ? nc : 1], M[nq * nq];
    for (int s = 0; s < lagc_states; ++s) {
        lagc_state(s, nq, nu, q, qd, u);
        int const status = forward_dynamics(q, qd, u, p, qdd, lambda);
        mass_matrix(q, p, M);
        std::printf("%s %.17g", status == 0 ? "ok" : "failed", condition(M, nq));
        for (int i = 0; i < nq; ++i) std::printf(" %.17g", qdd[i]);
        std::printf("\n");
    }
    return 0;
}
