// MJCF (MuJoCo's XML) into a robot description, as MuJoCo's compiler reads it: angles in
// the <compiler>'s unit (degrees unless angle="radian"), euler angles in its eulerseq,
// frames from pos with one of quat, axisangle, euler, xyaxes, zaxis; attributes from the
// element, then its class (or the nearest childclass above it), then that class's parents
// up to the top <default>; bodies depth first, joints in order (MuJoCo's order of degrees
// of freedom).
#include "import/equality.hpp"
#include "import/mjcf_geoms.hpp"
#include "import/names.hpp"
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace lagc::import {

namespace {

using tinyxml2::XMLElement;

double const pi = 3.14159265358979323846;

std::array<double, 4> quaternion_product(std::array<double, 4> const& a, std::array<double, 4> const& b) {
    return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

class mjcf_reader {
public:
    mjcf_reader(robot_def& r, read_options const& options)
        : v_(r), r_(r), geoms_(v_, options, [this](XMLElement const* e, char const* n, std::string const& c) { return attribute(e, n, c); },
                               [this](XMLElement const* e) { return orientation(e); }) {}

    void read(XMLElement const* root) {
        r_.format = "MJCF";
        r_.name = root->Attribute("model") ? root->Attribute("model") : "robot";
        for (auto const* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
            std::string const tag = e->Name();
            if (tag == "compiler") compiler(e);
            else if (tag == "option") option(e);
            else if (tag == "worldbody") collect_names(e);
            else if (tag == "default") defaults(e, "main", "");
            else if (tag == "include") v_.error(e, "<include> is not read by lagc: paste the included file's elements in");
        }
        for (auto const* e = root->FirstChildElement("asset"); e; e = e->NextSiblingElement("asset")) geoms_.assets(e);
        for (auto const* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
            std::string const tag = e->Name();
            if (tag == "worldbody") {
                for (auto const* b = e->FirstChildElement(); b; b = b->NextSiblingElement()) {
                    std::string const t = b->Name();
                    if (t == "body") body(b, -1, "main");
                    else if (t == "frame") v_.error(b, "<frame> is not read by lagc: write its pos and quat into the bodies inside it");
                    else if (t == "site") r_.counted_note(b->GetLineNum(), "a site of the world does not move: no output is made for it",
                                                          "%N sites of the world do not move: no output is made for them");
                }
            } else if (tag == "equality" || tag == "tendon") {
                loops_.push_back(e); // read once every body is (equality.hpp)
            } else if (tag == "actuator") {
                read_mjcf_actuators(e, v_, [this](XMLElement const* x, char const* n, bool shared) { return attribute(x, n, "main", shared); });
            } else if (tag == "contact" || tag == "sensor") {
                v_.note(e, "<" + tag + "> is ignored: " + (tag == "contact" ? "lagc models no contacts" : "write the outputs you need in the .lag"));
            } else if (tag == "keyframe") {
                read_mjcf_keyframes(e, v_);
            }
        }
        if (limits_line_) r_.note(limits_line_, "joint limits (range) are ignored: lagc models no contacts or limits");
        read_equalities(loops_, v_);
    }

private:
    // <option>: gravity; the medium (density, viscosity: MuJoCo's drag and lift on every
    // moving body, a force of the velocities that lagc's equations do not have) is noted.
    void option(XMLElement const* e) {
        r_.gravity = v_.vector(e, "gravity", r_.gravity), r_.gravity_line = e->GetLineNum();
        if (v_.number(e, "density", 0) != 0 || v_.number(e, "viscosity", 0) != 0)
            v_.note(e, "the medium's forces (<option> density, viscosity: MuJoCo's fluid drag and lift) are left out: "
                       "lagc's equations are those in vacuum (write a drag force in the .lag)");
    }

    xml_values v_;
    robot_def& r_;
    mjcf_geoms geoms_; // inertia from geometry
    bool degrees_ = true;
    std::string eulerseq_ = "xyz";
    std::map<std::string, XMLElement const*> classes_; // class → its <default>
    std::map<std::string, std::string> parent_class_;
    int limits_line_ = 0;
    std::vector<XMLElement const*> loops_; // <equality> and <tendon>
    // Bodies, joints and sites: the names the file gives (so that a made name is none of
    // them), and each one's first line (MuJoCo refuses a name repeated within a kind).
    enum kind { body_kind, joint_kind, site_kind };
    std::set<std::string> file_names_[3];
    std::map<std::string, int> first_line_[3];

    void collect_names(XMLElement const* e) {
        for (auto const* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
            std::string const tag = c->Name();
            char const* n = c->Attribute("name");
            if (n && *n && tag == "body") file_names_[body_kind].insert(n);
            else if (n && *n && (tag == "joint" || tag == "freejoint")) file_names_[joint_kind].insert(n);
            else if (n && *n && tag == "site") file_names_[site_kind].insert(n);
            if (tag == "body") collect_names(c); // tinyxml2 nests at most 100 deep
        }
    }

    void compiler(XMLElement const* e) {
        if (char const* a = e->Attribute("angle")) {
            std::string const s = a;
            if (s != "degree" && s != "radian") v_.error(e, "<compiler> angle is \"degree\" or \"radian\", not \"" + shown(s) + "\"");
            degrees_ = s != "radian";
        }
        if (char const* s = e->Attribute("eulerseq")) {
            std::string const seq = s;
            bool ok = seq.size() == 3;
            for (char c : seq) ok = ok && std::string("xyzXYZ").find(c) != std::string::npos;
            // A bad sequence is reported and not used: its letters index the quaternion.
            if (ok) eulerseq_ = seq;
            else v_.error(e, "<compiler> eulerseq takes three of x, y, z, X, Y, Z, not \"" + shown(seq) + "\"");
        }
        geoms_.compiler(e);
    }

    void defaults(XMLElement const* e, std::string const& name, std::string const& parent) {
        if (classes_.count(name) && name != "main") v_.error(e, "the default class " + quoted(name) + " is defined twice");
        classes_[name] = e;
        parent_class_[name] = parent;
        for (auto const* d = e->FirstChildElement("default"); d; d = d->NextSiblingElement("default")) {
            char const* c = d->Attribute("class");
            if (!c) {
                v_.error(d, "a nested <default> needs a class name");
                continue;
            }
            defaults(d, c, name);
        }
    }

    // In degrees a * pi / 180, as MuJoCo computes it; past 5.7e305 degrees a * pi overflows, and
    // the same angle is a * (pi / 180).
    double angle(double a) const {
        if (!degrees_) return a;
        double const r = a * pi / 180;
        return std::isfinite(r) ? r : a * (pi / 180);
    }

    // The attribute from the element, else from its class chain (tag: the element's kind).
    // `shared`: an attribute every kind of actuator has, which MuJoCo's defaults keep once for
    // all of them (the last actuator element of the class that gives it).
    char const* attribute(XMLElement const* e, char const* name, std::string const& cls, bool shared = false) const {
        if (char const* a = e->Attribute(name)) return a;
        std::string c = e->Attribute("class") ? e->Attribute("class") : cls;
        for (int guard = 0; !c.empty() && guard < 1000; ++guard) {
            auto it = classes_.find(c);
            if (it == classes_.end()) break;
            char const* found = nullptr;
            for (auto const* d = it->second->FirstChildElement(); d; d = d->NextSiblingElement())
                if (std::string(d->Name()) == e->Name() || (shared && is_actuator_element(d->Name())))
                    if (char const* a = d->Attribute(name)) found = a;
            if (found) return found;
            c = parent_class_.at(c);
        }
        return nullptr;
    }

    vec3 vector(XMLElement const* e, char const* name, std::string const& cls, vec3 fallback) {
        char const* a = attribute(e, name, cls);
        auto v = a ? v_.numbers(e, name, 3, a) : std::vector<double>{};
        return v.empty() ? fallback : vec3{v[0], v[1], v[2]};
    }

    double number(XMLElement const* e, char const* name, std::string const& cls, double fallback) {
        char const* a = attribute(e, name, cls);
        auto v = a ? v_.numbers(e, name, 1, a) : std::vector<double>{};
        return v.empty() ? fallback : v[0];
    }

    void check_class(XMLElement const* e) {
        if (char const* c = e->Attribute("class"); c && !classes_.count(c)) v_.error(e, "no default class " + quoted(c));
    }

    // The orientation an element gives with one of quat, axisangle, euler, xyaxes, zaxis;
    // `written`, where asked: quat, axisangle and euler as the file gave them (written_turn).
    mat3 orientation(XMLElement const* e, std::optional<body_def::given_rotation>* written = nullptr) {
        using kind = body_def::given_rotation::kind;
        body_def::given_rotation g;
        int given = 0;
        mat3 R = identity3;
        if (auto q = v_.numbers(e, "quat", 4); !q.empty()) {
            ++given;
            if (norm(q.data(), 4) < 1e-14) v_.error(e, "quat is zero");
            else R = quaternion_matrix({q[0], q[1], q[2], q[3]});
            g.form = kind::quaternion, g.values = {q[0], q[1], q[2], q[3]};
        }
        if (auto a = v_.numbers(e, "axisangle", 4); !a.empty()) {
            ++given;
            if (norm(a.data(), 3) < 1e-14) v_.error(e, "axisangle's axis is zero");
            else R = axis_angle_matrix({a[0], a[1], a[2]}, angle(a[3]));
            g.form = kind::axis_angle, g.values = {a[0], a[1], a[2], angle(a[3])};
        }
        if (auto a = v_.numbers(e, "euler", 3); !a.empty()) {
            ++given;
            std::array<double, 4> q{1, 0, 0, 0};
            g.form = kind::turns;
            for (int i = 0; i < 3; ++i) {
                char const c = eulerseq_[i];
                double const h = angle(a[i]) / 2;
                std::array<double, 4> t{std::cos(h), 0, 0, 0};
                t[1 + (std::tolower(c) - 'x')] = std::sin(h);
                q = std::islower(c) ? quaternion_product(q, t) : quaternion_product(t, q);
                // Lower case turns about the rotating axes (after the turns so far), upper case
                // about the fixed ones (before them).
                std::pair<int, double> const turn{std::tolower(c) - 'x', angle(a[i])};
                if (std::islower(c)) g.turns.push_back(turn);
                else g.turns.insert(g.turns.begin(), turn);
            }
            R = quaternion_matrix(q);
        }
        if (written && given == 1 && (g.form != kind::turns || !g.turns.empty())) *written = g; // not xyaxes, zaxis
        if (auto a = v_.numbers(e, "xyaxes", 6); !a.empty()) {
            ++given;
            vec3 x{a[0], a[1], a[2]}, y{a[3], a[4], a[5]};
            auto normalise = [](vec3& u) {
                double const n = norm(u);
                if (n > 0) for (auto& c : u) c /= n;
                return n;
            };
            if (normalise(x) < 1e-14) v_.error(e, "xyaxes' x axis is zero");
            double const d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
            for (int i = 0; i < 3; ++i) y[i] -= x[i] * d;
            if (normalise(y) < 1e-14) v_.error(e, "xyaxes' y axis is parallel to its x axis");
            vec3 const z{x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
            R = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
        }
        if (auto a = v_.numbers(e, "zaxis", 3); !a.empty()) {
            ++given;
            double const n = norm(a.data(), 3);
            if (n < 1e-14) {
                v_.error(e, "zaxis is zero");
            } else {
                vec3 const z{a[0] / n, a[1] / n, a[2] / n};
                vec3 const axis{-z[1], z[0], 0}; // (0, 0, 1) × z
                double const s = norm(axis);
                if (s < 1e-14) R = z[2] < 0 ? mat3{1, 0, 0, 0, -1, 0, 0, 0, -1} : identity3;
                else R = axis_angle_matrix(axis, std::atan2(s, z[2]));
            }
        }
        if (given > 1) v_.error(e, std::string("<") + e->Name() + "> gives its orientation more than once (quat, axisangle, euler, xyaxes, zaxis: one of them)");
        return R;
    }

    // The element's name; a second of its kind is an error (MuJoCo's). An element without a
    // name is called PREFIX<count>, or PREFIX<count>_2, … where the file names another so.
    std::string name_of(XMLElement const* e, kind k, std::size_t count) {
        static char const* const words[] = {"body", "joint", "site"};
        if (char const* n = e->Attribute("name"); n && *n) {
            auto const [at, first] = first_line_[k].emplace(n, e->GetLineNum());
            if (!first)
                v_.error(e, std::string("a second ") + words[k] + " named " + quoted(n) + " (the first is at line " +
                                std::to_string(at->second) + "): MuJoCo refuses repeated names (\"repeated name\")");
            return n;
        }
        std::string const base = words[k] + std::to_string(count);
        std::string name = base;
        for (int i = 2; file_names_[k].count(name); ++i) name = base + "_" + std::to_string(i);
        return name;
    }

    void body(XMLElement const* e, int parent, std::string cls) {
        check_class(e);
        if (char const* c = e->Attribute("childclass")) {
            if (!classes_.count(c)) v_.error(e, "no default class " + quoted(c));
            cls = c;
        }
        body_def b;
        b.element = "<body>";
        b.line = e->GetLineNum();
        b.parent = parent;
        b.name = name_of(e, body_kind, r_.bodies.size() + 1);
        b.pos = v_.vector(e, "pos", {0, 0, 0});
        b.rot = orientation(e, &b.rot_given);
        if (b.rot == identity3) b.rot_given.reset();
        std::vector<XMLElement const*> geoms;
        std::size_t const index = r_.bodies.size();
        r_.bodies.push_back(b);
        for (auto const* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
            std::string const tag = c->Name();
            if (tag == "joint" || tag == "freejoint") joint(c, index, cls);
            else if (tag == "inertial") inertial(c, index);
            else if (tag == "geom") geoms.push_back(c);
            else if (tag == "site") {
                check_class(c);
                r_.bodies[index].sites.push_back({name_of(c, site_kind, index + 1), vector(c, "pos", cls, {0, 0, 0}), c->GetLineNum()});
            } else if (tag == "frame") v_.error(c, "<frame> is not read by lagc: write its pos and quat into the bodies inside it");
        }
        geoms_.body(e, geoms, r_, index, cls);
        for (auto const* c = e->FirstChildElement("body"); c; c = c->NextSiblingElement("body")) body(c, static_cast<int>(index), cls);
    }

    void joint(XMLElement const* e, std::size_t body, std::string const& cls) {
        check_class(e);
        joint_def j;
        j.line = e->GetLineNum();
        j.name = name_of(e, joint_kind, r_.joint_order.size() + 1);
        std::string type = std::string(e->Name()) == "freejoint" ? "free" : "hinge";
        if (char const* t = attribute(e, "type", cls)) type = t;
        if (type == "hinge") j.type = joint_def::kind::hinge;
        else if (type == "slide") j.type = joint_def::kind::slide;
        else if (type == "ball") j.type = joint_def::kind::ball;
        else if (type == "free") j.type = joint_def::kind::free;
        else v_.error(e, "a joint's type is hinge, slide, ball or free, not \"" + shown(type) + "\"");
        j.pos = vector(e, "pos", cls, {0, 0, 0});
        vec3 const a = vector(e, "axis", cls, {0, 0, 1});
        double const n = norm(a);
        if (n < 1e-14) v_.error(e, "the joint's axis is zero");
        else j.axis = {a[0] / n, a[1] / n, a[2] / n};
        bool const hinge = j.type == joint_def::kind::hinge;
        j.ref = number(e, "ref", cls, 0);
        j.springref = number(e, "springref", cls, 0);
        if (hinge) j.ref = angle(j.ref), j.springref = angle(j.springref);
        j.armature = number(e, "armature", cls, 0);
        j.damping = number(e, "damping", cls, 0);
        j.stiffness = number(e, "stiffness", cls, 0);
        if (attribute(e, "range", cls) && !limits_line_) limits_line_ = j.line;
        if (j.armature < 0 || j.damping < 0 || j.stiffness < 0) v_.error(e, "armature, damping and stiffness cannot be negative");
        if (attribute(e, "frictionloss", cls) && number(e, "frictionloss", cls, 0) != 0)
            r_.counted_note(j.line, "a joint's frictionloss (dry friction) is left out: write it as a force in the .lag",
                            "%N joints' frictionloss (dry friction) is left out: write it as a force in the .lag");
        if ((j.type == joint_def::kind::free && (j.armature != 0 || j.damping != 0 || j.stiffness != 0)) ||
            (j.type == joint_def::kind::ball && j.stiffness != 0))
            r_.counted_note(j.line, "the stiffness of a ball joint (and a free joint's armature and damping) is left out",
                            "the stiffness of %N ball and free joints (and a free joint's armature and damping) is left out");
        if (j.type == joint_def::kind::free && r_.bodies[body].parent != -1)
            v_.error(e, "a free joint belongs to a body of the world (a floating base), not to a body inside another");
        check_joints_of_body(e, r_.bodies[body], j);
        r_.joint_order.push_back(j.name);
        r_.bodies[body].joints.push_back(j);
    }

    // MuJoCo's rules for the joints of one body (its mjCBody::Compile): at most 6 degrees of
    // freedom (so a free joint is its body's only joint), and no rotation after a ball joint,
    // whose three already turn the body every way.
    void check_joints_of_body(XMLElement const* e, body_def const& b, joint_def const& added) {
        auto dofs = [](joint_def const& j) {
            return j.type == joint_def::kind::free ? 6 : j.type == joint_def::kind::ball ? 3 : 1;
        };
        int total = dofs(added);
        bool free = added.type == joint_def::kind::free;
        joint_def const* ball = nullptr;
        for (auto const& j : b.joints) {
            total += dofs(j);
            free = free || j.type == joint_def::kind::free;
            if (j.type == joint_def::kind::ball && !ball) ball = &j;
        }
        if (total > 6 && total - dofs(added) <= 6) // once, at the joint that passes 6
            v_.error(e, "the joint " + quoted(added.name) + " gives the body " + quoted(b.name) + " more than 6 degrees of freedom" +
                            (free ? " (a free joint is its body's only joint)" : "") +
                            ": MuJoCo refuses it (\"more than 6 dofs in body\")");
        else if (ball && (added.type == joint_def::kind::hinge || added.type == joint_def::kind::ball))
            v_.error(e, "the joint " + quoted(added.name) + " turns the body " + quoted(b.name) + " after the ball joint " +
                            quoted(ball->name) + ", which already turns it every way: MuJoCo refuses it (\"ball followed by "
                            "rotation\")");
    }

    void inertial(XMLElement const* e, std::size_t index) {
        body_def& b = r_.bodies[index];
        if (b.has_inertia) v_.error(e, "a body has one <inertial>");
        b.has_inertia = true;
        auto const mass = v_.numbers(e, "mass", 1); // empty, and reported, when it is no number
        b.mass = mass.empty() ? 0 : mass[0];
        if (!e->Attribute("mass")) v_.error(e, "<inertial> needs mass");
        else if (b.mass < 0) v_.error(e, "a mass cannot be negative");
        if (!e->Attribute("pos")) v_.error(e, "<inertial> needs pos (the centre of mass)");
        b.com = v_.vector(e, "pos", {0, 0, 0});
        mat3 const R = orientation(e);
        mat3 J{};
        if (auto d = v_.numbers(e, "diaginertia", 3); !d.empty()) {
            J = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]};
        } else if (auto f = v_.numbers(e, "fullinertia", 6); !f.empty()) {
            J = {f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
        } else if (!e->Attribute("diaginertia") && !e->Attribute("fullinertia")) {
            v_.error(e, "<inertial> needs diaginertia or fullinertia");
        }
        if (e->Attribute("diaginertia") && e->Attribute("fullinertia")) v_.error(e, "<inertial> takes diaginertia or fullinertia, not both");
        v_.check_inertia(e, J, b.name);
        b.inertia = multiply(multiply(R, J), import::transpose(R));
    }
};

} // namespace

robot_def read_mjcf(std::string const& text, read_options const& options) {
    robot_def r;
    tinyxml2::XMLDocument doc;
    if (parse_xml(text, doc, r)) mjcf_reader(r, options).read(doc.RootElement());
    return r;
}

} // namespace lagc::import
