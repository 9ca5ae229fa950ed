// URDF into a robot description: links and the joints between them as a tree from the one
// link that is no joint's child (fixed to the world); each joint's origin (xyz, and rpy as
// three fixed-axis angles: R = Rz(yaw) Ry(pitch) Rx(roll)) places the child's frame in the
// parent's, its axis (default 1 0 0) is in the child's frame; an inertial's origin places
// the centre of mass and turns the inertia tensor. Coordinates in the joints' file order.
#include "import/names.hpp"
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <cmath>
#include <map>
#include <set>

namespace lagc::import {

namespace {

using tinyxml2::XMLElement;

mat3 rpy_matrix(vec3 const& rpy) {
    mat3 const x = axis_angle_matrix({1, 0, 0}, rpy[0]), y = axis_angle_matrix({0, 1, 0}, rpy[1]),
               z = axis_angle_matrix({0, 0, 1}, rpy[2]);
    return multiply(z, multiply(y, x));
}

struct urdf_joint {
    XMLElement const* e;
    std::string name, type, parent, child;
};

class urdf_reader {
public:
    explicit urdf_reader(robot_def& r) : v_(r), r_(r) {}

    void read(XMLElement const* root) {
        r_.format = "URDF";
        r_.name = root->Attribute("name") ? root->Attribute("name") : "robot";
        for (auto const* e = root->FirstChildElement("link"); e; e = e->NextSiblingElement("link")) {
            char const* n = e->Attribute("name");
            if (!n) v_.error(e, "a <link> needs a name");
            else if (!links_.emplace(n, e).second) v_.error(e, "a second link named " + quoted(n));
        }
        std::map<std::string, std::size_t> child_of;
        std::map<std::string, int> joint_lines; // each joint name's first line
        for (auto const* e = root->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
            urdf_joint j{e, e->Attribute("name") ? e->Attribute("name") : "", e->Attribute("type") ? e->Attribute("type") : "", "", ""};
            if (auto const* p = e->FirstChildElement("parent"); p && p->Attribute("link")) j.parent = p->Attribute("link");
            if (auto const* c = e->FirstChildElement("child"); c && c->Attribute("link")) j.child = c->Attribute("link");
            if (j.name.empty() || j.type.empty() || j.parent.empty() || j.child.empty()) {
                v_.error(e, "a <joint> needs a name, a type, <parent link=...> and <child link=...>");
                continue;
            }
            for (auto const& l : {j.parent, j.child})
                if (!links_.count(l)) v_.error(e, "the joint " + quoted(j.name) + " names the link " + quoted(l) + ", which the file does not have");
            if (!child_of.emplace(j.child, joints_.size()).second)
                v_.error(e, "the link " + quoted(j.child) + " is the child of two joints (a URDF is a tree)");
            if (auto const [at, first] = joint_lines.emplace(j.name, e->GetLineNum()); !first)
                v_.error(e, "a second joint named " + quoted(j.name) + " (the first is at line " + std::to_string(at->second) +
                                "): a URDF's joint names are unique");
            joints_.push_back(j);
        }
        if (r_.has_errors()) return;
        std::vector<std::string> roots;
        for (auto const* e = root->FirstChildElement("link"); e; e = e->NextSiblingElement("link"))
            if (!child_of.count(e->Attribute("name"))) roots.push_back(e->Attribute("name"));
        if (roots.size() != 1) {
            v_.error(root, links_.empty()   ? "the robot has no <link>: a URDF is a tree of links"
                           : roots.empty() ? "every link is some joint's child: a URDF is a tree with one root link"
                                         : "the links " + quoted(roots[0]) + " and " + quoted(roots[1]) +
                                               " are both roots (no joint's child): a URDF is one tree");
            return;
        }
        build_tree(roots[0], child_of);
        for (auto const& j : joints_)
            if (j.type != "fixed") r_.joint_order.push_back(j.name);
        check_mimics();
        for (auto const* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
            std::string const tag = e->Name();
            if (tag == "transmission") read_urdf_transmission(e, v_);
        }
        if (limits_line_) r_.note(limits_line_, "joint limits are ignored: lagc models no contacts or limits");
    }

private:
    // The bodies: the root fixed to the world, then each link's joints to its children, in
    // file order, the tree depth first (a stack, not recursion: a file may be a chain of any
    // length), parents before children. A link it does not reach hangs in a closed loop
    // detached from the root (each link has one parent joint, the root none): an error.
    void build_tree(std::string const& root, std::map<std::string, std::size_t> const& child_of) {
        body_def base;
        base.element = "<link>";
        base.name = root;
        base.line = links_.at(root)->GetLineNum();
        inertial(links_.at(root), base);
        r_.bodies.push_back(base);
        std::multimap<std::string, std::size_t> below;
        for (std::size_t k = 0; k < joints_.size(); ++k) below.emplace(joints_[k].parent, k);
        std::vector<std::pair<std::size_t, int>> pending; // (joint, parent body)
        std::vector<bool> reached(joints_.size(), false);
        auto push_children = [&](std::string const& link, int body) {
            auto const [first, last] = below.equal_range(link);
            std::vector<std::size_t> children;
            for (auto it = first; it != last; ++it) children.push_back(it->second);
            for (auto it = children.rbegin(); it != children.rend(); ++it) pending.push_back({*it, body});
        };
        push_children(root, 0);
        while (!pending.empty()) {
            auto const [k, parent] = pending.back();
            pending.pop_back();
            reached[k] = true;
            push_children(joints_[k].child, add(joints_[k], parent));
        }
        for (std::size_t k = 0; k < joints_.size(); ++k)
            if (!reached[k]) return report_loop(k, root, child_of);
    }

