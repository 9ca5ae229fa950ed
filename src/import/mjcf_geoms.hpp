// MJCF's inertia from geometry, as MuJoCo's compiler infers it (mjcf.cpp calls it): the
// <compiler>'s inertiafromgeom, inertiagrouprange, meshdir, assetdir and strippath; the
// <asset>'s meshes (files read and their integrals computed once); each body's geoms
// (type, size, fromto, pos and orientation, mass or density, shellinertia, group, class
// defaults) combined into the body's mass, centre of mass and inertia.
#pragma once

#include "import/geom_inertia.hpp"
#include "import/xml_values.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lagc::import {

class mjcf_geoms {
public:
    // An attribute from the element, else its class chain (mjcf.cpp's lookup); the frame's
    // turn an element gives (quat, axisangle, euler, xyaxes, zaxis).
    using lookup = std::function<char const*(tinyxml2::XMLElement const*, char const*, std::string const&)>;
    using turn = std::function<mat3(tinyxml2::XMLElement const*)>;
    mjcf_geoms(xml_values& v, read_options options, lookup attribute, turn orientation)
        : v_(v), options_(std::move(options)), attribute_(std::move(attribute)), orientation_(std::move(orientation)) {}

    void compiler(tinyxml2::XMLElement const* e);
    void assets(tinyxml2::XMLElement const* asset);
    // The body's mass distribution from its geoms where the compiler asks for it (an
    // <inertial>, read before, is kept or overridden by MuJoCo's rule).
    // (A body fixed to the world may hold a plane or a height field, which weigh nothing.)
    void body(tinyxml2::XMLElement const* e, std::vector<tinyxml2::XMLElement const*> const& geoms, robot_def& r,
              std::size_t index, std::string const& cls);

private:
    enum class from_geoms { automatic, always, never };
    struct mesh_asset {
        mass_properties solid, shell; // at unit density
        bool has_solid = false, has_shell = false;
        std::string error_solid; // why it has no volume (an open surface)
        bool shell_inertia = false; // inertia="shell"
    };
    xml_values& v_;
    read_options options_;
    lookup attribute_;
    turn orientation_;
    from_geoms rule_ = from_geoms::automatic;
    int group_range_[2] = {0, 5};
    std::string meshdir_, assetdir_;
    bool strippath_ = false;
    std::map<std::string, mesh_asset> meshes_;
    bool moving_ = false; // the body read has a joint, or a body above it has
    std::set<std::string> broken_; // meshes whose files could not be read

    void mesh(tinyxml2::XMLElement const* e);
    bool geom(tinyxml2::XMLElement const* e, std::string const& cls, mass_properties& out);
    bool geom_size(tinyxml2::XMLElement const* e, std::string const& cls, geom_shape shape, vec3& size, vec3& pos,
                   mat3& R);
};

} // namespace lagc::import
