// Stage 0, robot files: a URDF or MJCF file read into one description of bodies and joints
// (mjcf.cpp, urdf.cpp), written out as a .lag text (write_lag.cpp) that the rest of the
// pipeline reads like any model. The description holds numbers only, in SI units and
// radians, each body's frame relative to its parent's, as MuJoCo composes them.
#pragma once

#include "common/diagnostics.hpp"
#include "import/names.hpp"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lagc::import {

using vec3 = std::array<double, 3>;
using mat3 = std::array<double, 9>; // row-major
mat3 const identity3 = {1, 0, 0, 0, 1, 0, 0, 0, 1};

struct joint_def {
    enum class kind { hinge, slide, ball, free };
    std::string name;
    kind type = kind::hinge;
    vec3 pos{};             // the hinge's anchor, in the body's frame
    vec3 axis{0, 0, 1};     // unit, in the body's frame
    double ref = 0;         // the coordinate's value at the pose the file draws
    double armature = 0;    // added to M's diagonal
    double damping = 0;     // a viscous force −damping · q̇
    double stiffness = 0;   // a spring −stiffness · (q − springref)
    double springref = 0;
    int line = 0;
};

struct site_def {
    std::string name;
    vec3 pos{};
    int line = 0;
};

struct body_def {
    std::string name;
    std::string element; // "<body>", "<link>"
    int line = 0;
    int parent = -1;     // an index into robot_def::bodies, -1 for the world
    vec3 pos{};          // the frame's origin in the parent's frame
    mat3 rot = identity3; // the frame's axes in the parent's frame (columns)
    // rot as the file gave it, written with the file's own numbers (written_turn): MJCF's
    // quat (unnormalised), euler (turns about the axes, in product order) and axisangle;
    // URDF's rpy (three turns). Unset once rot is composed.
    struct given_rotation {
        enum class kind { quaternion, turns, axis_angle };
        kind form = kind::turns;
        std::array<double, 4> values{};            // w x y z, or the axis x y z and the angle
        std::vector<std::pair<int, double>> turns; // (axis 0, 1, 2 for x, y, z; radians), R = their product
    };
    std::optional<given_rotation> rot_given;
    std::vector<joint_def> joints; // applied in order, each in the frame the previous left
    bool has_inertia = false;
    double mass = 0;
    vec3 com{};          // centre of mass, in the body's frame
    mat3 inertia{};      // about the centre of mass, in the body's frame
    std::vector<site_def> sites; // points of the body that become position outputs
    std::vector<std::string> merged; // bodies on fixed joints fused into this one
};

struct mimic_def {
    std::string joint, leader; // joint = multiplier · leader + offset
    double multiplier = 1, offset = 0;
    int line = 0;
};

// An MJCF <equality> (equality.hpp): a connect or weld of two bodies, or a polynomial
// coupling of two joints' or fixed tendons' lengths, L1 - L1_0 = Σ_k polycoef_k (L2 - L2_0)^k.
struct equality_def {
    enum class kind { connect, weld, coupling };
    kind type = kind::connect;
    std::string element; // "connect", "weld", "joint", "tendon"
    std::string name;    // the file's, or made from the element and its line
    int line = 0;
    // connect, weld: each side's body with joints it is fixed to ("" the world), the point in
    // that body's frame (connect: the anchor and where it is at the drawn pose; weld: the
    // anchor of body2 and its place in body1), and (weld) the side's turn in that body's frame.
    struct side {
        std::string body;
        vec3 point{};
        mat3 rot = identity3;
    };
    side a, b;
    // coupling: lengths as Σ coef · (joint's coordinate − its ref), the second's polynomial.
    std::vector<std::pair<std::string, double>> first, second;
    std::vector<double> polycoef;
    std::vector<bool> rows; // which rows are written (set by the rank analysis, equality.cpp)
};

// An actuator on a hinge or slide (actuators.cpp): its generalized force on the joint is
// gear · (gain · ctrl − kp · gear · q − kv · gear · q̇), with gain 1 for a motor, gainprm[0]
// for a <general> of fixed gain, kp for a <position>, kv for a <velocity>.
// On a fixed tendon (`tendon` its name), the length is Σ coef · q over the tendon's joints
// (`terms`, set by mjcf_equality.cpp) and the force on each joint coef times the tendon's.
struct actuator_def {
    std::string name, joint, element; // element: "<motor>", "<transmission>", …
    std::string tendon;
    std::vector<std::pair<std::string, double>> terms; // a tendon's joints and coefficients
    double gear = 1, gain = 1, kp = 0, kv = 0;
    int line = 0;
};

