// --template: the generated functions instantiated with a dual-number type give the
// derivatives that finite differences of the double instantiation give.
#include <cmath>

namespace ad {

// A forward-mode dual number: value and one directional derivative.
struct dual {
    double v = 0, d = 0;
    dual() = default;
    dual(double value) : v(value) {} // NOLINT: implicit, like double
    dual(double value, double derivative) : v(value), d(derivative) {}
    dual& operator+=(dual b) { return *this = dual(v + b.v, d + b.d); }
    dual& operator-=(dual b) { return *this = dual(v - b.v, d - b.d); }
};
inline dual operator+(dual a, dual b) { return {a.v + b.v, a.d + b.d}; }
inline dual operator-(dual a, dual b) { return {a.v - b.v, a.d - b.d}; }
inline dual operator-(dual a) { return {-a.v, -a.d}; }
inline dual operator*(dual a, dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
inline dual operator/(dual a, dual b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
inline bool operator>(dual a, dual b) { return a.v > b.v; }
inline bool operator<(dual a, dual b) { return a.v < b.v; }
inline dual sin(dual a) { return {std::sin(a.v), a.d * std::cos(a.v)}; }
inline dual cos(dual a) { return {std::cos(a.v), -a.d * std::sin(a.v)}; }
inline dual sqrt(dual a) { return {std::sqrt(a.v), a.d / (2 * std::sqrt(a.v))}; }
inline dual exp(dual a) { return {std::exp(a.v), a.d * std::exp(a.v)}; }
inline dual log(dual a) { return {std::log(a.v), a.d / a.v}; }
inline bool isfinite(dual a) { return std::isfinite(a.v) && std::isfinite(a.d); }

} // namespace ad

#include "four_bar.hpp"
#include "spinning_top.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using ad::dual;

// d/dq_k and d/dqd_k of every output of `f`, by dual numbers and by central differences.
template <class F>
void check_derivatives(int nq, int nout, F f, char const* what) {
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> U(-0.6, 0.6);
    double worst = 0;
    for (int trial = 0; trial < 10; ++trial) {
        std::vector<double> q(nq), qd(nq);
        for (auto& x : q) x = U(rng) + 0.9; // away from the top's Euler singularity
        for (auto& x : qd) x = U(rng);
        for (int k = 0; k < 2 * nq; ++k) {
            std::vector<dual> qa(q.begin(), q.end()), qda(qd.begin(), qd.end()), out(nout);
            (k < nq ? qa[k] : qda[k - nq]).d = 1;
            ASSERT_EQ(f(qa.data(), qda.data(), out.data()), 0);
            double const h = 1e-6;
            std::vector<double> qp = q, qm = q, qdp = qd, qdm = qd, op(nout), om(nout);
            if (k < nq) qp[k] += h, qm[k] -= h;
            else qdp[k - nq] += h, qdm[k - nq] -= h;
            ASSERT_EQ(f(qp.data(), qdp.data(), op.data()), 0);
            ASSERT_EQ(f(qm.data(), qdm.data(), om.data()), 0);
            for (int i = 0; i < nout; ++i) {
                double fd = (op[i] - om[i]) / (2 * h);
                double err = std::abs(out[i].d - fd) / (1 + std::abs(fd));
                worst = std::max(worst, err);
                ASSERT_LT(err, 1e-6) << what << ": output " << i << ", variable " << k;
            }
        }
    }
    std::printf("[ dual     ] %s: worst relative difference from finite differences %.2e\n", what, worst);
}

TEST(Template, SpinningTopDerivatives) {
    spinning_top::Parameters p;
    double const tau = 0.2;
    check_derivatives(3, 9, [&](auto const* q, auto const*, auto* M) { spinning_top::mass_matrix(q, p, M); return 0; },
                      "spinning_top mass_matrix");
    check_derivatives(3, 3, [&](auto const* q, auto const* qd, auto* h) { spinning_top::bias_forces(q, qd, p, h); return 0; },
                      "spinning_top bias_forces");
    check_derivatives(3, 3, [&](auto const* q, auto const* qd, auto* qdd) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(qdd)>>;
        T u[1] = {T(tau)};
        return spinning_top::forward_dynamics(q, qd, u, p, qdd, static_cast<T*>(nullptr));
    }, "spinning_top forward_dynamics");
}

TEST(Template, FourBarForwardDynamicsDerivatives) {
    four_bar::Parameters p;
    check_derivatives(3, 5, [&](auto const* q, auto const* qd, auto* out) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(out)>>;
        T u[1] = {T(0.5)};
        return four_bar::forward_dynamics(q, qd, u, p, out, out + 3); // qdd then lambda
    }, "four_bar forward_dynamics (qdd and lambda)");
}

} // namespace

namespace {

// linearization's A (exact, by the residual Jacobians) against forward_dynamics
// differentiated by dual numbers (exact too): they agree to round-off.
TEST(Template, LinearizationAgreesWithDualNumbers) {
    four_bar::Parameters p;
    double const q[3] = {0.5, 0.9, 1.1}, qd[3] = {0.3, -0.2, 0.1}, u[1] = {0.5};
    double A[36], B[6];
    ASSERT_EQ(four_bar::linearization(q, qd, u, p, A, B), 0);
    double worst = 0;
    for (int k = 0; k < 7; ++k) { // q, qd, then u
        dual qa[3], qda[3], ua[1] = {dual(u[0])}, qdd[3], l[2];
        for (int i = 0; i < 3; ++i) qa[i] = dual(q[i]), qda[i] = dual(qd[i]);
        (k < 3 ? qa[k] : k < 6 ? qda[k - 3] : ua[0]).d = 1;
        ASSERT_EQ(four_bar::forward_dynamics(qa, qda, ua, p, qdd, l), 0);
        for (int i = 0; i < 3; ++i) {
            double exact = k < 6 ? A[(3 + i) * 6 + k] : B[(3 + i) * 1];
            worst = std::max(worst, std::abs(exact - qdd[i].d) / (1 + std::abs(qdd[i].d)));
            EXPECT_NEAR(exact, qdd[i].d, 1e-11 * (1 + std::abs(qdd[i].d))) << "row " << i << ", variable " << k;
        }
    }
    // forward_dynamics takes a bare nullptr for lambda in templated code too.
    {
        dual qa[3], qda[3], ua[1] = {dual(u[0])}, qdd[3];
        for (int i = 0; i < 3; ++i) qa[i] = dual(q[i]), qda[i] = dual(qd[i]);
        EXPECT_EQ(four_bar::forward_dynamics(qa, qda, ua, p, qdd, nullptr), 0);
    }
    // And the templated linearization itself instantiates with dual numbers.
    dual qa[3], qda[3], ua[1] = {dual(u[0])}, Ad[36], Bd[6];
    for (int i = 0; i < 3; ++i) qa[i] = dual(q[i]), qda[i] = dual(qd[i]);
    ASSERT_EQ(four_bar::linearization(qa, qda, ua, p, Ad, Bd), 0);
    for (int i = 0; i < 36; ++i) EXPECT_NEAR(Ad[i].v, A[i], 1e-12 * (1 + std::abs(A[i])));
    std::printf("[ dual     ] four_bar linearization vs dual numbers: worst relative difference %.2e\n", worst);
}

} // namespace
