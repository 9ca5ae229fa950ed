// Inertia from geometry against MuJoCo (issue 49): each body of the robot file as lagc reads
// it (its mass, centre of mass and inertia, from its geoms where MuJoCo infers them) against
// MuJoCo's compiled model of the same file: body_mass, body_ipos and the principal moments
// body_inertia to 1e-12 relative, and the whole tensor (body_inertia turned by body_iquat) to
// 1e-8: MuJoCo 2.2's principal axes (mju_eig3, Jacobi turns stopped at its tolerance) hold
// some 9 digits, its principal moments all. Run by CTest as geom_inertia_against_mujoco_FILE
// where MuJoCo is installed.
#include "import/robot.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace imp = lagc::import;

// The eigenvalues of a symmetric matrix, ascending, by Jacobi turns until the off-diagonal is
// nothing beside the diagonal (an independent computation of the principal moments).
std::array<double, 3> principal_moments(imp::mat3 A) {
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0;
        for (int p = 0; p < 3; ++p)
            for (int q = p + 1; q < 3; ++q) off = std::max(off, std::abs(A[p * 3 + q]));
        if (off <= 1e-17 * (std::abs(A[0]) + std::abs(A[4]) + std::abs(A[8]))) break;
        for (int p = 0; p < 3; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (A[p * 3 + q] == 0) continue;
                double const theta = (A[q * 3 + q] - A[p * 3 + p]) / (2 * A[p * 3 + q]);
                double const t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                double const c = 1 / std::sqrt(t * t + 1), s = t * c;
                imp::mat3 G = imp::identity3;
                G[p * 3 + p] = c, G[q * 3 + q] = c, G[p * 3 + q] = s, G[q * 3 + p] = -s;
                A = imp::multiply(imp::multiply(imp::transpose(G), A), G);
            }
    }
    std::array<double, 3> d{A[0], A[4], A[8]};
    std::sort(d.begin(), d.end());
    return d;
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    imp::read_options files;
    files.folder = std::filesystem::path(argv[1]).parent_path().string();
    imp::robot_def const r = imp::read_robot(text.str(), imp::inertial_form::centre_of_mass, files);
    for (auto const& m : r.messages)
        if (m.error) return std::printf("lagc: line %d: %s\n", m.line, m.text.c_str()), 1;
    char error[1000] = "";
    mjModel* model = mj_loadXML(argv[1], nullptr, error, sizeof error);
    if (!model) return std::printf("MuJoCo: %s\n", error), 1;
    int failures = 0, compared = 0;
    for (auto const& b : r.bodies) {
        int const id = mj_name2id(model, mjOBJ_BODY, b.name.c_str());
        if (id < 0) continue; // a name lagc made
        double R[9];
        mju_quat2Mat(R, model->body_iquat + 4 * id);
        double const* d = model->body_inertia + 3 * id;
        double scale = std::abs(model->body_mass[id]) + 1e-300, iscale = d[0] + d[1] + d[2] + 1e-300;
        double worst = std::abs(b.mass - model->body_mass[id]) / scale;
        double const length = std::sqrt(model->body_ipos[3 * id] * model->body_ipos[3 * id] + model->body_ipos[3 * id + 1] *
                                        model->body_ipos[3 * id + 1] + model->body_ipos[3 * id + 2] * model->body_ipos[3 * id + 2]) + 1e-300;
        for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(b.com[i] - model->body_ipos[3 * id + i]) / length);
        std::array<double, 3> mine = principal_moments(b.inertia), theirs{d[0], d[1], d[2]};
        std::sort(theirs.begin(), theirs.end());
        for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(mine[i] - theirs[i]) / iscale);
        double axes = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double J = 0;
                for (int k = 0; k < 3; ++k) J += R[i * 3 + k] * d[k] * R[j * 3 + k];
                axes = std::max(axes, std::abs(b.inertia[i * 3 + j] - J) / iscale);
            }
        ++compared;
        std::printf("%-10s mass %.17g (MuJoCo %.17g); mass, centre and principal moments differ by %.3g, the tensor "
                    "by %.3g (relative)\n", b.name.c_str(), b.mass, model->body_mass[id], worst, axes);
        if (!(worst <= 1e-12) || !(axes <= 1e-8)) ++failures;
    }
    mj_deleteModel(model);
    std::printf("%d bodies compared, %d differ\n", compared, failures);
    return failures == 0 && compared > 0 ? 0 : 1;
}
