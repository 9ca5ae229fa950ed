// MJCF's inertia from geometry (mjcf_geoms.hpp): MuJoCo's rules (mjCBody::Compile and
// GeomFrame, mjCGeom::Compile), each geom's numbers checked and every mistake an error at its
// line.
#include "import/mjcf_geoms.hpp"
#include "import/mesh.hpp"
#include "import/names.hpp"

#include <cmath>
#include <filesystem>

namespace lagc::import {

using tinyxml2::XMLElement;

namespace {

double const min_value = 1e-15; // MuJoCo's mjMINVAL

geom_shape shape_of(std::string const& type) {
    if (type == "sphere") return geom_shape::sphere;
    if (type == "capsule") return geom_shape::capsule;
    if (type == "cylinder") return geom_shape::cylinder;
    if (type == "ellipsoid") return geom_shape::ellipsoid;
    if (type == "box") return geom_shape::box;
    if (type == "mesh") return geom_shape::mesh;
    if (type == "plane") return geom_shape::plane;
    return geom_shape::other;
}

bool is_true(char const* a) { return a && std::string(a) == "true"; }

} // namespace

void mjcf_geoms::compiler(XMLElement const* e) {
    if (char const* s = e->Attribute("inertiafromgeom")) {
        std::string const rule = s;
        if (rule == "true") rule_ = from_geoms::always;
        else if (rule == "false") rule_ = from_geoms::never;
        else if (rule == "auto") rule_ = from_geoms::automatic;
        else v_.error(e, "<compiler> inertiafromgeom is \"auto\", \"true\" or \"false\", not \"" + shown(rule) + "\"");
    }
    if (auto g = v_.numbers(e, "inertiagrouprange", 2); !g.empty()) {
        group_range_[0] = static_cast<int>(g[0]), group_range_[1] = static_cast<int>(g[1]);
    }
    if (char const* d = e->Attribute("meshdir")) meshdir_ = d;
    if (char const* d = e->Attribute("assetdir")) assetdir_ = d;
    strippath_ = is_true(e->Attribute("strippath"));
}

void mjcf_geoms::assets(XMLElement const* asset) {
    for (auto const* e = asset->FirstChildElement("mesh"); e; e = e->NextSiblingElement("mesh")) mesh(e);
}

// A mesh asset: its file (or vertex and face lists) read, scaled, and its integrals at unit
// density computed once.
void mjcf_geoms::mesh(XMLElement const* e) {
    std::string const cls = e->Attribute("class") ? e->Attribute("class") : "main";
    char const* file = attribute_(e, "file", cls);
    std::string name = e->Attribute("name") ? e->Attribute("name") : "";
    triangle_mesh m;
    std::string error;
    if (file) {
        std::string f = file;
        if (strippath_) f = std::filesystem::path(f).filename().string();
        if (name.empty()) name = std::filesystem::path(f).stem().string();
        std::string const dir = !meshdir_.empty() ? meshdir_ : assetdir_;
        std::string const path = resolve_asset_path(f, dir, options_, error);
        if (path.empty() || !read_mesh_file(path, m, error)) {
            broken_.insert(name); // reported here, not again at each geom
            return v_.error(e, error);
        }
    } else {
        std::vector<double> xyz, faces;
        char const* vt = e->Attribute("vertex");
        char const* ft = e->Attribute("face");
        if (!vt || !ft || !parse_numbers(vt, xyz) || !parse_numbers(ft, faces) || xyz.size() % 3 || faces.size() % 3 || faces.empty())
            return v_.error(e, "a <mesh> needs a file, or vertex and face lists (three numbers each); lagc does not "
                               "make a mesh's convex hull");
        for (std::size_t i = 0; i < xyz.size(); i += 3) m.vertices.push_back({xyz[i], xyz[i + 1], xyz[i + 2]});
        for (std::size_t i = 0; i < faces.size(); i += 3) {
            std::array<std::size_t, 3> f{};
            for (int k = 0; k < 3; ++k) {
                double const x = faces[i + static_cast<std::size_t>(k)];
                if (!(x >= 0 && x < static_cast<double>(m.vertices.size())) || x != std::floor(x))
                    return v_.error(e, "<mesh> face: " + std::to_string(x) + " is not the index of a vertex");
                f[static_cast<std::size_t>(k)] = static_cast<std::size_t>(x);
            }
            m.faces.push_back(f);
        }
    }
    if (e->Attribute("refpos") || e->Attribute("refquat")) return v_.error(e, "<mesh> refpos and refquat are not read by lagc");
    if (char const* s = attribute_(e, "scale", cls)) {
        auto const scale = v_.numbers(e, "scale", 3, s);
        if (scale.size() == 3) scale_mesh(m, {scale[0], scale[1], scale[2]});
    }
    mesh_asset a;
    std::string const inertia = attribute_(e, "inertia", cls) ? attribute_(e, "inertia", cls) : "legacy";
    if (inertia == "convex") return v_.error(e, "<mesh inertia=\"convex\">: lagc computes no convex hull; use \"exact\" or \"shell\"");
    if (inertia != "legacy" && inertia != "exact" && inertia != "shell")
        return v_.error(e, "<mesh> inertia is \"exact\", \"legacy\", \"convex\" or \"shell\", not \"" + shown(inertia) + "\"");
    a.shell_inertia = inertia == "shell";
    a.solid = mesh_properties(m, false, a.error_solid);
    a.has_solid = a.error_solid.empty();
    std::string shell_error;
    a.shell = mesh_properties(m, true, shell_error);
    a.has_shell = shell_error.empty();
    if (name.empty()) return v_.error(e, "a <mesh> needs a name or a file");
    if (!meshes_.emplace(name, a).second) v_.error(e, "a second mesh named " + import::quoted(name));
}

bool mjcf_geoms::geom_size(XMLElement const* e, std::string const& cls, geom_shape shape, vec3& size, vec3& pos, mat3& R) {
    std::vector<double> s;
    if (char const* a = attribute_(e, "size", cls); a && (!parse_numbers(a, s) || s.size() > 3)) {
        v_.error(e, "<geom> size=\"" + shown(a) + "\" is not a list of up to three numbers");
        return false;
    }
    for (std::size_t i = 0; i < s.size(); ++i) size[i] = s[i];
    pos = {0, 0, 0};
    if (char const* p = attribute_(e, "pos", cls))
        if (auto v = v_.numbers(e, "pos", 3, p); v.size() == 3) pos = {v[0], v[1], v[2]};
    R = identity3;
    char const* ft = attribute_(e, "fromto", cls);
    if (!ft) {
        R = orientation_(e);
    } else {
        auto const f = v_.numbers(e, "fromto", 6, ft);
        if (f.size() != 6) return false;
        if (shape != geom_shape::capsule && shape != geom_shape::cylinder && shape != geom_shape::box && shape != geom_shape::ellipsoid) {
            v_.error(e, "fromto requires capsule, cylinder, box or ellipsoid (MuJoCo's rule)");
            return false;
        }
        if (pos != vec3{0, 0, 0}) {
            v_.error(e, "a geom gives both pos and fromto (MuJoCo refuses it)");
            return false;
        }
        vec3 d{f[0] - f[3], f[1] - f[4], f[2] - f[5]};
        double const length = norm(d);
        if (!(length / 2 >= 1e-14)) {
            v_.error(e, "fromto's two points are too close (MuJoCo: \"fromto points too close\")");
            return false;
        }
        for (auto& x : d) x /= length;
        size[1] = length / 2;
        if (shape == geom_shape::box || shape == geom_shape::ellipsoid) size[2] = size[1], size[1] = size[0];
        pos = {(f[0] + f[3]) / 2, (f[1] + f[4]) / 2, (f[2] + f[5]) / 2};
        R = z_onto(d);
    }
    int const needed = shape == geom_shape::sphere ? 1 : shape == geom_shape::capsule || shape == geom_shape::cylinder ? 2 : 3;
    for (int i = 0; i < needed; ++i)
        if (!(size[static_cast<std::size_t>(i)] > 0)) {
            v_.error(e, "a geom's sizes must be positive: this one needs " + std::to_string(needed) + " (MuJoCo's rule)");
            return false;
        }
    return true;
}

// One geom's mass, centre of mass and inertia in the body's frame; false after an error.
bool mjcf_geoms::geom(XMLElement const* e, std::string const& cls, mass_properties& out) {
    std::string const type = attribute_(e, "type", cls) ? attribute_(e, "type", cls) : "sphere";
    geom_shape const shape = shape_of(type);
    if ((shape == geom_shape::plane || shape == geom_shape::other) && !moving_) return out = {}, true; // a floor, terrain
    if (shape == geom_shape::plane) return v_.error(e, "a plane belongs to a static body (MuJoCo: \"plane only allowed in static bodies\")"), false;
    if (shape == geom_shape::other) return v_.error(e, "lagc computes no inertia for a geom of type \"" + shown(type) + "\": give the body an <inertial>"), false;
    bool shell = is_true(attribute_(e, "shellinertia", cls));
    mass_properties unit; // at unit density, in the geom's frame
    vec3 size{}, pos{};
    mat3 R = identity3;
    if (shape == geom_shape::mesh) {
        char const* name = attribute_(e, "mesh", cls);
        auto const it = name ? meshes_.find(name) : meshes_.end();
        if (it == meshes_.end() && name && broken_.count(name)) return false;
        if (it == meshes_.end()) return v_.error(e, name ? "no mesh named " + import::quoted(name) + " in <asset>" : "a mesh geom needs mesh=\"NAME\""), false;
        shell = shell || it->second.shell_inertia;
        if (!shell && !it->second.has_solid) return v_.error(e, "the mesh " + import::quoted(name) + ": " + it->second.error_solid), false;
        if (shell && !it->second.has_shell) return v_.error(e, "the mesh " + import::quoted(name) + " has no area"), false;
        unit = shell ? it->second.shell : it->second.solid;
        if (char const* p = attribute_(e, "pos", cls))
            if (auto v = v_.numbers(e, "pos", 3, p); v.size() == 3) pos = {v[0], v[1], v[2]};
        if (attribute_(e, "fromto", cls)) return v_.error(e, "fromto cannot be used with a mesh geom (MuJoCo's rule)"), false;
        R = orientation_(e);
    } else {
        if (attribute_(e, "mesh", cls)) return v_.error(e, "a " + type + " fitted to a mesh is not computed by lagc: give the body an <inertial>"), false;
        if (!geom_size(e, cls, shape, size, pos, R)) return false;
        unit.mass = primitive_volume(shape, size, shell);
    }
    double const volume = unit.mass;
    double mass = 0;
    char const* m = attribute_(e, "mass", cls);
    double const density = m ? 0 : (attribute_(e, "density", cls) ? std::strtod(attribute_(e, "density", cls), nullptr) : 1000);
    if (m) {
        auto const v = v_.numbers(e, "mass", 1, m);
        if (v.empty()) return false;
        mass = v[0] == 0 || volume <= min_value ? 0 : v[0];
        if (v[0] < 0) return v_.error(e, "a geom's mass cannot be negative"), false;
    } else {
        auto const v = v_.numbers(e, "density", 1, attribute_(e, "density", cls));
        if (attribute_(e, "density", cls) && v.empty()) return false;
        if (density < 0) return v_.error(e, "a geom's density cannot be negative"), false;
        mass = density * volume;
    }
    mass_properties g;
    g.mass = mass;
    if (shape == geom_shape::mesh) {
        g.com = unit.com;
        for (int k = 0; k < 9; ++k) g.inertia[k] = volume > 0 ? unit.inertia[k] * (mass / volume) : 0;
    } else {
        vec3 const d = primitive_moments(shape, size, mass, shell);
        g.inertia = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]};
    }
    out = placed(g, pos, R);
    return true;
}

