// The kinematic tree and per-body quantities of a robot file (equations_robot.hpp).
#include "driver/equations_robot.hpp"

#include <cstdio>
#include <vector>

namespace lagc {

namespace {

// Six significant digits, for reading (the parameters' list has every digit).
std::string shortest(double v) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.6g", v == 0 ? 0.0 : v); // no "-0"
    return buffer;
}

std::string vector_text(double const* v, std::size_t n) {
    std::string out = "(";
    for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + shortest(v[i]);
    return out + ")";
}

char const* kind_name(import::joint_def::kind k) {
    switch (k) {
    case import::joint_def::kind::hinge: return "revolute";
    case import::joint_def::kind::slide: return "prismatic";
    case import::joint_def::kind::ball: return "ball";
    case import::joint_def::kind::free: return "free";
    }
    return "?";
}

// Markdown's and LaTeX's special characters in a name, made plain.
std::string plain(std::string const& s, bool latex) {
    std::string out;
    for (char c : s) {
        if (latex && (c == '_' || c == '#' || c == '%' || c == '&' || c == '$' || c == '{' || c == '}')) out += '\\';
        if (!latex && (c == '|' || c == '`' || c == '*' || c == '_' || c == '\\')) out += '\\';
        out += c;
    }
    return out;
}

struct row {
    std::string body, parent, joints, mass, com, inertia;
};

std::vector<row> rows_of(import::robot_def const& robot, bool latex) {
    std::vector<row> rows;
    for (auto const& b : robot.bodies) {
        row r;
        r.body = plain(b.name, latex);
        r.parent = b.parent < 0 ? "world" : plain(robot.bodies[static_cast<std::size_t>(b.parent)].name, latex);
        for (auto const& j : b.joints) {
            r.joints += (r.joints.empty() ? "" : "; ") + plain(j.name, latex) + " (" + kind_name(j.type);
            if (j.type == import::joint_def::kind::hinge || j.type == import::joint_def::kind::slide)
                r.joints += " about " + vector_text(j.axis.data(), 3);
            r.joints += ")";
        }
        if (r.joints.empty()) r.joints = "fixed";
        r.mass = shortest(b.mass);
        r.com = vector_text(b.com.data(), 3);
        auto const& I = b.inertia;
        double const six[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        r.inertia = vector_text(six, 6);
        rows.push_back(r);
    }
    return rows;
}

} // namespace

std::string robot_section(import::robot_def const& robot, equations_format format) {
    bool const latex = format == equations_format::latex;
    std::string const intro =
        "The " + robot.format + " file's bodies, parents before children, each with the joints that move it"
        " relative to its parent (axes in the body's frame), its mass, its centre of mass (in the body's frame)"
        " and its inertia about the centre of mass as " +
        "$(I_{xx}, I_{yy}, I_{zz}, I_{xy}, I_{xz}, I_{yz})$" +
        ". Gravity " + vector_text(robot.gravity.data(), 3) + ".";
    std::vector<row> const rows = rows_of(robot, latex);
    if (!latex) {
        std::string out = "## Kinematic tree and bodies\n\n" + intro + "\n\n| body | parent | joints | mass | centre of mass | inertia |\n"
                          "|---|---|---|---|---|---|\n";
        for (auto const& r : rows)
            out += "| " + r.body + " | " + r.parent + " | " + r.joints + " | " + r.mass + " | " + r.com + " | " + r.inertia + " |\n";
        return out + "\n";
    }
    std::string out = "\\subsection*{Kinematic tree and bodies}\n\n" + intro +
                      "\n\n{\\small\\begin{longtable}{p{2.2cm}p{2.2cm}p{4cm}p{1cm}p{2.6cm}p{3.6cm}}\nbody & parent & joints & mass & "
                      "centre of mass & inertia \\\\ \\hline\n";
    for (auto const& r : rows)
        out += r.body + " & " + r.parent + " & " + r.joints + " & " + r.mass + " & " + r.com + " & " + r.inertia + " \\\\\n";
    return out + "\\end{longtable}}\n\n";
}

} // namespace lagc
