// The generated code of every model, checked numerically: against the seeds' closed
// forms, structural properties (M symmetric positive definite, Mdot - 2C skew-symmetric,
// h = C qd + dV/dq), an independent finite-difference check of the Euler-Lagrange
// equations, and energy conservation in simulation.
#include "bead_on_hoop.hpp"
#include "cart_pendulum.hpp"
#include "chain10_rel.hpp"
#include "double_pendulum.hpp"
#include "elastic_pendulum.hpp"
#include "friction_block.hpp"
#include "inclined_plane.hpp"
#include "ladle.hpp"
#include "iiwa_ceiling.hpp"
#include "iiwa_like.hpp"
#include "panda_like.hpp"
#include "pendulum_horizontal_force.hpp"
#include "charged_pendulum.hpp"
#include "quadrotor.hpp"
#include "quadrotor_omega_from_R.hpp"
#include "quadrotor_world_axes.hpp"
#include "simple_pendulum.hpp"
#include "spinning_top.hpp"
#include "spring_damper_pendulum.hpp"
#include "tilted_rod.hpp"
#include "two_bar_linkage.hpp"
#include "ur5_like.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace {

using vec = std::vector<double>;

// A model's generated functions with its default parameters bound.
struct dynamics {
    std::string name;
    int nq = 0, nu = 0;
    std::function<void(const double*, double*)> M;
    std::function<void(const double*, const double*, double*)> h;
    std::function<void(const double*, const double*, const double*, double*)> Q;
    std::function<void(const double*, double*)> dVdq;
    std::function<void(const double*, const double*, double*)> C; // empty when not emitted
    std::function<double(const double*, const double*)> T;
    std::function<double(const double*)> V;
    std::function<int(const double*, const double*, const double*, double*)> fd;
    bool conservative = true; // Q = 0 when u = 0
    double dt = 1e-3;         // RK4 step for the 10 s energy test
    // A state away from the model's singular configurations.
    std::function<void(std::mt19937&, double*, double*)> sample;
};

#define LAGC_BIND(NS, d)                                                                                   \
    do {                                                                                                   \
        NS::Parameters p{};                                                                                \
        d.name = #NS;                                                                                      \
        d.nq = NS::nq;                                                                                     \
        d.nu = NS::nu;                                                                                     \
        d.M = [p](const double* q, double* M) { NS::mass_matrix(q, p, M); };                               \
        d.h = [p](const double* q, const double* qd, double* h) { NS::bias_forces(q, qd, p, h); };         \
        d.Q = [p](const double* q, const double* qd, const double* u, double* Q) {                         \
            NS::generalized_forces(q, qd, u, p, Q);                                                        \
        };                                                                                                 \
        d.dVdq = [p](const double* q, double* g) { NS::potential_gradient(q, p, g); };                     \
        d.T = [p](const double* q, const double* qd) { return NS::kinetic_energy(q, qd, p); };             \
        d.V = [p](const double* q) { return NS::potential_energy(q, p); };                                 \
        d.fd = [p](const double* q, const double* qd, const double* u, double* qdd) {                      \
            return NS::forward_dynamics(q, qd, u, p, qdd, nullptr);                                        \
        };                                                                                                 \
    } while (0)

#define LAGC_BIND_CORIOLIS(NS, d)                                                                          \
    d.C = [](const double* q, const double* qd, double* C) { NS::coriolis_matrix(q, qd, NS::Parameters{}, C); }

void uniform(std::mt19937& rng, double* x, int n, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (int i = 0; i < n; ++i) x[i] = u(rng);
}

std::vector<dynamics> all_models() {
    std::vector<dynamics> v;
    auto plain = [](int nq) {
        return [nq](std::mt19937& rng, double* q, double* qd) {
            uniform(rng, q, nq, -1.2, 1.2);
            uniform(rng, qd, nq, -1.5, 1.5);
        };
    };
    {
        dynamics d; LAGC_BIND(simple_pendulum, d); LAGC_BIND_CORIOLIS(simple_pendulum, d);
        d.sample = plain(1); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(elastic_pendulum, d); LAGC_BIND_CORIOLIS(elastic_pendulum, d);
        d.sample = [](std::mt19937& rng, double* q, double* qd) {
            uniform(rng, q, 2, -1.0, 1.0);
            q[0] = 0.5 + 0.2 * q[0]; // spring length l > 0
            uniform(rng, qd, 2, -1.0, 1.0);
        };
        v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(pendulum_horizontal_force, d); LAGC_BIND_CORIOLIS(pendulum_horizontal_force, d);
        d.sample = plain(1); v.push_back(d);
    }
    {
        // Gravity enters as an applied force: its work balances the kinetic energy.
        dynamics d; LAGC_BIND(inclined_plane, d); LAGC_BIND_CORIOLIS(inclined_plane, d);
        d.conservative = false; d.sample = plain(1); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(cart_pendulum, d); LAGC_BIND_CORIOLIS(cart_pendulum, d);
        d.sample = plain(2); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(spring_damper_pendulum, d); LAGC_BIND_CORIOLIS(spring_damper_pendulum, d);
        d.conservative = false; d.sample = plain(1); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(bead_on_hoop, d); LAGC_BIND_CORIOLIS(bead_on_hoop, d);
        d.sample = [](std::mt19937& rng, double* q, double* qd) {
            uniform(rng, q, 2, 0.4, 1.3); // theta away from the poles, where M is singular
            uniform(rng, qd, 2, -1.0, 1.0);
            qd[1] = 2.0 + qd[1]; // spinning hoop: the bead stays away from the axis
        };
        v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(ladle, d); LAGC_BIND_CORIOLIS(ladle, d);
        d.sample = plain(2); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(two_bar_linkage, d); LAGC_BIND_CORIOLIS(two_bar_linkage, d);
        d.sample = plain(2); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(double_pendulum, d); LAGC_BIND_CORIOLIS(double_pendulum, d);
        d.sample = plain(2); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(spinning_top, d); LAGC_BIND_CORIOLIS(spinning_top, d);
        d.sample = [](std::mt19937& rng, double* q, double* qd) {
            uniform(rng, q, 3, -1.0, 1.0);
            q[1] = 0.8 + 0.3 * q[1]; // nutation away from 0 and pi (Euler-angle singularity)
            uniform(rng, qd, 3, -1.0, 1.0);
            qd[2] = 40.0 + 5.0 * qd[2]; // a fast top
        };
        d.dt = 2e-4;
        v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(chain10_rel, d); LAGC_BIND_CORIOLIS(chain10_rel, d);
        d.sample = [](std::mt19937& rng, double* q, double* qd) {
            uniform(rng, q, 10, -0.3, 0.3);
            uniform(rng, qd, 10, -0.3, 0.3);
        };
        d.dt = 5e-4;
        v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(quadrotor, d); LAGC_BIND_CORIOLIS(quadrotor, d);
        d.sample = plain(6); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(quadrotor_omega_from_R, d); LAGC_BIND_CORIOLIS(quadrotor_omega_from_R, d);
        d.sample = plain(6); v.push_back(d);
    }
    {
        dynamics d; LAGC_BIND(quadrotor_world_axes, d); LAGC_BIND_CORIOLIS(quadrotor_world_axes, d);
        d.sample = plain(6); v.push_back(d);
    }
    {
        // docs/rigid-bodies.md's example: translation and rotation of one body.
        dynamics d; LAGC_BIND(tilted_rod, d); LAGC_BIND_CORIOLIS(tilted_rod, d);
        d.sample = plain(2); v.push_back(d);
    }
    {
        // A 3-D arm with full inertia tensors (bench/arms3d.py), C from the Christoffel symbols.
        dynamics d; LAGC_BIND(ur5_like, d); LAGC_BIND_CORIOLIS(ur5_like, d);
        d.sample = plain(6); v.push_back(d);
    }
    {
        // Seven links: the points' translational inertia as composites (point_composite.hpp).
        dynamics d; LAGC_BIND(panda_like, d); LAGC_BIND_CORIOLIS(panda_like, d);
        d.sample = plain(7); v.push_back(d);
    }
    return v;
}

