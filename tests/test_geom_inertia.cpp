// Inertia from geometry (issue 49): each primitive geom against its textbook closed form
// (written here, not taken from the code under test), frames and fromto, several geoms in a
// body (parallel axes), MuJoCo's inertiafromgeom rules, shells, and meshes (STL binary and
// ASCII, OBJ) of a box and of a fine polygonal prism against their exact closed forms; the
// errors of missing, outside and open meshes. MuJoCo's compiled values are compared by
// tests/robots/geom_inertia_check.cpp where MuJoCo is installed.
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

std::string errors(imp::robot_def const& r) {
    std::string s;
    for (auto const& m : r.messages)
        if (m.error) s += std::to_string(m.line) + ": " + m.text + "\n";
    return s;
}

// The body named `name` of a file whose body holds `inside` (a hinge added).
imp::body_def body_of(std::string const& inside, std::string const& compiler = "", std::string const& assets = "",
                      imp::read_options const& options = {}) {
    auto const r = imp::read_robot("<mujoco>" + compiler + assets + "<worldbody><body name=\"b\"><joint/>" + inside +
                                       "</body></worldbody></mujoco>",
                                   imp::inertial_form::centre_of_mass, options);
    EXPECT_EQ(errors(r), "");
    return r.bodies.empty() ? imp::body_def{} : r.bodies[0];
}

void expect_near_rel(double got, double want, double tolerance, char const* what) {
    EXPECT_NEAR(got, want, tolerance * std::max(std::abs(want), 1e-300)) << what;
}

void expect_inertia(imp::body_def const& b, double mass, imp::vec3 com, imp::mat3 J, double tolerance = 1e-12) {
    expect_near_rel(b.mass, mass, tolerance, "mass");
    double scale = 0, length = 0;
    for (double x : J) scale = std::max(scale, std::abs(x));
    for (double x : com) length = std::max(length, std::abs(x));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.com[i], com[i], tolerance * std::max(length, 1e-300)) << "com " << i;
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(b.inertia[k], J[k], tolerance * scale) << "inertia " << k;
}

imp::mat3 diagonal(double a, double b, double c) { return {a, 0, 0, 0, b, 0, 0, 0, c}; }

} // namespace

TEST(GeomInertia, PrimitivesEqualTheirClosedForms) {
    double const rho = 1000, r = 0.1, h = 0.4; // h: a cylinder's or capsule's length, 2 * size[1]
    double m = rho * 4.0 / 3 * pi * r * r * r;
    expect_inertia(body_of("<geom size=\"0.1\"/>"), m, {0, 0, 0}, diagonal(0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r));
    m = rho * pi * r * r * h;
    double side = m * (r * r / 4 + h * h / 12);
    expect_inertia(body_of("<geom type=\"cylinder\" size=\"0.1 0.2\"/>"), m, {0, 0, 0}, diagonal(side, side, m * r * r / 2));
    // A capsule: a cylinder and two hemispheres, each hemisphere's centre 3r/8 beyond the cylinder's end.
    double const mc = rho * pi * r * r * h, ms = rho * 4.0 / 3 * pi * r * r * r; // ms: both hemispheres
    double const hemisphere_own = (2.0 / 5 - 9.0 / 64) * r * r;                  // about its own centre, across
    side = mc * (r * r / 4 + h * h / 12) + ms * (hemisphere_own + (h / 2 + 3 * r / 8) * (h / 2 + 3 * r / 8));
    expect_inertia(body_of("<geom type=\"capsule\" size=\"0.1 0.2\"/>"), mc + ms, {0, 0, 0},
                   diagonal(side, side, mc * r * r / 2 + ms * 2 * r * r / 5));
    double const a = 0.1, b = 0.2, c = 0.3;
    m = 500 * 4.0 / 3 * pi * a * b * c;
    expect_inertia(body_of("<geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\" density=\"500\"/>"), m, {0, 0, 0},
                   diagonal(m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5));
    m = 2; // a mass given: the density follows
    expect_inertia(body_of("<geom type=\"box\" size=\"0.1 0.2 0.3\" mass=\"2\"/>"), m, {0, 0, 0},
                   diagonal(m * (4 * b * b + 4 * c * c) / 12, m * (4 * a * a + 4 * c * c) / 12, m * (4 * a * a + 4 * b * b) / 12));
}

