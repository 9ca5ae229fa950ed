/* Discrete-time LQR balancing of the bundled cart-pendulum in plain C99, from lagc's C
 * interface (--c-api): the plant's discrete-time model is the exact Jacobian of the very
 * RK4 step the loop simulates with (cart_pendulum_rk4_step_jacobian at the upright
 * equilibrium), so there is no matrix exponential and no discretisation to write; a
 * Riccati iteration gives the gain; the closed loop starts from a 0.3 rad tilt.
 *
 * Usage: lqr_c   prints the gain and how the loop settled; exit 0 when it did. */
#include "cart_pendulum.h"

#include <math.h>
#include <stdio.h>

#define NX (2 * cart_pendulum_nq)
#define NU cart_pendulum_nu

static const double pi = 3.14159265358979323846;

/* C = A B for small row-major matrices (A: r x k, B: k x c). */
static void multiply(const double* A, const double* B, double* C, int r, int k, int c) {
    int i, j, l;
    for (i = 0; i < r; ++i)
        for (j = 0; j < c; ++j) {
            double s = 0;
            for (l = 0; l < k; ++l) s += A[i * k + l] * B[l * c + j];
            C[i * c + j] = s;
        }
}

/* The gain K of u = -K x minimising the sum of x'Qx + u'Ru for x+ = Ad x + Bd u (one
 * input), by the discrete Riccati equation in Joseph form (P stays positive definite):
 *   K = (R + Bd'P Bd)^-1 Bd'P Ad,  P = Q + K'R K + (Ad - Bd K)' P (Ad - Bd K).
 * The number of iterations, or -1. */
static int lqr_gain(const double* Ad, const double* Bd, const double* Q, double R, double* K) {
    double P[NX * NX], PB[NX], closed[NX * NX], PC[NX * NX], next[NX * NX];
    int iteration, i, j, l;
    for (i = 0; i < NX * NX; ++i) P[i] = Q[i];
    for (iteration = 0; iteration < 100000; ++iteration) {
        double s = R, change = 0, largest = 1;
        multiply(P, Bd, PB, NX, NX, 1);
        for (i = 0; i < NX; ++i) s += Bd[i] * PB[i];
        for (j = 0; j < NX; ++j) {
            K[j] = 0;
            for (i = 0; i < NX; ++i) K[j] += PB[i] * Ad[i * NX + j];
            K[j] /= s;
        }
        for (i = 0; i < NX; ++i)
            for (j = 0; j < NX; ++j) closed[i * NX + j] = Ad[i * NX + j] - Bd[i] * K[j];
        multiply(P, closed, PC, NX, NX, NX);
        for (i = 0; i < NX; ++i)
            for (j = 0; j < NX; ++j) {
                double v = Q[i * NX + j] + K[i] * R * K[j];
                for (l = 0; l < NX; ++l) v += closed[l * NX + i] * PC[l * NX + j];
                next[i * NX + j] = v;
                change = fmax(change, fabs(v - P[i * NX + j]));
                largest = fmax(largest, fabs(v));
            }
        for (i = 0; i < NX * NX; ++i) P[i] = next[i];
        if (change < 1e-12 * largest) return iteration;
    }
    return -1;
}

int main(void) {
    cart_pendulum_parameters p;
    const double dt = 0.01;
    /* The upright equilibrium: theta = pi, at rest, no force; one step from it gives the
     * discrete-time model x+ = Ad x + Bd u about it. */
    double x[NX] = {0.0, pi, 0.0, 0.0}, u[NU] = {0.0};
    double Ad[NX * NX], Bd[NX * NU], K[NX];
    const double Q[NX * NX] = {10, 0, 0, 0, 0, 100, 0, 0, 0, 0, 1, 0, 0, 0, 0, 10}; /* x, theta, xdot, thetadot */
    double peak = 0;
    int k, iterations, settled;
    cart_pendulum_default_parameters(&p);
    if (cart_pendulum_rk4_step_jacobian(x, u, &p, dt, Ad, Bd) != cart_pendulum_ok) return 1;
    iterations = lqr_gain(Ad, Bd, Q, 0.1, K);
    if (iterations < 0) return 1;
    printf("discrete-time model from rk4_step_jacobian: d(theta+)/d(theta) = %.6f, d(xdot+)/dF = %.6f\n",
           Ad[1 * NX + 1], Bd[2]);
    printf("LQR gain K = [%.3f, %.3f, %.3f, %.3f] after %d Riccati iterations\n", K[0], K[1], K[2], K[3], iterations);
    x[0] = 0.0, x[1] = pi + 0.3, x[2] = 0.0, x[3] = 0.0; /* a 0.3 rad tilt */
    for (k = 0; k < 1000; ++k) {
        u[0] = -(K[0] * x[0] + K[1] * (x[1] - pi) + K[2] * x[2] + K[3] * x[3]);
        peak = fmax(peak, fabs(u[0]));
        if (cart_pendulum_rk4_step(x, u, &p, dt) != cart_pendulum_ok) return 1;
    }
    printf("after 10 s: |x| = %.2e m, |theta - pi| = %.2e rad, |xdot| = %.2e, |thetadot| = %.2e; peak |F| = %.2f N\n",
           fabs(x[0]), fabs(x[1] - pi), fabs(x[2]), fabs(x[3]), peak);
    settled = fabs(x[0]) < 1e-3 && fabs(x[1] - pi) < 1e-4 && fabs(x[2]) < 1e-3 && fabs(x[3]) < 1e-3;
    printf("%s\n", settled ? "settled" : "NOT settled");
    return settled ? 0 : 1;
}