// ---- numeric helpers, independent of the generated code ------------------------

// Cholesky of a copy; false when a pivot is not positive.
bool positive_definite(vec a, int n) {
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0)) return false;
        d = std::sqrt(d);
        a[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    return true;
}

double max_abs(vec const& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

// One RK4 step of qdd = forward_dynamics(q, qd, u); with `work`, also integrates the
// power of the generalized forces, dW/dt = Q(q, qd, u) . qd, through the same stages.
void rk4_step(dynamics const& d, vec& q, vec& qd, vec const& u, double dt, double* work = nullptr) {
    int n = d.nq;
    auto f = [&](vec const& x, vec const& v, vec& a) {
        a.assign(n, 0);
        ASSERT_EQ(d.fd(x.data(), v.data(), u.data(), a.data()), 0);
    };
    auto power = [&](vec const& x, vec const& v) {
        vec Q(n);
        d.Q(x.data(), v.data(), u.data(), Q.data());
        double p = 0;
        for (int i = 0; i < n; ++i) p += Q[i] * v[i];
        return p;
    };
    vec a1, a2, a3, a4, x(n), w(n);
    double p1 = work ? power(q, qd) : 0;
    f(q, qd, a1);
    for (int i = 0; i < n; ++i) x[i] = q[i] + 0.5 * dt * qd[i], w[i] = qd[i] + 0.5 * dt * a1[i];
    vec v2 = w;
    double p2 = work ? power(x, w) : 0;
    f(x, w, a2);
    for (int i = 0; i < n; ++i) x[i] = q[i] + 0.5 * dt * v2[i], w[i] = qd[i] + 0.5 * dt * a2[i];
    vec v3 = w;
    double p3 = work ? power(x, w) : 0;
    f(x, w, a3);
    for (int i = 0; i < n; ++i) x[i] = q[i] + dt * v3[i], w[i] = qd[i] + dt * a3[i];
    vec v4 = w;
    double p4 = work ? power(x, w) : 0;
    f(x, w, a4);
    for (int i = 0; i < n; ++i) {
        q[i] += dt / 6 * (qd[i] + 2 * v2[i] + 2 * v3[i] + v4[i]);
        qd[i] += dt / 6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
    }
    if (work) *work += dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4);
}

class Model : public ::testing::TestWithParam<dynamics> {};

TEST_P(Model, MassMatrixIsSymmetricPositiveDefinite) {
    dynamics const& d = GetParam();
    int n = d.nq;
    std::mt19937 rng(1);
    for (int trial = 0; trial < 50; ++trial) {
        vec q(n), qd(n), M(n * n);
        d.sample(rng, q.data(), qd.data());
        d.M(q.data(), M.data());
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) ASSERT_EQ(M[i * n + j], M[j * n + i]) << "M not symmetric at " << i << "," << j;
        ASSERT_TRUE(positive_definite(M, n)) << "M not positive definite";
    }
}

// forward_dynamics (unrolled factorisation over M's structure) against the public M, h, Q.
TEST_P(Model, ForwardDynamicsSolvesTheEquationsOfMotion) {
    dynamics const& d = GetParam();
    int n = d.nq;
    std::mt19937 rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        vec q(n), qd(n), u(std::max(d.nu, 1)), M(n * n), h(n), Q(n), qdd(n);
        d.sample(rng, q.data(), qd.data());
        uniform(rng, u.data(), d.nu, -2.0, 2.0);
        ASSERT_EQ(d.fd(q.data(), qd.data(), u.data(), qdd.data()), 0);
        d.M(q.data(), M.data());
        d.h(q.data(), qd.data(), h.data());
        d.Q(q.data(), qd.data(), u.data(), Q.data());
        for (int i = 0; i < n; ++i) {
            double lhs = 0, scale = std::abs(Q[i] - h[i]);
            for (int j = 0; j < n; ++j) lhs += M[i * n + j] * qdd[j], scale += std::abs(M[i * n + j] * qdd[j]);
            ASSERT_NEAR(lhs, Q[i] - h[i], 1e-12 * (1 + scale)) << "row " << i << " at trial " << trial;
        }
    }
}