TEST(GeomInertia, FramesFromtoAndSeveralGeoms) {
    // Two spheres at ±0.3 along x: the parallel-axis theorem by hand.
    double const m1 = 1000 * 4.0 / 3 * pi * 0.001, own = 0.4 * m1 * 0.01;
    expect_inertia(body_of("<geom size=\"0.1\" pos=\"0.3 0 0\"/><geom size=\"0.1\" pos=\"-0.3 0 0\"/>"), 2 * m1, {0, 0, 0},
                   diagonal(2 * own, 2 * (own + m1 * 0.09), 2 * (own + m1 * 0.09)));
    // A box turned 90° about z (every way of writing it) swaps its x and y moments.
    auto const plain = body_of("<geom type=\"box\" size=\"0.2 0.1 0.05\" mass=\"3\" pos=\"0.1 0.2 0.3\"/>");
    imp::mat3 const& J = plain.inertia;
    imp::mat3 const swapped = diagonal(J[4], J[0], J[8]);
    for (std::string turn : {"quat=\"1 0 0 1\"", "euler=\"0 0 90\"", "axisangle=\"0 0 1 90\"", "xyaxes=\"0 1 0 -1 0 0\""})
        expect_inertia(body_of("<geom type=\"box\" size=\"0.2 0.1 0.05\" mass=\"3\" pos=\"0.1 0.2 0.3\" " + turn + "/>"), 3,
                       {0.1, 0.2, 0.3}, swapped);
    // fromto: the same capsule as pos and zaxis; a box and an ellipsoid with a square section.
    expect_inertia(body_of("<geom type=\"capsule\" fromto=\"0 0 0 0 0.4 0\" size=\"0.05\"/>"),
                   body_of("<geom type=\"capsule\" pos=\"0 0.2 0\" zaxis=\"0 1 0\" size=\"0.05 0.2\"/>").mass, {0, 0.2, 0},
                   body_of("<geom type=\"capsule\" pos=\"0 0.2 0\" zaxis=\"0 1 0\" size=\"0.05 0.2\"/>").inertia);
    expect_inertia(body_of("<geom type=\"box\" fromto=\"0 0 -0.2 0 0 0.2\" size=\"0.05\"/>"),
                   body_of("<geom type=\"box\" size=\"0.05 0.05 0.2\"/>").mass, {0, 0, 0},
                   body_of("<geom type=\"box\" size=\"0.05 0.05 0.2\"/>").inertia);
    expect_inertia(body_of("<geom type=\"ellipsoid\" fromto=\"0.1 0 0 0.5 0 0\" size=\"0.05\"/>"),
                   body_of("<geom type=\"ellipsoid\" size=\"0.2 0.05 0.05\"/>").mass, {0.3, 0, 0},
                   body_of("<geom type=\"ellipsoid\" size=\"0.2 0.05 0.05\"/>").inertia);
}

