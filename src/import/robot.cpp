// What both readers share: the rotations, the numbers of attributes, and telling the two
// formats apart by their root element.
#include "import/robot.hpp"
#include "import/names.hpp"
#include "import/xml_values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace lagc::import {

bool robot_def::has_errors() const {
    for (auto const& m : messages)
        if (m.error) return true;
    return false;
}

// A message's text holds names and values from the file: shown safely, and a message that
// quotes a megabyte is cut.
void robot_def::error(int line, std::string const& text) { messages.push_back({line, shown(text, 1000), true}); }
void robot_def::note(int line, std::string const& text) { messages.push_back({line, shown(text, 1000), false}); }

std::size_t coordinate_count(robot_def const& r) {
    std::size_t n = 0;
    for (auto const& b : r.bodies)
        for (auto const& j : b.joints) n += j.type == joint_def::kind::free ? 7 : j.type == joint_def::kind::ball ? 4 : 1;
    return n;
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

double norm(double const* v, std::size_t n) {
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(v[i]));
    if (largest == 0 || !std::isfinite(largest)) return largest;
    int e = 0;
    std::frexp(largest, &e);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double const x = std::ldexp(v[i], -e);
        sum += x * x;
    }
    return std::ldexp(std::sqrt(sum), e);
}

// As MuJoCo's mju_quat2Mat, so that a turn the file gives as a quaternion is the same
// double-precision matrix here (norm() is sqrt(Σ q²) for it, and 1e200s do not overflow).
mat3 quaternion_matrix(std::array<double, 4> q) {
    double const n = norm(q.data(), 4);
    for (auto& x : q) x /= n;
    double const w = q[0], x = q[1], y = q[2], z = q[3];
    return {w * w + x * x - y * y - z * z, 2 * (x * y - w * z),         2 * (x * z + w * y),
            2 * (x * y + w * z),         w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
            2 * (x * z - w * y),         2 * (y * z + w * x),         w * w - x * x - y * y + z * z};
}

mat3 axis_angle_matrix(vec3 a, double angle) {
    double const s = std::sin(angle / 2) / norm(a);
    return quaternion_matrix({std::cos(angle / 2), a[0] * s, a[1] * s, a[2] * s});
}

bool parse_xml(std::string const& text, tinyxml2::XMLDocument& doc, robot_def& r) {
    if (doc.Parse(text.c_str(), text.size()) == tinyxml2::XML_SUCCESS && doc.RootElement()) return true;
    r.error(doc.ErrorLineNum(), std::string("this XML file cannot be read: ") + doc.ErrorStr());
    return false;
}

bool parse_numbers(std::string const& text, std::vector<double>& out, std::string* not_finite) {
    char const* p = text.data();
    char const* const end = p + text.size();
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (true) {
        while (p < end && blank(*p)) ++p;
        if (p == end) return true;
        if (*p == '+') ++p; // from_chars takes no '+'
        double v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        if ((ec != std::errc() && ec != std::errc::result_out_of_range) || (next < end && !blank(*next))) return false;
        // Out of range is an overflow (1e400: not finite) or an underflow (1e-400: 0, as
        // strtod, and MuJoCo, read it).
        if (ec == std::errc::result_out_of_range) v = std::strtod(std::string(p, next).c_str(), nullptr);
        if (!std::isfinite(v)) {
            if (not_finite) not_finite->assign(p, next);
            return false;
        }
        out.push_back(v);
        p = next;
    }
}

std::vector<double> xml_values::numbers(tinyxml2::XMLElement const* e, char const* attribute, std::size_t count,
                                        char const* text) {
    char const* v = text ? text : e->Attribute(attribute);
    if (!v) return {};
    std::vector<double> out;
    std::string const what = std::string("<") + e->Name() + "> " + attribute;
    std::string not_finite;
    if (!parse_numbers(v, out, &not_finite)) {
        error(e, not_finite.empty() ? what + "=\"" + shown(v) + "\" is not a list of numbers"
                                    : what + "=\"" + shown(v) + "\": " + shown(not_finite) +
                                          " is not a finite number (a double holds up to 1.8e308)");
        return {};
    }
    if (out.size() != count) {
        error(e, what + " takes " + std::to_string(count) + " number" + (count == 1 ? "" : "s") + ", not " +
                     std::to_string(out.size()) + " (\"" + shown(v) + "\")");
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
    double const n = norm(a);
    if (!(n > 1e-14)) {
        error(e, std::string("<") + e->Name() + "> " + attribute + " is a zero vector: an axis needs a direction");
        return fallback;
    }
    for (auto& x : a) x /= n;
    return a;
}

namespace {

// c = a + b and the inertia tensors about their centres of mass combined about c (all in one frame).
void add_inertia(double& m, vec3& c, mat3& J, double m2, vec3 const& c2, mat3 const& J2) {
    double const total = m + m2;
    vec3 centre = c;
    if (total > 0)
        for (int k = 0; k < 3; ++k) centre[k] = (m * c[k] + m2 * c2[k]) / total;
    auto shift = [&](double mass, vec3 const& at) { // m (|d|² I − d dᵀ), d = at − centre
        vec3 const d{at[0] - centre[0], at[1] - centre[1], at[2] - centre[2]};
        double const d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        mat3 S{};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) S[i * 3 + j] = mass * ((i == j ? d2 : 0.0) - d[i] * d[j]);
        return S;
    };
    mat3 const S1 = shift(m, c), S2 = shift(m2, c2);
    for (int k = 0; k < 9; ++k) J[k] += S1[k] + J2[k] + S2[k];
    m = total, c = centre;
}

// The root element's name ("" when the text is no XML) and line.
std::string root_name(std::string const& text, int& line) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) return "";
    line = doc.RootElement()->GetLineNum();
    return doc.RootElement()->Name();
}

} // namespace

