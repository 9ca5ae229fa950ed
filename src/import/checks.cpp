// What a robot description must be before it is written: inertias that some mass has (as
// MuJoCo checks them), numbers the .lag can hold (finite), outputs counted; and its messages
// handed to the diagnostics engine.
#include "import/names.hpp"
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace lagc::import {

namespace {

// The eigenvalues of a symmetric 3×3 matrix, by Jacobi rotations (each sweep zeroes the
// off-diagonal entries in turn; a few sweeps reach rounding), in ascending order.
std::array<double, 3> principal_moments(mat3 a) {
    for (int sweep = 0; sweep < 50 && (a[1] != 0 || a[2] != 0 || a[5] != 0); ++sweep)
        for (auto [p, q] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
            double const apq = a[p * 3 + q];
            if (apq == 0) continue;
            double const theta = (a[q * 3 + q] - a[p * 3 + p]) / (2 * apq);
            double const t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
            double const c = 1 / std::sqrt(t * t + 1), s = t * c;
            for (int k = 0; k < 3; ++k) { // A P: columns p and q
                double const akp = a[k * 3 + p], akq = a[k * 3 + q];
                a[k * 3 + p] = c * akp - s * akq, a[k * 3 + q] = s * akp + c * akq;
            }
            for (int k = 0; k < 3; ++k) { // Pᵀ (A P): rows p and q
                double const apk = a[p * 3 + k], aqk = a[q * 3 + k];
                a[p * 3 + k] = c * apk - s * aqk, a[q * 3 + k] = s * apk + c * aqk;
            }
        }
    std::array<double, 3> m{a[0], a[4], a[8]};
    std::sort(m.begin(), m.end());
    return m;
}

std::string number_text(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

bool finite(double x) { return std::isfinite(x); }
template <std::size_t N>
bool finite(std::array<double, N> const& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// The numbers of one body as the file gives them, turned into its frame.
bool body_numbers_finite(body_def const& b) {
    bool ok = finite(b.pos) && finite(b.rot) && finite(b.mass) && finite(b.com) && finite(b.inertia);
    for (auto const& s : b.sites) ok = ok && finite(s.pos);
    for (auto const& j : b.joints)
        ok = ok && finite(j.pos) && finite(j.axis) && finite(j.ref) && finite(j.springref) && finite(j.armature) &&
             finite(j.damping) && finite(j.stiffness);
    return ok;
}

// m, m·c and the inertia about the frame's origin K = J + m (|c|² 1 − c cᵀ): the linear form's.
bool linear_parameters_finite(body_def const& b) {
    vec3 const& c = b.com;
    double const cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    bool ok = finite(cc);
    for (int i = 0; i < 3; ++i) {
        ok = ok && finite(b.mass * c[i]);
        for (int j = 0; j < 3; ++j) ok = ok && finite(b.inertia[i * 3 + j] + b.mass * ((i == j ? cc : 0.0) - c[i] * c[j]));
    }
    return ok;
}

std::vector<bool> moving_bodies(robot_def const& r) {
    std::vector<bool> moving(r.bodies.size(), false);
    for (std::size_t i = 0; i < r.bodies.size(); ++i) {
        auto const& b = r.bodies[i];
        moving[i] = !b.joints.empty() || (b.parent >= 0 && moving[static_cast<std::size_t>(b.parent)]);
    }
    return moving;
}

} // namespace

void xml_values::check_inertia(tinyxml2::XMLElement const* e, mat3 const& J, std::string const& body) {
    // Scaled by the power of two of the largest entry (exact), so that the rotations of
    // moments near 1e308 do not overflow; compared scaled, shown as the file's.
    double largest = 0;
    for (double x : J) largest = std::max(largest, std::abs(x));
    if (largest == 0 || !finite(largest)) return; // no inertia at all, a point mass, is a body's right
    int e2 = 0;
    std::frexp(largest, &e2);
    mat3 scaled = J;
    for (auto& x : scaled) x = std::ldexp(x, -e2);
    auto const m = principal_moments(scaled);
    auto text = [e2](double x) { return number_text(std::ldexp(x, e2)); };
    std::string const moments = " (principal moments " + text(m[0]) + ", " + text(m[1]) + ", " + text(m[2]) + ")";
    // Rounding: the moments of a tensor the file turns (rpy, quat) are off by about 1e-16 of
    // the largest; a thin rod or disc sits on the inequality's edge.
    double const rounding = 1e-12 * std::max(std::abs(m[0]), std::abs(m[2]));
    if (m[0] < -rounding)
        error(e, "the inertia of the body " + quoted(body) + " is not positive semi-definite" + moments +
                     ": no distribution of mass has it, and MuJoCo refuses it (\"inertia must have positive eigenvalues\")");
    else if (m[0] + m[1] < m[2] - rounding)
        error(e, "the inertia of the body " + quoted(body) + " breaks the triangle inequality" + moments + ", " +
                     text(m[0]) + " + " + text(m[1]) + " < " + text(m[2]) +
                     ": no distribution of mass has it, and MuJoCo refuses it (\"inertia must satisfy A + B >= C\")");
}

void check_numbers(robot_def& r, inertial_form form) {
    if (!finite(norm(r.gravity))) r.error(r.gravity_line, "the gravity's magnitude does not fit in a double");
    std::vector<bool> const moving = moving_bodies(r);
    // The frames of the bodies no joint moves, in the world's: the .lag writes them as constants
    // where a moving body hangs from one (write_lag.cpp's parent_of).
    std::vector<vec3> world_o(r.bodies.size());
    std::vector<mat3> world_R(r.bodies.size(), identity3);
    for (std::size_t i = 0; i < r.bodies.size(); ++i) {
        body_def const& b = r.bodies[i];
        if (!body_numbers_finite(b)) {
            r.error(b.line, "a number of the body " + quoted(b.name) + ", turned into its frame, does not fit in a double");
            continue;
        }
        std::size_t const p = static_cast<std::size_t>(b.parent);
        if (b.parent >= 0 && !moving[p]) {
            if (moving[i] && !(finite(world_o[p]) && finite(world_R[p])))
                r.error(b.line, "the frame of the body " + quoted(b.name) +
                                    " in the world, its parents' positions added, does not fit in a double");
            vec3 const at = rotate(world_R[p], b.pos);
            for (int c = 0; c < 3; ++c) world_o[i][c] = world_o[p][c] + at[c];
            world_R[i] = multiply(world_R[p], b.rot);
        } else if (b.parent < 0) {
            world_o[i] = b.pos, world_R[i] = b.rot;
        }
        if (moving[i] && form == inertial_form::linear && b.has_inertia && !linear_parameters_finite(b))
            r.error(b.line, "the body " + quoted(b.name) + " in linear parameters (--inertial-parameters linear): its first "
                            "moments m*c or its inertia about its frame's origin do not fit in a double (mass " +
                                number_text(b.mass) + ", centre of mass " + number_text(norm(b.com)) + " from the origin)");
    }
}

std::size_t output_count(robot_def const& r) {
    std::vector<bool> const moving = moving_bodies(r);
    std::size_t n = 0;
    for (std::size_t i = 0; i < r.bodies.size(); ++i)
        if (moving[i]) n += r.bodies[i].sites.size();
    return n;
}

void report(robot_def const& r, std::string const& text, diagnostics& diags) {
    std::vector<message> sorted = r.messages;
    std::stable_sort(sorted.begin(), sorted.end(), [](message const& a, message const& b) { return a.line < b.line; });
    std::size_t line = 1, at = 0; // the start of `line` in text
    for (auto const& m : sorted) {
        for (; line < static_cast<std::size_t>(std::max(m.line, 1)); ++line) {
            std::size_t const end = text.find('\n', at);
            if (end == std::string::npos) break;
            at = end + 1;
        }
        diags.add(m.error ? severity::error : severity::note, {at, at}, m.text);
    }
}

} // namespace lagc::import