// A named pose of MJCF's <keyframe> (keyframes.cpp): qpos and qvel as the file lays them out
// (MuJoCo's order of joints), either empty where the key does not give it.
struct keyframe_def {
    std::string name;
    std::vector<double> qpos, qvel;
    int line = 0;
};

struct message {
    int line = 0;
    std::string text; // shown safely: no control characters, no bytes that are not UTF-8
    bool error = true; // else a note
    // A note counted by kind (notes.cpp): `many` with %N for the count where more than one
    // element of the kind has it; empty for a note of its own.
    std::string many;
};

struct robot_def {
    std::string name, format; // format: "MJCF" or "URDF"
    vec3 gravity{0, 0, -9.81};
    int gravity_line = 1; // MJCF's <option>
    std::vector<body_def> bodies; // parents before children
    std::vector<std::string> joint_order; // the coordinates' order (joint names)
    std::vector<mimic_def> mimics;
    std::vector<equality_def> equalities; // MJCF's <equality> (equality.hpp)
    std::vector<actuator_def> actuators;
    std::vector<keyframe_def> keyframes;
    std::vector<message> messages;
    bool has_errors() const;
    // A message at the file's line, its text made safe to print (names.hpp's shown()).
    void error(int line, std::string const& text);
    void note(int line, std::string const& text);
    // A note of a kind that many elements may have: one note in the end (merge_notes), at the
    // first one's line, `one` where it is alone, else `many` with %N the count.
    void counted_note(int line, std::string const& one, std::string const& many);
};

// Counted notes of one kind (the same `many`) as one note, at the first one's line.
void merge_notes(robot_def& r);

// How a robot's inputs are chosen: one generalized force per joint degree of freedom, or one
// input per actuator of the file (--inputs actuators).
enum class input_form { joints, actuators };

// The actuators checked against the joints (actuators.cpp): an unknown joint is an error (as
// MuJoCo's), an actuator on a ball or free joint is left out with a note; with
// input_form::joints all of them are, with one note.
void check_actuators(robot_def& r, input_form inputs);

// How many coordinates the robot's model has: one per hinge or slide, four per ball joint
// (a unit quaternion), seven per free joint (position and quaternion).
std::size_t coordinate_count(robot_def const& r);

// Whether `text` is an XML file whose root element is <mujoco> or <robot>.
bool is_robot_file(std::string const& text);

// How a body's mass distribution is written: by its centre of mass and its inertia about it
// (the file's own numbers), or by the parameters the dynamics are linear in — mass m, first
// moments m·c and the inertia about the body's frame origin (Khalil and Gautier's standard
// parameters), which inverse_dynamics_regressor takes as its π.
enum class inertial_form { centre_of_mass, linear };

// Where the files a robot file names (MJCF's meshes) are read from: relative to `folder`
// (the robot file's folder; "" the current one), and only inside it unless
// `allow_outside_paths` (--allow-outside-paths).
// `inputs`: the joints' forces or the actuators (--inputs; actuators.cpp).
struct read_options {
    std::string folder;
    bool allow_outside_paths = false;
    input_form inputs = input_form::joints;
};

// The file as a robot; messages (errors, notes) carry the XML line.
robot_def read_mjcf(std::string const& text, read_options const& options = {});
robot_def read_urdf(std::string const& text);
// By the root element, fixed bodies fused; then what no model can be made of is an error at
// its line: no joint at all, a number the .lag in `form` would hold that is not finite (a
// sum of huge masses, m·c of the linear form).
// With options.inputs joints the file's actuators are noted as left out.
robot_def read_robot(std::string const& text, inertial_form form = inertial_form::centre_of_mass,
                     read_options const& options = {});

// Bodies without joints fixed to a moving body are merged into it (mass, centre of mass and
// inertia combined, sites and children carried over), as MuJoCo's fusestatic does: the
// composite searches then see one body per joint, and the model is smaller. Linear in the
// number of bodies; a merged body whose numbers overflow is an error at its line.
void fuse_fixed_bodies(robot_def& r);