bool is_robot_file(std::string const& text) {
    // An XML file starts with '<' (after a byte-order mark and blanks); a .lag file never does.
    std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    return i < text.size() && text[i] == '<';
}

namespace {

// b, fixed to its parent p (which moves), merged into p: its inertia, sites and children in
// p's frame; false, with an error at b's line, where a number that makes overflows.
bool merge_into_parent(robot_def& r, std::size_t i, std::vector<std::size_t> const& children) {
    body_def& b = r.bodies[i];
    body_def& p = r.bodies[static_cast<std::size_t>(b.parent)];
    // b's frame in p's: x_p = b.pos + b.rot x_b.
    auto in_parent = [&b](vec3 const& x) {
        vec3 at = rotate(b.rot, x);
        for (int k = 0; k < 3; ++k) at[k] += b.pos[k];
        return at;
    };
    auto finite = [](auto const& v) { return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); }); };
    if (b.has_inertia) {
        if (!p.has_inertia) p.has_inertia = true, p.mass = 0, p.com = {}, p.inertia = {};
        add_inertia(p.mass, p.com, p.inertia, b.mass, in_parent(b.com), multiply(multiply(b.rot, b.inertia), transpose(b.rot)));
    }
    bool ok = std::isfinite(p.mass) && finite(p.com) && finite(p.inertia);
    for (auto site : b.sites) {
        site.pos = in_parent(site.pos);
        ok = ok && finite(site.pos);
        p.sites.push_back(site);
    }
    p.merged.push_back(b.name);
    for (std::size_t k : children) {
        body_def& child = r.bodies[k];
        child.pos = in_parent(child.pos);
        if (b.rot != identity3) {
            child.rot = multiply(b.rot, child.rot);
            child.rot_given.reset(); // composed: no longer as written
        }
        child.parent = b.parent;
        ok = ok && finite(child.pos);
    }
    if (!ok)
        r.error(b.line, "merging the body " + quoted(b.name) + " into " + quoted(p.name) +
                            ", to which it is fixed, gives numbers that do not fit in a double (its mass, centre of mass, "
                            "inertia or position, added to the other's)");
    return ok;
}

} // namespace

void fuse_fixed_bodies(robot_def& r) {
    std::size_t const n = r.bodies.size();
    std::vector<bool> moving(n, false);
    for (std::size_t i = 0; i < n; ++i)
        moving[i] = !r.bodies[i].joints.empty() || (r.bodies[i].parent >= 0 && moving[static_cast<std::size_t>(r.bodies[i].parent)]);
    // Each body's children, found once: parents come before children, so when a body is
    // merged its parent is final, and its children are carried to that parent (linear, where
    // a search of the later bodies for each merged one took 100,000 bodies 17.7 s).
    std::vector<std::vector<std::size_t>> children(n);
    for (std::size_t i = 0; i < n; ++i)
        if (r.bodies[i].parent >= 0) children[static_cast<std::size_t>(r.bodies[i].parent)].push_back(i);
    std::vector<bool> gone(n, false); // fused into its parent
    std::size_t fused = 0;
    for (std::size_t i = 0; i < n; ++i) {
        body_def const& b = r.bodies[i];
        if (!b.joints.empty() || b.parent < 0 || !moving[static_cast<std::size_t>(b.parent)]) continue;
        if (!merge_into_parent(r, i, children[i])) return;
        gone[i] = true;
        ++fused;
    }
    if (fused == 0) return;
    // Drop the fused bodies; renumber the parents.
    std::vector<int> index(n, -1);
    std::vector<body_def> kept;
    for (std::size_t i = 0; i < n; ++i)
        if (!gone[i]) index[i] = static_cast<int>(kept.size()), kept.push_back(std::move(r.bodies[i]));
    for (auto& b : kept)
        if (b.parent >= 0) b.parent = index[static_cast<std::size_t>(b.parent)];
    r.bodies = std::move(kept);
    r.note(1, std::to_string(fused) + (fused == 1 ? " body" : " bodies") +
                  " on fixed joints merged into the bodies they are fixed to (masses and inertias added; as MuJoCo's fusestatic)");
}

robot_def read_robot(std::string const& text, inertial_form form, read_options const& options) {
    int line = 1;
    std::string const root = root_name(text, line);
    if (root == "mujoco" || root == "robot") {
        robot_def r = root == "mujoco" ? read_mjcf(text, options) : read_urdf(text);
        if (!r.has_errors()) fuse_fixed_bodies(r);
        if (!r.has_errors()) check_numbers(r, form);
        // MuJoCo loads a robot that cannot move, but a model needs a coordinate.
        if (!r.has_errors() && coordinate_count(r) == 0)
            r.error(line, std::string("the robot has no joints: nothing in it moves, and a model needs a coordinate (") +
                              (root == "mujoco" ? "give a body a <joint>, or a <freejoint/> to a body of the world"
                                                : "give a joint a type other than fixed") + ")");
        return r;
    }
    robot_def r;
    tinyxml2::XMLDocument doc;
    if (parse_xml(text, doc, r))
        r.error(doc.RootElement()->GetLineNum(),
                "lagc reads robot files whose root element is <mujoco> (MJCF) or <robot> (URDF), not <" + root + ">");
    return r;
}

} // namespace lagc::import
