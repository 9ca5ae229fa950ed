// Actuators and keyframes of robot files (issue 49), on tests/robots/actuated_arm.xml and
// keyframes_free.xml, each check against a computation that is not lagc's reading of the file:
// - the model made with --inputs actuators (namespace actuated) against the one made with
//   joint inputs (jointed) driven by tau = gear * (gain * ctrl - kp * gear * q - kv * gear * qd),
//   summed per joint, written out below from the file's numbers by hand: the accelerations,
//   and input_matrix against the gears;
// - the keyframes against the file's qpos and qvel, quaternions normalised here;
// - with --mujoco (where MuJoCo is installed, LAGC_WITH_MUJOCO): the accelerations and the
//   actuators' joint forces against MuJoCo's with ctrl set (qacc, qfrc_actuator), and the
//   site's position and velocity at each keyframe against MuJoCo's after mj_resetDataKeyframe.
// Usage: actuators_check [--mujoco ARM.xml FREE.xml]. Exit 1 on a relative error above 1e-12.
#include "actuated.hpp"
#include "free_keys.hpp"
#include "jointed.hpp"

#ifdef LAGC_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

double worst = 0;

void expect_near(char const* what, double got, double want, double scale = 1) {
    double const e = std::abs(got - want) / std::max({std::abs(want), scale, 1e-300});
    if (e > worst) worst = e;
    if (!(e <= 1e-12)) std::fprintf(stderr, "%s: %.17g, want %.17g (relative %.3g)\n", what, got, want, e);
}

// The file's actuators by hand: shoulder (50 u0 + 2 u1; the second gear from the default
// class), elbow (30 · 0.5 u2, and the PD 1.5 (5 u5 − 5 · 1.5 q − 0.7 · 1.5 q̇)), wrist (the
// position servo 2 · 20 (u3 − 2 q)), extend (the velocity servo 2 · 8 (u4 − 2 q̇)); on the
// tendon of length L = 0.5 q0 − q2 the motor 3 u6 and the servo 2 · 4 (u7 − 2 L),
// their sum f on the shoulder as 0.5 f and on the wrist as −f.
void joint_torques(double const* q, double const* qd, double const* u, double* tau) {
    double const L = 0.5 * q[0] - q[2];
    double const f = 3 * u[6] + 2 * (4 * (u[7] - 2 * L));
    tau[0] = 50 * u[0] + 2 * u[1] + 0.5 * f;
    tau[1] = 30 * 0.5 * u[2] + 1.5 * (5 * u[5] - 5 * 1.5 * q[1] - 0.7 * 1.5 * qd[1]);
    tau[2] = 2 * (20 * (u[3] - 2 * q[2])) - f;
    tau[3] = 2 * (8 * (u[4] - 2 * qd[3]));
}