TEST(GeomInertia, MuJoCosRules) {
    std::string const inertial = "<inertial pos=\"0 0 1\" mass=\"7\" diaginertia=\"1 2 2.5\"/>";
    std::string const geom = "<geom type=\"box\" size=\"0.1 0.1 0.1\"/>";
    // auto: an <inertial> wins; true: the geoms win; false: a body without <inertial> is massless.
    EXPECT_DOUBLE_EQ(body_of(inertial + geom).mass, 7);
    EXPECT_DOUBLE_EQ(body_of(inertial + geom, "<compiler inertiafromgeom=\"true\"/>").mass, 8);
    auto const none = body_of(geom, "<compiler inertiafromgeom=\"false\"/>");
    EXPECT_FALSE(none.has_inertia);
    EXPECT_EQ(none.mass, 0);
    // Default density 1000; classes; a geom outside inertiagrouprange does not count.
    EXPECT_DOUBLE_EQ(body_of(geom).mass, 8);
    EXPECT_DOUBLE_EQ(body_of("<geom class=\"light\" type=\"box\" size=\"0.1 0.1 0.1\"/>", "",
                      "<default><geom density=\"10\"/><default class=\"light\"><geom density=\"2\"/></default></default>")
                  .mass,
              0.016);
    EXPECT_DOUBLE_EQ(body_of(geom + "<geom size=\"0.1\" group=\"3\"/>", "<compiler inertiagrouprange=\"0 2\"/>").mass, 8);
    EXPECT_GT(body_of(geom + "<geom size=\"0.1\" group=\"3\"/>").mass, 8);
    // A floor and terrain in a body fixed to the world weigh nothing; a plane in a moving body is MuJoCo's error.
    auto const world = imp::read_robot("<mujoco><worldbody><body name=\"ground\"><geom type=\"plane\" size=\"1 1 1\"/>"
                                       "<geom type=\"hfield\" hfield=\"h\"/><body><joint/>" + geom + "</body></body></worldbody></mujoco>");
    EXPECT_EQ(errors(world), "");
    auto const moving = imp::read_robot("<mujoco><worldbody><body><joint/>\n<geom type=\"plane\" size=\"1 1 1\"/>" + geom +
                                        "</body></worldbody></mujoco>");
    EXPECT_NE(errors(moving).find("2: a plane belongs to a static body"), std::string::npos) << errors(moving);
    // A visual geom (contype 0) counts, as in MuJoCo; mass 0 leaves it out.
    EXPECT_DOUBLE_EQ(body_of(geom + "<geom size=\"0.1\" mass=\"0\" contype=\"0\" conaffinity=\"0\"/>").mass, 8);
}

TEST(GeomInertia, Shells) {
    double const m = 2, r = 0.1;
    expect_inertia(body_of("<geom size=\"0.1\" mass=\"2\" shellinertia=\"true\"/>"), m, {0, 0, 0},
                   diagonal(2 * m * r * r / 3, 2 * m * r * r / 3, 2 * m * r * r / 3));
    // A hollow box 0.2 x 0.4 x 0.6 of surface density 1: each face a plate, by hand.
    double const lx = 0.2, ly = 0.4, lz = 0.6;
    double const axy = lx * ly, ayz = ly * lz, azx = lz * lx;
    double const ixx = 2 * (axy * (ly * ly / 12 + lz * lz / 4) + ayz * (ly * ly + lz * lz) / 12 + azx * (lz * lz / 12 + ly * ly / 4));
    double const iyy = 2 * (axy * (lx * lx / 12 + lz * lz / 4) + ayz * (lz * lz / 12 + lx * lx / 4) + azx * (lx * lx + lz * lz) / 12);
    double const izz = 2 * (axy * (lx * lx + ly * ly) / 12 + ayz * (ly * ly / 12 + lx * lx / 4) + azx * (lx * lx / 12 + ly * ly / 4));
    expect_inertia(body_of("<geom type=\"box\" size=\"0.1 0.2 0.3\" density=\"1\" shellinertia=\"true\"/>"), 2 * (axy + ayz + azx),
                   {0, 0, 0}, diagonal(ixx, iyy, izz));
    // A hollow cylinder with its two discs: a tube (r², r²/2 + h²/12) and discs (r²/2, r²/4 + (h/2)²).
    double const h = 0.4, tube = 2 * pi * r * h, disc = pi * r * r;
    double const side = tube * (r * r / 2 + h * h / 12) + 2 * disc * (r * r / 4 + h * h / 4);
    expect_inertia(body_of("<geom type=\"cylinder\" size=\"0.1 0.2\" density=\"1\" shellinertia=\"true\"/>"), tube + 2 * disc,
                   {0, 0, 0}, diagonal(side, side, tube * r * r + 2 * disc * r * r / 2));
}
