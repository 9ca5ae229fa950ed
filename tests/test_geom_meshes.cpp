// Mesh geoms (issue 49): a box and a fine polygonal prism written as ASCII STL, binary STL
// and OBJ into a folder of the test's own, read through an MJCF file, against the exact
// closed forms of the box and of the prism; scale; the errors of a missing mesh file, a path
// outside the robot file's folder (and --allow-outside-paths), an open and an inverted mesh.
#include "import/robot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace imp = lagc::import;
namespace fs = std::filesystem;

namespace {

double const pi = 3.14159265358979323846;
using triangle = std::array<imp::vec3, 3>;

// A folder of this test's own, removed at the end.
struct folder {
    fs::path path = fs::temp_directory_path() / ("lagc_geom_meshes_" + std::to_string(::getpid()));
    folder() { fs::create_directories(path / "meshes"); }
    ~folder() { fs::remove_all(path); }
};

// An axis-aligned box [lo, hi] as outward-turned triangles.
std::vector<triangle> box(imp::vec3 lo, imp::vec3 hi) {
    std::vector<triangle> t;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            int const u = (axis + 1) % 3, v = (axis + 2) % 3;
            auto corner = [&](int a, int b) {
                imp::vec3 p{};
                p[axis] = side ? hi[axis] : lo[axis];
                p[u] = a ? hi[u] : lo[u];
                p[v] = b ? hi[v] : lo[v];
                return p;
            };
            if (side) t.push_back({corner(0, 0), corner(1, 0), corner(1, 1)}), t.push_back({corner(0, 0), corner(1, 1), corner(0, 1)});
            else t.push_back({corner(0, 0), corner(1, 1), corner(1, 0)}), t.push_back({corner(0, 0), corner(0, 1), corner(1, 1)});
        }
    return t;
}

// A regular n-gon prism of circumradius r, from z = 0 to z = h.
std::vector<triangle> prism(int n, double r, double h) {
    std::vector<triangle> t;
    auto at = [&](int k, double z) { // the n-th corner is the first, to the last bit
        k %= n;
        return imp::vec3{r * std::cos(2 * pi * k / n), r * std::sin(2 * pi * k / n), z};
    };
    for (int k = 0; k < n; ++k) {
        t.push_back({at(k, 0), at(k + 1, 0), at(k + 1, h)});
        t.push_back({at(k, 0), at(k + 1, h), at(k, h)});
        t.push_back({imp::vec3{0, 0, 0}, at(k + 1, 0), at(k, 0)});
        t.push_back({imp::vec3{0, 0, h}, at(k, h), at(k + 1, h)});
    }
    return t;
}

void write_ascii_stl(fs::path const& p, std::vector<triangle> const& t) {
    std::ofstream out(p);
    out.precision(17);
    out << "solid test\n";
    for (auto const& f : t) {
        out << "facet normal 0 0 0\nouter loop\n";
        for (auto const& v : f) out << "vertex " << v[0] << " " << v[1] << " " << v[2] << "\n";
        out << "endloop\nendfacet\n";
    }
    out << "endsolid test\n";
}

void write_binary_stl(fs::path const& p, std::vector<triangle> const& t) {
    std::ofstream out(p, std::ios::binary);
    out << std::string(80, ' ');
    std::uint32_t const n = static_cast<std::uint32_t>(t.size());
    out.write(reinterpret_cast<char const*>(&n), 4);
    for (auto const& f : t) {
        float data[12] = {};
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i) data[3 + 3 * k + i] = static_cast<float>(f[k][i]);
        out.write(reinterpret_cast<char const*>(data), 48);
        out.write("\0\0", 2);
    }
}

void write_obj(fs::path const& p, std::vector<triangle> const& t) {
    std::ofstream out(p);
    out.precision(17);
    for (auto const& f : t)
        for (auto const& v : f) out << "v " << v[0] << " " << v[1] << " " << v[2] << "\n";
    for (std::size_t i = 0; i < t.size(); ++i) out << "f " << 3 * i + 1 << " " << 3 * i + 2 << "/1 " << -static_cast<long>(3 * (t.size() - i) - 2) << "\n";
}

