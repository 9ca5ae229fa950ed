// Actuators: MJCF's <actuator> (motor, general of fixed gain, position, velocity on a joint)
// and URDF's <transmission> (a simple one with a mechanical reduction), read into the
// description; with --inputs actuators, one input per actuator whose force on its joint's
// coordinate is gear · (gain · ctrl − kp · gear · q − kv · gear · q̇), as MuJoCo computes it
// (the actuator's length is gear · qpos). What lagc cannot write so is left out with a note.
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <map>

namespace lagc::import {

namespace {

using tinyxml2::XMLElement;

// The first number of an attribute (up to `most` given, at least one), else `fallback`.
double first_number(xml_values& v, XMLElement const* e, char const* name, char const* text, double fallback,
                    std::vector<double>* all = nullptr) {
    if (!text) return fallback;
    std::vector<double> out;
    if (!parse_numbers(text, out) || out.empty()) {
        v.error(e, std::string("<") + e->Name() + "> " + name + "=\"" + shown(text) + "\" is not a list of numbers");
        return fallback;
    }
    if (all) *all = out;
    return out[0];
}

// `many`: the reason of the kind, where the first one's may name its element.
void left_out(robot_def& r, XMLElement const* e, std::string const& why, std::string const& many = "") {
    r.counted_note(e->GetLineNum(), "an actuator is left out: " + why, "%N actuators are left out: " + (many.empty() ? why : many));
}

// A <general>'s gain and bias as gain, kp and kv; false (and a note) where they are no such.
bool general(xml_values& v, XMLElement const* e, mjcf_attribute const& attribute, actuator_def& a) {
    auto text = [&](char const* n) { return attribute(e, n, false); };
    auto is = [&](char const* n, char const* fallback, char const* value) {
        char const* t = text(n);
        return std::strcmp(t ? t : fallback, value) == 0;
    };
    if (!is("dyntype", "none", "none") || !is("gaintype", "fixed", "fixed") ||
        !(is("biastype", "none", "none") || is("biastype", "none", "affine"))) {
        left_out(v.robot(), e, "lagc writes a <general> of fixed gain, bias none or affine and no dynamics (dyntype none)");
        return false;
    }
    a.gain = first_number(v, e, "gainprm", text("gainprm"), 1);
    if (is("biastype", "none", "affine")) {
        std::vector<double> b;
        first_number(v, e, "biasprm", text("biasprm"), 0, &b);
        b.resize(3, 0.0);
        if (b[0] != 0) {
            left_out(v.robot(), e, "lagc writes an affine bias without a constant term (biasprm's first number 0)");
            return false;
        }
        a.kp = -b[1], a.kv = -b[2];
    }
    return true;
}

} // namespace

bool is_actuator_element(char const* tag) {
    for (char const* a : {"motor", "general", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion"})
        if (std::strcmp(tag, a) == 0) return true;
    return false;
}

void read_mjcf_actuators(XMLElement const* actuators, xml_values& v, mjcf_attribute const& attribute) {
    robot_def& r = v.robot();
    int count = 0;
    for (auto const* e = actuators->FirstChildElement(); e; e = e->NextSiblingElement()) {
        std::string const tag = e->Name();
        ++count;
        actuator_def a;
        a.element = "<" + tag + ">";
        a.line = e->GetLineNum();
        char const* n = e->Attribute("name");
        a.name = n && *n ? n : "actuator" + std::to_string(count);
        char const* joint = attribute(e, "joint", true);
        if (!joint) joint = e->Attribute("jointinparent"); // the same torque on a hinge or slide
        char const* tendon = attribute(e, "tendon", true);
        if (!!joint == !!tendon || attribute(e, "site", true) || attribute(e, "body", true)) {
            left_out(r, e, "lagc writes actuators on joints and fixed tendons (not on sites or bodies)");
            continue;
        }
        (joint ? a.joint : a.tendon) = joint ? joint : tendon;
        a.gear = first_number(v, e, "gear", attribute(e, "gear", true), 1);
        if (tag == "motor") {
        } else if (tag == "general") {
            if (!general(v, e, attribute, a)) continue;
        } else if (tag == "position") {
            a.gain = a.kp = first_number(v, e, "kp", attribute(e, "kp", false), 1);
            a.kv = first_number(v, e, "kv", attribute(e, "kv", false), 0);
            if (first_number(v, e, "timeconst", attribute(e, "timeconst", false), 0) != 0) {
                left_out(r, e, "lagc writes a <position> without a time constant (timeconst 0)");
                continue;
            }
            if (first_number(v, e, "dampratio", attribute(e, "dampratio", false), 0) != 0) // MuJoCo 3's, from M at qpos0
                r.counted_note(a.line, "a <position>'s dampratio is left out (its kv is 0): MuJoCo makes its damping from "
                               "the robot's inertia at qpos0; give kv in the file or write the damping in the .lag",
                               "%N <position> actuators' dampratio is left out (their kv is 0): MuJoCo makes their "
                               "damping from the robot's inertia at qpos0; give kv in the file or write the damping in the .lag");
        } else if (tag == "velocity") {
            a.gain = a.kv = first_number(v, e, "kv", attribute(e, "kv", false), 1);
        } else {
            left_out(r, e, "lagc writes <motor>, <general>, <position> and <velocity> actuators, not <" + shown(tag) + ">",
                     "lagc writes <motor>, <general>, <position> and <velocity> actuators, not these");
            continue;
        }
        if (attribute(e, "ctrlrange", true) || attribute(e, "forcerange", true))
            r.counted_note(a.line, "an actuator's ctrlrange and forcerange are left out: its input is not clamped",
                           "%N actuators' ctrlrange and forcerange are left out: their inputs are not clamped");
        r.actuators.push_back(a);
    }
}

// <transmission>: the ROS form (<type>, <joint>, <actuator><mechanicalReduction>) and the
// older one (type="…SimpleTransmission", <mechanicalReduction> in the transmission).
void read_urdf_transmission(XMLElement const* e, xml_values& v) {
    robot_def& r = v.robot();
    std::string type = e->Attribute("type") ? e->Attribute("type") : "";
    if (auto const* t = e->FirstChildElement("type"); t && t->GetText()) type = t->GetText();
    auto const* joint = e->FirstChildElement("joint");
    auto const* actuator = e->FirstChildElement("actuator");
    if (type.find("SimpleTransmission") == std::string::npos || !joint || !joint->Attribute("name") ||
        joint->NextSiblingElement("joint")) {
        r.counted_note(e->GetLineNum(), "a <transmission> is left out: lagc reads a SimpleTransmission of one joint",
                       "%N <transmission>s are left out: lagc reads a SimpleTransmission of one joint");
        return;
    }
    actuator_def a;
    a.element = "<transmission>";
    a.line = e->GetLineNum();
    a.joint = joint->Attribute("name");
    char const* n = actuator && actuator->Attribute("name") ? actuator->Attribute("name") : e->Attribute("name");
    a.name = n && *n ? n : "actuator_" + a.joint;
    XMLElement const* reduction = actuator ? actuator->FirstChildElement("mechanicalReduction") : nullptr;
    if (!reduction) reduction = e->FirstChildElement("mechanicalReduction");
    if (reduction && reduction->GetText()) {
        std::vector<double> g;
        if (!parse_numbers(reduction->GetText(), g) || g.size() != 1)
            v.error(reduction, "<mechanicalReduction> holds one number, not \"" + shown(reduction->GetText()) + "\"");
        else a.gear = g[0];
    }
    r.actuators.push_back(a);
}

void check_actuators(robot_def& r, input_form inputs) {
    std::map<std::string, joint_def const*> joints;
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) joints.emplace(j.name, &j);
    std::vector<actuator_def> kept;
    for (auto const& a : r.actuators) {
        if (!a.tendon.empty()) { // its joints are checked where the tendon is read (mjcf_equality.cpp)
            if (!a.terms.empty()) kept.push_back(a);
            else r.counted_note(a.line, "an actuator on a spatial tendon is left out: write its force in the .lag",
                                "%N actuators on spatial tendons are left out: write their forces in the .lag");
            continue;
        }
        auto it = joints.find(a.joint);
        if (it == joints.end()) {
            r.error(a.line, "the actuator " + quoted(a.name) + " acts on the joint " + quoted(a.joint) +
                                ", which the file does not have");
            continue;
        }
        auto const type = it->second->type;
        if (type == joint_def::kind::ball || type == joint_def::kind::free) {
            r.counted_note(a.line, "an actuator on a ball or free joint is left out: write its torque in the .lag",
                           "%N actuators on ball or free joints are left out: write their torques in the .lag");
            continue;
        }
        kept.push_back(a);
    }
    r.actuators = std::move(kept);
    if (inputs == input_form::actuators && r.actuators.empty())
        r.note(1, "--inputs actuators: the file has no actuator lagc writes, so the model has no inputs");
    if (inputs == input_form::joints && !r.actuators.empty()) {
        std::size_t const n = r.actuators.size();
        r.note(r.actuators[0].line, (n == 1 ? std::string("the file's actuator is") : "the file's " + std::to_string(n) + " actuators are") +
                                        " left out: each joint's generalized force is an input (--inputs actuators makes one input "
                                        "per actuator, with its gear)");
    }
}

actuator_lines plan_actuators(robot_def const& r, name_maker& names,
                              std::function<std::string(std::string const&)> const& coordinate) {
    actuator_lines out;
    for (auto const& a : r.actuators) out.inputs.push_back(names.fresh(short_raw(a.name)));
    for (std::size_t k = 0; k < r.actuators.size(); ++k) {
        auto const& a = r.actuators[k];
        std::string const& u = out.inputs[k];
        std::string const gear = names.fresh("gear_" + u);
        auto number = [](double x) {
            char buffer[64];
            auto const end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
            std::string s(buffer, end);
            if (s.find_first_of(".e") == std::string::npos) s += ".0";
            return s;
        };
        // The actuator's length over its gear (a joint's coordinate, a tendon's Σ coef · q)
        // and its rate; a force f on it is coef · f on each joint.
        std::string q = a.tendon.empty() ? coordinate(a.joint) : "", qd = a.tendon.empty() ? "der(" + q + ")" : "";
        for (auto const& [joint, coef] : a.terms) {
            char const* sign = coef < 0 ? (q.empty() ? "(-" : " - ") : (q.empty() ? "(" : " + ");
            std::string const c = number(std::abs(coef)), x = coordinate(joint);
            q.append(sign).append(c).append("*").append(x);
            qd.append(sign).append(c).append("*der(").append(x).append(")");
        }
        if (!a.terms.empty()) q += ")", qd += ")";
        std::string parameters = gear + " = " + number(a.gear), force = u;
        // A <position>'s kp (a <velocity>'s kv) is its gain too: one parameter, kp (ctrl − gear q).
        bool const servo = a.element == "<position>" || a.element == "<velocity>";
        if (servo) {
            bool const position = a.element == "<position>";
            std::string const k = names.fresh((position ? "kp_" : "kv_") + u);
            parameters += ", " + k + " = " + number(position ? a.kp : a.kv);
            force = k + "*(" + u + " - " + gear + "*" + (position ? q : qd) + ")";
        }
        if (!servo && a.gain != 1) {
            std::string const gain = names.fresh("gain_" + u);
            parameters += ", " + gain + " = " + number(a.gain);
            force = gain + "*" + u;
        }
        if (!servo && a.kp != 0) {
            std::string const kp = names.fresh("kp_" + u);
            parameters += ", " + kp + " = " + number(a.kp);
            force += " - " + kp + "*" + gear + "*" + q;
        }
        if ((!servo || a.element == "<position>") && a.kv != 0) {
            std::string const kv = names.fresh("kv_" + u);
            parameters += ", " + kv + " = " + number(a.kv);
            force += " - " + kv + "*" + gear + "*" + qd;
        }
        out.parameters += "parameter " + parameters + "\n";
        out.forces += "# the actuator '" + shown(a.name) + "' (" + a.element + ", line " + std::to_string(a.line) + ")" +
                     (a.tendon.empty() ? "" : " on the fixed tendon '" + shown(a.tendon) + "'") + "\n";
        std::string const f = gear + "*" + (force == u ? u : "(" + force + ")");
        if (a.terms.empty()) out.forces += "force " + f + " on " + q + "\n";
        for (auto const& [joint, coef] : a.terms) out.forces += "force " + number(coef) + "*" + f + " on " + coordinate(joint) + "\n";
    }
    return out;
}

} // namespace lagc::import
