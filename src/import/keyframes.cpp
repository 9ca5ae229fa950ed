// MJCF's <keyframe>: each <key>'s qpos and qvel (MuJoCo's layout: the joints in the file's
// order, a free joint's x y z qw qx qy qz, a ball's qw qx qy qz; velocities a free joint's
// linear velocity in the world and angular velocity in the body's axes, a ball's angular
// velocity in the body's axes) as states of lagc's model: its coordinates are MuJoCo's qpos
// in the same order, a quaternion normalised (MuJoCo normalises it when it computes the
// pose), and its velocities are q̇, a quaternion's rate ½ q ⊗ (0, ω) from the body's ω.
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <cmath>
#include <map>

namespace lagc::import {

namespace {

std::size_t positions(joint_def const& j) { return j.type == joint_def::kind::free ? 7 : j.type == joint_def::kind::ball ? 4 : 1; }
std::size_t velocities(joint_def const& j) { return j.type == joint_def::kind::free ? 6 : j.type == joint_def::kind::ball ? 3 : 1; }

// The joints in the order of the coordinates (robot_def::joint_order; write_lag's order).
std::vector<joint_def const*> ordered_joints(robot_def const& r) {
    std::map<std::string, std::vector<joint_def const*>> by_name;
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) by_name[j.name].push_back(&j);
    std::vector<joint_def const*> order;
    for (auto const& name : r.joint_order) {
        auto it = by_name.find(name);
        if (it == by_name.end() || it->second.empty()) continue;
        order.push_back(it->second.front());
        it->second.erase(it->second.begin());
    }
    return order;
}

// A rotation matrix's unit quaternion (w ≥ 0), for a free joint's default pose.
std::array<double, 4> quaternion_of(mat3 const& R) {
    std::array<double, 4> q = matrix_quaternion(R);
    if (q[0] < 0)
        for (auto& x : q) x = -x;
    return q;
}

// MuJoCo's qpos0: each hinge's and slide's ref, a ball's identity, a free joint's body pose.
std::vector<double> default_qpos(robot_def const& r) {
    std::vector<double> q;
    for (joint_def const* j : ordered_joints(r)) {
        if (j->type == joint_def::kind::hinge || j->type == joint_def::kind::slide) q.push_back(j->ref);
        else if (j->type == joint_def::kind::ball) q.insert(q.end(), {1, 0, 0, 0});
        else
            for (auto const& b : r.bodies)
                if (!b.joints.empty() && &b.joints[0] == j) {
                    auto const w = quaternion_of(b.rot);
                    q.insert(q.end(), {b.pos[0], b.pos[1], b.pos[2], w[0], w[1], w[2], w[3]});
                }
    }
    return q;
}

} // namespace

void read_mjcf_keyframes(tinyxml2::XMLElement const* keyframe, xml_values& v) {
    robot_def& r = v.robot();
    for (auto const* e = keyframe->FirstChildElement(); e; e = e->NextSiblingElement()) {
        if (std::string(e->Name()) != "key") continue;
        keyframe_def k;
        k.line = e->GetLineNum();
        k.name = e->Attribute("name") ? e->Attribute("name") : "";
        for (auto [attribute, values] : {std::pair{"qpos", &k.qpos}, std::pair{"qvel", &k.qvel}})
            if (char const* text = e->Attribute(attribute))
                if (!parse_numbers(text, *values))
                    v.error(e, std::string("<key> ") + attribute + "=\"" + shown(text) + "\" is not a list of numbers");
        for (char const* other : {"act", "ctrl", "mpos", "mquat", "time"})
            if (e->Attribute(other))
                r.counted_note(k.line, "a keyframe's time, act, ctrl, mpos and mquat are left out (lagc keeps its qpos and qvel)",
                               "%N keyframes' time, act, ctrl, mpos and mquat are left out (lagc keeps their qpos and qvel)");
        r.keyframes.push_back(k);
    }
}

void check_keyframes(robot_def& r) {
    std::size_t nq = 0, nv = 0;
    for (joint_def const* j : ordered_joints(r)) nq += positions(*j), nv += velocities(*j);
    for (auto const& k : r.keyframes) {
        if (!k.qpos.empty() && k.qpos.size() != nq)
            r.error(k.line, "the keyframe's qpos has " + std::to_string(k.qpos.size()) + " numbers; the robot's joints have " +
                                std::to_string(nq) + " (MuJoCo: \"invalid qpos size\")");
        if (!k.qvel.empty() && k.qvel.size() != nv)
            r.error(k.line, "the keyframe's qvel has " + std::to_string(k.qvel.size()) + " numbers; the robot's joints have " +
                                std::to_string(nv) + " velocities (MuJoCo: \"invalid qvel size\")");
    }
}

std::vector<keyframe_state> keyframe_states(robot_def const& r) {
    std::vector<keyframe_state> out;
    name_maker names;
    std::vector<joint_def const*> const joints = ordered_joints(r);
    for (std::size_t n = 0; n < r.keyframes.size(); ++n) {
        auto const& k = r.keyframes[n];
        keyframe_state s;
        s.name = names.fresh(k.name.empty() ? "key" + std::to_string(n) : short_raw(k.name));
        s.line = k.line;
        std::vector<double> const qpos = k.qpos.empty() ? default_qpos(r) : k.qpos;
        std::size_t p = 0, v = 0;
        for (joint_def const* j : joints) {
            std::size_t const first = j->type == joint_def::kind::free ? 3 : 0; // the quaternion's
            for (std::size_t i = 0; i < positions(*j); ++i) s.q.push_back(qpos.at(p + i));
            if (j->type == joint_def::kind::free || j->type == joint_def::kind::ball) {
                double* w = &s.q[s.q.size() - 4];
                double const length = norm(w, 4);
                for (int i = 0; i < 4; ++i) w[i] = length > 0 ? w[i] / length : (i == 0 ? 1.0 : 0.0);
            }
            if (!k.qvel.empty()) {
                for (std::size_t i = 0; i < first; ++i) s.qd.push_back(k.qvel.at(v + i));
                if (j->type == joint_def::kind::hinge || j->type == joint_def::kind::slide) {
                    s.qd.push_back(k.qvel.at(v));
                } else {
                    double const* q = &s.q[s.q.size() - 4];
                    double const* o = &k.qvel.at(v + first); // ω in the body's axes
                    // ½ q ⊗ (0, ω)
                    s.qd.push_back(0.5 * (-q[1] * o[0] - q[2] * o[1] - q[3] * o[2]));
                    s.qd.push_back(0.5 * (q[0] * o[0] + q[2] * o[2] - q[3] * o[1]));
                    s.qd.push_back(0.5 * (q[0] * o[1] + q[3] * o[0] - q[1] * o[2]));
                    s.qd.push_back(0.5 * (q[0] * o[2] + q[1] * o[1] - q[2] * o[0]));
                }
            }
            p += positions(*j), v += velocities(*j);
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace lagc::import
