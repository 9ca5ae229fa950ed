// The C++ side of examples/python_ctypes/compare.py: forward_dynamics, linearization and
// inverse_dynamics_regressor (every model of the cases has one) of one model (LAGC_NS, from
// LAGC_HEADER, in LAGC_SCALAR) on the same states, printed as hexadecimal floats (exact),
// each value as a double; then the regressor's parameter indices.
#include LAGC_HEADER

#include <cstdio>

int main() {
    namespace model = LAGC_NS;
    using scalar = LAGC_SCALAR;
    constexpr int nq = model::nq, nu = model::nu, nc = model::nc;
    model::Parameters p;
    for (int k = 0; k < 3; ++k) {
        scalar q[nq], qd[nq], u[nu > 0 ? nu : 1], qdd[nq], lambda[nc > 0 ? nc : 1], A[4 * nq * nq],
            B[2 * nq * (nu > 0 ? nu : 1)];
        for (int i = 0; i < nq; ++i)
            q[i] = scalar(0.1 * (i + 1) + 0.05 * k), qd[i] = scalar(0.2 - 0.1 * i + 0.01 * k);
        for (int i = 0; i < (nu > 0 ? nu : 1); ++i) u[i] = scalar(0.3 * (i + 1));
        if (model::forward_dynamics(q, qd, u, p, qdd, lambda) != 0) return 1;
        if (model::linearization(q, qd, u, p, A, B) != 0) return 1;
        bool first = true;
        auto print = [&](scalar v) {
            std::printf(first ? "%a" : " %a", static_cast<double>(v));
            first = false;
        };
        for (scalar v : qdd) print(v);
        for (int i = 0; i < nc; ++i) print(lambda[i]);
        for (scalar v : A) print(v);
        for (int i = 0; i < 2 * nq * nu; ++i) print(B[i]);
        scalar Y[nq * model::nr];
        model::inverse_dynamics_regressor(q, qd, qdd, p, Y);
        for (scalar v : Y) print(v);
        std::printf("\n");
    }
    for (int j = 0; j < model::nr; ++j) std::printf(j ? " %d" : "regressor %d", model::regressor_parameters[j]);
    std::printf("\n");
    return 0;
}