void check_actuators(std::mt19937_64& rng) {
    static_assert(actuated::nq == 4 && actuated::nu == 8 && jointed::nu == 4);
    std::uniform_real_distribution<double> U(-1, 1);
    actuated::Parameters pa;
    jointed::Parameters pj;
    for (int trial = 0; trial < 20; ++trial) {
        double q[4], qd[4], u[8], tau[4], a[4], b[4];
        for (auto& x : q) x = U(rng);
        for (auto& x : qd) x = 2 * U(rng);
        for (auto& x : u) x = 3 * U(rng);
        joint_torques(q, qd, u, tau);
        if (actuated::forward_dynamics(q, qd, u, pa, a, nullptr) != 0 || jointed::forward_dynamics(q, qd, tau, pj, b, nullptr) != 0)
            std::fprintf(stderr, "forward_dynamics failed\n"), worst = 1;
        double scale = 0;
        for (double x : b) scale = std::max(scale, std::abs(x));
        for (int i = 0; i < 4; ++i) expect_near("qdd with actuators", a[i], b[i], scale);
    }
    // ∂Q/∂u: the gears (times the gains) where each actuator acts.
    double B[4 * 8], q[4] = {0.1, 0.2, 0.3, 0.4}, qd[4] = {0, 0, 0, 0}, u[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    actuated::input_matrix(q, qd, u, pa, B);
    double const want[4 * 8] = {50, 2, 0,  0,  0, 0,   1.5, 4,  //
                                0,  0, 15, 0,  0, 7.5, 0,   0,  //
                                0,  0, 0,  40, 0, 0,   -3,  -8, //
                                0,  0, 0,  0,  16, 0,  0,   0};
    for (int i = 0; i < 32; ++i) expect_near("input_matrix", B[i], want[i], 1);
}

void check_keyframes() {
    // The arm's keys: qpos and qvel as the file gives them; "rest" gives none (its refs, 0).
    double const home[4] = {0.3, -0.5, 0.8, 0.05}, home_v[4] = {0.1, 0.2, -0.3, 0.05};
    for (int i = 0; i < 4; ++i) {
        expect_near("home_q", actuated::keyframes::home_q[i], home[i]);
        expect_near("home_qd", actuated::keyframes::home_qd[i], home_v[i]);
        expect_near("rest_q", actuated::keyframes::rest_q[i], 0);
    }
    // The floating one: the quaternions (2, .2, .4, −.6) and (.9, .3, −.2, .1) normalised; q̇ of
    // each quaternion ½ q ⊗ (0, ω).
    double const qpos[12] = {0.5, 0.4, 1.2, 2, 0.2, 0.4, -0.6, 0.9, 0.3, -0.2, 0.1, -0.7};
    double const qvel[10] = {0.3, -0.2, 0.1, 0.5, -0.4, 0.2, 1.5, -0.5, 0.8, 2.0};
    double q[12], qd[12];
    std::copy(qpos, qpos + 12, q);
    for (int k : {3, 7}) {
        double const n = std::sqrt(q[k] * q[k] + q[k + 1] * q[k + 1] + q[k + 2] * q[k + 2] + q[k + 3] * q[k + 3]);
        for (int c = 0; c < 4; ++c) q[k + c] /= n;
    }
    auto rate = [&](int k, double const* w, double* out) {
        double const a = q[k], x = q[k + 1], y = q[k + 2], z = q[k + 3];
        out[0] = 0.5 * (-x * w[0] - y * w[1] - z * w[2]);
        out[1] = 0.5 * (a * w[0] + y * w[2] - z * w[1]);
        out[2] = 0.5 * (a * w[1] + z * w[0] - x * w[2]);
        out[3] = 0.5 * (a * w[2] + x * w[1] - y * w[0]);
    };
    std::copy(qvel, qvel + 3, qd);
    rate(3, qvel + 3, qd + 3);
    rate(7, qvel + 6, qd + 7);
    qd[11] = qvel[9];
    for (int i = 0; i < 12; ++i) {
        expect_near("wave_q", free_keys::keyframes::wave_q[i], q[i]);
        expect_near("wave_qd", free_keys::keyframes::wave_qd[i], qd[i]);
    }
    // On the model's constraints (the quaternions' norms and their rates).
    free_keys::Parameters p;
    double c[free_keys::nc];
    free_keys::constraint_residuals(free_keys::keyframes::wave_q, free_keys::keyframes::wave_qd, p, c);
    for (double x : c) expect_near("the keyframe's constraint residual", x, 0);
    // "start": the free body where the file puts it (pos, its quat normalised), the ball at
    // rest, the hinge at its ref 0.2.
    double const n = std::sqrt(0.8 * 0.8 + 0.2 * 0.2 + 0.3 * 0.3 + 0.4 * 0.4);
    double const start[12] = {0.1, -0.2, 1, 0.8 / n, 0.2 / n, -0.3 / n, 0.4 / n, 1, 0, 0, 0, 0.2};
    for (int i = 0; i < 12; ++i) expect_near("start_q", free_keys::keyframes::start_q[i], start[i]);
}

} // namespace

#ifdef LAGC_WITH_MUJOCO
int check_mujoco(char const* arm, char const* floating, std::mt19937_64& rng);
#endif

int main(int argc, char** argv) {
    std::mt19937_64 rng(20261128);
    check_actuators(rng);
    check_keyframes();
    std::printf("actuators and keyframes against independent computations: worst relative error %.3g\n", worst);
    if (argc > 1 && std::strcmp(argv[1], "--mujoco") == 0) {
#ifdef LAGC_WITH_MUJOCO
        if (argc < 4) return std::fprintf(stderr, "usage: actuators_check --mujoco ARM.xml FREE.xml\n"), 2;
        if (check_mujoco(argv[2], argv[3], rng) != 0) return 2;
#else
        std::fprintf(stderr, "built without MuJoCo\n");
        return 2;
#endif
    }
    return worst <= 1e-12 ? 0 : 1;
}