imp::robot_def read(folder const& f, std::string const& mesh, std::string const& geom, bool outside = false,
                    std::string const& compiler = "<compiler meshdir=\"meshes\"/>") {
    std::string const text = "<mujoco>" + compiler + "\n<asset>\n" + mesh + "\n</asset><worldbody><body name=\"b\"><joint/>" + geom +
                             "</body></worldbody></mujoco>";
    std::ofstream((f.path / "robot.xml").string()) << text;
    imp::read_options o;
    o.folder = f.path.string();
    o.allow_outside_paths = outside;
    return imp::read_robot(text, imp::inertial_form::centre_of_mass, o);
}

std::string errors(imp::robot_def const& r) {
    std::string s;
    for (auto const& m : r.messages)
        if (m.error) s += std::to_string(m.line) + ": " + m.text + "\n";
    return s;
}

void expect_body(imp::robot_def const& r, double mass, imp::vec3 com, imp::mat3 J, double tolerance) {
    ASSERT_EQ(errors(r), "");
    auto const& b = r.bodies[0];
    EXPECT_NEAR(b.mass, mass, tolerance * mass);
    double scale = 0;
    for (double x : J) scale = std::max(scale, std::abs(x));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.com[i], com[i], tolerance * 0.5) << i;
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(b.inertia[k], J[k], tolerance * scale) << k;
}

} // namespace

TEST(GeomMeshes, BoxInEveryFormatEqualsItsClosedForm) {
    folder f;
    auto const t = box({0.125, -0.25, 0}, {0.375, 0.25, 0.125});
    write_ascii_stl(f.path / "meshes/box_ascii.stl", t);
    write_binary_stl(f.path / "meshes/box_binary.STL", t);
    write_obj(f.path / "meshes/box.obj", t);
    double const a = 0.25, b = 0.5, c = 0.125, m = 2700 * a * b * c;
    imp::mat3 const J = {m * (b * b + c * c) / 12, 0, 0, 0, m * (a * a + c * c) / 12, 0, 0, 0, m * (a * a + b * b) / 12};
    for (std::string file : {"box_ascii.stl", "box_binary.STL", "box.obj"})
        expect_body(read(f, "<mesh name=\"m\" file=\"" + file + "\"/>", "<geom type=\"mesh\" mesh=\"m\" density=\"2700\"/>"), m,
                    {0.25, 0, 0.0625}, J, 1e-12);
    // inertia="shell": the surface of density 1, each face a plate (by hand, as in test_geom_inertia.cpp).
    double const axy = a * b, ayz = b * c, azx = c * a;
    imp::mat3 const S = {2 * (axy * (b * b / 12 + c * c / 4) + ayz * (b * b + c * c) / 12 + azx * (c * c / 12 + b * b / 4)), 0, 0, 0,
                         2 * (axy * (a * a / 12 + c * c / 4) + ayz * (c * c / 12 + a * a / 4) + azx * (a * a + c * c) / 12), 0, 0, 0,
                         2 * (axy * (a * a + b * b) / 12 + ayz * (b * b / 12 + a * a / 4) + azx * (a * a / 12 + b * b / 4))};
    expect_body(read(f, "<mesh name=\"m\" file=\"box.obj\" inertia=\"shell\"/>", "<geom type=\"mesh\" mesh=\"m\" density=\"1\"/>"),
                2 * (axy + ayz + azx), {0.25, 0, 0.0625}, S, 1e-12);
    // scale: the box doubled along x and mirrored along y (faces turned back outwards).
    imp::mat3 const J2 = {2 * m * (b * b + c * c) / 12, 0, 0, 0, 2 * m * (4 * a * a + c * c) / 12, 0, 0, 0, 2 * m * (4 * a * a + b * b) / 12};
    expect_body(read(f, "<mesh name=\"m\" file=\"box.obj\" scale=\"2 -1 1\"/>", "<geom type=\"mesh\" mesh=\"m\" density=\"2700\"/>"),
                2 * m, {0.5, 0, 0.0625}, J2, 1e-12);
}