// Every number the .lag in `form` will hold (checks.cpp): finite, else an error at the line
// of the body, joint or element it comes from.
void check_numbers(robot_def& r, inertial_form form);

// How many position outputs the model will have: the sites, and URDF's links, of the bodies
// that move (each costs a Jacobian and a drift; --max-outputs bounds them).
std::size_t output_count(robot_def const& r);

// The messages as diagnostics of `text`, the file as read (each at its line's start, in the
// order of the lines), for the diagnostics engine to print like a .lag file's: the line shown,
// -w and --max-diagnostics applied.
void report(robot_def const& r, std::string const& text, diagnostics& diags);

// The robot as a .lag model text (write_lag.cpp), `source` named in its comments. A number
// that is not finite is never written (std::domain_error; read_robot has refused it).
std::string write_lag(robot_def const& robot, std::string const& source,
                      inertial_form form = inertial_form::centre_of_mass, input_form inputs = input_form::joints);

// With --inputs actuators (actuators.cpp): each actuator's input, its parameters and the
// force on its joint's coordinate, as .lag lines. `fresh` hands out names; `coordinate`
// gives a hinge's or slide's coordinate by the joint's name.
struct actuator_lines {
    std::vector<std::string> inputs;
    std::string parameters, forces;
};
actuator_lines plan_actuators(robot_def const& r, name_maker& names,
                              std::function<std::string(std::string const&)> const& coordinate);

// A keyframe as lagc's state (keyframes.cpp): q in lagc's coordinates (hinges and slides as
// qpos, a ball's or free joint's quaternion normalised, w first as MuJoCo), q̇ from qvel
// (a quaternion's rate from the body's angular velocity) where the key gives it.
struct keyframe_state {
    std::string name; // a name C++ can use, unique among the keyframes
    std::vector<double> q, qd;
    int line = 0;
};
std::vector<keyframe_state> keyframe_states(robot_def const& r);
// Each keyframe's qpos and qvel of the robot's sizes (MuJoCo's nq and nv), else an error.
void check_keyframes(robot_def& r);

// The kinematic tree as text (tree_text.cpp): bodies, their joints and coordinates, masses,
// the bodies fused, what the file gives that is left out or converted; or as Graphviz DOT.
std::string tree_text(robot_def const& r, input_form inputs);
std::string tree_dot(robot_def const& r);

// A body's rot as the file wrote it, as a .lag expression (written_turns.cpp): a quat's
// matrix as exact ratios of its digits, euler and rpy as turns (rotz(y)*roty(p)*rotx(r)),
// axisangle as rot(axis, angle); "" where the file gave it otherwise (or a quat's digits
// are too many).
std::string written_turn(body_def const& b);
// A ball's or free joint's angular velocity 2 G(q) q̇ / N in the body's axes (N = |q|²), as a
// .lag expression of its coordinates w, x, y, z (written_turns.cpp).
std::string quaternion_rate_text(std::array<std::string, 4> const& q, std::string const& N);

// The rotation of a unit quaternion (w, x, y, z); of rpy (URDF: Rz(y) Ry(p) Rx(r)); of an
// axis and angle; products.
// Normalising divides by the length, computed without overflow (norm()).
mat3 quaternion_matrix(std::array<double, 4> q);
mat3 axis_angle_matrix(vec3 axis, double angle);
// A rotation matrix's unit quaternion (w, x, y, z), not normalised to w ≥ 0.
std::array<double, 4> matrix_quaternion(mat3 const& R);
mat3 multiply(mat3 const& a, mat3 const& b);
mat3 transpose(mat3 const& a);
vec3 rotate(mat3 const& a, vec3 const& v);

// The Euclidean length of v[0..n): v scaled first by the power of two of its largest
// component, which is exact, so the length of an ordinary vector is the same double as
// sqrt(Σ v²) and that of (1e200, 1e200) is 1.41e200, not inf (nor that of 1e-200s 0).
double norm(double const* v, std::size_t n);
inline double norm(vec3 const& v) { return norm(v.data(), 3); }

} // namespace lagc::import
