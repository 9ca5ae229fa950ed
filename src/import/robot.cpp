// What both readers share: the rotations, the numbers of attributes, and telling the two
// formats apart by their root element.
#include "import/robot.hpp"
#include "import/xml_values.hpp"

#include <charconv>
#include <cmath>

namespace lagc::import {

bool robot_def::has_errors() const {
    for (auto const& m : messages)
        if (m.error) return true;
    return false;
}

mat3 multiply(mat3 const& a, mat3 const& b) {
    mat3 c{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
    return c;
}

mat3 transpose(mat3 const& a) { return {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}; }

vec3 rotate(mat3 const& a, vec3 const& v) {
    return {a[0] * v[0] + a[1] * v[1] + a[2] * v[2], a[3] * v[0] + a[4] * v[1] + a[5] * v[2],
            a[6] * v[0] + a[7] * v[1] + a[8] * v[2]};
}

// As MuJoCo's mju_quat2Mat, so that a turn the file gives as a quaternion is the same
// double-precision matrix here.
mat3 quaternion_matrix(std::array<double, 4> q) {
    double const n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (auto& x : q) x /= n;
    double const w = q[0], x = q[1], y = q[2], z = q[3];
    return {w * w + x * x - y * y - z * z, 2 * (x * y - w * z),         2 * (x * z + w * y),
            2 * (x * y + w * z),         w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
            2 * (x * z - w * y),         2 * (y * z + w * x),         w * w - x * x - y * y + z * z};
}

mat3 axis_angle_matrix(vec3 a, double angle) {
    double const n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double const s = std::sin(angle / 2) / n;
    return quaternion_matrix({std::cos(angle / 2), a[0] * s, a[1] * s, a[2] * s});
}

bool parse_numbers(std::string const& text, std::vector<double>& out) {
    char const* p = text.data();
    char const* const end = p + text.size();
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (true) {
        while (p < end && blank(*p)) ++p;
        if (p == end) return true;
        if (*p == '+') ++p; // from_chars takes no '+'
        double v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || !std::isfinite(v) || (next < end && !blank(*next))) return false;
        out.push_back(v);
        p = next;
    }
}

std::vector<double> xml_values::numbers(tinyxml2::XMLElement const* e, char const* attribute, std::size_t count,
                                        char const* text) {
    char const* v = text ? text : e->Attribute(attribute);
    if (!v) return {};
    std::vector<double> out;
    if (!parse_numbers(v, out)) {
        error(e, std::string("<") + e->Name() + "> " + attribute + "=\"" + v + "\" is not a list of numbers");
        return {};
    }
    if (out.size() != count) {
        error(e, std::string("<") + e->Name() + "> " + attribute + " takes " + std::to_string(count) + " number" +
                     (count == 1 ? "" : "s") + ", not " + std::to_string(out.size()) + " (\"" + v + "\")");
        return {};
    }
    return out;
}

double xml_values::number(tinyxml2::XMLElement const* e, char const* attribute, double fallback) {
    auto v = numbers(e, attribute, 1);
    return v.empty() ? fallback : v[0];
}

vec3 xml_values::vector(tinyxml2::XMLElement const* e, char const* attribute, vec3 fallback) {
    auto v = numbers(e, attribute, 3);
    return v.empty() ? fallback : vec3{v[0], v[1], v[2]};
}

vec3 xml_values::unit(tinyxml2::XMLElement const* e, char const* attribute, vec3 fallback) {
    vec3 a = vector(e, attribute, fallback);
    double const n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(n > 1e-14)) {
        error(e, std::string("<") + e->Name() + "> " + attribute + " is a zero vector: an axis needs a direction");
        return fallback;
    }
    for (auto& x : a) x /= n;
    return a;
}

namespace {

std::string root_name(std::string const& text) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) return "";
    return doc.RootElement()->Name();
}

} // namespace

bool is_robot_file(std::string const& text) {
    // An XML file starts with '<' (after a byte-order mark and blanks); a .lag file never does.
    std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    return i < text.size() && text[i] == '<';
}

robot_def read_robot(std::string const& text) {
    std::string const root = root_name(text);
    if (root == "mujoco") return read_mjcf(text);
    if (root == "robot") return read_urdf(text);
    robot_def r;
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
        r.messages.push_back({doc.ErrorLineNum(), std::string("this XML file cannot be read: ") + doc.ErrorStr(), true});
    else
        r.messages.push_back({doc.RootElement() ? doc.RootElement()->GetLineNum() : 1,
                              "lagc reads robot files whose root element is <mujoco> (MJCF) or <robot> (URDF), not <" +
                                  root + ">", true});
    return r;
}

} // namespace lagc::import
