// The equalities' rows: the robot's kinematics at a state (numbers, for the rank analysis
// and the drawn pose), which rows are independent, and the rows as .lag constraints.
#include "import/equality.hpp"

#include "import/names.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace lagc::import {

namespace {

double const pi = 3.14159265358979323846;

vec3 add(vec3 const& a, vec3 const& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
vec3 sub(vec3 const& a, vec3 const& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(vec3 const& a, vec3 const& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
vec3 column(mat3 const& R, int i) { return {R[i], R[3 + i], R[6 + i]}; }

int body_index(robot_def const& r, std::string const& name) {
    for (std::size_t i = 0; i < r.bodies.size(); ++i)
        if (r.bodies[i].name == name) return static_cast<int>(i);
    return -1;
}

// A side's frame at the poses: its rotation and origin in the world (the host's pose
// composed with the side's point and turn).
robot_kinematics::pose side_pose(robot_def const& r, equality_def::side const& s, std::vector<robot_kinematics::pose> const& poses) {
    robot_kinematics::pose h;
    if (!s.body.empty()) h = poses[static_cast<std::size_t>(body_index(r, s.body))];
    return {multiply(h.R, s.rot), h.apply(s.point)};
}

// Σ coef · (value − ref) of a coupling's length at x.
double length(robot_kinematics const& k, std::vector<std::pair<std::string, double>> const& terms, std::vector<double> const& x) {
    double L = 0;
    for (auto const& [joint, coef] : terms) L += coef * x[static_cast<std::size_t>(k.offset_of(joint))];
    return L;
}

// The nearest body with joints that both sides of a connect or weld hang from (-1: the
// world). Their points' difference is taken in its axes: a loop's rows then depend on the
// loop's own joints only, so that a planar loop's row along its hinges is constant even on
// a floating base (in world axes the base's turn mixes it into the others off the loop).
int common_host(robot_def const& r, robot_kinematics const& k, equality_def const& e) {
    if (e.a.body.empty() || e.b.body.empty()) return -1;
    std::vector<int> above;
    for (int i = body_index(r, e.a.body); i >= 0; i = r.bodies[static_cast<std::size_t>(i)].parent) above.push_back(i);
    for (int i = body_index(r, e.b.body); i >= 0; i = r.bodies[static_cast<std::size_t>(i)].parent)
        if (std::find(above.begin(), above.end(), i) != above.end()) return k.host(i);
    return -1;
}

// The equality's residuals at x: connect 3 (the common host's axes), weld 6 (the point's 3,
// then the skew part of the relative turn's error), a coupling 1.
std::vector<double> residuals(robot_def const& r, robot_kinematics const& k, equality_def const& e, std::vector<double> const& x) {
    if (e.type == equality_def::kind::coupling) {
        double const L1 = length(k, e.first, x);
        double const L2 = e.second.empty() ? 0 : length(k, e.second, x);
        double p = 0, power = 1;
        for (std::size_t i = 0; i < e.polycoef.size(); ++i, power *= L2)
            if (i == 0 || !e.second.empty()) p += e.polycoef[i] * power;
        return {L1 - p};
    }
    auto const poses = k.poses(x);
    auto const a = side_pose(r, e.a, poses), b = side_pose(r, e.b, poses);
    int const host = common_host(r, k, e);
    vec3 const d = host < 0 ? sub(a.o, b.o) : rotate(transpose(poses[static_cast<std::size_t>(host)].R), sub(a.o, b.o));
    std::vector<double> out(d.begin(), d.end());
    if (e.type == equality_def::kind::weld) {
        vec3 const u1 = column(a.R, 0), u2 = column(a.R, 1), u3 = column(a.R, 2);
        vec3 const v1 = column(b.R, 0), v2 = column(b.R, 1), v3 = column(b.R, 2);
        out.push_back(dot(u3, v2) - dot(u2, v3));
        out.push_back(dot(u1, v3) - dot(u3, v1));
        out.push_back(dot(u2, v1) - dot(u1, v2));
    }
    return out;
}

char const* const row_names[6] = {"x", "y", "z", "turn about x", "turn about y", "turn about z"};

} // namespace

vec3 robot_kinematics::pose::apply(vec3 const& p) const { return add(rotate(R, p), o); }
vec3 robot_kinematics::pose::inverse_apply(vec3 const& w) const { return rotate(transpose(R), sub(w, o)); }

robot_kinematics::robot_kinematics(robot_def const& r) : r_(r) {
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) {
            offsets_.push_back(size_);
            if (j.type == joint_def::kind::hinge || j.type == joint_def::kind::slide) scalar_.emplace(j.name, size_);
            size_ += j.type == joint_def::kind::free ? 7 : j.type == joint_def::kind::ball ? 4 : 1;
        }
}

int robot_kinematics::offset_of(std::string const& joint) const {
    auto it = scalar_.find(joint);
    return it == scalar_.end() ? -1 : static_cast<int>(it->second);
}

int robot_kinematics::host(int body) const {
    while (body >= 0 && r_.bodies[static_cast<std::size_t>(body)].joints.empty()) body = r_.bodies[static_cast<std::size_t>(body)].parent;
    return body;
}

std::vector<double> robot_kinematics::drawn() const {
    std::vector<double> x(size_, 0.0);
    std::size_t n = 0;
    for (auto const& b : r_.bodies)
        for (auto const& j : b.joints) {
            std::size_t const at = offsets_[n++];
            if (j.type == joint_def::kind::ball) x[at] = 1;
            if (j.type == joint_def::kind::free) {
                for (int i = 0; i < 3; ++i) x[at + i] = b.pos[i];
                x[at + 3] = 1; // the body's own turn is kept in poses()
            }
        }
    return x;
}

std::vector<double> robot_kinematics::random(unsigned& seed) const {
    auto uniform = [&seed] { // a small LCG: the analysis must give the same rows every run
        seed = seed * 1664525u + 1013904223u;
        return (seed >> 8) / double(1u << 24) * 2 - 1;
    };
    std::vector<double> x(size_);
    std::size_t n = 0;
    for (auto const& b : r_.bodies)
        for (auto const& j : b.joints) {
            std::size_t at = offsets_[n++];
            if (j.type == joint_def::kind::hinge) x[at] = pi * uniform();
            else if (j.type == joint_def::kind::slide) x[at] = 0.5 * uniform();
            else {
                if (j.type == joint_def::kind::free)
                    for (int i = 0; i < 3; ++i) x[at++] = uniform();
                std::array<double, 4> q{uniform(), uniform(), uniform(), uniform()};
                double const len = norm(q.data(), 4);
                for (int i = 0; i < 4; ++i) x[at + i] = len > 1e-3 ? q[i] / len : i == 0;
            }
        }
    return x;
}

std::vector<robot_kinematics::pose> robot_kinematics::poses(std::vector<double> const& x) const {
    std::vector<pose> out(r_.bodies.size());
    std::size_t n = 0;
    for (std::size_t i = 0; i < r_.bodies.size(); ++i) {
        auto const& b = r_.bodies[i];
        pose const parent = b.parent >= 0 ? out[static_cast<std::size_t>(b.parent)] : pose{};
        pose p{multiply(parent.R, b.rot), parent.apply(b.pos)};
        for (auto const& j : b.joints) {
            double const* v = &x[offsets_[n++]];
            if (j.type == joint_def::kind::slide) {
                p.o = add(p.o, rotate(p.R, {j.axis[0] * v[0], j.axis[1] * v[0], j.axis[2] * v[0]}));
                continue;
            }
            if (j.type == joint_def::kind::free) {
                p = {multiply(b.rot, quaternion_matrix({v[3], v[4], v[5], v[6]})), {v[0], v[1], v[2]}};
                continue;
            }
            mat3 const T = j.type == joint_def::kind::hinge ? axis_angle_matrix(j.axis, v[0]) : quaternion_matrix({v[0], v[1], v[2], v[3]});
            p.o = add(p.o, rotate(p.R, sub(j.pos, rotate(T, j.pos))));
            p.R = multiply(p.R, T);
        }
        out[i] = p;
    }
    return out;
}

namespace {

// Each row's gradient at x by central differences (step 1e-6: errors near 1e-12), all the
// equalities' rows in order.
std::vector<std::vector<double>> gradients(robot_def const& r, robot_kinematics const& k, std::vector<double> const& x) {
    std::vector<std::vector<double>> rows;
    for (auto const& e : r.equalities)
        for (std::size_t i = 0; i < residuals(r, k, e, x).size(); ++i) rows.emplace_back(k.size(), 0.0);
    double const h = 1e-6;
    for (std::size_t c = 0; c < k.size(); ++c) {
        std::vector<double> up = x, down = x;
        up[c] += h, down[c] -= h;
        std::size_t row = 0;
        for (auto const& e : r.equalities) {
            auto const a = residuals(r, k, e, up), b = residuals(r, k, e, down);
            for (std::size_t i = 0; i < a.size(); ++i) rows[row++][c] = (a[i] - b[i]) / (2 * h);
        }
    }
    return rows;
}

double length_of(std::vector<double> const& v) { return v.empty() ? 0 : norm(v.data(), v.size()); }

// g less its projection on the orthonormal rows of `basis`.
std::vector<double> orthogonal_part(std::vector<double> g, std::vector<std::vector<double>> const& basis) {
    for (auto const& b : basis) {
        double d = 0;
        for (std::size_t i = 0; i < g.size(); ++i) d += g[i] * b[i];
        for (std::size_t i = 0; i < g.size(); ++i) g[i] -= d * b[i];
    }
    return g;
}

int degrees_of_freedom(robot_def const& r) {
    int n = 0;
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) n += j.type == joint_def::kind::free ? 6 : j.type == joint_def::kind::ball ? 3 : 1;
    return n;
}

} // namespace

void choose_rows(robot_def& r, int line) {
    if (r.equalities.empty() || r.has_errors()) return;
    robot_kinematics const k(r);
    if (k.size() * k.size() * r.bodies.size() > 50'000'000) { // keep every row: the analysis would take too long
        for (auto& e : r.equalities) e.rows.assign(residuals(r, k, e, k.drawn()).size(), true);
        r.note(line, "the equalities' rows are all kept: the robot is too large to test them for dependence");
        return;
    }
    unsigned seed = 20240531u;
    int const states = 3;
    std::vector<std::vector<std::vector<double>>> grads, basis(states);
    std::vector<double> scale(states, 0.0);
    for (int s = 0; s < states; ++s) {
        grads.push_back(gradients(r, k, k.random(seed)));
        for (auto const& g : grads.back()) scale[s] = std::max(scale[s], length_of(g));
    }
    std::vector<double> const x0 = k.drawn();
    std::size_t row = 0, kept = 0;
    std::string dropped;
    int dropped_count = 0;
    for (auto& e : r.equalities) {
        auto const c0 = residuals(r, k, e, x0);
        e.rows.assign(c0.size(), false);
        for (std::size_t i = 0; i < c0.size(); ++i, ++row) {
            bool constant = true;
            for (int s = 0; s < states; ++s) {
                auto const g = orthogonal_part(grads[s][row], basis[s]);
                double const len = length_of(g);
                constant = constant && length_of(grads[s][row]) <= 1e-6 * scale[s];
                if (len <= 1e-6 * scale[s]) continue;
                e.rows[i] = true;
                std::vector<double> u = g;
                for (auto& x : u) x /= len;
                basis[s].push_back(u);
            }
            if (e.rows[i]) {
                ++kept;
                continue;
            }
            if (constant && std::abs(c0[i]) > 1e-9)
                r.error(e.line, "the " + e.element + "'s row " + row_names[i] + " never changes and is not zero (" +
                                    std::to_string(c0[i]) + "): the bodies can never meet as it asks");
            if (++dropped_count <= 10)
                dropped += std::string(dropped.empty() ? "" : ", ") + "the " + e.element + " at line " + std::to_string(e.line) +
                           (e.type == equality_def::kind::coupling ? "" : std::string(" (") + row_names[i] + ")");
        }
    }
    if (dropped_count > 0)
        r.note(line, std::to_string(dropped_count) + " constraint row" + (dropped_count == 1 ? " is" : "s are") +
                         " left out, each depending on the rows before it at every state tried (a planar loop's rows "
                         "along its hinges' axes): " + dropped + (dropped_count > 10 ? ", …" : ""));
    int const joints = degrees_of_freedom(r);
    int const dof = joints - static_cast<int>(kept);
    r.note(line, "the mechanism has " + std::to_string(dof) + (dof == 1 ? " degree" : " degrees") + " of freedom: the joints' " +
                     std::to_string(joints) + " less " + std::to_string(kept) + " independent constraint rows of " +
                     std::to_string(r.equalities.size()) + (r.equalities.size() == 1 ? " equality" : " equalities") +
                     " (exact, where MuJoCo's solref and solimp make them soft)");
}

namespace {

class equality_writer {
public:
    equality_writer(robot_def const& r, equality_names const& n, std::ostream& out) : r_(r), kinematics_(r), n_(n), out_(out) {}

