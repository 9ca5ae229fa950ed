// Calls one function of a generated arm N times at states that move each call, for
// callgrind (bench/targets.py): 0 forward_dynamics, 1 inverse_dynamics, 2 mass_matrix,
// 3 linearization. usage: targets CALLS WHICH
#include LAGC_HEADER

#include <cstdio>
#include <cstdlib>

using namespace LAGC_NS;

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    int const calls = std::atoi(argv[1]), which = std::atoi(argv[2]);
    Parameters const p{};
    static double q[nq], qd[nq], qdd[nq], u[nu + 1], tau[nq], M[nq * nq], A[4 * nq * nq], B[2 * nq * (nu + 1)];
    double* const lambda = nullptr;
    for (int i = 0; i < nq; ++i) q[i] = 0.3 + 0.1 * i, qd[i] = 0.2 - 0.05 * i, qdd[i] = 0.1 - 0.02 * i;
    for (int i = 0; i < nu; ++i) u[i] = 0.1 * i;
    double sum = 0;
    for (int k = 0; k < calls; ++k) {
        q[0] += 1e-9;
        switch (which) {
        case 0: sum += forward_dynamics(q, qd, u, p, qdd, lambda) + qdd[nq - 1]; break;
        case 1: inverse_dynamics(q, qd, qdd, u, p, tau), sum += tau[0]; break;
        case 2: mass_matrix(q, p, M), sum += M[1]; break;
        default: sum += linearization(q, qd, u, p, A, B) + A[2 * nq * nq + 1]; break;
        }
    }
    std::printf("%.17g\n", sum);
    return 0;
}
