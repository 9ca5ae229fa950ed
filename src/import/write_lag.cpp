// A robot description as a .lag model, in the form lagc derives fastest (the form of
// bench/arms3d.py): per body its turn relative to its parent (T), its frame (R, o), its
// angular velocity in its own axes (w, through transpose(T) from the parent's), its centre
// of mass p, its inertia tensor J, then ½ m |ṗ|² + ½ wᵀ J w and m g height. Fixed turns
// that are quarter turns about an axis are written exactly (rotx(pi/2)), so that their
// zeros fold. A body that no joint moves (the world's, a URDF's root) has no energy terms.
#include "import/robot.hpp"

#include "import/equality.hpp"
#include "import/names.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace lagc::import {

namespace {

double const pi = 3.14159265358979323846;

std::string num(double x) {
    // read_robot refuses a file whose numbers overflow; this is for a description made otherwise.
    if (!std::isfinite(x)) throw std::domain_error("a number that is not finite would be written into the .lag");
    if (x == 0) return "0.0";
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
    std::string s(buffer, end);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// Appended piece by piece: "[" + std::string draws a false -Wrestrict from GCC 12 (its bug 105329).
std::string vec(vec3 const& v) {
    std::string s(1, '[');
    for (int i = 0; i < 3; ++i) s.append(i ? ", " : "").append(num(v[i]));
    return s.append("]");
}

bool is_zero(vec3 const& v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

// A name from the file inside a # comment: no line end (or other control character) may
// end the comment and start a statement; a name of more than 200 characters is cut (shown()).
std::string commented(std::string const& text) {
    if (text.size() > 200) return shown(text);
    std::string out;
    for (unsigned char c : text) out.push_back(c < 0x20 || c == 0x7F ? '?' : static_cast<char>(c));
    return out;
}

// An angle as a .lag author writes it: a multiple of pi/4 as such, else the number.
std::string angle_text(double a) {
    double const k = a / (pi / 4);
    double const r = std::round(k);
    if (std::abs(k - r) < 1e-14 && r != 0) {
        static char const* const names[] = {"pi/4", "pi/2", "3*pi/4", "pi", "5*pi/4", "3*pi/2", "7*pi/4", "2*pi"};
        int const i = static_cast<int>(std::abs(r));
        if (i >= 1 && i <= 8) return std::string(r < 0 ? "-" : "").append(names[i - 1]);
    }
    return num(a);
}

// The index of a coordinate axis v is (with its sign), or -1.
int unit_axis(vec3 const& v, double& sign) {
    for (int i = 0; i < 3; ++i)
        if (std::abs(v[i]) == 1 && v[(i + 1) % 3] == 0 && v[(i + 2) % 3] == 0) {
            sign = v[i];
            return i;
        }
    return -1;
}

// A turn by `angle` (a .lag expression) about a unit axis.
std::string turn(vec3 const& axis, std::string const& angle) {
    double sign = 1;
    int const i = unit_axis(axis, sign);
    if (i >= 0) return std::string("rot") + "xyz"[i] + "(" + (sign < 0 ? "-(" + angle + ")" : angle) + ")";
    return "rot(" + vec(axis) + ", " + angle + ")";
}

// Whether R turns the frame's axes into each other (quarter and half turns about any of
// them, their products): its entries 0 and ±1 up to round-off.
bool axes_turn(mat3 const& R) {
    bool axes = true;
    for (double x : R) axes = axes && (std::abs(x) < 1e-14 || std::abs(std::abs(x) - 1) < 1e-14);
    return axes;
}

// A constant rotation matrix as a turn about one axis ("" for the identity).
std::string fixed_turn(mat3 const& R) {
    if (R == identity3) return "";
    // A turn between the frame's axes: its entries 0 and ±1 exactly, so that they fold.
    if (axes_turn(R)) {
        mat3 S{};
        for (int i = 0; i < 9; ++i) S[i] = std::abs(R[i]) < 0.5 ? 0.0 : (R[i] < 0 ? -1.0 : 1.0);
        if (S == identity3) return "";
        // One quarter or half turn about one axis reads better as rotx(pi/2) and the like.
        for (int a = 0; a < 3; ++a)
            for (double angle : {pi / 2, pi, -pi / 2}) {
                vec3 axis{};
                axis[a] = 1;
                mat3 const T = axis_angle_matrix(axis, angle);
                bool same = true;
                for (int i = 0; i < 9; ++i) same = same && std::abs(T[i] - S[i]) < 1e-12;
                if (same) return turn(axis, angle_text(angle));
            }
        auto entry = [](double x) { return x == 0 ? std::string("0") : x > 0 ? std::string("1") : std::string("-1"); };
        std::string m = "[";
        for (int i = 0; i < 3; ++i) {
            m += i ? ", [" : "[";
            for (int j = 0; j < 3; ++j) m += (j ? ", " : "") + entry(S[i * 3 + j]);
            m += "]";
        }
        return m + "]";
    }
    std::array<double, 4> const q = matrix_quaternion(R);
    double const n = std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n == 0) return "";
    vec3 axis{q[1] / n, q[2] / n, q[3] / n};
    // Round-off off an axis of the frame (a quaternion's 1e-17) is dropped.
    for (auto& c : axis)
        if (std::abs(c) < 1e-15) c = 0;
    for (auto& c : axis)
        if (std::abs(std::abs(c) - 1) < 1e-15) c = c < 0 ? -1 : 1;
    return turn(axis, angle_text(2 * std::atan2(n, q[0])));
}

class lag_writer {
public:
    lag_writer(robot_def const& r, std::string const& source, inertial_form form, input_form inputs)
        : r_(r), source_(source), form_(form), input_form_(inputs) {}

    std::string write() {
        plan();
        out_ << "# " << commented(r_.name) << ": written by lagc from " << commented(source_) << " (" << r_.format << ").\n"
             << "# One block per body: its turn T relative to its parent, its frame R, o, its angular\n";
        if (form_ == inertial_form::linear)
            out_ << "# velocity w in its own axes, its mass m, first moments h = m c and inertia K about o\n"
                 << "# (the parameters the torques are linear in). Extend it with constraints, loads and\n"
                 << "# outputs, and compile it with lagc like any model.\n";
        else
            out_ << "# velocity w in its own axes, its centre of mass p and inertia J. Extend it with\n"
                 << "# constraints, loads and outputs, and compile it with lagc like any model.\n";
        out_ << "model " << model_name_ << "\n";
        double const g = norm(r_.gravity);
        if (g > 0) out_ << "parameter " << g_ << " = " << num(g) << "\n";
        if (quaternions_ || !r_.mimics.empty() || !r_.equalities.empty()) out_ << "parameter " << gain_ << " = 10.0\n";
        parameters();
        out_ << actuators_.parameters;
        // None only in a description read_robot has not checked (it refuses a robot without
        // joints): then the model's own "no coordinates" error, not a bare `coordinate`.
        if (!coordinates_.empty()) out_ << "coordinate " << join(coordinates_) << "\n";
        if (!inputs_.empty()) out_ << "input " << join(inputs_) << "\n";
        for (std::size_t i = 0; i < r_.bodies.size(); ++i)
            if (moving_[i]) body(i, g);
        out_ << actuators_.forces;
        for (auto const& m : r_.mimics) {
            out_ << "# the mimic joint '" << commented(m.joint) << "' (line " << m.line << ")\n";
            // Both are hinges or slides of the file (urdf.cpp checks it).
            out_ << "constraint " << coordinate_of(m.joint) << " = " << num(m.multiplier) << "*" << coordinate_of(m.leader)
                 << (m.offset != 0 ? " + " + num(m.offset) : std::string()) << "\n";
        }
        write_equalities(r_, {[this](std::string const& raw) { return fresh(raw); }, [this](std::string const& body) {
            std::size_t i = 0;
            while (r_.bodies[i].name != body) ++i; // a body with joints of this description (equality.hpp)
            return std::make_pair("R_" + suffix_[i], "o_" + suffix_[i]);
        }, [this](std::string const& joint) { return coordinate_of(joint); }, num,
                                 [this](std::size_t i) { return placed_[i]; }}, out_);
        if (quaternions_ || !r_.mimics.empty() || !r_.equalities.empty()) out_ << "baumgarte alpha = " << gain_ << ", beta = " << gain_ << "\n";
        return out_.str();
    }

private:
    robot_def const& r_;
    std::string source_;
    inertial_form form_;
    input_form input_form_;
    actuator_lines actuators_; // with --inputs actuators
    std::ostringstream out_;
    name_maker names_;
    std::string model_name_, g_, gain_;
    std::vector<std::string> suffix_;
    std::vector<bool> moving_;
    std::vector<std::pair<std::string, std::string>> placed_; // each moving body's T and origin in its parent
    std::vector<std::string> coordinates_, inputs_;
    // Each joint's names in the model: its coordinates (1 for a hinge or slide, 4 or 7 for a ball
    // or free joint), inputs (1, 3 or 6) and parameters; by the joint itself, not its name.
    struct joint_names {
        std::vector<std::string> coordinates, inputs;
        std::string armature, damping, stiffness;
    };
    std::map<joint_def const*, joint_names> joints_;
    std::map<std::string, joint_def const*> joint_named_; // the first of each name (mimics)
    std::vector<std::vector<std::string>> outputs_;       // each body's sites'
    bool quaternions_ = false;
    std::map<joint_def const*, bool> rates_written_; // balls whose wr_ is written

    static std::string join(std::vector<std::string> const& v) {
        std::string s;
        for (auto const& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    }

    std::string fresh(std::string const& raw) { return names_.fresh(raw); }

    // The joints in the order of the file's coordinates (joint_order, a name each); a joint it
    // does not name, after them.
    std::vector<joint_def const*> joints_in_order() {
        std::map<std::string, std::vector<joint_def const*>> by_name;
        for (auto const& b : r_.bodies)
            for (auto const& j : b.joints) by_name[j.name].push_back(&j), joint_named_.emplace(j.name, &j);
        std::vector<joint_def const*> order;
        std::map<joint_def const*, bool> listed;
        for (auto const& name : r_.joint_order) {
            auto it = by_name.find(name);
            if (it == by_name.end() || it->second.empty()) continue;
            order.push_back(it->second.front());
            listed[it->second.front()] = true;
            it->second.erase(it->second.begin());
        }
        for (auto const& b : r_.bodies)
            for (auto const& j : b.joints)
                if (!listed.count(&j)) order.push_back(&j);
        return order;
    }

    // Every name of the model, made once in an order that keeps the names of a file lagc
    // always read as they were: the coordinates, inputs, g, the bodies' suffixes (with every
    // name made from them: m_, Jxx_, T_, …), the joints' parameters, the outputs.
    void plan() {
        model_name_ = fresh(r_.name);
        moving_.assign(r_.bodies.size(), false);
        for (std::size_t i = 0; i < r_.bodies.size(); ++i) {
            auto const& b = r_.bodies[i];
            moving_[i] = !b.joints.empty() || (b.parent >= 0 && moving_[b.parent]);
        }
        std::vector<joint_def const*> const order = joints_in_order();
        for (joint_def const* j : order) plan_coordinates(*j);
        if (input_form_ == input_form::joints) for (joint_def const* j : order) plan_inputs(*j);
        else inputs_ = (actuators_ = plan_actuators(r_, names_, [this](std::string const& j) { return coordinate_of(j); })).inputs;
        g_ = fresh("g");
        gain_ = fresh("stabilization");
        static std::vector<std::string> const prefixes = {"m_",   "cx_", "cy_", "cz_", "Jxx_", "Jyy_", "Jzz_", "Jxy_",
                                                          "Jxz_", "Jyz_", "T_",  "R_",  "o_",   "w_",   "p_",   "J_",
                                                          "mx_",  "my_", "mz_", "Kxx_", "Kyy_", "Kzz_", "Kxy_", "Kxz_",
                                                          "Kyz_", "h_",  "K_",  "Q_",  "N_",  "wr_"};
        for (auto const& b : r_.bodies) suffix_.push_back(names_.fresh_suffix(language_name(b.name), prefixes));
        for (auto const& b : r_.bodies)
            for (auto const& j : b.joints) {
                if (j.type == joint_def::kind::free) continue;
                joint_names& n = joints_.at(&j);
                bool const ball = j.type == joint_def::kind::ball;
                std::string const c = ball ? short_raw(j.name) : n.coordinates[0];
                if (j.armature != 0) n.armature = fresh("armature_" + c);
                if (j.damping != 0) n.damping = fresh("damping_" + c);
                if (j.stiffness != 0 && !ball) n.stiffness = fresh("stiffness_" + c);
            }
        outputs_.resize(r_.bodies.size()), placed_.resize(r_.bodies.size());
        for (std::size_t i = 0; i < r_.bodies.size(); ++i)
            if (moving_[i])
                for (auto const& site : r_.bodies[i].sites) outputs_[i].push_back(fresh(short_raw(site.name)));
    }

    void plan_coordinates(joint_def const& j) {
        std::string const raw = short_raw(j.name);
        std::vector<std::string>& names = joints_[&j].coordinates;
        if (j.type == joint_def::kind::hinge || j.type == joint_def::kind::slide) {
            names = {fresh(raw)};
        } else {
            if (j.type == joint_def::kind::free)
                for (auto x : {"_x", "_y", "_z"}) names.push_back(fresh(raw + x));
            for (auto x : {"_qw", "_qx", "_qy", "_qz"}) names.push_back(fresh(raw + x));
            quaternions_ = true;
        }
        coordinates_.insert(coordinates_.end(), names.begin(), names.end());
    }

    void plan_inputs(joint_def const& j) {
        std::string const raw = short_raw(j.name);
        std::vector<std::string>& inputs = joints_[&j].inputs;
        if (j.type == joint_def::kind::hinge || j.type == joint_def::kind::slide) {
            inputs.push_back(fresh("tau_" + raw));
        } else {
            if (j.type == joint_def::kind::free)
                for (auto x : {"_fx", "_fy", "_fz"}) inputs.push_back(fresh(raw + x));
            for (auto x : {"_tx", "_ty", "_tz"}) inputs.push_back(fresh(raw + x));
        }
        inputs_.insert(inputs_.end(), inputs.begin(), inputs.end());
    }

    bool has_mass(body_def const& b) const {
        return b.has_inertia && (b.mass != 0 || std::any_of(b.inertia.begin(), b.inertia.end(), [](double x) { return x != 0; }));
    }

    void parameters() {
        for (std::size_t i = 0; i < r_.bodies.size(); ++i) {
            auto const& b = r_.bodies[i];
            if (!moving_[i] || !has_mass(b)) continue;
            std::string const& s = suffix_[i];
            if (form_ == inertial_form::linear) {
                linear_parameters(b, s);
                continue;
            }
            out_ << "parameter m_" << s << " = " << num(b.mass) << ", cx_" << s << " = " << num(b.com[0]) << ", cy_" << s
                 << " = " << num(b.com[1]) << ", cz_" << s << " = " << num(b.com[2]) << "\n";
            auto const& J = b.inertia;
            out_ << "parameter Jxx_" << s << " = " << num(J[0]) << ", Jyy_" << s << " = " << num(J[4]) << ", Jzz_" << s
                 << " = " << num(J[8]) << ", Jxy_" << s << " = " << num(J[1]) << ", Jxz_" << s << " = " << num(J[2])
                 << ", Jyz_" << s << " = " << num(J[5]) << "\n";
        }
        for (auto const& b : r_.bodies)
            for (auto const& j : b.joints) {
                if (j.type == joint_def::kind::free) continue;
                joint_names const& n = joints_.at(&j);
                std::vector<std::string> p;
                if (j.armature != 0) p.push_back(n.armature + " = " + num(j.armature));
                if (j.damping != 0) p.push_back(n.damping + " = " + num(j.damping));
                if (!n.stiffness.empty()) p.push_back(n.stiffness + " = " + num(j.stiffness));
                if (!p.empty()) out_ << "parameter " << join(p) << "\n";
            }
    }

    // m, h = m c and K = J + m (|c|² 1 − c cᵀ), the inertia about the body's frame origin.
    void linear_parameters(body_def const& b, std::string const& s) {
        vec3 const& c = b.com;
        double const m = b.mass;
        auto const& J = b.inertia;
        double const cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        auto K = [&](int i, int j) { return J[i * 3 + j] + m * ((i == j ? cc : 0.0) - c[i] * c[j]); };
        out_ << "parameter m_" << s << " = " << num(m) << ", mx_" << s << " = " << num(m * c[0]) << ", my_" << s << " = "
             << num(m * c[1]) << ", mz_" << s << " = " << num(m * c[2]) << "\n";
        out_ << "parameter Kxx_" << s << " = " << num(K(0, 0)) << ", Kyy_" << s << " = " << num(K(1, 1)) << ", Kzz_" << s
             << " = " << num(K(2, 2)) << ", Kxy_" << s << " = " << num(K(0, 1)) << ", Kxz_" << s << " = " << num(K(0, 2))
             << ", Kyz_" << s << " = " << num(K(1, 2)) << "\n";
    }

    // The coordinate's displacement from the pose the file draws.
    static std::string displacement(std::string const& c, double ref) {
        return ref == 0 ? c : c + " - " + num(ref);
    }

    // The parent's frame as .lag text: its rotation and origin ("" for the world's) and its
    // angular velocity ("" where it does not turn: the world, a body no joint moves).
    struct parent_frame {
        std::string R, o, w;
    };

    parent_frame parent_of(body_def const& b, bool free_joint) const {
        if (b.parent >= 0 && moving_[b.parent]) {
            std::string const& p = suffix_[b.parent];
            return {"R_" + p, "o_" + p, "w_" + p};
        }
        if (free_joint) return {}; // a free joint's coordinates are the world pose
        mat3 R = identity3;
        vec3 o{};
        for (int k = b.parent; k >= 0; k = r_.bodies[k].parent) {
            o = rotate(r_.bodies[k].rot, o);
            for (int c = 0; c < 3; ++c) o[c] += r_.bodies[k].pos[c];
            R = multiply(r_.bodies[k].rot, R);
        }
        return {fixed_turn(R), is_zero(o) ? "" : vec(o), ""};
    }

    // What a body's joints do, joint after joint: the turn's factors, the origin's offset in
    // the parent's frame beyond the body's pos, the angular velocity in the body's axes.
    struct motion {
        std::vector<std::string> parts;
        std::string offset, w, origin;
        // Each hinge: the number of turns in parts up to and including its own, its
        // coordinate, axis and rate (a q̇).
        struct hinge_rate {
            std::size_t turns;
            std::string coordinate, axis, rate;
        };
        std::vector<hinge_rate> rates;
        bool quaternion = false;
        std::string prefix() const { return parts.empty() ? std::string() : join_product(parts) + "*"; }
    };

    // A ball's or free joint's rate; a ball's as wr_s, once: its torque, armature and damping (MuJoCo's).
    std::string quaternion_rate(joint_def const& j, std::string const& s) const {
        auto const& cs = joints_.at(&j).coordinates;
        std::size_t const k = j.type == joint_def::kind::free ? 3 : 0;
        return quaternion_rate_text({cs[k], cs[k + 1], cs[k + 2], cs[k + 3]}, "N_" + s);
    }
    std::string ball_rate(joint_def const& j, std::string const& s) {
        if (rates_written_.emplace(&j, true).second) out_ << "let wr_" << s << " = " << quaternion_rate(j, s) << "\n";
        return "wr_" + s;
    }
    // A ball or free joint: its rotation Q_s and w = 2 G(q) q̇ (body axes), both over N_s = |q|²
    // (a rotation and its angular velocity at every q ≠ 0, so that lagc's composites take the
    // body as its tree's root; on |q| = 1 the unit quaternion's), the norm a constraint.
    void quaternion_joint(joint_def const& j, std::string const& s, motion& m) {
        auto const& cs = joints_.at(&j).coordinates;
        std::size_t const k = j.type == joint_def::kind::free ? 3 : 0;
        std::string const qw = cs[k], qx = cs[k + 1], qy = cs[k + 2], qz = cs[k + 3];
        std::string const Q = "Q_" + s, N = "N_" + s; // the body's suffix made them free
        auto sq = [](std::string const& x) { return x + "^2"; };
        out_ << "let " << N << " = " << sq(qw) << " + " << sq(qx) << " + " << sq(qy) << " + " << sq(qz) << "\n";
        out_ << "let " << Q << " = [[" << sq(qw) << " + " << sq(qx) << " - " << sq(qy) << " - " << sq(qz) << ", 2*(" << qx
             << "*" << qy << " - " << qw << "*" << qz << "), 2*(" << qx << "*" << qz << " + " << qw << "*" << qy << ")],\n"
             << "        [2*(" << qx << "*" << qy << " + " << qw << "*" << qz << "), " << sq(qw) << " - " << sq(qx) << " + "
             << sq(qy) << " - " << sq(qz) << ", 2*(" << qy << "*" << qz << " - " << qw << "*" << qx << ")],\n"
             << "        [2*(" << qx << "*" << qz << " - " << qw << "*" << qy << "), 2*(" << qy << "*" << qz << " + " << qw
             << "*" << qx << "), " << sq(qw) << " - " << sq(qx) << " - " << sq(qy) << " + " << sq(qz) << "]]/" << N << "\n";
        std::string const G = quaternion_rate(j, s);
        if (j.type == joint_def::kind::free) {
            m.origin = "[" + cs[0] + ", " + cs[1] + ", " + cs[2] + "]";
            m.w = G;
        } else {
            if (!is_zero(j.pos)) m.offset += " + " + m.prefix() + "(" + vec(j.pos) + " - " + Q + "*" + vec(j.pos) + ")";
            m.w = m.w.empty() ? G : "transpose(" + Q + ")*" + parenthesized(m.w) + " + " + G;
        }
        m.parts.push_back(Q);
        out_ << "constraint " << qw << "^2 + " << qx << "^2 + " << qy << "^2 + " << qz << "^2 = 1\n";
    }

    motion joints_motion(body_def const& b, std::string const& s, std::string const& wp, bool free_joint) {
        motion m;
        m.w = wp;
        // Another turn as the file wrote it where it can (written_turns.cpp), else by its axis and angle.
        std::string local_turn = free_joint || axes_turn(b.rot) ? "" : written_turn(b);
        if (local_turn.empty() && !free_joint) local_turn = fixed_turn(b.rot);
        if (!local_turn.empty()) {
            m.parts.push_back(local_turn);
            if (!m.w.empty()) m.w = "transpose(" + local_turn + ")*" + m.w;
        }
        m.origin = free_joint || is_zero(b.pos) ? "" : vec(b.pos);
        for (auto const& j : b.joints) {
            auto const& cs = joints_.at(&j).coordinates;
            if (j.type == joint_def::kind::hinge) {
                std::string const t = turn(j.axis, displacement(cs[0], j.ref));
                if (!is_zero(j.pos)) m.offset += " + " + m.prefix() + "(" + vec(j.pos) + " - " + t + "*" + vec(j.pos) + ")";
                m.parts.push_back(t);
                std::string const rate = axis_rate(j.axis, cs[0]);
                m.rates.push_back({m.parts.size(), cs[0], vec(j.axis), rate});
                m.w = m.w.empty() ? rate : "transpose(" + t + ")*" + parenthesized(m.w) + " + " + rate;
            } else if (j.type == joint_def::kind::slide) {
                m.offset += " + " + m.prefix() + vec(j.axis) + "*(" + displacement(cs[0], j.ref) + ")";
            } else {
                m.quaternion = true;
                quaternion_joint(j, s, m);
            }
        }
        return m;
    }

    void body(std::size_t i, double g) {
        auto const& b = r_.bodies[i];
        std::string const& s = suffix_[i];
        out_ << "# body '" << commented(b.name) << "' (" << b.element << ", line " << b.line << ")";
        std::size_t const listed = std::min<std::size_t>(b.merged.size(), 20); // the first 20 (a file may fix 100,000 to one)
        for (std::size_t k = 0; k < listed; ++k) out_ << (k == 0 ? ", with '" : ", '") << commented(b.merged[k]) << "'";
        if (b.merged.size() > listed) out_ << " and " << b.merged.size() - listed << " more";
        if (listed > 0) out_ << " merged";
        out_ << "\n";
        bool const free_joint = !b.joints.empty() && b.joints[0].type == joint_def::kind::free;
        parent_frame const parent = parent_of(b, free_joint);
        motion m = joints_motion(b, s, parent.w, free_joint);
        std::string const T = m.parts.empty() ? "" : join_product(m.parts);
        if (!T.empty()) out_ << "let T_" << s << " = " << T << "\n";
        std::string const Tn = T.empty() ? "" : "T_" + s;
        // Hinges (after a fixed turn or none): the parent's w through T's name (transported).
        if (!m.rates.empty() && !m.quaternion && !parent.w.empty()) m.w = transported(Tn, parent.w, m);
        else if (b.joints.empty() && !parent.w.empty()) m.w = Tn.empty() ? parent.w : "transpose(" + Tn + ")*" + parent.w;
        // R = Rp T, o = op + Rp (origin + offset).
        std::string R = parent.R.empty() ? Tn : (Tn.empty() ? parent.R : parent.R + "*" + Tn);
        out_ << "let R_" << s << " = " << (R.empty() ? "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]" : R) << "\n";
        std::string local = m.origin;
        if (!m.offset.empty()) local = local.empty() ? m.offset.substr(3) : local + m.offset;
        placed_[i] = {Tn, local};
        std::string o = parent.o.empty() ? "[0, 0, 0]" : parent.o;
        if (!local.empty()) {
            std::string const moved = parent.R.empty() ? local : parent.R + "*" + (m.offset.empty() ? local : "(" + local + ")");
            o = parent.o.empty() ? moved : parent.o + " + " + moved;
        }
        out_ << "let o_" << s << " = " << o << "\n";
        out_ << "let w_" << s << " = " << (m.w.empty() ? "[0, 0, 0]" : m.w) << "\n";
        energy(b, s, g);
        inputs(b, s);
        for (std::size_t k = 0; k < b.sites.size(); ++k)
            out_ << "output " << outputs_[i][k] << " = o_" << s
                 << (is_zero(b.sites[k].pos) ? "" : " + R_" + s + "*" + vec(b.sites[k].pos)) << "\n";
    }

    // w = Tᵀ w_parent + Σ_k (t_{k+1} … t_last)ᵀ a_k q̇_k over the body's hinges: the parent's
    // angular velocity carried through the body's whole turn T (its name), one matrix for
    // one hinge or several, so that lagc finds the body's twist relative to its parent's.
    static std::string transported(std::string const& Tn, std::string const& wp, motion const& m) {
        std::string own;
        for (auto const& r : m.rates) {
            std::vector<std::string> const after(m.parts.begin() + static_cast<std::ptrdiff_t>(r.turns), m.parts.end());
            own += (own.empty() ? "" : " + ") +
                   (after.empty() ? r.rate : "der(" + r.coordinate + ")*(transpose(" + join_product(after) + ")*" + r.axis + ")");
        }
        return "transpose(" + Tn + ")*" + wp + " + " + (m.rates.size() > 1 ? "(" + own + ")" : own);
    }

    // The joints' armature, damping and springs; the body's kinetic and potential energy.
    void energy(body_def const& b, std::string const& s, double g) {
        for (auto const& j : b.joints) {
            joint_names const& n = joints_.at(&j);
            std::string const w = j.type == joint_def::kind::ball && (j.armature != 0 || j.damping != 0) ? ball_rate(j, s) : "";
            if (!w.empty() && j.armature != 0) out_ << "kinetic 0.5*" << n.armature << "*dot(" << w << ", " << w << ")\n";
            if (!w.empty() && j.damping != 0) out_ << "dissipation 0.5*" << n.damping << "*dot(" << w << ", " << w << ")\n";
            if (j.type != joint_def::kind::hinge && j.type != joint_def::kind::slide) continue;
            std::string const& c = n.coordinates[0];
            if (j.armature != 0) out_ << "kinetic 0.5*" << n.armature << "*der(" << c << ")^2\n";
            if (j.damping != 0) out_ << "dissipation 0.5*" << n.damping << "*der(" << c << ")^2\n";
            if (j.stiffness != 0) out_ << "potential 0.5*" << n.stiffness << "*(" << displacement(c, j.springref) << ")^2\n";
        }
        if (!has_mass(b)) return;
        if (form_ == inertial_form::linear) return linear_energy(s, g);
        out_ << "let p_" << s << " = o_" << s << " + R_" << s << "*[cx_" << s << ", cy_" << s << ", cz_" << s << "]\n";
        out_ << "let J_" << s << " = [[Jxx_" << s << ", Jxy_" << s << ", Jxz_" << s << "], [Jxy_" << s << ", Jyy_" << s
             << ", Jyz_" << s << "], [Jxz_" << s << ", Jyz_" << s << ", Jzz_" << s << "]]\n";
        out_ << "kinetic 0.5*m_" << s << "*dot(der(p_" << s << "), der(p_" << s << ")) + 0.5*dot(w_" << s << ", J_" << s
             << "*w_" << s << ")\n";
        gravity("m_" + s + "*", "p_" + s, g);
    }

    // `potential` of uniform gravity g on a moment `position` (times `mass`, "m*" or ""):
    // mass g position[2] where gravity points down z, −mass g (d · position) otherwise.
    void gravity(std::string const& mass, std::string const& position, double g) {
        if (g <= 0) return;
        vec3 const d{r_.gravity[0] / g, r_.gravity[1] / g, r_.gravity[2] / g};
        if (d[0] == 0 && d[1] == 0 && d[2] == -1) out_ << "potential " << mass << g_ << "*" << position << "[2]\n";
        else out_ << "potential -" << mass << g_ << "*dot(" << vec(d) << ", " << position << ")\n";
    }

    // With ṗ = ȯ + R (w × c): T = ½ m |ȯ|² + ȯ · R (w × h) + ½ wᵀ K w, and m g height of the
    // centre of mass is g (m o + R h) along the vertical.
    void linear_energy(std::string const& s, double g) {
        out_ << "let h_" << s << " = [mx_" << s << ", my_" << s << ", mz_" << s << "]\n";
        out_ << "let K_" << s << " = [[Kxx_" << s << ", Kxy_" << s << ", Kxz_" << s << "], [Kxy_" << s << ", Kyy_" << s
             << ", Kyz_" << s << "], [Kxz_" << s << ", Kyz_" << s << ", Kzz_" << s << "]]\n";
        out_ << "kinetic 0.5*m_" << s << "*dot(der(o_" << s << "), der(o_" << s << ")) + dot(der(o_" << s << "), R_" << s
             << "*cross(w_" << s << ", h_" << s << ")) + 0.5*dot(w_" << s << ", K_" << s << "*w_" << s << ")\n";
        gravity("", "(m_" + s + "*o_" + s + " + R_" + s + "*h_" + s + ")", g);
    }

    void inputs(body_def const& b, std::string const& s) {
        if (input_form_ == input_form::actuators) return; // actuators_.forces
        for (auto const& j : b.joints) {
            auto const& cs = joints_.at(&j).coordinates;
            if (j.type == joint_def::kind::hinge || j.type == joint_def::kind::slide) {
                out_ << "force " << input_of(j, 0) << " on " << cs[0] << "\n";
                continue;
            }
            std::size_t k = 0;
            if (j.type == joint_def::kind::free) {
                out_ << "force [" << input_of(j, 0) << ", " << input_of(j, 1) << ", " << input_of(j, 2)
                     << "] at o_" << s << "\n";
                k = 3;
            }
            std::string const at = j.type == joint_def::kind::ball ? ball_rate(j, s) : "w_" + s;
            out_ << "torque [" << input_of(j, k) << ", " << input_of(j, k + 1) << ", " << input_of(j, k + 2)
                 << "] at " << at << "\n";
        }
    }

    std::string const& input_of(joint_def const& j, std::size_t k) const { return joints_.at(&j).inputs[k]; }

    // The one coordinate of the hinge or slide a mimic names.
    std::string const& coordinate_of(std::string const& joint) const { return joints_.at(joint_named_.at(joint)).coordinates[0]; }

    static std::string axis_rate(vec3 const& a, std::string const& c) {
        std::string out = "[";
        for (int i = 0; i < 3; ++i) {
            if (i) out += ", ";
            if (a[i] == 0) out += "0";
            else if (a[i] == 1) out += "der(" + c + ")";
            else if (a[i] == -1) out += "-der(" + c + ")";
            else out += num(a[i]) + "*der(" + c + ")";
        }
        return out + "]";
    }

    // A sum as one factor of a product.
    static std::string parenthesized(std::string const& e) {
        return e.find(" + ") == std::string::npos && e.find(" - ") == std::string::npos ? e : "(" + e + ")";
    }

    static std::string join_product(std::vector<std::string> const& parts) {
        std::string s;
        for (auto const& p : parts) s += (s.empty() ? "" : "*") + p;
        return s;
    }
};

} // namespace

std::string write_lag(robot_def const& robot, std::string const& source, inertial_form form, input_form inputs) {
    return lag_writer(robot, source, form, inputs).write();
}

} // namespace lagc::import
