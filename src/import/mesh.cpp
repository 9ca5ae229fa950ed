// Mesh files (STL binary and ASCII, OBJ) into triangle surfaces, and the rule on where a
// robot file's mesh files may be.
#include "import/mesh.hpp"
#include "import/names.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace lagc::import {

namespace {

namespace fs = std::filesystem;

// Vertices merged by their exact coordinates, so that faces that share an edge share indices.
class vertex_table {
public:
    explicit vertex_table(triangle_mesh& m) : m_(m) {}
    std::size_t add(vec3 const& v) {
        auto const [it, added] = index_.emplace(v, m_.vertices.size());
        if (added) m_.vertices.push_back(v);
        return it->second;
    }

private:
    triangle_mesh& m_;
    std::map<vec3, std::size_t> index_;
};

bool read_binary_stl(std::string const& bytes, triangle_mesh& mesh) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);
    vertex_table table(mesh);
    for (std::uint32_t t = 0; t < count; ++t) {
        char const* p = bytes.data() + 84 + 50 * static_cast<std::size_t>(t) + 12; // past the normal
        std::array<std::size_t, 3> face{};
        for (int k = 0; k < 3; ++k) {
            float xyz[3];
            std::memcpy(xyz, p + 12 * k, 12);
            face[k] = table.add({xyz[0], xyz[1], xyz[2]});
        }
        mesh.faces.push_back(face);
    }
    return true;
}

bool read_ascii_stl(std::string const& text, triangle_mesh& mesh, std::string& error) {
    std::istringstream in(text);
    vertex_table table(mesh);
    std::string word;
    std::vector<std::size_t> corners;
    while (in >> word) {
        if (word == "vertex") {
            vec3 v{};
            if (!(in >> v[0] >> v[1] >> v[2])) {
                error = "an ASCII STL vertex needs three numbers";
                return false;
            }
            corners.push_back(table.add(v));
        } else if (word == "endfacet") {
            if (corners.size() != 3) {
                error = "an ASCII STL facet has " + std::to_string(corners.size()) + " vertices, not 3";
                return false;
            }
            mesh.faces.push_back({corners[0], corners[1], corners[2]});
            corners.clear();
        }
    }
    return true;
}

// An OBJ face's corner "v", "v/vt", "v//vn" or "v/vt/vn" (1-based, negative from the end).
bool obj_index(std::string const& corner, std::size_t count, std::size_t& index) {
    long long v = 0;
    try {
        v = std::stoll(corner.substr(0, corner.find('/')));
    } catch (...) {
        return false;
    }
    if (v < 0) v += static_cast<long long>(count) + 1;
    if (v < 1 || v > static_cast<long long>(count)) return false;
    index = static_cast<std::size_t>(v - 1);
    return true;
}

bool read_obj(std::string const& text, triangle_mesh& mesh, std::string& error) {
    std::istringstream in(text);
    std::string line;
    std::vector<vec3> vertices;
    int number = 0;
    std::vector<std::vector<std::size_t>> polygons;
    while (std::getline(in, line)) {
        ++number;
        std::istringstream l(line);
        std::string key;
        l >> key;
        if (key == "v") {
            vec3 v{};
            if (!(l >> v[0] >> v[1] >> v[2])) {
                error = "OBJ line " + std::to_string(number) + ": a vertex needs three numbers";
                return false;
            }
            vertices.push_back(v);
        } else if (key == "f") {
            std::vector<std::size_t> polygon;
            for (std::string corner; l >> corner;) {
                std::size_t index = 0;
                if (!obj_index(corner, vertices.size(), index)) {
                    error = "OBJ line " + std::to_string(number) + ": the face's vertex \"" + shown(corner) +
                            "\" is not one of the vertices before it";
                    return false;
                }
                polygon.push_back(index);
            }
            if (polygon.size() < 3) {
                error = "OBJ line " + std::to_string(number) + ": a face needs three vertices";
                return false;
            }
            polygons.push_back(polygon);
        }
    }
    vertex_table table(mesh);
    for (auto const& polygon : polygons) // a fan from the first corner
        for (std::size_t k = 1; k + 1 < polygon.size(); ++k)
            mesh.faces.push_back({table.add(vertices[polygon[0]]), table.add(vertices[polygon[k]]),
                                  table.add(vertices[polygon[k + 1]])});
    return true;
}

bool ends_with(std::string s, std::string const& end) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

} // namespace

bool read_mesh_file(std::string const& path, triangle_mesh& mesh, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open the mesh file '" + shown(path) + "'";
        return false;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool ok = false;
    if (ends_with(path, ".obj")) {
        ok = read_obj(bytes, mesh, error);
    } else if (ends_with(path, ".stl")) {
        std::uint32_t count = 0;
        if (bytes.size() >= 84) std::memcpy(&count, bytes.data() + 80, 4);
        if (bytes.size() >= 84 && bytes.size() == 84 + 50 * static_cast<std::size_t>(count)) ok = read_binary_stl(bytes, mesh);
        else if (bytes.compare(0, 5, "solid") == 0) ok = read_ascii_stl(bytes, mesh, error);
        else error = "the file is neither a binary STL (84 + 50 bytes a triangle) nor an ASCII one";
    } else {
        error = "lagc reads STL and OBJ meshes (by the file name's ending), not this one";
    }
    if (ok && mesh.faces.empty()) error = "the mesh has no faces", ok = false;
    if (!ok) error = "mesh file '" + shown(path) + "': " + error;
    return ok;
}

void scale_mesh(triangle_mesh& mesh, vec3 const& scale) {
    for (auto& v : mesh.vertices)
        for (int i = 0; i < 3; ++i) v[i] *= scale[i];
    if (scale[0] * scale[1] * scale[2] < 0)
        for (auto& f : mesh.faces) std::swap(f[1], f[2]);
}

std::string resolve_asset_path(std::string const& file, std::string const& dir, read_options const& access,
                               std::string& error) {
    fs::path const folder = access.folder.empty() ? fs::path(".") : fs::path(access.folder);
    fs::path p(file);
    if (p.is_relative()) p = (fs::path(dir).is_absolute() ? fs::path(dir) : folder / dir) / p;
    std::error_code ec;
    fs::path const whole = fs::weakly_canonical(p, ec);
    fs::path const base = fs::weakly_canonical(folder, ec);
    if (!access.allow_outside_paths) {
        auto const [end, ignored] = std::mismatch(base.begin(), base.end(), whole.begin(), whole.end());
        if (end != base.end()) {
            error = "the mesh file '" + shown(file) + "'" + (dir.empty() ? "" : " (in '" + shown(dir) + "')") +
                    " is outside the robot file's folder: lagc reads files there only with --allow-outside-paths";
            return "";
        }
    }
    return p.string();
}

} // namespace lagc::import