    void write(equality_def const& e) {
        out_ << "# the " << e.element << " '" << comment(e.name) << "' (line " << e.line << ")";
        for (std::size_t i = 0; i < e.rows.size(); ++i)
            if (!e.rows[i]) out_ << (e.type == equality_def::kind::coupling ? ", dependent: left out" : std::string(", row ") + row_names[i] + " dependent: left out");
        out_ << "\n";
        if (e.type == equality_def::kind::coupling) return coupling(e);
        std::string const a = n_.fresh(e.name + "_1"), b = n_.fresh(e.name + "_2");
        int const host = common_host(r_, kinematics_, e);
        out_ << "let " << a << " = " << (host < 0 ? point(e.a) : point_in(e.a, host)) << "\n";
        out_ << "let " << b << " = " << (host < 0 ? point(e.b) : point_in(e.b, host)) << "\n";
        rows(e, 0, a, b);
        if (e.type != equality_def::kind::weld || !(e.rows[3] || e.rows[4] || e.rows[5])) return;
        std::string const E = n_.fresh(e.name + "_turn");
        out_ << "let " << E << " = transpose(" << turn(e.a) << ")*" << turn(e.b) << "\n";
        static char const* const pairs[3][2] = {{"[2][1]", "[1][2]"}, {"[0][2]", "[2][0]"}, {"[1][0]", "[0][1]"}};
        for (int i = 0; i < 3; ++i)
            if (e.rows[3 + i]) out_ << "constraint " << E << pairs[i][0] << " = " << E << pairs[i][1] << "\n";
    }

private:
    robot_def const& r_;
    robot_kinematics const kinematics_;
    equality_names const& n_;
    std::ostream& out_;

