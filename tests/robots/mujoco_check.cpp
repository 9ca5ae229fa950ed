// lagc's code for an imported robot file against MuJoCo loading the same file: the mass
// matrix, the bias forces h − Q(u = 0) (Coriolis, gravity, springs and dampers: MuJoCo's
// qfrc_bias − qfrc_passive) and the accelerations for random inputs, at random states.
// Joints are matched by name; a free joint's seven coordinates (x, y, z, qw, qx, qy, qz)
// are MuJoCo's qpos, its velocities map to MuJoCo's (linear in the world, angular in the
// body) through q̇ = E v. Built once per robot with LAGC_MODEL (its namespace) and
// LAGC_HEADER; usage: mujoco_check FILE [TOLERANCE]. Exit 1 when a relative error is above
// the tolerance (default 1e-12).
#include LAGC_HEADER

#include <mujoco/mujoco.h>

#include "dense.hpp"

#include <cfloat>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace model = LAGC_MODEL;

namespace {

// A name of the file as lagc writes it (src/import/names.hpp, for ASCII names): letters and
// digits kept, every other run of characters one underscore between words, "n" before a
// leading digit; an element without a name is PREFIX and its place in the file (1-based).
std::string lagc_name(char const* raw, char const* prefix, int place) {
    if (!raw || !*raw) return prefix + std::to_string(place);
    std::string out;
    bool gap = false;
    for (char const* c = raw; *c; ++c) {
        bool const word = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        if (!word) {
            gap = true;
            continue;
        }
        if (gap && !out.empty()) out += '_';
        gap = false;
        out += *c;
    }
    if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "n" + out;
    return out;
}

// Body b's mass, centre of mass and inertia about it (b's frame, row-major) with those of the
// bodies fixed to it (no joints of their own, through fixed bodies only) merged in, as lagc
// merges them, from MuJoCo's compiled values placed at qpos0 (d after mj_kinematics); MuJoCo
// 2.2 fuses no body that a loop or a light names.
void merged_inertia(mjModel const* m, mjData const* d, int b, double& mass, double com[3], double J[9]) {
    std::vector<int> part{b};
    for (int c = b + 1; c < m->nbody; ++c)
        for (int a = c; m->body_jntnum[a] == 0 && a != 0; a = m->body_parentid[a])
            if (m->body_parentid[a] == b) {
                part.push_back(c);
                break;
            }
    mass = 0;
    double x[3] = {0, 0, 0}, W[9] = {0};
    for (int c : part) {
        mass += m->body_mass[c];
        for (int i = 0; i < 3; ++i) x[i] += m->body_mass[c] * d->xipos[3 * c + i];
    }
    if (mass <= 0) return;
    for (double& v : x) v /= mass;
    for (int c : part) {
        double const* X = d->ximat + 9 * c;
        double const* I = m->body_inertia + 3 * c;
        double r[3], rr = 0;
        for (int i = 0; i < 3; ++i) r[i] = d->xipos[3 * c + i] - x[i], rr += r[i] * r[i];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                W[i * 3 + j] += X[i * 3] * I[0] * X[j * 3] + X[i * 3 + 1] * I[1] * X[j * 3 + 1] + X[i * 3 + 2] * I[2] * X[j * 3 + 2] +
                                m->body_mass[c] * ((i == j ? rr : 0) - r[i] * r[j]);
    }
    double const* R = d->xmat + 9 * b; // body b's axes in the world: J_b = Rᵀ W R, com_b = Rᵀ (x − p)
    for (int i = 0; i < 3; ++i) {
        com[i] = 0;
        for (int k = 0; k < 3; ++k) com[i] += R[k * 3 + i] * (x[k] - d->xpos[3 * b + k]);
        for (int j = 0; j < 3; ++j) {
            J[i * 3 + j] = 0;
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) J[i * 3 + j] += R[k * 3 + i] * W[k * 3 + l] * R[l * 3 + j];
        }
    }
}

struct joint_map {
    int type;           // mjJNT_*
    int lagc_q;         // the first lagc coordinate
    int qpos, dof;      // MuJoCo's addresses
};

double relative(std::vector<double> const& a, std::vector<double> const& b) {
    double diff = 0, scale = 1e-300;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::max(std::abs(a[i]), std::abs(b[i])));
    }
    return diff / scale;
}