    // Joint k, which the tree does not reach, hangs from a closed loop of links: each link but
    // the root has one parent joint, so its parents, followed up from k, never end at the root.
    void report_loop(std::size_t k, std::string const& root, std::map<std::string, std::size_t> const& child_of) {
        std::map<std::string, std::size_t> seen; // link → its place on the path
        std::vector<std::string> path;
        std::string link = joints_[k].parent;
        while (seen.emplace(link, path.size()).second) {
            path.push_back(link);
            link = joints_[child_of.at(link)].parent;
        }
        std::string loop;
        for (std::size_t i = seen.at(link), shown_links = 0; i < path.size(); ++i, ++shown_links)
            loop += shown_links == 5 ? ", …" : shown_links > 5 ? "" : (loop.empty() ? "" : ", ") + quoted(path[i]);
        v_.error(joints_[child_of.at(link)].e, "the links " + loop + " form a closed loop of joints, detached from the root link " +
                                                    quoted(root) + ": a URDF is a tree (write the loop's closing joint as a "
                                                    "constraint in the .lag)");
    }

    xml_values v_;
    robot_def& r_;
    std::map<std::string, XMLElement const*> links_;
    std::vector<urdf_joint> joints_;
    int limits_line_ = 0;

    // A mimic couples two revolute, continuous or prismatic joints of the file (looked up in a
    // set: a file of 20,000 mimics is not 20,000² comparisons).
    void check_mimics() {
        std::set<std::string> coordinates;
        for (auto const& j : joints_)
            if (j.type == "revolute" || j.type == "continuous" || j.type == "prismatic") coordinates.insert(j.name);
        for (auto const& m : r_.mimics) {
            if (!coordinates.count(m.joint))
                r_.error(m.line, "a <mimic> belongs to a revolute, continuous or prismatic joint");
            else if (!coordinates.count(m.leader))
                r_.error(m.line, "the <mimic> joint " + quoted(m.leader) + " is not a revolute, continuous or prismatic joint of this file");
            else if (m.leader == m.joint)
                r_.error(m.line, "a joint cannot mimic itself");
        }
    }

    // The element's <origin>; its rpy too where `rpy` is given (a turn to write as the file gave it).
    void origin(XMLElement const* e, vec3& pos, mat3& rot, std::optional<body_def::given_rotation>* rpy = nullptr) {
        if (auto const* o = e->FirstChildElement("origin")) {
            pos = v_.vector(o, "xyz", {0, 0, 0});
            vec3 const angles = v_.vector(o, "rpy", {0, 0, 0});
            rot = rpy_matrix(angles);
            if (rpy && angles != vec3{0, 0, 0}) {
                body_def::given_rotation g;
                g.turns = {{2, angles[2]}, {1, angles[1]}, {0, angles[0]}}; // Rz(y) Ry(p) Rx(r)
                *rpy = g;
            }
        }
    }