TEST_P(Model, MdotMinusTwoCIsSkewSymmetric) {
    dynamics const& d = GetParam();
    if (!d.C) GTEST_SKIP() << "coriolis_matrix is not emitted for this model";
    int n = d.nq;
    std::mt19937 rng(2);
    double const eps = 1e-6;
    for (int trial = 0; trial < 20; ++trial) {
        vec q(n), qd(n), qp(n), qm(n), Mp(n * n), Mm(n * n), C(n * n), N(n * n);
        d.sample(rng, q.data(), qd.data());
        for (int i = 0; i < n; ++i) qp[i] = q[i] + eps * qd[i], qm[i] = q[i] - eps * qd[i];
        d.M(qp.data(), Mp.data());
        d.M(qm.data(), Mm.data());
        d.C(q.data(), qd.data(), C.data());
        for (int k = 0; k < n * n; ++k) N[k] = (Mp[k] - Mm[k]) / (2 * eps) - 2 * C[k];
        double scale = 1 + max_abs(C);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                ASSERT_NEAR(N[i * n + j] + N[j * n + i], 0.0, 1e-7 * scale) << "at " << i << "," << j;
    }
}

// C_kj = Σ_i Γ_ijk q̇_i, Γ_ijk = ½(∂M_kj/∂q_i + ∂M_ki/∂q_j − ∂M_ij/∂q_k), with M's
// derivatives by central differences of the generated M: whichever way lagc built C
// (Christoffel symbols, or ½ ∂h/∂q̇ on the code graph), it is this matrix.
TEST_P(Model, CoriolisMatrixIsChristoffelSymbolsOfM) {
    dynamics const& d = GetParam();
    if (!d.C) GTEST_SKIP() << "coriolis_matrix is not emitted for this model";
    int n = d.nq;
    std::mt19937 rng(4);
    double const eps = 1e-5;
    for (int trial = 0; trial < 5; ++trial) {
        vec q(n), qd(n), C(n * n), dM(n * n * n), qp(n), qm(n), Mp(n * n), Mm(n * n);
        d.sample(rng, q.data(), qd.data());
        for (int i = 0; i < n; ++i) { // dM[i*n*n + a*n + b] = ∂M_ab/∂q_i
            qp = q, qm = q;
            qp[i] += eps, qm[i] -= eps;
            d.M(qp.data(), Mp.data());
            d.M(qm.data(), Mm.data());
            for (int k = 0; k < n * n; ++k) dM[i * n * n + k] = (Mp[k] - Mm[k]) / (2 * eps);
        }
        auto dm = [&](int a, int b, int i) { return dM[i * n * n + a * n + b]; };
        d.C(q.data(), qd.data(), C.data());
        double const scale = 1 + max_abs(C) + max_abs(dM) * max_abs(qd);
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j) {
                double c = 0;
                for (int i = 0; i < n; ++i) c += 0.5 * (dm(k, j, i) + dm(k, i, j) - dm(i, j, k)) * qd[i];
                ASSERT_NEAR(C[k * n + j], c, 1e-7 * scale) << "C[" << k << "][" << j << "] at trial " << trial;
            }
    }
}

TEST_P(Model, BiasForcesAreCoriolisTimesVelocityPlusPotentialGradient) {
    dynamics const& d = GetParam();
    if (!d.C) GTEST_SKIP() << "coriolis_matrix is not emitted for this model";
    int n = d.nq;
    std::mt19937 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        vec q(n), qd(n), C(n * n), g(n), h(n);
        d.sample(rng, q.data(), qd.data());
        d.C(q.data(), qd.data(), C.data());
        d.dVdq(q.data(), g.data());
        d.h(q.data(), qd.data(), h.data());
        double scale = 1 + max_abs(h) + max_abs(g);
        for (int i = 0; i < n; ++i) {
            double cq = g[i];
            for (int j = 0; j < n; ++j) cq += C[i * n + j] * qd[j];
            ASSERT_NEAR(h[i], cq, 1e-12 * scale) << "row " << i;
        }
    }
}

// d/dt(dL/dqd) - dL/dq = Q, with every derivative of L = T - V taken by finite
// differences of the generated energies, along a trajectory of forward_dynamics.
TEST_P(Model, EulerLagrangeEquationsHoldByFiniteDifferences) {
    dynamics const& d = GetParam();
    int n = d.nq;
    std::mt19937 rng(4);
    vec q(n), qd(n), u(std::max(d.nu, 1));
    d.sample(rng, q.data(), qd.data());
    uniform(rng, u.data(), d.nu, -0.5, 0.5);
    auto L = [&](vec const& x, vec const& v) { return d.T(x.data(), v.data()) - d.V(x.data()); };
    // dL/dqd_i = dT/dqd_i (V never depends on qd). T is at most quadratic in qd (the
    // language requires it), so a central difference is exact for any step: a large one
    // keeps rounding out (with 1e-5 it was ~1e-5 of the result for a 6-joint 3-D arm).
    auto momentum = [&](vec const& x, vec const& v, int i) {
        double const e = 0.1 * (1 + std::abs(v[i]));
        vec vp = v, vm = v;
        vp[i] += e;
        vm[i] -= e;
        return (d.T(x.data(), vp.data()) - d.T(x.data(), vm.data())) / (2 * e);
    };
    double worst = 0;
    for (int sample = 0; sample < 10; ++sample) {
        for (int s = 0; s < 50; ++s) rk4_step(d, q, qd, u, 1e-3);
        vec qdd(n), Q(n);
        ASSERT_EQ(d.fd(q.data(), qd.data(), u.data(), qdd.data()), 0);
        d.Q(q.data(), qd.data(), u.data(), Q.data());
        // d/dt of the momentum along the trajectory through (q, qd, qdd), by central
        // differences at dt and dt/2, Richardson-extrapolated: the dt^2 term (from the jerk
        // the path leaves out) is ~1e-5 for a fast 3-D arm at dt = 1e-4; O(dt^4) remains.
        auto momentum_rate = [&](int i, double dt) {
            vec qp(n), qm(n), vp(n), vm(n);
            for (int k = 0; k < n; ++k) {
                qp[k] = q[k] + dt * qd[k] + 0.5 * dt * dt * qdd[k];
                qm[k] = q[k] - dt * qd[k] + 0.5 * dt * dt * qdd[k];
                vp[k] = qd[k] + dt * qdd[k];
                vm[k] = qd[k] - dt * qdd[k];
            }
            return (momentum(qp, vp, i) - momentum(qm, vm, i)) / (2 * dt);
        };
        for (int i = 0; i < n; ++i) {
            double const dpdt = (4 * momentum_rate(i, 5e-5) - momentum_rate(i, 1e-4)) / 3;
            double const e = 1e-6;
            vec xp = q, xm = q;
            xp[i] += e;
            xm[i] -= e;
            double dLdq = (L(xp, qd) - L(xm, qd)) / (2 * e);
            double residual = dpdt - dLdq - Q[i];
            double scale = 1 + std::abs(dpdt) + std::abs(dLdq) + std::abs(Q[i]);
            worst = std::max(worst, std::abs(residual) / scale);
            ASSERT_LT(std::abs(residual), 1e-7 * scale) << "equation " << i << " at sample " << sample;
        }
    }
    RecordProperty("worst_relative_residual", std::to_string(worst));
    std::printf("[ E-L FD   ] %s: worst relative residual %.1e\n", d.name.c_str(), worst);
}