TEST(GeomMeshes, FinePrismEqualsTheRegularPrismsClosedForm) {
    folder f;
    int const n = 256;
    double const r = 0.05, h = 0.2, theta = 2 * pi / n;
    auto const t = prism(n, r, h);
    // The regular n-gon: area n r² sin θ / 2, polar moment A r² (2 + cos θ) / 6.
    double const m = 1000 * n * r * r * std::sin(theta) / 2 * h;
    double const polar = m * r * r * (2 + std::cos(theta)) / 6;
    imp::mat3 const J = {polar / 2 + m * h * h / 12, 0, 0, 0, polar / 2 + m * h * h / 12, 0, 0, 0, polar};
    write_ascii_stl(f.path / "meshes/prism.stl", t);
    write_obj(f.path / "meshes/prism.obj", t);
    write_binary_stl(f.path / "meshes/prism_binary.stl", t);
    for (std::string file : {"prism.stl", "prism.obj"})
        expect_body(read(f, "<mesh name=\"m\" file=\"" + file + "\"/>", "<geom type=\"mesh\" mesh=\"m\"/>"), m, {0, 0, h / 2}, J, 1e-12);
    // Binary STL holds floats: the vertices move by 1e-8 of r.
    expect_body(read(f, "<mesh name=\"m\" file=\"prism_binary.stl\"/>", "<geom type=\"mesh\" mesh=\"m\"/>"), m, {0, 0, h / 2}, J, 1e-6);
    // Placed and turned by the geom: its centre at pos + R c (a quarter turn of -90° about x: z → y).
    auto const turned = read(f, "<mesh name=\"m\" file=\"prism.obj\"/>", "<geom type=\"mesh\" mesh=\"m\" pos=\"1 2 3\" euler=\"-90 0 0\"/>");
    ASSERT_EQ(errors(turned), "");
    EXPECT_NEAR(turned.bodies[0].com[1], 2 + h / 2, 1e-12);
    EXPECT_NEAR(turned.bodies[0].inertia[4], polar, 1e-12 * polar);
}

TEST(GeomMeshes, Errors) {
    folder f;
    write_obj(f.path / "meshes/box.obj", box({0, 0, 0}, {1, 1, 1}));
    auto t = box({0, 0, 0}, {1, 1, 1});
    t.pop_back();
    write_obj(f.path / "meshes/open.obj", t);
    auto inverted = box({0, 0, 0}, {1, 1, 1});
    for (auto& tri : inverted) std::swap(tri[1], tri[2]);
    write_obj(f.path / "meshes/inverted.obj", inverted);
    std::string const geom = "<geom type=\"mesh\" mesh=\"m\"/>";
    EXPECT_EQ(errors(read(f, "<mesh name=\"m\" file=\"missing.stl\"/>", geom)),
              "3: cannot open the mesh file '" + (f.path / "meshes/missing.stl").string() + "'\n");
    std::string const outside = errors(read(f, "<mesh name=\"m\" file=\"box.obj\"/>", geom, false, "<compiler meshdir=\"../" +
                                                f.path.filename().string() + "_elsewhere\"/>"));
    EXPECT_NE(outside.find("3: the mesh file 'box.obj' (in '../" + f.path.filename().string() + "_elsewhere') is outside the robot file's folder"), std::string::npos) << outside;
    EXPECT_NE(outside.find("--allow-outside-paths"), std::string::npos);
    EXPECT_EQ(errors(read(f, "<mesh name=\"m\" file=\"../meshes/box.obj\"/>", geom)), ""); // meshes/../meshes: inside
    fs::path const elsewhere = f.path.string() + "_elsewhere";
    fs::create_directories(elsewhere);
    fs::copy_file(f.path / "meshes/box.obj", elsewhere / "box.obj", fs::copy_options::overwrite_existing);
    auto const allowed = read(f, "<mesh name=\"m\" file=\"box.obj\"/>", geom, true,
                              "<compiler meshdir=\"../" + f.path.filename().string() + "_elsewhere\"/>");
    fs::remove_all(elsewhere);
    EXPECT_EQ(errors(allowed), "");
    EXPECT_NEAR(allowed.bodies[0].mass, 1000, 1e-9);
    EXPECT_NE(errors(read(f, "<mesh name=\"m\" file=\"open.obj\"/>", geom)).find("is not a closed surface"), std::string::npos);
    EXPECT_NE(errors(read(f, "<mesh name=\"m\" file=\"inverted.obj\"/>", geom)).find("turned inwards"), std::string::npos);
    EXPECT_NE(errors(read(f, "<mesh name=\"m\" file=\"box.obj\"/>", "<geom type=\"mesh\" mesh=\"other\"/>")).find("no mesh named 'other'"),
              std::string::npos);
}
