// Mesh files of MJCF's <asset><mesh file=…>: STL (binary and ASCII) and OBJ read into a
// triangle surface (geom_inertia.hpp computes its volume integrals), and where a file named
// by a robot file may be read from.
#pragma once

#include "import/geom_inertia.hpp"

#include <string>

namespace lagc::import {

// The mesh in the file at `path` (STL told binary by its size, else ASCII from "solid"; OBJ
// by its name's ending .obj), equal vertices merged; false with `error` where it cannot be
// read or is no mesh of these kinds.
bool read_mesh_file(std::string const& path, triangle_mesh& mesh, std::string& error);

// Every vertex multiplied by `scale` (per axis); the faces turned where the scale mirrors.
void scale_mesh(triangle_mesh& mesh, vec3 const& scale);

// The path of `file` named in a robot file: as it is where absolute, else in `dir` (the
// compiler's meshdir; itself relative to the robot file's folder unless absolute). "" with
// `error` where it lies outside the robot file's folder and `access` does not allow that.
std::string resolve_asset_path(std::string const& file, std::string const& dir, read_options const& access,
                               std::string& error);

} // namespace lagc::import