// Energy balance: T + V changes by exactly the work of the generalized forces (zero for
// a conservative model; dissipation and applied forces otherwise), inputs held at zero.
TEST_P(Model, EnergyBalanceHoldsOverTenSeconds) {
    dynamics const& d = GetParam();
    int n = d.nq;
    std::mt19937 rng(5);
    vec q(n), qd(n), u(std::max(d.nu, 1), 0.0);
    d.sample(rng, q.data(), qd.data());
    auto energy = [&] { return d.T(q.data(), qd.data()) + d.V(q.data()); };
    double const E0 = energy();
    double const scale = std::max(std::abs(E0), d.T(q.data(), qd.data()));
    double work = 0, worst = 0;
    int const steps = static_cast<int>(std::lround(10.0 / d.dt));
    for (int s = 1; s <= steps; ++s) {
        rk4_step(d, q, qd, u, d.dt, &work);
        if (s % 100 == 0 || s == steps) worst = std::max(worst, std::abs(energy() - E0 - work) / scale);
    }
    std::printf("[ energy   ] %s: relative drift %.2e over 10 s (dt %g, work of Q %.3g J)\n", d.name.c_str(), worst,
                d.dt, work);
    if (d.conservative) EXPECT_EQ(work, 0.0) << "a conservative model has Q = 0 at u = 0";
    EXPECT_LT(worst, 1e-6);
}

void PrintTo(dynamics const& d, std::ostream* os) { *os << d.name; }

INSTANTIATE_TEST_SUITE_P(Generated, Model, ::testing::ValuesIn(all_models()),
                         [](auto const& info) { return info.param.name; });

// ---- the seeds' closed forms ---------------------------------------------------

TEST(Seed000, SimplePendulum) {
    simple_pendulum::Parameters p;
    for (double th : {-2.0, -0.3, 0.0, 0.9, 2.5}) {
        double q[1] = {th}, qd[1] = {0.7}, qdd[1], M[1];
        simple_pendulum::mass_matrix(q, p, M);
        EXPECT_NEAR(M[0], p.m * p.l * p.l, 1e-15);
        ASSERT_EQ(simple_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0);
        EXPECT_NEAR(qdd[0], -p.g / p.l * std::sin(th), 1e-13);
    }
}

TEST(Seed000, ElasticPendulum) {
    // The slide prints theta'' = +(g/l) sin(theta) - ...: a sign slip; from its own
    // dL/dq = -m g l sin(theta) the correct sign is negative.
    elastic_pendulum::Parameters p;
    double q[2] = {0.62, 0.4}, qd[2] = {-0.3, 1.1}, qdd[2];
    ASSERT_EQ(elastic_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0);
    double l = q[0], th = q[1], ld = qd[0], thd = qd[1];
    EXPECT_NEAR(qdd[0], l * thd * thd + p.g * std::cos(th) - p.k / p.m * (l - p.l0), 1e-12);
    EXPECT_NEAR(qdd[1], -p.g / l * std::sin(th) - 2 / l * ld * thd, 1e-12);
}

TEST(Seed000, PendulumWithHorizontalForce) {
    pendulum_horizontal_force::Parameters p;
    for (double th : {-1.0, 0.2, 1.4}) {
        double q[1] = {th}, qd[1] = {0.5}, u[1] = {2.5}, Q[1];
        pendulum_horizontal_force::generalized_forces(q, qd, u, p, Q);
        EXPECT_NEAR(Q[0], u[0] * p.l * std::cos(th), 1e-14); // F^q = F l cos(theta)
    }
}