    void inertial(XMLElement const* link, body_def& b) {
        auto const* e = link->FirstChildElement("inertial");
        if (!e && link->FirstChildElement("collision")) // MuJoCo's importer differs: a visible difference
            r_.counted_note(link->GetLineNum(), "a link with <collision> but no <inertial> is massless, as URDF says (MuJoCo's "
                            "importer gives it its collision shapes' mass at density 1000)",
                            "%N links with <collision> but no <inertial> are massless, as URDF says (MuJoCo's importer gives "
                            "them their collision shapes' mass at density 1000)");
        if (!e) return;
        b.has_inertia = true;
        mat3 R = identity3;
        origin(e, b.com, R);
        if (auto const* m = e->FirstChildElement("mass")) {
            b.mass = v_.number(m, "value", 0);
            if (b.mass < 0) v_.error(m, "a mass cannot be negative");
        } else {
            v_.error(e, "<inertial> needs <mass value=...>");
        }
        mat3 J{};
        if (auto const* i = e->FirstChildElement("inertia")) {
            double const xx = v_.number(i, "ixx", 0), yy = v_.number(i, "iyy", 0), zz = v_.number(i, "izz", 0),
                         xy = v_.number(i, "ixy", 0), xz = v_.number(i, "ixz", 0), yz = v_.number(i, "iyz", 0);
            J = {xx, xy, xz, xy, yy, yz, xz, yz, zz};
            v_.check_inertia(i, J, b.name);
        } else {
            v_.error(e, "<inertial> needs <inertia ixx=... iyy=... izz=.../>");
        }
        b.inertia = multiply(multiply(R, J), transpose(R));
    }

    int add(urdf_joint const& j, int parent) {
        body_def b;
        b.element = "<link>";
        auto const* link = links_.at(j.child);
        b.name = j.child;
        b.line = link->GetLineNum();
        b.parent = parent;
        origin(j.e, b.pos, b.rot, &b.rot_given);
        inertial(link, b);
        b.sites.push_back({j.child, {0, 0, 0}, b.line});
        joint_def d;
        d.name = j.name;
        d.line = j.e->GetLineNum();
        // Only these joints have an axis: a fixed or floating joint's is ignored (the URDF
        // specification; CAD exporters write <axis xyz="0 0 0"/> into fixed joints).
        bool const axis = j.type == "revolute" || j.type == "continuous" || j.type == "prismatic";
        if (auto const* a = j.e->FirstChildElement("axis"); a && axis) d.axis = v_.unit(a, "xyz", {1, 0, 0});
        else d.axis = {1, 0, 0};
        if (auto const* dyn = j.e->FirstChildElement("dynamics")) {
            d.damping = v_.number(dyn, "damping", 0);
            if (d.damping < 0) v_.error(dyn, "damping cannot be negative");
            if (v_.number(dyn, "friction", 0) != 0)
                r_.counted_note(dyn->GetLineNum(), "a joint's friction (dry friction) is left out: write it as a force in the .lag",
                                "%N joints' friction (dry friction) is left out: write it as a force in the .lag");
        }
        if (j.e->FirstChildElement("limit") && j.type != "continuous" && !limits_line_) limits_line_ = d.line;
        if (auto const* m = j.e->FirstChildElement("mimic")) {
            mimic_def mm;
            mm.joint = j.name;
            mm.line = m->GetLineNum();
            mm.leader = m->Attribute("joint") ? m->Attribute("joint") : "";
            mm.multiplier = v_.number(m, "multiplier", 1);
            mm.offset = v_.number(m, "offset", 0);
            if (mm.leader.empty()) v_.error(m, "<mimic> needs joint=\"...\"");
            r_.mimics.push_back(mm);
        }
        if (j.type == "revolute" || j.type == "continuous") d.type = joint_def::kind::hinge;
        else if (j.type == "prismatic") d.type = joint_def::kind::slide;
        else if (j.type == "floating") d.type = joint_def::kind::free;
        else if (j.type == "planar") v_.error(j.e, "planar joints are not read by lagc: write two prismatic joints and a revolute one");
        else if (j.type != "fixed") v_.error(j.e, "a joint's type is revolute, continuous, prismatic, fixed or floating, not \"" + shown(j.type) + "\"");
        if (d.type == joint_def::kind::free && parent != 0)
            v_.error(j.e, "a floating joint's parent is the root link (a floating base)");
        if (j.type != "fixed" && j.type != "planar") b.joints.push_back(d);
        r_.bodies.push_back(b);
        return static_cast<int>(r_.bodies.size() - 1);
    }
};

} // namespace

robot_def read_urdf(std::string const& text) {
    robot_def r;
    tinyxml2::XMLDocument doc;
    if (parse_xml(text, doc, r)) urdf_reader(r).read(doc.RootElement());
    return r;
}

} // namespace lagc::import
