// A body's fixed turn as the file wrote it, for write_lag.cpp: a quaternion's matrix as exact
// ratios of its own digits, euler and rpy as turns by their own angles, an axis and angle. Written from the
// rotation matrix instead (an axis and angle in 16 digits), a published robot's frames put
// the square root of a 32-digit rational into the model, and products of such turns hold
// exact numbers past the doubles (ANYmal C, issue 46); the file's own numbers keep every
// constant small and the turn exactly orthogonal.
#include "import/robot.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace lagc::import {

namespace {

using wide = __int128;

// x = mantissa · 10^exponent, from x's shortest decimal (the digits the file gave, for a
// number read from it); false where the mantissa has more than 15 digits.
bool decimal_of(double x, long long& mantissa, int& exponent) {
    char buffer[64];
    auto const r = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
    std::string const text(buffer, r.ptr);
    std::size_t const e = text.find('e');
    std::string digits = text.substr(0, e);
    exponent = std::atoi(text.c_str() + e + 1);
    if (std::size_t const dot = digits.find('.'); dot != std::string::npos) {
        exponent -= static_cast<int>(digits.size() - dot - 1);
        digits.erase(dot, 1);
    }
    bool const negative = digits[0] == '-';
    if (negative) digits.erase(0, 1);
    if (digits.size() > 15) return false;
    mantissa = std::atoll(digits.c_str()) * (negative ? -1 : 1);
    return true;
}

wide gcd(wide a, wide b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
        wide const t = a % b;
        a = b;
        b = t;
    }
    return a;
}

std::string text_of(wide v) {
    if (v == 0) return "0";
    bool const negative = v < 0;
    std::string s;
    for (wide u = negative ? -v : v; u > 0; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    if (negative) s.insert(s.begin(), '-'); // not "-" + s: a false -Wrestrict of GCC 12 (its bug 105329)
    return s;
}

std::string ratio(wide n, wide d) {
    wide const g = gcd(n, d);
    n /= g, d /= g;
    return d == 1 ? text_of(n) : text_of(n) + "/" + text_of(d);
}

// The rotation of q (any length) as [[...]] of exact ratios: Q(q)/|q|², integers scaled to
// the digits q was given in. "" where a component has more than 15 digits or its decimal
// exponents are more than 12 apart (the products would leave 128 bits).
std::string quaternion_text(std::array<double, 4> const& q) {
    long long m[4];
    int e[4], lowest = 1000, highest = -1000;
    for (int i = 0; i < 4; ++i) {
        if (!decimal_of(q[i], m[i], e[i])) return "";
        if (m[i] != 0) lowest = std::min(lowest, e[i]), highest = std::max(highest, e[i]);
    }
    if (highest - lowest > 12) return "";
    wide n[4];
    for (int i = 0; i < 4; ++i) {
        n[i] = m[i];
        for (int k = lowest; k < e[i] && m[i] != 0; ++k) n[i] *= 10;
    }
    wide const w = n[0], x = n[1], y = n[2], z = n[3], norm = w * w + x * x + y * y + z * z;
    wide const entries[9] = {w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
                             2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
                             2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z};
    std::string s = "[";
    for (int r = 0; r < 3; ++r) {
        s += r ? ", [" : "[";
        for (int c = 0; c < 3; ++c) s += (c ? ", " : "") + ratio(entries[r * 3 + c], norm);
        s += "]";
    }
    return s + "]";
}

std::string number_text(double x) {
    char buffer[64];
    auto const r = std::to_chars(buffer, buffer + sizeof buffer, x);
    std::string s(buffer, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// Turns about the frame's axes, in product order (URDF's rpy: Rz(y) Ry(p) Rx(r)), without
// the turns by 0.
std::string turns_text(std::vector<std::pair<int, double>> const& turns) {
    std::string s;
    char const* const names[] = {"rotx", "roty", "rotz"};
    for (auto const& [axis, a] : turns) {
        if (a == 0) continue;
        s.append(s.empty() ? "" : "*").append(names[axis]).append("(");
        s.append(a < 0 ? "-(" : "").append(number_text(std::abs(a))).append(a < 0 ? "))" : ")");
    }
    return s;
}

// rot(axis, angle) with the axis as the file gave it (rot normalises it).
std::string axis_angle_text(std::array<double, 4> const& a) {
    std::string s = "rot([";
    for (int i = 0; i < 3; ++i) s.append(i ? ", " : "").append(number_text(a[i]));
    return s.append("], ").append(a[3] < 0 ? "-(" + number_text(-a[3]) + ")" : number_text(a[3])).append(")");
}

} // namespace

std::string written_turn(body_def const& b) {
    if (!b.rot_given) return "";
    using kind = body_def::given_rotation::kind;
    switch (b.rot_given->form) {
    case kind::quaternion: return quaternion_text(b.rot_given->values);
    case kind::turns: return turns_text(b.rot_given->turns);
    case kind::axis_angle: return axis_angle_text(b.rot_given->values);
    }
    return "";
}

std::string quaternion_rate_text(std::array<std::string, 4> const& q, std::string const& N) {
    auto const& [w, x, y, z] = q;
    std::string s = "2/"; // appended: "2/" + N draws a false -Wrestrict from GCC 12 (its bug 105329)
    s.append(N).append("*[[-").append(x).append(", ").append(w).append(", ").append(z).append(", -").append(y);
    s.append("], [-").append(y).append(", -").append(z).append(", ").append(w).append(", ").append(x);
    s.append("], [-").append(z).append(", ").append(y).append(", -").append(x).append(", ").append(w).append("]]*[der(");
    return s.append(w).append("), der(").append(x).append("), der(").append(y).append("), der(").append(z).append(")]");
}

} // namespace lagc::import
