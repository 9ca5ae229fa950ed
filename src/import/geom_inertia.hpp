// Inertia from geometry, as MuJoCo's compiler infers it (issue 49): each geom's mass and
// principal moments from its shape (sphere, capsule, cylinder, ellipsoid, box, a closed
// triangle mesh), a solid or a shell, and a body's geoms combined about their common centre
// of mass (parallel axes, full tensors). Pure arithmetic: the MJCF reader hands the numbers.
#pragma once

#include "import/robot.hpp"

#include <string>
#include <vector>

namespace lagc::import {

enum class geom_shape { sphere, capsule, cylinder, ellipsoid, box, mesh, plane, other };

// A solid (or a shell) of unit density: its volume (or area), centre and inertia about the
// centre, all in the geom's frame.
struct mass_properties {
    double mass = 0;
    vec3 com{};
    mat3 inertia{}; // about com
};

// MuJoCo's volume of a primitive (mjCGeom::GetVolume), its surface area for a shell
// (the ellipsoid's by Thomsen's approximation, as MuJoCo); 0 for other shapes.
double primitive_volume(geom_shape shape, vec3 const& size, bool shell);
// MuJoCo's principal moments of a primitive of mass m about its centre, in its frame
// (mjCGeom::SetInertia): the capsule as a cylinder and two hemispheres, the ellipsoid's
// shell as MuJoCo approximates it (the difference of two solids 1e-6 apart).
vec3 primitive_moments(geom_shape shape, vec3 const& size, double mass, bool shell);

// A closed triangle surface: vertices and faces (indices, counter-clockwise seen from outside).
struct triangle_mesh {
    std::vector<vec3> vertices;
    std::vector<std::array<std::size_t, 3>> faces;
};

// The mesh's volume, centre of volume and inertia about it at unit density, exact for a
// closed surface (a sum of signed tetrahedra from the origin); with `shell` its area, the
// centre of its area and the inertia of a unit surface density (a sum of triangles).
// `error` is set, and the result unusable, where the volume is not positive (faces turned
// inwards, or a flat mesh) or the surface is not closed (an edge not used exactly twice,
// once each way).
mass_properties mesh_properties(triangle_mesh const& mesh, bool shell, std::string& error);

// `b` added to `a` (both in one frame): masses summed, the centre of mass combined and the
// inertias moved to it (parallel axes).
void combine(mass_properties& a, mass_properties const& b);

// A geom's mass properties placed in the body's frame: centre at pos + R c, inertia R J Rᵀ.
mass_properties placed(mass_properties const& p, vec3 const& pos, mat3 const& R);

// The rotation MuJoCo gives a geom with fromto: (0, 0, 1) turned onto `direction` (unit).
mat3 z_onto(vec3 const& direction);

} // namespace lagc::import
