// Inertia from geometry: MuJoCo's formulas for the primitives (mjCGeom::GetVolume and
// SetInertia, written here from their published equations), the exact integrals of a closed
// triangle surface, and geoms combined about their common centre of mass.
#include "import/geom_inertia.hpp"

#include <cmath>
#include <map>
#include <utility>

namespace lagc::import {

namespace {

double const pi = 3.14159265358979323846;

vec3 cross(vec3 const& a, vec3 const& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(vec3 const& a, vec3 const& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

vec3 capsule_moments(double r, double half, double m, bool shell) {
    double const h = 2 * half;
    if (!shell) {
        double const sphere = m * 4 * r / (4 * r + 3 * h); // the two hemispheres' share of the volume
        double const cylinder = m - sphere;
        double const side = cylinder * (3 * r * r + h * h) / 12 + 2 * sphere * r * r / 5 + sphere * h * (3 * r + 2 * h) / 8;
        return {side, side, cylinder * r * r / 2 + 2 * sphere * r * r / 5};
    }
    double const a_sphere = 4 * pi * r * r, a_cylinder = 2 * pi * r * h;
    double const sphere = m * a_sphere / (a_sphere + a_cylinder);
    double const cylinder = m - sphere;
    double const com = r / 2, at = half + com; // a hemispherical shell's centre, and where it sits
    double const side = cylinder * (6 * r * r + h * h) / 12 + 2 * sphere * r * r / 3 + sphere * (at * at - com * com);
    return {side, side, cylinder * r * r + 2 * sphere * r * r / 3};
}

vec3 cylinder_moments(double r, double half, double m, bool shell) {
    double const h = 2 * half;
    if (!shell) {
        double const side = m * (3 * r * r + h * h) / 12;
        return {side, side, m * r * r / 2};
    }
    double const a_disc = pi * r * r, a_side = 2 * pi * r * h;
    double const disc = m * a_disc / (2 * a_disc + a_side);
    double const tube = m - 2 * disc;
    double const side = tube * (6 * r * r + h * h) / 12 + 2 * (disc * r * r / 4 + disc * half * half);
    return {side, side, tube * r * r + 2 * (disc * r * r / 2)};
}

vec3 ellipsoid_moments(vec3 const& s, double m, bool shell) {
    double const s0 = s[0] * s[0], s1 = s[1] * s[1], s2 = s[2] * s[2];
    if (!shell) return {m * (s1 + s2) / 5, m * (s0 + s2) / 5, m * (s0 + s1) / 5};
    // MuJoCo's approximation: a solid 1e-6 larger less the solid.
    double const eps = 1e-6;
    double const va = 4 * pi * s[0] * s[1] * s[2] / 3;
    double const a = s[0] + eps, b = s[1] + eps, c = s[2] + eps;
    double const vb = 4 * pi * a * b * c / 3;
    double const density = m / (vb - va);
    double const ma = va * density, mb = vb * density;
    return {mb * (b * b + c * c) / 5 - ma * (s1 + s2) / 5, mb * (a * a + c * c) / 5 - ma * (s0 + s2) / 5,
            mb * (a * a + b * b) / 5 - ma * (s0 + s1) / 5};
}

vec3 box_moments(vec3 const& s, double m, bool shell) {
    double const s0 = s[0] * s[0], s1 = s[1] * s[1], s2 = s[2] * s[2];
    if (!shell) return {m * (s1 + s2) / 3, m * (s0 + s2) / 3, m * (s0 + s1) / 3};
    double const lx = 2 * s[0], ly = 2 * s[1], lz = 2 * s[2];
    double const a0 = lx * ly, a1 = ly * lz, a2 = lz * lx, total = 2 * (a0 + a1 + a2);
    double const m0 = m * a0 / total, m1 = m * a1 / total, m2 = m * a2 / total; // faces normal to z, x, y
    return {2 * (m0 * s2 + m2 * s1 + m0 * ly * ly / 12 + m1 * (ly * ly + lz * lz) / 12 + m2 * lz * lz / 12),
            2 * (m0 * s2 + m1 * s0 + m0 * lx * lx / 12 + m1 * lz * lz / 12 + m2 * (lx * lx + lz * lz) / 12),
            2 * (m1 * s0 + m2 * s1 + m0 * (lx * lx + ly * ly) / 12 + m1 * ly * ly / 12 + m2 * lx * lx / 12)};
}

// Whether every edge is used exactly twice, once in each direction: a closed, consistently
// turned surface.
bool closed(triangle_mesh const& mesh) {
    std::map<std::pair<std::size_t, std::size_t>, int> edges;
    for (auto const& f : mesh.faces)
        for (int k = 0; k < 3; ++k) {
            std::size_t const a = f[k], b = f[(k + 1) % 3];
            edges[{std::min(a, b), std::max(a, b)}] += a < b ? 1 : 1000;
        }
    for (auto const& [edge, count] : edges)
        if (count != 1001) return false;
    return true;
}

} // namespace

double primitive_volume(geom_shape shape, vec3 const& s, bool shell) {
    switch (shape) {
    case geom_shape::sphere: return shell ? 4 * pi * s[0] * s[0] : 4 * pi * s[0] * s[0] * s[0] / 3;
    case geom_shape::capsule:
        return shell ? 4 * pi * s[0] * s[0] + 2 * pi * s[0] * (2 * s[1])
                     : pi * (s[0] * s[0] * (2 * s[1]) + 4 * s[0] * s[0] * s[0] / 3);
    case geom_shape::cylinder:
        return shell ? 2 * pi * s[0] * s[0] + 2 * pi * s[0] * (2 * s[1]) : pi * s[0] * s[0] * (2 * s[1]);
    case geom_shape::ellipsoid: {
        if (!shell) return 4 * pi * s[0] * s[1] * s[2] / 3;
        double const p = 1.6075; // Thomsen's approximation of the area, as MuJoCo
        double const t = std::pow(s[0] * s[1], p) + std::pow(s[1] * s[2], p) + std::pow(s[2] * s[0], p);
        return 4 * pi * std::pow(t / 3, 1 / p);
    }
    case geom_shape::box: return shell ? 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]) : s[0] * s[1] * s[2] * 8;
    default: return 0;
    }
}

vec3 primitive_moments(geom_shape shape, vec3 const& s, double m, bool shell) {
    switch (shape) {
    case geom_shape::sphere: {
        double const i = shell ? 2 * m * s[0] * s[0] / 3 : 2 * m * s[0] * s[0] / 5;
        return {i, i, i};
    }
    case geom_shape::capsule: return capsule_moments(s[0], s[1], m, shell);
    case geom_shape::cylinder: return cylinder_moments(s[0], s[1], m, shell);
    case geom_shape::ellipsoid: return ellipsoid_moments(s, m, shell);
    case geom_shape::box: return box_moments(s, m, shell);
    default: return {0, 0, 0};
    }
}

mass_properties mesh_properties(triangle_mesh const& mesh, bool shell, std::string& error) {
    mass_properties p;
    if (mesh.faces.empty()) {
        error = "the mesh has no faces";
        return p;
    }
    if (!closed(mesh)) {
        error = "the mesh is not a closed surface (an edge is not shared by exactly two faces turned the same way): "
                "its volume is not defined";
        if (!shell) return p;
        error.clear(); // a shell needs no inside
    }
    // Second moments about the origin: Σ ∫ x xᵀ; by the tetrahedron (0, a, b, c) of signed volume
    // v = a·(b×c)/6, ∫ x xᵀ = v/20 (Σ vᵢvⱼᵀ + (Σ v)(Σ v)ᵀ); by a triangle of area A,
    // ∫ x xᵀ = A/12 (Σ vᵢvⱼᵀ + (Σ v)(Σ v)ᵀ).
    // Relative to the first vertex, so that a mesh far from its origin keeps its digits.
    vec3 const o = mesh.vertices[mesh.faces[0][0]];
    double total = 0;
    vec3 first{};
    double second[9] = {};
    for (auto const& f : mesh.faces) {
        vec3 v[3];
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i) v[k][i] = mesh.vertices[f[k]][i] - o[i];
        double w = 0, scale = 0;
        vec3 const n = cross({v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]},
                             {v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]});
        if (shell) w = std::sqrt(dot(n, n)) / 2, scale = w / 12;
        else w = dot(v[0], cross(v[1], v[2])) / 6, scale = w / 20;
        vec3 const sum{v[0][0] + v[1][0] + v[2][0], v[0][1] + v[1][1] + v[2][1], v[0][2] + v[1][2] + v[2][2]};
        total += w;
        for (int i = 0; i < 3; ++i) first[i] += w * sum[i] / (shell ? 3 : 4);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                second[i * 3 + j] += scale * (v[0][i] * v[0][j] + v[1][i] * v[1][j] + v[2][i] * v[2][j] + sum[i] * sum[j]);
    }
    if (!(total > 0)) {
        error = shell ? "the mesh has no area" : "the mesh's volume is not positive (its faces are turned inwards, or it is flat)";
        return p;
    }
    p.mass = total;
    vec3 c{};
    for (int i = 0; i < 3; ++i) c[i] = first[i] / total;
    // About the centre: C = S − m c cᵀ; J = tr(C) I − C.
    double C[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[i * 3 + j] = second[i * 3 + j] - total * c[i] * c[j];
    double const trace = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) p.inertia[i * 3 + j] = (i == j ? trace : 0.0) - C[i * 3 + j];
    for (int i = 0; i < 3; ++i) p.com[i] = c[i] + o[i];
    return p;
}

