// A robot file's keyframes as constants of the generated header: named states a simulation or
// a controller starts from (`NAME::keyframes::home_q`), in the model's coordinates.
#include "emit/emit.hpp"

#include <charconv>

namespace lagc {

namespace {

// Round-trip digits (the shortest that reads back as the same double), 0 for −0; "f" for float.
std::string literal(double x, std::string const& scalar) {
    if (x == 0) x = 0; // not -0.0
    char buffer[64];
    auto const end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
    std::string s(buffer, end);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return scalar == "float" ? s + "f" : s;
}

std::string array(std::vector<double> const& v, std::string const& scalar) {
    std::string s;
    for (double x : v) s += (s.empty() ? "" : ", ") + literal(x, scalar);
    return "{" + s + "}";
}

} // namespace

std::string keyframe_constants(std::vector<named_state> const& states, std::string const& scalar,
                               std::string const& c_prefix, bool definition) {
    if (states.empty()) return "";
    std::string out = definition ? "" : c_prefix.empty() ? "\n// The robot file's keyframes: named states in the coordinates of q (and qd where the\n"
                                                          "// keyframe gives qvel), quaternions normalised.\n"
                                                        : "/* The robot file's keyframes: named states in the coordinates of q (and qd\n"
                                                          "   where the keyframe gives qvel), quaternions normalised. */\n";
    if (c_prefix.empty()) out += "namespace keyframes {\n";
    for (auto const& s : states) {
        for (auto const& [suffix, values] : {std::pair{"_q", &s.q}, std::pair{"_qd", &s.qd}}) {
            if (values->empty()) continue;
            if (c_prefix.empty())
                out += "inline constexpr " + scalar + " " + s.name + suffix + "[nq] = " + array(*values, scalar) + ";\n";
            else
                out += (definition ? "const " : "extern const ") + scalar + " " + c_prefix + "keyframe_" + s.name + suffix + "[" +
                       std::to_string(values->size()) + "]" + (definition ? " = " + array(*values, scalar) : "") + ";\n";
        }
    }
    if (c_prefix.empty()) out += "}  // namespace keyframes\n";
    return out;
}

} // namespace lagc