#ifdef LAGC_WITH_MUJOCO
namespace {

mjModel* load(char const* file) {
    char error[1000] = "";
    mjModel* m = mj_loadXML(file, nullptr, error, sizeof error);
    if (!m) std::fprintf(stderr, "MuJoCo cannot load %s: %s\n", file, error);
    else m->opt.disableflags |= mjDSBL_CONSTRAINT; // no contacts, no limits
    return m;
}

} // namespace

// MuJoCo's qacc and qfrc_actuator with ctrl set (the arm: MuJoCo's qpos and qvel are lagc's q
// and q̇, its joints' order the same); the site at each keyframe.
int check_mujoco(char const* arm, char const* floating, std::mt19937_64& rng) {
    mjModel* m = load(arm);
    mjModel* f = load(floating);
    if (!m || !f) return 1;
    mjData* d = mj_makeData(m);
    std::uniform_real_distribution<double> U(-1, 1);
    actuated::Parameters pa;
    jointed::Parameters pj;
    double const before = worst;
    worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
        double u[8], a[4], Q[4], Q0[4], zero[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; ++i) d->qpos[i] = U(rng), d->qvel[i] = 2 * U(rng);
        for (int i = 0; i < 8; ++i) u[i] = d->ctrl[i] = 0.5 * U(rng); // within no ctrlrange: none is given
        mj_forward(m, d);
        actuated::forward_dynamics(d->qpos, d->qvel, u, pa, a, nullptr);
        actuated::generalized_forces(d->qpos, d->qvel, u, pa, Q);
        jointed::generalized_forces(d->qpos, d->qvel, zero, pj, Q0); // the joints' damping alone
        double sa = 0, sf = 0;
        for (int i = 0; i < 4; ++i) sa = std::max(sa, std::abs(d->qacc[i])), sf = std::max(sf, std::abs(d->qfrc_actuator[i]));
        for (int i = 0; i < 4; ++i) {
            expect_near("qacc against MuJoCo", a[i], d->qacc[i], sa);
            expect_near("qfrc_actuator against MuJoCo", Q[i] - Q0[i], d->qfrc_actuator[i], sf);
        }
    }
    double const dynamics = worst;
    worst = 0;
    // The arm's site at "home": MuJoCo's site_xpos against output_tip.
    for (int key = 0; key < m->nkey; ++key) {
        mj_resetDataKeyframe(m, d, key);
        mj_forward(m, d);
        double tip[3];
        actuated::output_tip(key == 0 ? actuated::keyframes::home_q : actuated::keyframes::rest_q, nullptr, pa, tip);
        for (int c = 0; c < 3; ++c) expect_near("the arm's tip at a keyframe", tip[c], d->site_xpos[c], 1);
    }
    mjData* g = mj_makeData(f);
    free_keys::Parameters pf;
    for (int key = 0; key < f->nkey; ++key) {
        mj_resetDataKeyframe(f, g, key);
        mj_forward(f, g);
        double const* q = key == 0 ? free_keys::keyframes::wave_q : free_keys::keyframes::start_q;
        double tip[3], J[3 * free_keys::nq], v[6];
        free_keys::output_tip(q, nullptr, pf, tip);
        for (int c = 0; c < 3; ++c) expect_near("the floating tip at a keyframe", tip[c], g->site_xpos[c], 1);
        if (key != 0) continue;
        // Its velocity: J q̇ against MuJoCo's (the site's linear velocity in the world).
        free_keys::output_tip_jacobian(q, pf, J);
        mj_objectVelocity(f, g, mjOBJ_SITE, 0, v, 0);
        for (int c = 0; c < 3; ++c) {
            double s = 0;
            for (int i = 0; i < free_keys::nq; ++i) s += J[c * free_keys::nq + i] * free_keys::keyframes::wave_qd[i];
            expect_near("the floating tip's velocity at a keyframe", s, v[3 + c], 1);
        }
    }
    std::printf("against MuJoCo: dynamics with ctrl worst relative error %.3g, sites at keyframes %.3g\n", dynamics, worst);
    worst = std::max({before, dynamics, worst});
    mj_deleteData(d);
    mj_deleteData(g);
    mj_deleteModel(m);
    mj_deleteModel(f);
    return 0;
}
#endif
