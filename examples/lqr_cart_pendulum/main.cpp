// LQR balancing of the bundled cart-pendulum (models/cart_pendulum.lag), all from the
// generated code: the plant linearized upright by cart_pendulum::linearization and
// discretised by cart_pendulum::zoh_discretization, a discrete-time LQR gain from a Riccati
// iteration (plain C++, no libraries), and the
// closed loop simulated with cart_pendulum::rk4_step from a 0.3 rad tilt.
//
// Usage: lqr_cart_pendulum [trajectory.csv]   prints the gain and how the loop settled;
// with a file name also writes t, x, theta, F (docs/plot_lqr.sh plots it).
#include "cart_pendulum.hpp"

#include <cmath>
#include <cstdio>

namespace {

constexpr int nx = 2 * cart_pendulum::nq, nu = cart_pendulum::nu;
constexpr double pi = 3.14159265358979323846;

// C = A B for small row-major matrices (A: r x k, B: k x c).
void multiply(const double* A, const double* B, double* C, int r, int k, int c) {
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) {
            double s = 0;
            for (int l = 0; l < k; ++l) s += A[i * k + l] * B[l * c + j];
            C[i * c + j] = s;
        }
}

void transpose(const double* A, double* T, int r, int c) {
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) T[j * r + i] = A[i * c + j];
}

// The gain K of u = -K x minimising Σ xᵀQx + uᵀRu for x+ = Ad x + Bd u (nu = 1), by
// iterating the discrete Riccati equation in its Joseph form
//   K = (R + Bdᵀ P Bd)⁻¹ Bdᵀ P Ad,  P = Q + Kᵀ R K + (Ad − Bd K)ᵀ P (Ad − Bd K),
// which keeps P positive definite in floating point (the textbook form
// Q + Adᵀ P Ad − Adᵀ P Bd K loses it here and diverges). The number of iterations, or -1.
int lqr_gain(const double* Ad, const double* Bd, const double* Q, double R, double* K) {
    double P[nx * nx], PB[nx], closed[nx * nx], closedT[nx * nx], PC[nx * nx], next[nx * nx];
    for (int i = 0; i < nx * nx; ++i) P[i] = Q[i];
    for (int iteration = 0; iteration < 100000; ++iteration) {
        multiply(P, Bd, PB, nx, nx, 1);
        double s = R;
        for (int i = 0; i < nx; ++i) s += Bd[i] * PB[i];
        for (int j = 0; j < nx; ++j) {
            K[j] = 0;
            for (int i = 0; i < nx; ++i) K[j] += PB[i] * Ad[i * nx + j];
            K[j] /= s;
        }
        for (int i = 0; i < nx; ++i)
            for (int j = 0; j < nx; ++j) closed[i * nx + j] = Ad[i * nx + j] - Bd[i] * K[j];
        transpose(closed, closedT, nx, nx);
        multiply(P, closed, PC, nx, nx, nx);
        multiply(closedT, PC, next, nx, nx, nx);
        double change = 0, largest = 1;
        for (int i = 0; i < nx; ++i)
            for (int j = 0; j < nx; ++j) {
                next[i * nx + j] += Q[i * nx + j] + K[i] * R * K[j];
                change = std::fmax(change, std::fabs(next[i * nx + j] - P[i * nx + j]));
                largest = std::fmax(largest, std::fabs(next[i * nx + j]));
            }
        for (int i = 0; i < nx * nx; ++i) P[i] = next[i];
        if (change < 1e-12 * largest) return iteration;
    }
    return -1;
}

} // namespace

int main(int argc, char** argv) {
    cart_pendulum::Parameters p;
    // The upright equilibrium: theta = pi, at rest, no force.
    double const q0[2] = {0.0, pi}, qd0[2] = {0.0, 0.0}, u0[1] = {0.0};
    double A[nx * nx], B[nx * nu];
    if (cart_pendulum::linearization(q0, qd0, u0, p, A, B) != 0) return 1;
    double const dt = 0.01;
    double Ad[nx * nx], Bd[nx * nu], K[nx];
    // Zero-order hold over dt: Ad = e^(A dt), Bd = (∫ e^(A s) ds) B, exact to round-off.
    if (cart_pendulum::zoh_discretization(A, B, dt, Ad, Bd) != 0) return 1;
    double const Q[nx * nx] = {10, 0, 0, 0, 0, 100, 0, 0, 0, 0, 1, 0, 0, 0, 0, 10}; // x, theta, xdot, thetadot
    int iterations = lqr_gain(Ad, Bd, Q, 0.1, K);
    if (iterations < 0) return 1;
    std::printf("upright: d(thetadd)/d(theta) = %.4f 1/s^2 (unstable: positive), d(xdd)/dF = %.4f 1/kg\n",
                A[3 * nx + 1], B[2]);
    std::printf("LQR gain K = [%.3f, %.3f, %.3f, %.3f] after %d Riccati iterations\n", K[0], K[1], K[2], K[3],
                iterations);

    std::FILE* csv = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
    if (csv) std::fprintf(csv, "t,x,theta,F\n");
    double x[nx] = {0.0, pi + 0.3, 0.0, 0.0}; // a 0.3 rad tilt
    double peak_force = 0;
    for (int k = 0; k <= 1000; ++k) {
        double const e[nx] = {x[0] - q0[0], x[1] - q0[1], x[2], x[3]};
        double u[1] = {-(K[0] * e[0] + K[1] * e[1] + K[2] * e[2] + K[3] * e[3])};
        peak_force = std::fmax(peak_force, std::fabs(u[0]));
        if (csv) std::fprintf(csv, "%.3f,%.6f,%.6f,%.6f\n", k * dt, x[0], x[1] - pi, u[0]);
        if (k < 1000 && cart_pendulum::rk4_step(x, u, p, dt) != 0) return 1;
    }
    if (csv) std::fclose(csv);
    std::printf("after 10 s: |x| = %.2e m, |theta - pi| = %.2e rad, |xdot| = %.2e, |thetadot| = %.2e; peak |F| = %.2f N\n",
                std::fabs(x[0]), std::fabs(x[1] - pi), std::fabs(x[2]), std::fabs(x[3]), peak_force);
    bool settled = std::fabs(x[0]) < 1e-3 && std::fabs(x[1] - pi) < 1e-4 && std::fabs(x[2]) < 1e-3 && std::fabs(x[3]) < 1e-3;
    std::printf("%s\n", settled ? "settled" : "NOT settled");
    return settled ? 0 : 1;
}
