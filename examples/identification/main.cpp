// Identifying the UR5-like arm's inertial parameters from noisy joint torques, with lagc's
// inverse_dynamics_regressor: tau = Y(q, qd, qdd) pi for the parameters pi the torques are
// linear in (the header's regressor_parameter_names). The "measurements" are the true
// model's torques at 400 random states plus Gaussian noise of 0.05 N m; Y is stacked over
// them and least squares solved by a column-pivoted QR, which finds the base parameters
// (the combinations the torques determine) and sets the rest to zero. The estimate predicts
// the torques at 200 fresh states to within the noise: that is what identification is for
// (feed-forward, simulation), whatever the split of pi inside each combination.
//
// Usage: identification   prints the counts, the errors, and "identified" (a test).
#include "ur5_like.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace arm = ur5_like;

namespace {

constexpr int n = arm::nq, nr = arm::nr;

// min |A x - b| for A (rows x nr, row-major) by Householder QR with column pivoting; the
// columns past the numerical rank get 0. Returns the rank.
int least_squares(std::vector<double> A, std::vector<double> b, int rows, std::vector<double>& x) {
    std::vector<int> perm(nr);
    for (int j = 0; j < nr; ++j) perm[j] = j;
    std::vector<double> norms(nr, 0.0);
    for (int j = 0; j < nr; ++j)
        for (int i = 0; i < rows; ++i) norms[j] += A[i * nr + j] * A[i * nr + j];
    double const first = *std::max_element(norms.begin(), norms.end());
    int rank = 0;
    for (int k = 0; k < nr && k < rows; ++k) {
        int best = k;
        for (int j = k; j < nr; ++j)
            if (norms[j] > norms[best]) best = j;
        if (norms[best] <= 1e-18 * first) break;
        if (best != k) {
            for (int i = 0; i < rows; ++i) std::swap(A[i * nr + k], A[i * nr + best]);
            std::swap(norms[k], norms[best]);
            std::swap(perm[k], perm[best]);
        }
        double alpha = 0;
        for (int i = k; i < rows; ++i) alpha += A[i * nr + k] * A[i * nr + k];
        alpha = std::sqrt(alpha) * (A[k * nr + k] > 0 ? -1 : 1);
        std::vector<double> v(rows, 0.0);
        for (int i = k; i < rows; ++i) v[i] = A[i * nr + k];
        v[k] -= alpha;
        double vv = 0;
        for (int i = k; i < rows; ++i) vv += v[i] * v[i];
        if (vv == 0) continue;
        for (int j = k; j < nr; ++j) {
            double s = 0;
            for (int i = k; i < rows; ++i) s += v[i] * A[i * nr + j];
            for (int i = k; i < rows; ++i) A[i * nr + j] -= 2 * s / vv * v[i];
        }
        double s = 0;
        for (int i = k; i < rows; ++i) s += v[i] * b[i];
        for (int i = k; i < rows; ++i) b[i] -= 2 * s / vv * v[i];
        for (int j = k + 1; j < nr; ++j) norms[j] -= A[k * nr + j] * A[k * nr + j];
        ++rank;
    }
    std::vector<double> z(nr, 0.0);
    for (int k = rank - 1; k >= 0; --k) {
        double s = b[k];
        for (int j = k + 1; j < rank; ++j) s -= A[k * nr + j] * z[j];
        z[k] = s / A[k * nr + k];
    }
    x.assign(nr, 0.0);
    for (int k = 0; k < nr; ++k) x[perm[k]] = z[k];
    return rank;
}

} // namespace

int main() {
    arm::Parameters truth; // the arm as it is
    double* values = reinterpret_cast<double*>(&truth);
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> U(-1.5, 1.5);
    std::normal_distribution<double> noise(0.0, 0.05);
    int const samples = 400, rows = samples * n;
    std::vector<double> A(rows * nr), b(rows);
    double const zero_u[arm::nu] = {};
    for (int s = 0; s < samples; ++s) {
        double q[n], qd[n], qdd[n], tau[n], Y[n * nr];
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = 2 * U(rng);
        arm::inverse_dynamics(q, qd, qdd, zero_u, truth, tau);
        arm::inverse_dynamics_regressor(q, qd, qdd, truth, Y); // Y reads only what is not in pi
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < nr; ++j) A[(s * n + i) * nr + j] = Y[i * nr + j];
            b[s * n + i] = tau[i] + noise(rng);
        }
    }
    std::vector<double> estimate;
    int const base = least_squares(A, b, rows, estimate);
    // Predicted against true torques at fresh states, and how far the estimate's base
    // combinations are from the truth's (their torques at those states).
    double sum2 = 0, largest = 0, scale = 0;
    for (int s = 0; s < 200; ++s) {
        double q[n], qd[n], qdd[n], tau[n], Y[n * nr];
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = 2 * U(rng);
        arm::inverse_dynamics(q, qd, qdd, zero_u, truth, tau);
        arm::inverse_dynamics_regressor(q, qd, qdd, truth, Y);
        for (int i = 0; i < n; ++i) {
            double predicted = 0;
            for (int j = 0; j < nr; ++j) predicted += Y[i * nr + j] * estimate[j];
            sum2 += (predicted - tau[i]) * (predicted - tau[i]);
            largest = std::fmax(largest, std::fabs(predicted - tau[i]));
            scale = std::fmax(scale, std::fabs(tau[i]));
        }
    }
    double const rms = std::sqrt(sum2 / (200.0 * n));
    std::printf("%d regressor parameters (%s, %s, ...), %d base parameters identified from %d noisy torques\n", nr,
                arm::regressor_parameter_names[0], arm::regressor_parameter_names[1], base, rows);
    std::printf("link 1's mass: true %.4f kg, estimated %.4f kg (0 where the torques do not determine it)\n",
                values[arm::regressor_parameters[0]], estimate[0]);
    std::printf("torques at 200 fresh states: rms error %.4f N m, largest %.4f N m (noise 0.05 N m; torques up to %.1f N m)\n",
                rms, largest, scale);
    bool const identified = rms < 0.02 && base > 0;
    std::printf("%s\n", identified ? "identified" : "NOT identified");
    return identified ? 0 : 1;
}