// project_state and constraint_jacobian exist where the model has constraints: called
// through argument-dependent lookup in a template, so that a model without them compiles.
template <class P>
double project(double* q, double* qd, P const& p) {
    if constexpr (model::nc > 0) return project_state(q, qd, p);
    return 0;
}
template <class P>
void jacobian(double const* q, P const& p, double* A) {
    if constexpr (model::nc > 0) constraint_jacobian(q, p, A);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: mujoco_check FILE [TOLERANCE]\n");
        return 2;
    }
    double const tolerance = argc > 2 ? std::atof(argv[2]) : 1e-12;
    char error[1000] = "";
    mjModel* m = mj_loadXML(argv[1], nullptr, error, sizeof error);
    if (!m) {
        std::fprintf(stderr, "MuJoCo cannot load %s: %s\n", argv[1], error);
        return 2;
    }
    // No contacts, no limits, no actuators (lagc's inputs are the joints' forces here; a
    // <position> actuator pulls even at ctrl = 0): the equations of motion alone.
    m->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_ACTUATION;
    mjData* d = mj_makeData(m);
    int const nv = m->nv;
    // lagc's velocity count: one per hinge or slide, three (x, y, z) plus three (body rates, as
    // MuJoCo's) per free joint, three per ball joint.
    std::vector<joint_map> joints;
    for (int j = 0; j < m->njnt; ++j) {
        std::string const name = lagc_name(mj_id2name(m, mjOBJ_JOINT, j), "joint", j + 1);
        int const type = m->jnt_type[j];
        std::string const first = type == mjJNT_FREE ? name + "_x" : type == mjJNT_BALL ? name + "_qw" : name;
        int found = -1;
        for (int i = 0; i < model::nq; ++i)
            if (first == model::coordinate_names[i]) found = i;
        if (found < 0) {
            std::fprintf(stderr, "lagc's model has no coordinate '%s'\n", first.c_str());
            return 1;
        }
        joints.push_back({type, found, m->jnt_qposadr[j], m->jnt_dofadr[j]});
    }
    if (m->nq != model::nq) {
        std::fprintf(stderr, "MuJoCo has %d coordinates, lagc %d\n", m->nq, model::nq);
        return 1;
    }
    // E: lagc's q̇ = E v (v MuJoCo's qvel), nq × nv.
    auto velocity_map = [&](std::vector<double> const& q) {
        std::vector<double> E(model::nq * nv, 0.0);
        for (auto const& j : joints) {
            if (j.type == mjJNT_HINGE || j.type == mjJNT_SLIDE) {
                E[j.lagc_q * nv + j.dof] = 1;
                continue;
            }
            int k = j.lagc_q, dof = j.dof;
            if (j.type == mjJNT_FREE) {
                for (int c = 0; c < 3; ++c) E[(k + c) * nv + dof + c] = 1;
                k += 3;
                dof += 3;
            }
            // q̇ = ½ q ⊗ (0, ω) with ω in the body's axes.
            double const w = q[k], x = q[k + 1], y = q[k + 2], z = q[k + 3];
            double const Q[4][3] = {{-x, -y, -z}, {w, -z, y}, {z, w, -x}, {-y, x, w}};
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 3; ++c) E[(k + r) * nv + dof + c] = 0.5 * Q[r][c];
        }
        return E;
    };
    // MuJoCo keeps each body's inertia as principal moments and axes, found by an iterative
    // eigensolver (5e-7 of the largest moment on arm7's one full tensor, link3); lagc keeps the
    // tensor as the file gives it. The comparison of the equations is made with MuJoCo's
    // stored values as lagc's parameters (read back into tensors), and how far lagc's
    // imported defaults are from them is reported and checked separately (1e-6).
    model::Parameters p;
    static_assert(sizeof(model::Parameters) % sizeof(double) == 0);
    double* values = reinterpret_cast<double*>(&p);
    int const np = static_cast<int>(sizeof(model::Parameters) / sizeof(double));
    auto parameter = [&](std::string const& name) -> double* {
        for (int i = 0; i < np; ++i)
            if (name == model::parameter_names[i]) return &values[i];
        return nullptr;
    };
    double worst_default = 0;
    std::string worst_name;
    int bodies_read = 0;
    int bodies_with_mass = 0;
    mj_kinematics(m, d); // at qpos0
    for (int b = 1; b < m->nbody; ++b) {
        if (m->body_jntnum[b] == 0) continue; // merged into its parent (or fixed to the world)
        std::string const s = lagc_name(mj_id2name(m, mjOBJ_BODY, b), "body", b);
        double mass, com[3], J[9];
        merged_inertia(m, d, b, mass, com, J);
        if (mass > 0) ++bodies_with_mass;
        if (!parameter("m_" + s)) continue;
        std::pair<char const*, double> const stored[] = {
            {"m_", mass}, {"cx_", com[0]}, {"cy_", com[1]}, {"cz_", com[2]}, {"Jxx_", J[0]}, {"Jyy_", J[4]}, {"Jzz_", J[8]},
            {"Jxy_", J[1]}, {"Jxz_", J[2]}, {"Jyz_", J[5]}};
        double scale = 0;
        for (auto const& [prefix, v] : stored)
            if (prefix[0] == 'J') scale = std::max(scale, std::abs(v));
        for (auto const& [prefix, v] : stored) {
            double* x = parameter(prefix + s);
            if (!x) {
                std::fprintf(stderr, "lagc's model has no parameter %s%s\n", prefix, s.c_str());
                return 1;
            }
            double const unit = prefix[0] == 'J' ? scale : prefix[0] == 'm' ? std::abs(v) : 1.0;
            double const e = std::abs(*x - v) / std::max(unit, 1e-300);
            if (e > worst_default) worst_default = e, worst_name = prefix + s;
            *x = v;
        }
        ++bodies_read;
    }
    if (bodies_read != bodies_with_mass) {
        std::fprintf(stderr, "lagc's parameters name %d bodies, MuJoCo has %d with mass\n", bodies_read, bodies_with_mass);
        return 1;
    }
    int quaternion_joints = 0;
    for (auto const& j : joints) quaternion_joints += j.type == mjJNT_FREE || j.type == mjJNT_BALL;
    bool const coupled = model::nc > quaternion_joints;
    bool const coupled_by_file = m->neq > 0;
    std::mt19937_64 rng(20261125);
    std::uniform_real_distribution<double> U(-1, 1);
    double worst_M = 0, worst_h = 0, worst_a = 0, worst_kappa = 0;
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> qpos(m->nq), v(nv), u(model::nu);
        // Loops (equalities) close near the drawn pose only, not at any state: there the
        // hinges and slides are qpos0 moved by up to 0.05.
        for (int i = 0; i < m->nq; ++i) qpos[i] = coupled_by_file ? m->qpos0[i] + 0.05 * U(rng) : U(rng);
        for (auto const& j : joints)
            if (j.type == mjJNT_FREE || j.type == mjJNT_BALL) {
                int const k = j.qpos + (j.type == mjJNT_FREE ? 3 : 0);
                double n = 0;
                for (int c = 0; c < 4; ++c) n += qpos[k + c] * qpos[k + c];
                for (int c = 0; c < 4; ++c) qpos[k + c] /= std::sqrt(n);
            }
        for (auto& x : v) x = 2 * U(rng);
        // A loop's rows are not linear: A q̈ = −Ȧ q̇, zero at rest. Every other state of a
        // file with equalities is at rest, where A q̈ = 0 is checked too.
        bool const at_rest = coupled_by_file && trial % 2 == 0;
        if (at_rest) std::fill(v.begin(), v.end(), 0.0);
        // lagc's q from MuJoCo's qpos: the same numbers, joint by joint.
        std::vector<double> q(model::nq);
        for (auto const& j : joints) {
            int const n = j.type == mjJNT_FREE ? 7 : j.type == mjJNT_BALL ? 4 : 1;
            for (int c = 0; c < n; ++c) q[j.lagc_q + c] = qpos[j.qpos + c];
        }
        std::vector<double> qd(model::nq, 0.0);
        {
            auto const E0 = velocity_map(q);
            for (int i = 0; i < model::nq; ++i)
                for (int c = 0; c < nv; ++c) qd[i] += E0[i * nv + c] * v[c];
        }
        // On the constraints (mimic joints; the quaternions' norms): projected, then MuJoCo's
        // state read back from lagc's.
        double const left = project(q.data(), qd.data(), p);
        if (!(left >= 0 && left < 1e-9)) {
            std::fprintf(stderr, "state %d: project_state left %.3g on the constraints\n", trial, left);
            return 1;
        }
        auto const E = velocity_map(q);
        for (auto const& j : joints) {
            int const n = j.type == mjJNT_FREE ? 7 : j.type == mjJNT_BALL ? 4 : 1;
            for (int c = 0; c < n; ++c) qpos[j.qpos + c] = q[j.lagc_q + c];
            if (j.type == mjJNT_HINGE || j.type == mjJNT_SLIDE) {
                v[j.dof] = qd[j.lagc_q];
                continue;
            }
            int k = j.lagc_q, dof = j.dof;
            if (j.type == mjJNT_FREE) {
                for (int c = 0; c < 3; ++c) v[dof + c] = qd[k + c];
                k += 3, dof += 3;
            }
            for (int c = 0; c < 3; ++c) {
                v[dof + c] = 0;
                for (int r = 0; r < 4; ++r) v[dof + c] += 4 * E[(k + r) * nv + dof + c] * qd[k + r];
            }
        }
        for (auto& x : u) x = 5 * U(rng);
        // MuJoCo's generalized forces from lagc's inputs: one per degree of freedom, in the
        // same order within each joint.
        std::vector<double> applied(nv, 0.0);
        {
            int at = 0;
            // lagc's inputs follow its coordinates' joints in order; map by joint.
            std::vector<std::pair<int, int>> order; // (lagc_q, joint index)
            for (std::size_t j = 0; j < joints.size(); ++j) order.push_back({joints[j].lagc_q, static_cast<int>(j)});
            std::sort(order.begin(), order.end());
            for (auto const& [first, j] : order) {
                int const n = joints[j].type == mjJNT_FREE ? 6 : joints[j].type == mjJNT_BALL ? 3 : 1;
                for (int c = 0; c < n; ++c) applied[joints[j].dof + c] = u[at + c];
                at += n;
            }
        }
        mju_copy(d->qpos, qpos.data(), m->nq);
        mju_copy(d->qvel, v.data(), nv);
        mju_copy(d->qfrc_applied, applied.data(), nv);
        mj_forward(m, d);
        std::vector<double> Mmj(nv * nv);
        mj_fullM(m, Mmj.data(), d->qM);
        // lagc in MuJoCo's velocities: Eᵀ M E, Eᵀ (h − Q(0) + M Ė v), and v̇ from q̈ = E v̇ + Ė v.
        std::vector<double> M(model::nq * model::nq), h(model::nq), Q0(model::nq), zero(model::nu, 0.0);
        model::mass_matrix(q.data(), p, M.data());
        model::bias_forces(q.data(), qd.data(), p, h.data());
        model::generalized_forces(q.data(), qd.data(), zero.data(), p, Q0.data());
        // Ė v: the derivative of E along q̇ (only the quaternions' rows depend on q).
        std::vector<double> Edot_v(model::nq, 0.0);
        {
            auto const E1 = velocity_map(qd); // E is linear in q: Ė = E(q̇) on the quaternion rows
            for (auto const& j : joints) {
                if (j.type != mjJNT_FREE && j.type != mjJNT_BALL) continue;
                int const k = j.lagc_q + (j.type == mjJNT_FREE ? 3 : 0), dof = j.dof + (j.type == mjJNT_FREE ? 3 : 0);
                for (int r = 0; r < 4; ++r)
                    for (int c = 0; c < 3; ++c) Edot_v[k + r] += E1[(k + r) * nv + dof + c] * v[dof + c];
            }
        }
        std::vector<double> Mv(nv * nv, 0.0), hv(nv, 0.0);
        for (int a = 0; a < nv; ++a)
            for (int b = 0; b < nv; ++b)
                for (int i = 0; i < model::nq; ++i)
                    for (int k = 0; k < model::nq; ++k) Mv[a * nv + b] += E[i * nv + a] * M[i * model::nq + k] * E[k * nv + b];
        for (int a = 0; a < nv; ++a)
            for (int i = 0; i < model::nq; ++i) {
                double r = h[i] - Q0[i];
                for (int k = 0; k < model::nq; ++k) r += M[i * model::nq + k] * Edot_v[k];
                hv[a] += E[i * nv + a] * r;
            }
        std::vector<double> hmj(nv);
        for (int a = 0; a < nv; ++a) hmj[a] = d->qfrc_bias[a] - d->qfrc_passive[a];
        std::vector<double> qdd(model::nq), lambda(model::nc > 0 ? model::nc : 1);
        int const status = model::forward_dynamics(q.data(), qd.data(), u.data(), p, qdd.data(), lambda.data());
        if (status != 0) {
            std::fprintf(stderr, "lagc's forward_dynamics returned %d\n", status);
            return 1;
        }
        // v̇ from q̈ = E v̇ + Ė v: the same for hinges and slides; on a unit quaternion's rows
        // Eᵀ E = ¼ I, so v̇ = 4 Eᵀ (q̈ − Ė v) there.
        std::vector<double> a(nv, 0.0);
        for (auto const& j : joints) {
            if (j.type == mjJNT_HINGE || j.type == mjJNT_SLIDE) {
                a[j.dof] = qdd[j.lagc_q];
                continue;
            }
            int k = j.lagc_q, dof = j.dof;
            if (j.type == mjJNT_FREE) {
                for (int c = 0; c < 3; ++c) a[dof + c] = qdd[k + c];
                k += 3;
                dof += 3;
            }
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 4; ++r) a[dof + c] += 4 * E[(k + r) * nv + dof + c] * (qdd[k + r] - Edot_v[k + r]);
        }
        worst_M = std::max(worst_M, relative(Mv, Mmj));
        worst_h = std::max(worst_h, relative(hv, hmj));
        if (!coupled) {
            // Both sides solve M a = τ − h stably, so they agree to about κ(M)·ε and no
            // better: a 30-link chain's M has κ₁ ≈ 10⁵. The tolerance grows with κ₁ where
            // 10 κ₁ ε passes it.
            std::vector<double> amj(d->qacc, d->qacc + nv);
            double const kappa = condition_1(Mmj, nv);
            worst_kappa = std::max(worst_kappa, kappa);
            worst_a = std::max(worst_a, relative(a, amj) / std::max(1.0, 10 * kappa * DBL_EPSILON / tolerance));
            continue;
        }
        // Constraints between joints (mimic), which MuJoCo's URDF reader ignores: lagc's
        // accelerations and multipliers in MuJoCo's equations, Mmj a + hmj + Eᵀ Aᵀ λ = τ,
        // and on the constraints, A q̈ = 0 (the state is on them: Baumgarte adds nothing; the
        // equalities' rows at rest only).
        std::vector<double> A(model::nc * model::nq, 0.0);
        jacobian(q.data(), p, A.data());
        // Relative to the largest term: a loop's internal forces may be far larger than τ.
        std::vector<double> lhs(nv, 0.0);
        double terms = 1e-300;
        for (int r = 0; r < nv; ++r) {
            double Ma = 0, force = 0;
            for (int c = 0; c < nv; ++c) Ma += Mmj[r * nv + c] * a[c];
            for (int i = 0; i < model::nq; ++i)
                for (int k = 0; k < model::nc; ++k) force += E[i * nv + r] * A[k * model::nq + i] * lambda[k];
            lhs[r] = hmj[r] + Ma + force;
            terms = std::max({terms, std::abs(hmj[r]), std::abs(Ma), std::abs(force), std::abs(applied[r])});
        }
        for (int r = 0; r < nv; ++r) worst_a = std::max(worst_a, std::abs(lhs[r] - applied[r]) / terms);
        std::vector<double> Aqdd(model::nc, 0.0);
        double scale = 0;
        for (int k = 0; k < model::nc; ++k)
            for (int i = 0; i < model::nq; ++i) {
                Aqdd[k] += A[k * model::nq + i] * qdd[i];
                scale = std::max(scale, std::abs(A[k * model::nq + i] * qdd[i]));
            }
        if (!coupled_by_file || at_rest)
            for (int k = 0; k < model::nc; ++k) worst_a = std::max(worst_a, std::abs(Aqdd[k]) / std::max(scale, 1e-300));
    }
    std::printf("%s: %d degrees of freedom, %d bodies; largest relative differences over 20 states: M %.2e, "
                "h %.2e, %s %.2e (tolerance %.0e%s); lagc's inertial defaults against MuJoCo's stored "
                "values: %.2e (%s; tolerance 1e-6)\n",
                argv[1], nv, bodies_read, worst_M, worst_h,
                coupled ? "lagc's constrained accelerations in MuJoCo's equations" : "accelerations", worst_a, tolerance,
                coupled ? "" : (", times max(1, 10 cond_1(M) eps / tolerance), cond_1(M) up to " + std::to_string(worst_kappa)).c_str(),
                worst_default, worst_name.c_str());
    mj_deleteData(d);
    mj_deleteModel(m);
    return worst_M <= tolerance && worst_h <= tolerance && worst_a <= tolerance && worst_default <= 1e-6 ? 0 : 1;
}