void combine(mass_properties& a, mass_properties const& b) {
    double const total = a.mass + b.mass;
    vec3 centre = a.com;
    if (total > 0)
        for (int k = 0; k < 3; ++k) centre[k] = (a.mass * a.com[k] + b.mass * b.com[k]) / total;
    auto shift = [&](double m, vec3 const& at, mat3& J) { // m (|d|² I − d dᵀ), d = at − centre
        vec3 const d{at[0] - centre[0], at[1] - centre[1], at[2] - centre[2]};
        double const d2 = dot(d, d);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) J[i * 3 + j] += m * ((i == j ? d2 : 0.0) - d[i] * d[j]);
    };
    mat3 J = a.inertia;
    shift(a.mass, a.com, J);
    shift(b.mass, b.com, J);
    for (int k = 0; k < 9; ++k) J[k] += b.inertia[k];
    a.mass = total, a.com = centre, a.inertia = J;
}

mass_properties placed(mass_properties const& p, vec3 const& pos, mat3 const& R) {
    mass_properties q = p;
    vec3 const c = rotate(R, p.com);
    for (int i = 0; i < 3; ++i) q.com[i] = pos[i] + c[i];
    q.inertia = multiply(multiply(R, p.inertia), transpose(R));
    return q;
}

mat3 z_onto(vec3 const& z) {
    vec3 const axis{-z[1], z[0], 0}; // (0, 0, 1) × z
    double const s = norm(axis);
    if (s < 1e-14) return z[2] < 0 ? mat3{1, 0, 0, 0, -1, 0, 0, 0, -1} : identity3;
    return axis_angle_matrix(axis, std::atan2(s, z[2]));
}

} // namespace lagc::import
