// `lagc robot.xml --tree`: the robot as lagc reads it — the bodies as a tree (after fixed
// bodies are fused), each with its mass, joints and their coordinates' indices in q, sites,
// the bodies fused into it; the actuators, mimic couplings, keyframes; every note (what is
// left out or converted). `--tree dot`: the same tree as Graphviz DOT (bodies as boxes, joints
// as edges). Iterative (a URDF chain may be of any length); deterministic.
#include "import/robot.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

namespace lagc::import {

namespace {

// Ten significant digits (a sum of masses is 4.1, not 4.1000000000000005): the same text on
// every machine, as to_chars writes it.
std::string number(double x) {
    char buffer[64];
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::general, 10).ptr);
}

// Appended piece by piece: "[" + std::string draws a false -Wrestrict from GCC 12 (its bug 105329).
std::string vector_text(vec3 const& v) {
    std::string s(1, '[');
    for (int i = 0; i < 3; ++i) s.append(i ? ", " : "").append(number(v[i]));
    return s.append("]");
}

char const* kind_name(joint_def::kind k) {
    switch (k) {
    case joint_def::kind::hinge: return "hinge";
    case joint_def::kind::slide: return "slide";
    case joint_def::kind::ball: return "ball";
    case joint_def::kind::free: return "free";
    }
    return "";
}

std::size_t positions(joint_def const& j) { return j.type == joint_def::kind::free ? 7 : j.type == joint_def::kind::ball ? 4 : 1; }

// Each joint's first index in q, in the order of the coordinates (joint_order).
std::map<joint_def const*, std::size_t> first_coordinates(robot_def const& r) {
    std::map<std::string, std::vector<joint_def const*>> by_name;
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) by_name[j.name].push_back(&j);
    std::map<joint_def const*, std::size_t> first;
    std::size_t at = 0;
    for (auto const& name : r.joint_order) {
        auto it = by_name.find(name);
        if (it == by_name.end() || it->second.empty()) continue;
        first[it->second.front()] = at;
        at += positions(*it->second.front());
        it->second.erase(it->second.begin());
    }
    return first;
}

std::string coordinates_text(joint_def const& j, std::size_t first) {
    static char const* const free_names[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    std::size_t const n = positions(j);
    if (n == 1) return std::string("q[").append(std::to_string(first)).append("]");
    std::string s("q[");
    s.append(std::to_string(first)).append("..").append(std::to_string(first + n - 1)).append("] (");
    for (std::size_t i = 0; i < n; ++i) s += std::string(i ? " " : "") + free_names[7 - n + i];
    return s + ")";
}

// The bodies in depth-first order with their depths (children in file order).
std::vector<std::pair<std::size_t, std::size_t>> depth_first(robot_def const& r) {
    std::vector<std::vector<std::size_t>> children(r.bodies.size());
    std::vector<std::size_t> roots;
    for (std::size_t i = 0; i < r.bodies.size(); ++i)
        (r.bodies[i].parent < 0 ? roots : children[static_cast<std::size_t>(r.bodies[i].parent)]).push_back(i);
    std::vector<std::pair<std::size_t, std::size_t>> order, stack;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, 1});
    while (!stack.empty()) {
        auto const [body, depth] = stack.back();
        stack.pop_back();
        order.push_back({body, depth});
        for (auto it = children[body].rbegin(); it != children[body].rend(); ++it) stack.push_back({*it, depth + 1});
    }
    return order;
}

std::string merged_text(body_def const& b, std::string const& separator) {
    std::string s;
    std::size_t const listed = std::min<std::size_t>(b.merged.size(), 20);
    for (std::size_t k = 0; k < listed; ++k) s += (k ? separator : "") + quoted(b.merged[k]);
    if (b.merged.size() > listed) s += " and " + std::to_string(b.merged.size() - listed) + " more";
    return s;
}

