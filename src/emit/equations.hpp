// --equations: the model as mathematics, in the lecture notes' notation (coordinates, T, V, L,
// M(q) entry by entry, h, ∂V/∂q, Q, the constraints and their Jacobian, the Euler–Lagrange
// equations and the KKT system), as Markdown with LaTeX math or as a standalone .tex.
#pragma once

#include "derive/derive.hpp"
#include "model.hpp"

#include <string>

namespace lagc {

enum class equations_format { markdown, latex };

// The document; deterministic (the same bytes from run to run). `source` names the file the
// model came from (shown in the title); `preface`, in the same format, comes before the
// equations (a robot file's tree, driver/equations_robot.hpp).
std::string write_equations(model const& m, derived const& d, equations_format format, std::string const& source,
                            std::string const& preface = "");

} // namespace lagc
