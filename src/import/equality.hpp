// MJCF's equality constraints — <equality> connect, weld, joint and tendon, with the fixed
// tendons of <tendon> — as holonomic constraints of the model: read by mjcf_equality.cpp,
// their rows chosen and written by equality.cpp.
#pragma once

#include "import/xml_values.hpp"

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace lagc::import {

// The robot's bodies' poses at a state (equality.cpp): each joint's values are its
// displacement from the drawn pose (a hinge's angle, a slide's length, q − ref), a ball's
// unit quaternion (w x y z), a free joint's position and quaternion; all zeros but the
// quaternions' w is the pose the file draws.
class robot_kinematics {
public:
    explicit robot_kinematics(robot_def const& r);
    struct pose {
        mat3 R = identity3;
        vec3 o{};
        vec3 apply(vec3 const& p) const;      // R p + o
        vec3 inverse_apply(vec3 const& w) const; // Rᵀ (w − o)
    };
    std::size_t size() const { return size_; }
    std::vector<double> drawn() const;
    // A random state (hinges anywhere on the circle, slides within ±0.5, unit quaternions).
    std::vector<double> random(unsigned& seed) const;
    std::vector<pose> poses(std::vector<double> const& x) const;
    // The offset of a hinge's or slide's value in x, by the joint's name; -1 if none.
    int offset_of(std::string const& joint) const;
    // The body with joints a body is fixed to (itself if it has joints; -1 the world).
    int host(int body) const;

private:
    robot_def const& r_;
    std::vector<std::size_t> offsets_; // each joint's, bodies in order, joints in order
    std::map<std::string, std::size_t> scalar_; // hinge and slide offsets by name
    std::size_t size_ = 0;
};

// Reads the <equality> and <tendon> elements once the bodies are read (mjcf_equality.cpp):
// each active equality into r.equalities at the file's numbers (connect's point on body2 and
// weld's relative pose where relpose is not given, from the drawn pose, as MuJoCo's qpos0),
// each side given on the body with joints it is fixed to; errors at the element's line;
// notes for what is left out (active="false", spatial tendons). Then choose_rows().
void read_equalities(std::vector<tinyxml2::XMLElement const*> const& elements, xml_values& v);

// Which rows of the equalities are written: a row whose gradient lies in the span of the
// rows kept before it at every one of a few random states (a planar loop's rows along its
// hinges' axes) is left out, with a note; a left-out row that is constant and not zero
// (a weld whose relpose puts a body of a planar mechanism off its plane) is an error. A note gives the mechanism's
// degrees of freedom: the joints' less the rows kept. The description is the file's, before
// fixed bodies are fused.
void choose_rows(robot_def& r, int line);

// The names the .lag writer gave: a fresh name for a value, a moving body's frame (its R
// and o, by the body's name), a hinge's or slide's coordinate (by the joint's name).
struct equality_names {
    std::function<std::string(std::string const&)> fresh;
    std::function<std::pair<std::string, std::string>(std::string const&)> frame;
    std::function<std::string(std::string const&)> coordinate;
    std::function<std::string(double)> number;
    // A moving body's turn T (its name, "" for none) and origin in its parent's frame ("" at
    // the parent's origin), by its index: a loop's points in the frame of the body it hangs from.
    std::function<std::pair<std::string, std::string>(std::size_t)> placed;
};

// The equalities' kept rows as `constraint` statements of the .lag (after the bodies).
void write_equalities(robot_def const& r, equality_names const& names, std::ostream& out);

} // namespace lagc::import
