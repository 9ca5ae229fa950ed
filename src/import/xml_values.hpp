// Reading numbers from XML attributes (mjcf.cpp, urdf.cpp): every value is checked, and a
// bad one is an error at its element's line, never a silent 0.
#pragma once

#include "import/robot.hpp"

#include <tinyxml2.h>

#include <functional>
#include <string>
#include <vector>

namespace lagc::import {

class xml_values {
public:
    explicit xml_values(robot_def& r) : r_(r) {}
    void error(tinyxml2::XMLElement const* e, std::string const& text) { r_.error(e ? e->GetLineNum() : 0, text); }
    void note(tinyxml2::XMLElement const* e, std::string const& text) { r_.note(e ? e->GetLineNum() : 0, text); }
    // The attribute's numbers (empty when absent); exactly `count` of them, or an error.
    std::vector<double> numbers(tinyxml2::XMLElement const* e, char const* attribute, std::size_t count,
                                char const* text = nullptr);
    // One number, or `fallback` when absent.
    double number(tinyxml2::XMLElement const* e, char const* attribute, double fallback);
    vec3 vector(tinyxml2::XMLElement const* e, char const* attribute, vec3 fallback);
    // A unit vector (normalised; a zero vector is an error).
    vec3 unit(tinyxml2::XMLElement const* e, char const* attribute, vec3 fallback);
    // An inertia tensor (about the centre of mass) that MuJoCo takes, else an error at e's
    // line with MuJoCo's reason: its principal moments not negative (positive semi-definite)
    // and each at most the sum of the other two (the triangle inequality, which every
    // distribution of mass meets), both up to rounding.
    void check_inertia(tinyxml2::XMLElement const* e, mat3 const& J, std::string const& body);
    robot_def& robot() { return r_; }

private:
    robot_def& r_;
};

// The text as an XML document; false, with an error at the line tinyxml2 names, if it is not one.
bool parse_xml(std::string const& text, tinyxml2::XMLDocument& doc, robot_def& r);

// Numbers separated by blanks; false if something else is there, or a number that is not
// finite (nan, inf, 1e400: then that number's text in `not_finite`).
bool parse_numbers(std::string const& text, std::vector<double>& out, std::string* not_finite = nullptr);

// MJCF's attribute of an element, from the element or its default class (mjcf.cpp); `shared`:
// from any actuator element of the class (MuJoCo's defaults hold one actuator: gear, joint,
// ctrlrange, … given to a default <motor> apply to a <position> too).
using mjcf_attribute = std::function<char const*(tinyxml2::XMLElement const*, char const*, bool shared)>;
// Whether an MJCF element is an actuator (motor, general, position, velocity, …).
bool is_actuator_element(char const* tag);
// MJCF's <actuator> and URDF's <transmission> into r.actuators (actuators.cpp); MJCF's
// <keyframe> into r.keyframes (keyframes.cpp).
void read_mjcf_actuators(tinyxml2::XMLElement const* actuator, xml_values& v, mjcf_attribute const& attribute);
void read_urdf_transmission(tinyxml2::XMLElement const* transmission, xml_values& v);
void read_mjcf_keyframes(tinyxml2::XMLElement const* keyframe, xml_values& v);

} // namespace lagc::import
