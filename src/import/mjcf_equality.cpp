// MJCF's <equality> (connect, weld, joint, tendon) and the fixed tendons of <tendon>, read
// after the bodies (mjcf.cpp keeps the elements): each side of a connect or weld on the body
// with joints it is fixed to, at the drawn pose where the file leaves a number to it, as
// MuJoCo's compiler does at qpos0.
#include "import/equality.hpp"

#include "import/names.hpp"

#include <cmath>
#include <map>

namespace lagc::import {

namespace {

using tinyxml2::XMLElement;

class equality_reader {
public:
    explicit equality_reader(xml_values& v) : v_(v), r_(v.robot()), k_(r_), drawn_(k_.poses(k_.drawn())) {}

    void read(std::vector<XMLElement const*> const& elements) {
        for (auto const* e : elements)
            if (std::string(e->Name()) == "tendon") tendons(e);
        for (auto const* e : elements) {
            if (std::string(e->Name()) != "equality") continue;
            if (!equality_line_) equality_line_ = e->GetLineNum();
            for (auto const* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) one(c);
        }
        for (auto const& [name, used] : tendon_used_)
            if (!used && !unused_++) unused_line_ = tendon_lines_[name];
        if (inactive_ > 0)
            r_.note(inactive_line_, std::to_string(inactive_) + (inactive_ == 1 ? " equality" : " equalities") +
                                        " with active=\"false\" left out (lagc's constraints are always on)");
        if (spatial_ > 0)
            r_.note(spatial_line_, std::to_string(spatial_) + " spatial tendon" + (spatial_ == 1 ? " is" : "s are") + " left out");
        if (unused_ > 0)
            r_.note(unused_line_, std::to_string(unused_) + " fixed tendon" + (unused_ == 1 ? "" : "s") +
                                      " not used by an <equality>: " + (unused_ == 1 ? "its" : "their") + " springs, limits and actuators are left out");
        choose_rows(r_, equality_line_);
    }

private:
    xml_values& v_;
    robot_def& r_;
    robot_kinematics k_;
    std::vector<robot_kinematics::pose> drawn_;
    std::map<std::string, std::vector<std::pair<std::string, double>>> tendons_;
    std::map<std::string, int> tendon_lines_;
    std::map<std::string, bool> tendon_used_;
    int equality_line_ = 0, inactive_ = 0, inactive_line_ = 0, spatial_ = 0, spatial_line_ = 0, unused_ = 0, unused_line_ = 0;

    void tendons(XMLElement const* e) {
        for (auto const* t = e->FirstChildElement(); t; t = t->NextSiblingElement()) {
            if (std::string(t->Name()) != "fixed") {
                if (!spatial_++) spatial_line_ = t->GetLineNum();
                continue;
            }
            std::string const name = t->Attribute("name") ? t->Attribute("name") : "";
            std::vector<std::pair<std::string, double>> terms;
            for (auto const* j = t->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
                char const* joint = j->Attribute("joint");
                if (!joint) v_.error(j, "a fixed tendon's <joint> needs joint=\"...\"");
                else if (k_.offset_of(joint) < 0) v_.error(j, "the tendon's joint " + quoted(joint) + " is not a hinge or slide of this file");
                else terms.emplace_back(joint, v_.number(j, "coef", 0));
            }
            if (terms.empty()) v_.error(t, "a fixed tendon needs a <joint>");
            if (!name.empty()) tendons_[name] = terms, tendon_lines_[name] = t->GetLineNum(), tendon_used_[name] = false;
        }
    }

    // The body named by attribute `attr` (absent: the world when `optional`); -2 when wrong.
    int body(XMLElement const* e, char const* attr, bool optional) {
        char const* n = e->Attribute(attr);
        if (!n || (optional && std::string(n) == "world")) {
            if (!optional) v_.error(e, std::string("<") + e->Name() + "> needs " + attr + "=\"...\"");
            return optional ? -1 : -2;
        }
        for (std::size_t i = 0; i < r_.bodies.size(); ++i)
            if (r_.bodies[i].name == n) return static_cast<int>(i);
        v_.error(e, std::string(attr) + " " + quoted(n) + " is no body of this file");
        return -2;
    }

    robot_kinematics::pose pose_of(int b) const { return b < 0 ? robot_kinematics::pose{} : drawn_[static_cast<std::size_t>(b)]; }