    static std::string comment(std::string const& text) {
        std::string out;
        for (unsigned char c : shown(text, 200)) out.push_back(c < 0x20 || c == 0x7F ? '?' : static_cast<char>(c));
        return out;
    }

    // Appended piece by piece: "[" + std::string draws a false -Wrestrict from GCC 12 (its bug 105329).
    std::string vec(vec3 const& v) const {
        std::string s(1, '[');
        return s.append(n_.number(v[0])).append(", ").append(n_.number(v[1])).append(", ").append(n_.number(v[2])).append("]");
    }

    std::string matrix(mat3 const& R) const {
        std::string s = "[";
        for (int i = 0; i < 3; ++i) s += std::string(i ? ", " : "") + vec({R[3 * i], R[3 * i + 1], R[3 * i + 2]});
        return s + "]";
    }

    std::string point(equality_def::side const& s) const {
        if (s.body.empty()) return vec(s.point);
        auto const [R, o] = n_.frame(s.body);
        return s.point == vec3{} ? o : o + " + " + R + "*" + vec(s.point);
    }

    // The side's point in the frame of `host`, a body it hangs from: through the turns and
    // origins of the bodies between, as written (no world frames, whose products the
    // derivation could not cancel: Cassie's foot loops took minutes).
    std::string point_in(equality_def::side const& s, int host) const {
        std::vector<std::size_t> chain;
        for (int i = body_index(r_, s.body); i != host && i >= 0; i = r_.bodies[static_cast<std::size_t>(i)].parent)
            chain.push_back(static_cast<std::size_t>(i));
        std::string R, o;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            auto const [T, origin] = n_.placed(*it);
            if (!origin.empty()) o += (o.empty() ? "" : " + ") + (R.empty() ? origin : R + "*(" + origin + ")");
            if (!T.empty()) R = R.empty() ? T : R + "*" + T;
        }
        if (s.point != vec3{}) o += (o.empty() ? "" : " + ") + (R.empty() ? vec(s.point) : R + "*" + vec(s.point));
        return o.empty() ? "[0, 0, 0]" : o;
    }

