// --equations on a robot file: its kinematic tree and each body's mass, centre of mass and
// inertia, as a section of the document (before the equations of the model written from it).
#pragma once

#include "emit/equations.hpp"
#include "import/robot.hpp"

#include <string>

namespace lagc {

// The section, in the document's format; deterministic.
std::string robot_section(import::robot_def const& robot, equations_format format);

} // namespace lagc
