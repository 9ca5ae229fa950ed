// A robot file with closed loops (hinges and slides only) against MuJoCo loading the same
// file with its equalities on: at random states lagc's project_state puts on the loops,
// MuJoCo's own equality residuals (efc_pos) and their rates (efc_vel) are zero — the
// constraints are the same — and MuJoCo's accelerations, with its soft equalities made stiff
// (solimp's d from 0.99 to 0.9999, its largest), approach lagc's exact ones at rest (MuJoCo's
// equalities leave out J̇ q̇): the error falls as 1 − d does. Built per file with LAGC_MODEL and LAGC_HEADER; usage: loops_mujoco_check
// FILE. Exit 1 when a check fails.
#include LAGC_HEADER

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace model = LAGC_MODEL;

namespace {

// MuJoCo's accelerations at the state with every equality's solimp d = `d`, and the largest
// |efc_pos| and |efc_vel| of its equality rows.
std::vector<double> mujoco_acceleration(mjModel* m, mjData* d, double dmax, double& pos, double& vel) {
    for (int e = 0; e < m->neq; ++e) m->eq_solimp[e * mjNIMP] = m->eq_solimp[e * mjNIMP + 1] = dmax;
    mj_forward(m, d);
    pos = vel = 0;
    for (int r = 0; r < d->nefc; ++r)
        if (d->efc_type[r] == mjCNSTR_EQUALITY) pos = std::max(pos, std::abs(d->efc_pos[r])), vel = std::max(vel, std::abs(d->efc_vel[r]));
    return std::vector<double>(d->qacc, d->qacc + m->nv);
}

double largest_difference(std::vector<double> const& a, double const* b, double& scale) {
    double diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i])), scale = std::max(scale, std::abs(b[i]));
    return diff;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    char error[1000] = "";
    mjModel* m = mj_loadXML(argv[1], nullptr, error, sizeof error);
    if (!m) {
        std::fprintf(stderr, "MuJoCo cannot load %s: %s\n", argv[1], error);
        return 2;
    }
    static_assert(model::nu == model::nq, "one input per hinge or slide");
    m->opt.disableflags |= mjDSBL_ACTUATION; // lagc's inputs are the joints' forces
    if (m->nq != model::nq || m->nv != model::nq || m->neq == 0) {
        std::fprintf(stderr, "%s: hinges and slides with equalities only (MuJoCo nq %d, lagc %d)\n", argv[1], m->nq, model::nq);
        return 1;
    }
    for (int j = 0; j < m->njnt; ++j)
        if (std::string(mj_id2name(m, mjOBJ_JOINT, j)) != model::coordinate_names[m->jnt_qposadr[j]]) {
            std::fprintf(stderr, "joint %d is not lagc's coordinate %d\n", j, m->jnt_qposadr[j]);
            return 1;
        }
    mjData* d = mj_makeData(m);
    model::Parameters p;
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> U(-1, 1);
    double worst_pos = 0, worst_vel = 0, worst_soft = 0, worst_stiff = 0;
    for (int trial = 0; trial < 20; ++trial) {
        double q[model::nq], qd[model::nq], u[model::nu], qdd[model::nq], lambda[model::nc];
        for (int i = 0; i < model::nq; ++i) q[i] = m->qpos0[i] + 0.2 * U(rng), qd[i] = U(rng), u[i] = 0.02 * U(rng);
        double const left = model::project_state(q, qd, p);
        if (!(left >= 0 && left < 1e-10) || model::forward_dynamics(q, qd, u, p, qdd, lambda) != 0) {
            std::fprintf(stderr, "lagc's projection or forward dynamics failed (%g)\n", left);
            return 1;
        }
        mju_copy(d->qpos, q, m->nq);
        mju_copy(d->qvel, qd, m->nv);
        mju_copy(d->qfrc_applied, u, m->nv);
        double pos, vel, scale = 1e-300;
        mujoco_acceleration(m, d, 0.99, pos, vel);
        worst_pos = std::max(worst_pos, pos), worst_vel = std::max(worst_vel, vel);
        // MuJoCo asks J q̈ = aref of its equalities, without the J̇ q̇ that the exact
        // constraint's second derivative has (its aref pulls the drift back instead): the
        // accelerations are compared at rest, where that term is zero.
        for (int i = 0; i < model::nq; ++i) qd[i] = 0;
        if (model::forward_dynamics(q, qd, u, p, qdd, lambda) != 0) return 1;
        mju_zero(d->qvel, m->nv);
        auto const soft = mujoco_acceleration(m, d, 0.99, pos, vel);
        auto const stiff = mujoco_acceleration(m, d, 0.9999, pos, vel);
        double const e_soft = largest_difference(soft, qdd, scale), e_stiff = largest_difference(stiff, qdd, scale);
        worst_soft = std::max(worst_soft, e_soft / scale), worst_stiff = std::max(worst_stiff, e_stiff / scale);
    }
    std::printf("%s: MuJoCo's equality residuals at lagc's projected states: |efc_pos| %.2g, |efc_vel| %.2g;\n"
                "accelerations against lagc's exact ones (relative): solimp d = 0.99: %.2g, d = 0.9999: %.2g\n",
                argv[1], worst_pos, worst_vel, worst_soft, worst_stiff);
    bool const ok = worst_pos < 1e-12 && worst_vel < 1e-11 && worst_stiff < 1e-2 && worst_stiff < worst_soft / 50;
    mj_deleteData(d);
    mj_deleteModel(m);
    return ok ? 0 : 1;
}
