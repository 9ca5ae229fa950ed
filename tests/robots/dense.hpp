// Small dense linear algebra for the robot-file test programs (mujoco_check.cpp,
// recursive_check.cpp): the condition number the acceleration checks allow for, and a solve.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

// κ₁(M) = ‖M‖₁ ‖M⁻¹‖₁ of a symmetric positive definite n×n M (row-major), by Gauss-Jordan
// elimination (no pivoting needed on a positive definite matrix).
inline double condition_1(std::vector<double> M, int n) {
    auto norm_1 = [n](std::vector<double> const& A) {
        double worst = 0;
        for (int c = 0; c < n; ++c) {
            double s = 0;
            for (int r = 0; r < n; ++r) s += std::abs(A[r * n + c]);
            worst = std::max(worst, s);
        }
        return worst;
    };
    double const norm = norm_1(M);
    std::vector<double> inv(n * n, 0.0);
    for (int i = 0; i < n; ++i) inv[i * n + i] = 1;
    for (int k = 0; k < n; ++k) {
        double const pivot = M[k * n + k];
        for (int c = 0; c < n; ++c) M[k * n + c] /= pivot, inv[k * n + c] /= pivot;
        for (int r = 0; r < n; ++r) {
            if (r == k) continue;
            double const f = M[r * n + k];
            for (int c = 0; c < n; ++c) M[r * n + c] -= f * M[k * n + c], inv[r * n + c] -= f * inv[k * n + c];
        }
    }
    return norm * norm_1(inv);
}

// x with M x = b (n×n, row-major) by Gaussian elimination with partial pivoting.
inline std::vector<double> solved(std::vector<double> M, std::vector<double> b) {
    int const n = static_cast<int>(b.size());
    for (int k = 0; k < n; ++k) {
        int pivot = k;
        for (int r = k + 1; r < n; ++r)
            if (std::abs(M[r * n + k]) > std::abs(M[pivot * n + k])) pivot = r;
        for (int c = 0; c < n; ++c) std::swap(M[k * n + c], M[pivot * n + c]);
        std::swap(b[k], b[pivot]);
        for (int r = k + 1; r < n; ++r) {
            double const f = M[r * n + k] / M[k * n + k];
            for (int c = k; c < n; ++c) M[r * n + c] -= f * M[k * n + c];
            b[r] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        for (int c = k + 1; c < n; ++c) b[k] -= M[k * n + c] * b[c];
        b[k] /= M[k * n + k];
    }
    return b;
}