    // A point and turn of body b (in its frame) on the body with joints b is fixed to: the
    // file's own numbers where that is b.
    equality_def::side side(int b, vec3 const& local, mat3 const& local_turn) const {
        int const h = k_.host(b);
        if (h < 0 && b < 0) return {std::string(), local, local_turn};
        if (h == b) return {r_.bodies[static_cast<std::size_t>(h)].name, local, local_turn};
        auto const p = pose_of(b), ph = pose_of(h);
        return {h < 0 ? std::string() : r_.bodies[static_cast<std::size_t>(h)].name, ph.inverse_apply(p.apply(local)),
                multiply(transpose(ph.R), multiply(p.R, local_turn))};
    }

    void one(XMLElement const* c) {
        std::string const tag = c->Name();
        if (c->Attribute("active") && std::string(c->Attribute("active")) == "false") {
            if (!inactive_++) inactive_line_ = c->GetLineNum();
            return;
        }
        equality_def e;
        e.element = tag;
        e.line = c->GetLineNum();
        e.name = c->Attribute("name") ? c->Attribute("name") : tag + "_line" + std::to_string(e.line);
        if (c->Attribute("site1") || c->Attribute("site2")) {
            v_.error(c, "lagc reads a " + tag + " by body1, body2 and anchor (not site1, site2)");
            return;
        }
        bool ok = true;
        if (tag == "connect" || tag == "weld") ok = bodies(c, e);
        else if (tag == "joint" || tag == "tendon") ok = coupling(c, e);
        else {
            v_.error(c, "an equality is connect, weld, joint or tendon, not <" + shown(tag) + ">");
            return;
        }
        if (ok) r_.equalities.push_back(std::move(e));
    }

    bool bodies(XMLElement const* c, equality_def& e) {
        bool const weld = e.element == "weld";
        e.type = weld ? equality_def::kind::weld : equality_def::kind::connect;
        int const b1 = body(c, "body1", false), b2 = body(c, "body2", true);
        if (b1 == -2 || b2 == -2) return false;
        if (b1 == b2) v_.error(c, "a " + e.element + " joins two different bodies");
        vec3 const anchor = v_.vector(c, "anchor", {0, 0, 0});
        auto const p1 = pose_of(b1), p2 = pose_of(b2);
        if (!weld) { // the anchor on body1, and where it is on body2 at the drawn pose
            e.a = side(b1, anchor, identity3), e.b = side(b2, p2.inverse_apply(p1.apply(anchor)), identity3);
            return true;
        }
        // weld: body2's anchor, and body2's frame relative to body1 (relpose, else as drawn)
        auto const rel = v_.numbers(c, "relpose", 7);
        robot_kinematics::pose target = p2; // body2's frame in the world where the weld holds, at body1's drawn pose
        if (rel.size() == 7 && norm(rel.data() + 3, 4) > 0)
            target = {multiply(p1.R, quaternion_matrix({rel[3], rel[4], rel[5], rel[6]})), p1.apply({rel[0], rel[1], rel[2]})};
        e.a = side(b1, p1.inverse_apply(target.apply(anchor)), multiply(transpose(p1.R), target.R));
        e.b = side(b2, anchor, identity3);
        return true;
    }

    // A joint's or tendon's length terms; false when it is none of the file's.
    bool length(XMLElement const* c, char const* attr, std::vector<std::pair<std::string, double>>& out) {
        char const* n = c->Attribute(attr);
        if (!n) return true;
        if (std::string(c->Name()) == "joint") {
            if (k_.offset_of(n) < 0) {
                v_.error(c, std::string(attr) + " " + quoted(n) + " is not a hinge or slide joint of this file");
                return false;
            }
            out = {{n, 1.0}};
            return true;
        }
        auto it = tendons_.find(n);
        if (it == tendons_.end()) {
            v_.error(c, std::string(attr) + " " + quoted(n) + " is not a fixed tendon of this file");
            return false;
        }
        tendon_used_[n] = true;
        out = it->second;
        return true;
    }

    bool coupling(XMLElement const* c, equality_def& e) {
        e.type = equality_def::kind::coupling;
        bool const joint = e.element == "joint";
        char const* first = joint ? "joint1" : "tendon1";
        if (!c->Attribute(first)) {
            v_.error(c, "<" + e.element + "> needs " + first + "=\"...\"");
            return false;
        }
        if (!length(c, first, e.first) || !length(c, joint ? "joint2" : "tendon2", e.second)) return false;
        e.polycoef = {0, 1, 0, 0, 0};
        if (c->Attribute("polycoef")) e.polycoef = v_.numbers(c, "polycoef", 5);
        if (e.polycoef.size() != 5) return false;
        return true;
    }
};

} // namespace

void read_equalities(std::vector<XMLElement const*> const& elements, xml_values& v) {
    if (elements.empty() || v.robot().has_errors()) return;
    equality_reader reader(v);
    reader.read(elements);
}

} // namespace lagc::import