    std::string turn(equality_def::side const& s) const {
        if (s.body.empty()) return matrix(s.rot);
        std::string const R = n_.frame(s.body).first;
        return s.rot == identity3 ? R : "(" + R + "*" + matrix(s.rot) + ")";
    }

    void rows(equality_def const& e, std::size_t from, std::string const& a, std::string const& b) {
        if (e.rows[from] && e.rows[from + 1] && e.rows[from + 2]) {
            out_ << "constraint " << a << " = " << b << "\n";
            return;
        }
        for (std::size_t i = 0; i < 3; ++i)
            if (e.rows[from + i]) out_ << "constraint " << a << "[" << i << "] = " << b << "[" << i << "]\n";
    }

    // Σ coef (q − ref) over a length's joints; `single` where it is one term of coefficient 1.
    std::string length(std::vector<std::pair<std::string, double>> const& terms, bool* single = nullptr) const {
        std::string s;
        for (auto const& [joint, coef] : terms) {
            std::string const q = n_.coordinate(joint);
            double ref = 0;
            for (auto const& b : r_.bodies)
                for (auto const& j : b.joints)
                    if (j.name == joint) ref = j.ref;
            std::string const d = ref == 0 ? q : "(" + q + (ref < 0 ? " + " : " - ") + n_.number(std::abs(ref)) + ")";
            double const c = s.empty() ? coef : std::abs(coef);
            s += std::string(s.empty() ? "" : coef < 0 ? " - " : " + ") + (c == 1 ? d : n_.number(c) + "*" + d);
        }
        if (single) *single = terms.size() == 1 && terms[0].second == 1;
        return s;
    }

    void coupling(equality_def const& e) {
        if (!e.rows[0]) return;
        std::string rhs;
        bool single = true;
        std::string x = e.second.empty() ? std::string() : length(e.second, &single);
        if (!single) x = std::string(1, '(').append(x).append(1, ')');
        for (std::size_t i = 0; i < e.polycoef.size(); ++i) {
            double const a = e.polycoef[i];
            if (a == 0 || (i > 0 && x.empty())) continue;
            std::string term = i == 0 ? n_.number(a) : (a == 1 ? "" : n_.number(a) + "*") + x;
            if (i > 1) term.append(1, '^').append(std::to_string(i));
            rhs += std::string(rhs.empty() ? "" : " + ") + term;
        }
        out_ << "constraint " << length(e.first) << " = " << (rhs.empty() ? "0" : rhs) << "\n";
    }
};

} // namespace

void write_equalities(robot_def const& r, equality_names const& names, std::ostream& out) {
    equality_writer w(r, names, out);
    for (auto const& e : r.equalities) w.write(e);
}

} // namespace lagc::import