void body_text(std::ostream& out, body_def const& b, std::size_t depth, std::map<joint_def const*, std::size_t> const& first) {
    std::string const indent(2 * std::min<std::size_t>(depth, 40), ' ');
    out << indent << (depth > 40 ? "(depth " + std::to_string(depth) + ") " : "") << "body " << quoted(b.name) << " ("
        << b.element << ", line " << b.line << "): ";
    if (b.has_inertia) out << "mass " << number(b.mass) << " kg, centre of mass " << vector_text(b.com) << "\n";
    else out << "no mass\n";
    for (auto const& j : b.joints) {
        out << indent << "  joint " << quoted(j.name) << " (line " << j.line << "): " << kind_name(j.type);
        if (j.type == joint_def::kind::hinge || j.type == joint_def::kind::slide) out << " about " << vector_text(j.axis);
        auto it = first.find(&j);
        out << ", " << (it == first.end() ? std::string("no coordinate") : coordinates_text(j, it->second));
        if (j.armature != 0) out << ", armature " << number(j.armature);
        if (j.damping != 0) out << ", damping " << number(j.damping);
        if (j.stiffness != 0) out << ", stiffness " << number(j.stiffness) << " about " << number(j.springref);
        out << "\n";
    }
    for (auto const& s : b.sites) out << indent << "  site " << quoted(s.name) << " at " << vector_text(s.pos) << " (an output)\n";
    if (!b.merged.empty()) out << indent << "  fused into it (fixed to it): " << merged_text(b, ", ") << "\n";
}

// A DOT string's text: quotes and backslashes escaped.
std::string dot_escaped(std::string const& text) {
    std::string out;
    for (char c : shown(text)) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

// An equality as the tree lists it: its element, line, what it joins, the rows kept.
std::string equality_text(equality_def const& e) {
    auto side = [](std::string const& b) { return b.empty() ? std::string("the world") : quoted(b); };
    std::ostringstream t;
    t << quoted(e.name) << " (<" << e.element << ">, line " << e.line << "): ";
    if (e.type == equality_def::kind::coupling) {
        for (auto const* terms : {&e.first, &e.second}) {
            if (terms == &e.second) t << " and ";
            for (std::size_t k = 0; k < terms->size(); ++k)
                t << (k ? " + " : "") << number((*terms)[k].second) << " " << quoted((*terms)[k].first);
        }
        t << ", polycoef [";
        for (std::size_t k = 0; k < e.polycoef.size(); ++k) t << (k ? ", " : "") << number(e.polycoef[k]);
        t << "]";
    } else {
        t << side(e.a.body) << " and " << side(e.b.body);
    }
    t << ", " << std::count(e.rows.begin(), e.rows.end(), true) << " of " << e.rows.size() << " rows kept";
    return t.str();
}

} // namespace

std::string tree_text(robot_def const& r, input_form inputs) {
    std::ostringstream out;
    std::size_t joint_inputs = 0;
    double mass = 0;
    for (auto const& b : r.bodies) {
        mass += b.has_inertia ? b.mass : 0;
        for (auto const& j : b.joints) joint_inputs += j.type == joint_def::kind::free ? 6 : j.type == joint_def::kind::ball ? 3 : 1;
    }
    bool const actuated = inputs == input_form::actuators;
    out << "robot " << quoted(r.name) << " (" << r.format << "): " << coordinate_count(r) << " coordinates, "
        << (actuated ? r.actuators.size() : joint_inputs) << " inputs (" << (actuated ? "one per actuator" : "one per joint freedom")
        << "), " << r.bodies.size() << " bodies, mass " << number(mass) << " kg, gravity " << vector_text(r.gravity) << "\n";
    out << "world\n";
    auto const first = first_coordinates(r);
    for (auto const& [body, depth] : depth_first(r)) body_text(out, r.bodies[body], depth, first);
    if (!r.mimics.empty()) out << "couplings (constraints of the model):\n";
    for (auto const& m : r.mimics)
        out << "  " << quoted(m.joint) << " = " << number(m.multiplier) << " * " << quoted(m.leader) << " + " << number(m.offset)
            << " (line " << m.line << ")\n";
    if (!r.equalities.empty()) out << "loops (<equality>, exact constraints of the model):\n";
    for (auto const& e : r.equalities) out << "  " << equality_text(e) << "\n";
    if (!r.actuators.empty()) out << "actuators (" << (actuated ? "the inputs" : "left out: --inputs actuators makes them the inputs") << "):\n";
    for (auto const& a : r.actuators) {
        out << "  " << quoted(a.name) << " (" << a.element << ", line " << a.line << ") on " << (a.tendon.empty() ? "" : "the tendon ") << quoted(a.tendon.empty() ? a.joint : a.tendon) << ": gear "
            << number(a.gear);
        if (a.gain != 1) out << ", gain " << number(a.gain);
        if (a.kp != 0) out << ", kp " << number(a.kp);
        if (a.kv != 0) out << ", kv " << number(a.kv);
        out << "\n";
    }
    auto const keys = keyframe_states(r);
    if (!keys.empty()) out << "keyframes (NAME::keyframes::KEY_q in the generated header):\n";
    for (auto const& k : keys) {
        out << "  " << k.name << " (line " << k.line << "): q = [";
        for (std::size_t i = 0; i < k.q.size(); ++i) out << (i ? ", " : "") << number(k.q[i]);
        out << "]" << (k.qd.empty() ? "" : " and qd") << "\n";
    }
    std::vector<message> notes;
    for (auto const& m : r.messages)
        if (!m.error) notes.push_back(m);
    std::stable_sort(notes.begin(), notes.end(), [](message const& a, message const& b) { return a.line < b.line; });
    if (!notes.empty()) out << "left out or converted:\n";
    for (auto const& m : notes) out << "  line " << m.line << ": " << m.text << "\n";
    return out.str();
}

