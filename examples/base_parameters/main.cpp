// Identifying a three-link arm with friction and rotor inertia by its base parameters
// (lagc --regressor base): tau = Yb(q, qd, qdd) pib, pib = base_parameters(pi), the 17
// combinations of the 20 parameters the torques determine (base_parameter_names; each one's
// grouping, such as zz1R = zz1 + l1^2*m2 + l1^2*m3 + Ia1, is in the header's comment of
// base_parameters). Yb stacked over states has full column rank, so plain least squares
// gives pib with no pivoting and no rank decision. The "measurements" are the model's
// torques at 300 random states plus Gaussian noise of 0.02 N m.
//
// Build: lagc three_link_friction.lag -o three_link_friction.cpp --regressor base
//        c++ -std=c++17 -O2 main.cpp three_link_friction.cpp
// Usage: prints each base parameter, true and estimated, and "identified" (a test).
#include "three_link_friction.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace arm = three_link_friction;

namespace {

constexpr int n = arm::nq, nb = arm::nb;

// min |A x - b| (A: rows of nb) by modified Gram-Schmidt, twice; sd[k]: the standard
// deviation of x[k] per unit of noise, sqrt of diag((A^T A)^-1).
void least_squares(std::vector<std::vector<double>> const& A, std::vector<double> const& b, double* x, double* sd) {
    std::size_t const m = A.size();
    std::vector<std::vector<double>> Q(nb, std::vector<double>(m)), R(nb, std::vector<double>(nb, 0.0)), Ri = R;
    for (int j = 0; j < nb; ++j) {
        for (std::size_t i = 0; i < m; ++i) Q[j][i] = A[i][j];
        for (int pass = 0; pass < 2; ++pass)
            for (int k = 0; k < j; ++k) {
                double d = 0;
                for (std::size_t i = 0; i < m; ++i) d += Q[k][i] * Q[j][i];
                R[k][j] += d;
                for (std::size_t i = 0; i < m; ++i) Q[j][i] -= d * Q[k][i];
            }
        double norm = 0;
        for (double v : Q[j]) norm += v * v;
        R[j][j] = std::sqrt(norm);
        for (double& v : Q[j]) v /= R[j][j];
    }
    for (int c = 0; c < nb; ++c)
        for (int r = c; r >= 0; --r) {
            double s = r == c ? 1.0 : 0.0;
            for (int k = r + 1; k <= c; ++k) s -= R[r][k] * Ri[k][c];
            Ri[r][c] = s / R[r][r];
        }
    for (int r = 0; r < nb; ++r) {
        x[r] = 0, sd[r] = 0;
        for (int c = 0; c < nb; ++c) {
            double qb = 0;
            for (std::size_t i = 0; i < m; ++i) qb += Q[c][i] * b[i];
            x[r] += Ri[r][c] * qb;
            sd[r] += Ri[r][c] * Ri[r][c];
        }
        sd[r] = std::sqrt(sd[r]);
    }
}

} // namespace

int main() {
    arm::Parameters const truth{}; // the model's defaults stand for the real arm
    double pib_true[nb], pib[nb], sd[nb];
    arm::base_parameters(truth, pib_true);
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> U(-2.0, 2.0);
    std::normal_distribution<double> noise(0.0, 0.02);
    std::vector<std::vector<double>> rows;
    std::vector<double> torques;
    for (int s = 0; s < 300; ++s) {
        double q[n], qd[n], qdd[n], u[n] = {}, tau[n], Yb[n * nb];
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        arm::inverse_dynamics(q, qd, qdd, u, truth, tau); // the torques the motors would apply
        arm::inverse_dynamics_regressor_base(q, qd, qdd, truth, Yb); // reads l1, l2, g only
        for (int i = 0; i < n; ++i) {
            rows.emplace_back(Yb + i * nb, Yb + (i + 1) * nb);
            torques.push_back(tau[i] + noise(rng));
        }
    }
    least_squares(rows, torques, pib, sd);
    bool within = true;
    std::printf("%d base parameters of %d regressor parameters\n", nb, arm::nr);
    for (int k = 0; k < nb; ++k) {
        double const error = std::abs(pib[k] - pib_true[k]) / (0.02 * sd[k]);
        within = within && error < 4.5;
        std::printf("  %-6s true %9.5f  estimated %9.5f  (%.1f sd)\n", arm::base_parameter_names[k], pib_true[k], pib[k], error);
    }
    std::printf(within ? "identified\n" : "not identified\n");
    return within ? 0 : 1;
}
