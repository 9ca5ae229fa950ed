// The C++ side of examples/python_ctypes/compare.py: forward_dynamics and linearization of
// the cart-pendulum on the same states, printed as hexadecimal floats (exact).
#include "cart_pendulum.hpp"

#include <cstdio>

int main() {
    constexpr int nq = cart_pendulum::nq, nu = cart_pendulum::nu;
    cart_pendulum::Parameters p;
    for (int k = 0; k < 3; ++k) {
        double q[nq], qd[nq], u[nu], qdd[nq], lambda[1], A[4 * nq * nq], B[2 * nq * nu];
        for (int i = 0; i < nq; ++i) q[i] = 0.1 * (i + 1) + 0.05 * k, qd[i] = 0.2 - 0.1 * i + 0.01 * k;
        for (int i = 0; i < nu; ++i) u[i] = 0.3 * (i + 1);
        if (cart_pendulum::forward_dynamics(q, qd, u, p, qdd, lambda) != 0) return 1;
        if (cart_pendulum::linearization(q, qd, u, p, A, B) != 0) return 1;
        bool first = true;
        auto print = [&](double v) {
            std::printf(first ? "%a" : " %a", v);
            first = false;
        };
        for (double v : qdd) print(v);
        for (double v : A) print(v);
        for (double v : B) print(v);
        std::printf("\n");
    }
    return 0;
}