std::string tree_dot(robot_def const& r) {
    std::ostringstream out;
    out << "digraph \"" << dot_escaped(r.name) << "\" {\n  rankdir=TB;\n  node [shape=box];\n"
        << "  world [shape=ellipse, label=\"world\"];\n";
    auto const first = first_coordinates(r);
    for (std::size_t i = 0; i < r.bodies.size(); ++i) {
        auto const& b = r.bodies[i];
        out << "  b" << i << " [label=\"" << dot_escaped(b.name) << "\\nmass " << (b.has_inertia ? number(b.mass) : "0");
        if (!b.merged.empty()) out << "\\nfused: " << dot_escaped(merged_text(b, ", "));
        out << "\"];\n";
        std::string joints;
        for (auto const& j : b.joints) {
            auto it = first.find(&j);
            joints += (joints.empty() ? "" : "\\n") + dot_escaped(j.name) + " (" + kind_name(j.type) + ") " +
                      (it == first.end() ? std::string() : coordinates_text(j, it->second));
        }
        out << "  ";
        if (b.parent < 0) out << "world";
        else out << "b" << b.parent;
        out << " -> b" << i;
        if (joints.empty()) out << " [style=dashed, label=\"fixed\"];\n";
        else out << " [label=\"" << joints << "\"];\n";
    }
    // A mimic coupling: a dotted edge from the leader's body to the joint's.
    std::map<std::string, std::size_t> body_of;
    for (std::size_t i = 0; i < r.bodies.size(); ++i)
        for (auto const& j : r.bodies[i].joints) body_of.emplace(j.name, i);
    for (auto const& m : r.mimics)
        if (body_of.count(m.joint) && body_of.count(m.leader))
            out << "  b" << body_of.at(m.leader) << " -> b" << body_of.at(m.joint) << " [style=dotted, constraint=false, label=\""
                << dot_escaped(m.joint) << " = " << number(m.multiplier) << " " << dot_escaped(m.leader) << " + "
                << number(m.offset) << "\"];\n";
    // A connect or weld: a dotted edge between its bodies.
    for (auto const& e : r.equalities) {
        if (e.type == equality_def::kind::coupling) continue;
        auto node = [&](std::string const& b) {
            for (std::size_t i = 0; i < r.bodies.size(); ++i)
                if (r.bodies[i].name == b) return std::string("b").append(std::to_string(i));
            return std::string("world");
        };
        out << "  " << node(e.a.body) << " -> " << node(e.b.body) << " [style=dotted, dir=none, constraint=false, label=\""
            << dot_escaped(e.element + " " + e.name) << "\"];\n";
    }
    out << "}\n";
    return out.str();
}

} // namespace lagc::import