void mjcf_geoms::body(XMLElement const* e, std::vector<XMLElement const*> const& geoms, robot_def& r, std::size_t index,
                      std::string const& cls) {
    body_def& b = r.bodies[index];
    moving_ = false;
    for (int i = static_cast<int>(index); i >= 0 && !moving_; i = r.bodies[static_cast<std::size_t>(i)].parent)
        moving_ = !r.bodies[static_cast<std::size_t>(i)].joints.empty();
    if (rule_ == from_geoms::never || (rule_ == from_geoms::automatic && b.has_inertia)) return;
    mass_properties total;
    std::size_t count = 0;
    bool ok = true;
    for (auto const* g : geoms) {
        std::string const c = g->Attribute("class") ? g->Attribute("class") : cls;
        char const* group = attribute_(g, "group", c);
        double const gr = group ? std::strtod(group, nullptr) : 0;
        if (gr < group_range_[0] || gr > group_range_[1]) continue;
        mass_properties p;
        if (!geom(g, c, p)) {
            ok = false;
            continue;
        }
        if (count++ == 0) total = p;
        else combine(total, p);
    }
    if (!ok || count == 0) return;
    if (count > 1 && total.mass < min_value && moving_)
        return v_.error(e, "the body " + import::quoted(b.name) + "'s geoms have no mass (MuJoCo: \"body mass is too small, cannot "
                           "compute center of mass\")");
    b.has_inertia = total.mass > 0;
    b.mass = total.mass, b.com = total.com, b.inertia = total.inertia;
    if (!b.has_inertia) b.mass = 0, b.com = {}, b.inertia = {};
}

} // namespace lagc::import