// A force scaled by a parameter (the bob's charge) through a point, and a Coulomb potential:
// Q = q_e l (Ex cos(theta) + Ey sin(theta)), and m l^2 qdd = Q - m g l sin(theta) - dV_c/dtheta
// with V_c = k_e q_e Q0 / r, r^2 = l^2 + d^2 - 2 l d cos(theta).
TEST(Seed000, ChargedPendulumInAField) {
    charged_pendulum::Parameters p;
    for (double th : {-1.0, 0.2, 1.4}) {
        double q[1] = {th}, qd[1] = {0.7}, u[2] = {3e4, -2e4}, Q[1], qdd[1];
        charged_pendulum::generalized_forces(q, qd, u, p, Q);
        double const want = p.q_e * p.l * (u[0] * std::cos(th) + u[1] * std::sin(th));
        EXPECT_NEAR(Q[0], want, 1e-15 * std::abs(want));
        double const r2 = p.l * p.l + p.d * p.d - 2 * p.l * p.d * std::cos(th);
        double const dVc = -p.k_e * p.q_e * p.Q0 * p.l * p.d * std::sin(th) / (r2 * std::sqrt(r2));
        ASSERT_EQ(charged_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
        double const expected = (want - p.m * p.g * p.l * std::sin(th) - dVc) / (p.m * p.l * p.l);
        EXPECT_NEAR(qdd[0], expected, 1e-13 * std::abs(expected));
    }
}

TEST(Seed000, InclinedPlane) {
    inclined_plane::Parameters p;
    double q[1] = {1.7}, qd[1] = {-0.4}, Q[1], qdd[1];
    inclined_plane::generalized_forces(q, qd, nullptr, p, Q);
    EXPECT_NEAR(Q[0], p.m * p.g * std::sin(p.alpha), 1e-14); // F^q = m g sin(alpha), constant
    ASSERT_EQ(inclined_plane::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0);
    EXPECT_NEAR(qdd[0], p.g * std::sin(p.alpha), 1e-14);
}

TEST(Seed002, CartPendulum) {
    cart_pendulum::Parameters p;
    double q[2] = {0.3, 0.8}, qd[2] = {-0.5, 1.2}, u[1] = {1.5}, qdd[2];
    ASSERT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    double th = q[1], thd = qd[1], c = std::cos(th), s = std::sin(th);
    // (m1 + m2) x'' + m2 l cos(th) th'' - m2 l sin(th) th'^2 = F
    EXPECT_NEAR((p.m1 + p.m2) * qdd[0] + p.m2 * p.l * c * qdd[1] - p.m2 * p.l * s * thd * thd, u[0], 1e-12);
    // m2 l cos(th) x'' + m2 l^2 th'' + m2 g l sin(th) = 0 (the slide's extra terms are OCR damage)
    EXPECT_NEAR(p.m2 * p.l * c * qdd[0] + p.m2 * p.l * p.l * qdd[1] + p.m2 * p.g * p.l * s, 0.0, 1e-12);
    double M[4];
    cart_pendulum::mass_matrix(q, p, M);
    EXPECT_NEAR(M[0], p.m1 + p.m2, 1e-15);
    EXPECT_NEAR(M[1], p.m2 * p.l * c, 1e-15);
    EXPECT_NEAR(M[3], p.m2 * p.l * p.l, 1e-15);
}

TEST(Seed002, SpringDamperPendulum) {
    spring_damper_pendulum::Parameters p;
    double q[1] = {0.6}, qd[1] = {-1.3}, u[1] = {0.8}, qdd[1];
    ASSERT_EQ(spring_damper_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    double th = q[0], thd = qd[0], c = std::cos(th), s = std::sin(th), l = p.l;
    double lhs = p.m * l * l * qdd[0] + p.c * l * l / 4 * c * c * thd + p.k * l * l / 4 * s * c + p.m * p.g * l * s;
    EXPECT_NEAR(lhs, u[0], 1e-12);
}

TEST(Seed002, BeadOnHoop) {
    bead_on_hoop::Parameters p;
    double q[2] = {0.9, 0.3}, qd[2] = {0.4, 2.2}, u[1] = {0.05}, qdd[2];
    ASSERT_EQ(bead_on_hoop::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    double s = std::sin(q[0]), c = std::cos(q[0]), mr2 = p.m * p.r * p.r;
    EXPECT_NEAR(mr2 * qdd[0] - mr2 * s * c * qd[1] * qd[1] + p.m * p.g * p.r * s, 0.0, 1e-13);
    EXPECT_NEAR(mr2 * s * s * qdd[1] + 2 * mr2 * s * c * qd[1] * qd[0], u[0], 1e-13);
}

TEST(ForwardDynamics, ReportsASingularMassMatrix) {
    // On the hoop's axis (theta = 0) the bead's phi has no inertia: M[1][1] = m r^2 sin^2 = 0.
    bead_on_hoop::Parameters p;
    double q[2] = {0.0, 0.3}, qd[2] = {0.1, 1.0}, u[1] = {0.0}, qdd[2] = {-7, -7};
    EXPECT_NE(bead_on_hoop::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    // Just off the axis the pivot is tiny but above 1e-12 of the largest diagonal entry.
    q[0] = 1e-4;
    EXPECT_EQ(bead_on_hoop::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    // A non-finite state is reported too, never returned as a result.
    q[0] = std::nan("");
    EXPECT_NE(bead_on_hoop::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
}

TEST(Seed001, Ladle) {
    ladle::Parameters p;
    double q[2] = {0.05, 0.7}, qd[2] = {0.3, -1.1}, qdd[2];
    ASSERT_EQ(ladle::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0);
    double th = q[1], thd = qd[1], c = std::cos(th), s = std::sin(th), L = p.L;
    EXPECT_NEAR((p.m1 + p.m2) * qdd[0] + 0.5 * p.m2 * L * (qdd[1] * c - thd * thd * s) + 2 * p.k * q[0], 0.0, 1e-12);
    EXPECT_NEAR(p.m2 * (L * L / 4 + L * L / 12) * qdd[1] + 0.5 * p.m2 * L * qdd[0] * c + p.m2 * p.g * L / 2 * s, 0.0,
                1e-12);
}

TEST(Seed001, TwoBarGeneralizedForce) {
    two_bar_linkage::Parameters p;
    double q[2] = {0.4, -0.9}, qd[2] = {0.1, 0.2}, u[1] = {3.0}, Q[2];
    two_bar_linkage::generalized_forces(q, qd, u, p, Q);
    EXPECT_NEAR(Q[0], u[0] * p.l1 * std::cos(q[0]), 1e-14);  // F2 l1 cos(alpha)
    EXPECT_NEAR(Q[1], -u[0] * p.l2 * std::cos(q[1]), 1e-14); // -F2 l2 cos(beta)
}

TEST(Seed000Exercise, DoublePendulumPolar) {
    double_pendulum::Parameters p;
    p.m1 = 1.3, p.m2 = 0.7, p.l1 = 0.9, p.l2 = 0.6;
    double q[2] = {0.5, -1.1}, qd[2] = {1.4, 0.3}, qdd[2];
    ASSERT_EQ(double_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0);
    double dl = q[0] - q[1], c = std::cos(dl), s = std::sin(dl);
    EXPECT_NEAR((p.m1 + p.m2) * p.l1 * qdd[0] + p.m2 * p.l2 * qdd[1] * c + p.m2 * p.l2 * qd[1] * qd[1] * s +
                    (p.m1 + p.m2) * p.g * std::sin(q[0]),
                0.0, 1e-12);
    EXPECT_NEAR(p.l2 * qdd[1] + p.l1 * qdd[0] * c - p.l1 * qd[0] * qd[0] * s + p.g * std::sin(q[1]), 0.0, 1e-12);
    double tip[2];
    double_pendulum::output_tip(q, qd, p, tip);
    EXPECT_NEAR(tip[0], p.l1 * std::sin(q[0]) + p.l2 * std::sin(q[1]), 1e-15);
    EXPECT_NEAR(tip[1], -p.l1 * std::cos(q[0]) - p.l2 * std::cos(q[1]), 1e-15);
}

TEST(RigidBody, SpinningTopEnergiesAndTorque) {
    spinning_top::Parameters p;
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        double q[3], qd[3], u[1] = {0.3}, Q[3];
        uniform(rng, q, 3, -2.0, 2.0);
        uniform(rng, qd, 3, -3.0, 3.0);
        double th = q[1], c = std::cos(th), s = std::sin(th);
        double w3 = qd[2] + qd[0] * c;
        double T = 0.5 * p.I1 * (qd[1] * qd[1] + qd[0] * qd[0] * s * s) + 0.5 * p.I3 * w3 * w3;
        EXPECT_NEAR(spinning_top::kinetic_energy(q, qd, p), T, 1e-15);
        EXPECT_NEAR(spinning_top::potential_energy(q, p), p.m * p.g * p.h * c, 1e-15);
        spinning_top::generalized_forces(q, qd, u, p, Q);
        EXPECT_NEAR(Q[0], u[0] * c, 1e-15);
        EXPECT_NEAR(Q[1], 0.0, 1e-15);
        EXPECT_NEAR(Q[2], u[0], 1e-15);
    }
}

TEST(RigidBody, SpinningTopConservesPrecessionAndSpinMomenta) {
    dynamics d;
    LAGC_BIND(spinning_top, d);
    vec q = {0.1, 0.7, 0.0}, qd = {1.5, 0.0, 60.0}, u = {0.0};
    auto momenta = [&](vec const& x, vec const& v) {
        double M[9];
        d.M(x.data(), M);
        return std::pair{M[0] * v[0] + M[1] * v[1] + M[2] * v[2], M[6] * v[0] + M[7] * v[1] + M[8] * v[2]};
    };
    auto [phi0, psi0] = momenta(q, qd);
    for (int s = 0; s < 10000; ++s) rk4_step(d, q, qd, u, 2e-4);
    auto [phi1, psi1] = momenta(q, qd);
    EXPECT_NEAR(phi1, phi0, 1e-9 * std::abs(psi0)); // phi and psi are cyclic
    EXPECT_NEAR(psi1, psi0, 1e-9 * std::abs(psi0));
}

TEST(Chain, TenLinkMassMatrixEqualsJacobianForm) {
    // M = sum_k m_k J_k^T J_k with J_k = dp_k/dq, p_k = sum_{a<=k} l_a [sin phi_a, -cos phi_a],
    // phi_a = q_1 + ... + q_a; computed here independently of lagc.
    chain10_rel::Parameters p;
    double const* l = &p.l1; // l_i and m_i alternate after g: m1, l1, m2, l2, ...
    std::mt19937 rng(8);
    for (int trial = 0; trial < 5; ++trial) {
        double q[10], M[100];
        uniform(rng, q, 10, -1.5, 1.5);
        double lengths[10], masses[10], phi[10];
        for (int i = 0; i < 10; ++i) {
            masses[i] = 1.0 + 0.1 * i;
            lengths[i] = 0.3 + 0.05 * i;
        }
        double* fields = &p.m1;
        for (int i = 0; i < 10; ++i) fields[2 * i] = masses[i], fields[2 * i + 1] = lengths[i];
        (void)l;
        for (int a = 0; a < 10; ++a) phi[a] = q[a] + (a ? phi[a - 1] : 0.0);
        chain10_rel::mass_matrix(q, p, M);
        for (int i = 0; i < 10; ++i)
            for (int j = 0; j < 10; ++j) {
                double expected = 0;
                for (int k = std::max(i, j); k < 10; ++k) {
                    double jix = 0, jiy = 0, jjx = 0, jjy = 0;
                    for (int a = i; a <= k; ++a) jix += lengths[a] * std::cos(phi[a]), jiy += lengths[a] * std::sin(phi[a]);
                    for (int a = j; a <= k; ++a) jjx += lengths[a] * std::cos(phi[a]), jjy += lengths[a] * std::sin(phi[a]);
                    expected += masses[k] * (jix * jjx + jiy * jjy);
                }
                EXPECT_NEAR(M[i * 10 + j], expected, 1e-12 * (1 + std::abs(expected))) << i << "," << j;
            }
    }
}

} // namespace

// NaN or Inf anywhere in the state, inputs or parameters never comes back as a solution:
// forward_dynamics returns non-zero (3 when M could be factorised but qdd is not finite).
TEST(ForwardDynamics, NonFiniteInputsAreReportedInTheUnrolledForm) {
    cart_pendulum::Parameters p;
    double const inf = std::numeric_limits<double>::infinity();
    double q[2] = {0.1, 0.3}, qd[2] = {0.2, -0.4}, u[1] = {1.0}, qdd[2];
    ASSERT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    qd[1] = std::nan("");
    EXPECT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 3);
    qd[1] = -0.4;
    u[0] = inf;
    EXPECT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 3);
    u[0] = 1.0;
    p.g = -inf;
    EXPECT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 3);
    p = {};
    p.m2 = inf; // inside M: the factorisation refuses it
    EXPECT_NE(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    p = {};
    ASSERT_EQ(cart_pendulum::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    for (double v : qdd) EXPECT_TRUE(std::isfinite(v));
}

// ---- abs, sign, min, max, and a default computed from other parameters ----------------

// m x'' = -k max(x, 0) - mu m g sign(x') + clamp(F, -Fmax, Fmax), with Fmax = 0.5 m g.
TEST(Kinks, FrictionBlockAgainstItsEquation) {
    friction_block::Parameters p;
    EXPECT_EQ(p.Fmax, 0.5 * 1.5 * 9.81); // the default of an expression, computed from m and g
    auto sign = [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; };
    for (double x : {-0.3, 0.0, 0.02}) {
        for (double v : {-0.4, 0.0, 0.7}) {
            for (double F : {-20.0, -1.0, 0.0, 3.0, 50.0}) {
                double q[1] = {x}, qd[1] = {v}, u[1] = {F}, qdd[1];
                ASSERT_EQ(friction_block::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
                double const want =
                    (-p.k * std::max(x, 0.0) - p.mu * p.m * p.g * sign(v) + std::min(std::max(F, -p.Fmax), p.Fmax)) / p.m;
                EXPECT_NEAR(qdd[0], want, 1e-12 * (1 + std::abs(want))) << x << " " << v << " " << F;
                double speed;
                friction_block::output_speed(q, qd, p, &speed);
                EXPECT_EQ(speed, std::abs(v));
            }
        }
    }
    // The parameter stays a parameter: a new Fmax is used as given.
    p.Fmax = 1;
    double q[1] = {-1}, qd[1] = {0}, u[1] = {5}, qdd[1];
    ASSERT_EQ(friction_block::forward_dynamics(q, qd, u, p, qdd, nullptr), 0);
    EXPECT_NEAR(qdd[0], 1 / p.m, 1e-15);
}

// Derivatives at and around the kinks, by the documented rules (|x|' = sign(x), sign' = 0,
// max(a, b) = (a + b + |a - b|)/2, then the chain rule): B is 1/m inside the actuator's
// range, 0 outside and the mean 1/(2m) exactly at the limit; d x''/dx of the spring is -k/m
// past the wall and 0 before it. At x = 0, V' = k max(x, 0) (1 + sign x)/2 differentiates
// to k ((1 + sign x)/2)^2 = k/4: A = -k/(4m) there.
TEST(Kinks, FrictionBlockLinearizationAtAndAroundTheKinks) {
    friction_block::Parameters p;
    struct point {
        double x, v, F, dx, dF;
    };
    double const m = p.m, k = p.k, limit = p.Fmax;
    for (point s : {point{0.1, 0.5, 1.0, -k / m, 1 / m}, point{-0.1, -0.5, 30.0, 0.0, 0.0},
                    point{0.0, 0.5, limit, -k / (4 * m), 1 / (2 * m)}, point{-0.2, 0.0, -limit, 0.0, 1 / (2 * m)}}) {
        double q[1] = {s.x}, qd[1] = {s.v}, u[1] = {s.F}, A[4], B[2];
        ASSERT_EQ(friction_block::linearization(q, qd, u, p, A, B), 0);
        EXPECT_NEAR(A[2], s.dx, 1e-12) << s.x;
        EXPECT_EQ(A[3], 0.0) << "sign' is taken as 0";
        EXPECT_NEAR(B[1], s.dF, 1e-12) << s.F;
    }
}

// ---- a 3-D arm against MuJoCo ---------------------------------------------------------

// MuJoCo 2.2.2's M, bias forces (its qfrc_bias: C qd + gravity) and qdd = M^-1 (tau - bias)
// for the same arm, at three states (tests/data/NAME_mujoco.inc, written by
// bench/mujoco_harness reference): an oracle from a different algorithm (CRBA and RNEA on
// spatial inertias) and a different program.
struct mujoco_reference {
    std::vector<double> q, qd, tau, M, bias, qdd;
};

template <int n, class Parameters, class MassMatrix, class Bias, class Forward>
void agrees_with_mujoco(char const* name, std::vector<mujoco_reference> const& states, MassMatrix mass_matrix,
                        Bias bias_forces, Forward forward_dynamics) {
    Parameters p;
    double worst = 0;
    for (auto const& s : states) {
        double M[n * n], h[n], qdd[n];
        mass_matrix(s.q.data(), p, M);
        bias_forces(s.q.data(), s.qd.data(), p, h);
        ASSERT_EQ(forward_dynamics(s.q.data(), s.qd.data(), s.tau.data(), p, qdd, nullptr), 0);
        auto scale = [](std::vector<double> const& v) {
            double m = 0;
            for (double x : v) m = std::max(m, std::abs(x));
            return m;
        };
        for (int k = 0; k < n * n; ++k) {
            EXPECT_NEAR(M[k], s.M[k], 1e-12 * scale(s.M)) << "M " << k;
            worst = std::max(worst, std::abs(M[k] - s.M[k]) / scale(s.M));
        }
        for (int i = 0; i < n; ++i) {
            EXPECT_NEAR(h[i], s.bias[i], 1e-12 * scale(s.bias)) << "h " << i;
            EXPECT_NEAR(qdd[i], s.qdd[i], 1e-12 * scale(s.qdd)) << "qdd " << i;
            worst = std::max({worst, std::abs(h[i] - s.bias[i]) / scale(s.bias), std::abs(qdd[i] - s.qdd[i]) / scale(s.qdd)});
        }
    }
    std::printf("[ mujoco   ] %s: M, h, qdd agree with MuJoCo to %.1e (relative to each's largest entry)\n", name, worst);
}

TEST(MuJoCo, Ur5LikeAgreesToRoundOff) {
    std::vector<mujoco_reference> const states = {
#include "data/ur5_like_mujoco.inc"
    };
    agrees_with_mujoco<ur5_like::nq, ur5_like::Parameters>("ur5_like", states, ur5_like::mass_matrix,
                                                           ur5_like::bias_forces, ur5_like::forward_dynamics);
}

// Seven links: M and h from the composites of the points' translational inertia.
TEST(MuJoCo, PandaLikeAgreesToRoundOff) {
    std::vector<mujoco_reference> const states = {
#include "data/panda_like_mujoco.inc"
    };
    agrees_with_mujoco<panda_like::nq, panda_like::Parameters>("panda_like", states, panda_like::mass_matrix,
                                                               panda_like::bias_forces, panda_like::forward_dynamics);
}

// Seven links whose products of inertia (and nothing else) are parameters with the default
// 0.0, as a URDF with ixy="0" gives them: lagc takes the zeros as written (it invented
// values for them once and refused the arm: issue 31), and agrees with MuJoCo.
TEST(MuJoCo, IiwaLikeWithZeroProductsOfInertiaAgreesToRoundOff) {
    std::vector<mujoco_reference> const states = {
#include "data/iiwa_like_mujoco.inc"
    };
    iiwa_like::Parameters const p;
    EXPECT_EQ(p.Jxy7, 0.0);
    EXPECT_EQ(p.Jyz1, 0.0);
    agrees_with_mujoco<iiwa_like::nq, iiwa_like::Parameters>("iiwa_like", states, iiwa_like::mass_matrix,
                                                             iiwa_like::bias_forces, iiwa_like::forward_dynamics);
}

// The same arm on a ceiling (a fixed half turn about x before its first joint): upside down
// is gravity turned over, so M is iiwa_like's and h is iiwa_like's with g = -9.81 — at
// random states, to round-off.
TEST(RigidBody, ArmOnACeilingIsTheArmWithGravityTurnedOver) {
    iiwa_ceiling::Parameters const pc;
    iiwa_like::Parameters pl;
    pl.g = -pl.g;
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> U(-2, 2);
    for (int trial = 0; trial < 20; ++trial) {
        double q[7], qd[7], Mc[49], Ml[49], hc[7], hl[7];
        for (int i = 0; i < 7; ++i) q[i] = U(rng), qd[i] = U(rng);
        iiwa_ceiling::mass_matrix(q, pc, Mc);
        iiwa_like::mass_matrix(q, pl, Ml);
        iiwa_ceiling::bias_forces(q, qd, pc, hc);
        iiwa_like::bias_forces(q, qd, pl, hl);
        for (int k = 0; k < 49; ++k) EXPECT_NEAR(Mc[k], Ml[k], 1e-13) << k;
        for (int i = 0; i < 7; ++i) EXPECT_NEAR(hc[i], hl[i], 1e-12 * (1 + std::abs(hl[i]))) << i;
    }
}

// docs/rigid-bodies.md's rod: omega = (-sin(phi) theta', phi', cos(phi) theta') in body axes
// and |p'|^2 = (l/2)^2 (cos^2(phi) theta'^2 + phi'^2), so M is diagonal with
// M00 = m l^2/4 cos^2 phi + Jxx sin^2 phi + Jzz cos^2 phi and M11 = m l^2/4 + Jyy.
TEST(RigidBody, TiltedRodMassMatrixClosedForm) {
    tilted_rod::Parameters p;
    for (double phi : {-1.2, 0.0, 0.4, 2.0}) {
        double q[2] = {0.7, phi}, M[4];
        tilted_rod::mass_matrix(q, p, M);
        double const c = std::cos(phi), s = std::sin(phi);
        EXPECT_NEAR(M[0], p.m * p.l * p.l / 4 * c * c + p.Jxx * s * s + p.Jzz * c * c, 1e-15);
        EXPECT_NEAR(M[3], p.m * p.l * p.l / 4 + p.Jyy, 1e-15);
        EXPECT_NEAR(M[1], 0.0, 1e-15);
        EXPECT_NEAR(M[2], 0.0, 1e-15);
    }
}

// The quadrotor's mass matrix in closed form: m I for the position, E^T J E for the Euler
// rates, w = E (psi', theta', phi') with E = [[-sin th, 0, 1], [cos th sin ph, cos ph, 0],
// [cos th cos ph, -sin ph, 0]] (Z-Y-X angles, w in body axes); and omega taken from the
// rotation matrix gives the same M, h and qdd.
TEST(RigidBody, QuadrotorClosedFormAndOmegaFromR) {
    quadrotor::Parameters p;
    quadrotor_omega_from_R::Parameters pr;
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> U(-1.2, 1.2);
    for (int trial = 0; trial < 20; ++trial) {
        double q[6], qd[6], u[4], M[36], Mr[36], h[6], hr[6], a[6], ar[6];
        for (double& x : q) x = U(rng);
        for (double& x : qd) x = U(rng);
        for (double& x : u) x = U(rng);
        quadrotor::mass_matrix(q, p, M);
        double const th = q[4], ph = q[5];
        double const E[3][3] = {{-std::sin(th), 0, 1},
                                {std::cos(th) * std::sin(ph), std::cos(ph), 0},
                                {std::cos(th) * std::cos(ph), -std::sin(ph), 0}};
        double const J[3][3] = {{p.Jx, p.Jxy, 0}, {p.Jxy, p.Jy, 0}, {0, 0, p.Jz}};
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                double want = 0;
                if (i < 3 && j < 3) want = i == j ? p.m : 0;
                if (i >= 3 && j >= 3)
                    for (int k = 0; k < 3; ++k)
                        for (int l = 0; l < 3; ++l) want += E[k][i - 3] * J[k][l] * E[l][j - 3];
                EXPECT_NEAR(M[i * 6 + j], want, 1e-15) << i << "," << j;
            }
        quadrotor_omega_from_R::mass_matrix(q, pr, Mr);
        quadrotor::bias_forces(q, qd, p, h);
        quadrotor_omega_from_R::bias_forces(q, qd, pr, hr);
        ASSERT_EQ(quadrotor::forward_dynamics(q, qd, u, p, a, nullptr), 0);
        ASSERT_EQ(quadrotor_omega_from_R::forward_dynamics(q, qd, u, pr, ar, nullptr), 0);
        for (int k = 0; k < 36; ++k) EXPECT_NEAR(Mr[k], M[k], 1e-15);
        for (int i = 0; i < 6; ++i) {
            EXPECT_NEAR(hr[i], h[i], 1e-13);
            EXPECT_NEAR(ar[i], a[i], 1e-11 * (1 + std::abs(a[i])));
        }
        // ω and J in world axes (an angular velocity whose structure equation has the
        // other sign, and coefficients that depend on the angles): the same body.
        quadrotor_world_axes::Parameters pw;
        double Mw[36], hw[6], aw[6];
        quadrotor_world_axes::mass_matrix(q, pw, Mw);
        quadrotor_world_axes::bias_forces(q, qd, pw, hw);
        ASSERT_EQ(quadrotor_world_axes::forward_dynamics(q, qd, u, pw, aw, nullptr), 0);
        for (int k = 0; k < 36; ++k) EXPECT_NEAR(Mw[k], M[k], 1e-15);
        for (int i = 0; i < 6; ++i) {
            EXPECT_NEAR(hw[i], h[i], 1e-13);
            EXPECT_NEAR(aw[i], a[i], 1e-11 * (1 + std::abs(a[i])));
        }
    }
}
