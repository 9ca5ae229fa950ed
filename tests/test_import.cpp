// The robot-file readers (src/import/) on what users' files hold: each MJCF and URDF frame
// convention against a matrix worked out by hand, each mistake an error at its line, names
// that are not names of the language, and the written .lag compiled. The dynamics of whole
// robots are compared with MuJoCo in tests/robots/ (mujoco_check).
#include "driver/compiler.hpp"
#include "import/robot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace imp = lagc::import;

namespace {

double const pi = 3.14159265358979323846;

imp::robot_def mjcf(std::string const& body_attributes, std::string const& compiler = "") {
    return imp::read_robot("<mujoco model=\"m\">" + compiler + "<worldbody><body name=\"b\" " + body_attributes +
                           "><joint name=\"j\"/><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body>"
                           "</worldbody></mujoco>");
}

void expect_matrix(imp::mat3 const& got, imp::mat3 const& want, double tolerance = 1e-15) {
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(got[i], want[i], tolerance) << "entry " << i;
}

imp::mat3 rx(double a) { return {1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a)}; }
imp::mat3 ry(double a) { return {std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a)}; }
imp::mat3 rz(double a) { return {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1}; }

// The first error's line and text ("" when there is none).
std::string first_error(imp::robot_def const& r) {
    for (auto const& m : r.messages)
        if (m.error) return std::to_string(m.line) + ": " + m.text;
    return "";
}

std::string compile_errors(std::string const& lag) {
    lagc::compile_options o;
    o.emit.source_name = "robot.lag";
    o.emit.header_name = "robot.hpp";
    auto r = lagc::compile(lag, o);
    return r.files ? "" : r.diags.format(lagc::source_file("robot.lag", lag));
}

} // namespace

TEST(ImportMjcf, FramesFollowMuJoCosConventions) {
    // Degrees by default; euler in the default sequence xyz, rotating axes: Rx Ry Rz.
    expect_matrix(mjcf("euler=\"30 20 10\"").bodies[0].rot,
                  imp::multiply(rx(pi / 6), imp::multiply(ry(pi / 9), rz(pi / 18))));
    // Fixed axes (upper case): each turn applied before the ones already made, Rz Ry Rx.
    expect_matrix(mjcf("euler=\"0.3 0.2 0.1\"", "<compiler angle=\"radian\" eulerseq=\"XYZ\"/>").bodies[0].rot,
                  imp::multiply(rz(0.1), imp::multiply(ry(0.2), rx(0.3))));
    expect_matrix(mjcf("euler=\"0.3 0.2 0.1\"", "<compiler angle=\"radian\" eulerseq=\"zyx\"/>").bodies[0].rot,
                  imp::multiply(rz(0.3), imp::multiply(ry(0.2), rx(0.1))));
    // quat is (w, x, y, z), normalised: a quarter turn about z.
    expect_matrix(mjcf("quat=\"2 0 0 2\"").bodies[0].rot, rz(pi / 2));
    expect_matrix(mjcf("axisangle=\"0 0 -3 90\"").bodies[0].rot, rz(-pi / 2));
    // xyaxes: the frame's x and y (y made orthogonal to x); zaxis: the shortest turn to it.
    expect_matrix(mjcf("xyaxes=\"0 1 0 -1 0.5 0\"").bodies[0].rot, rz(pi / 2));
    expect_matrix(mjcf("zaxis=\"0 -1 0\"").bodies[0].rot, rx(pi / 2));
    expect_matrix(mjcf("zaxis=\"0 0 -2\"").bodies[0].rot, rx(pi));
    // A hinge's ref is an angle (degrees here); a slide's is a length.
    auto r = imp::read_robot("<mujoco><worldbody><body><joint name=\"h\" ref=\"90\"/><joint name=\"s\" type=\"slide\" "
                             "ref=\"90\"/></body></worldbody></mujoco>");
    EXPECT_NEAR(r.bodies[0].joints[0].ref, pi / 2, 1e-15);
    EXPECT_EQ(r.bodies[0].joints[1].ref, 90);
}

TEST(ImportMjcf, DefaultClassesNestAndChildclassApplies) {
    auto r = imp::read_robot(R"(<mujoco>
  <default>
    <joint axis="1 0 0" damping="1"/>
    <default class="a"><joint damping="2"/>
      <default class="b"><joint armature="3"/></default>
    </default>
  </default>
  <worldbody>
    <body name="p" childclass="b"><joint name="j1"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <body name="c"><joint name="j2" class="a" axis="0 2 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <body name="d"><joint name="j3" class="main"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>)");
    ASSERT_EQ(first_error(r), "");
    auto const& j1 = r.bodies[0].joints[0];
    auto const& j2 = r.bodies[1].joints[0];
    auto const& j3 = r.bodies[2].joints[0];
    EXPECT_EQ(j1.damping, 2);  // b's parent a
    EXPECT_EQ(j1.armature, 3); // b
    EXPECT_EQ(j1.axis, (imp::vec3{1, 0, 0}));
    EXPECT_EQ(j2.armature, 0); // class a, not the childclass b
    EXPECT_EQ(j2.axis, (imp::vec3{0, 1, 0}));
    EXPECT_EQ(j3.damping, 1); // main
    EXPECT_EQ((std::vector<std::string>{"j1", "j2", "j3"}), r.joint_order);
}

TEST(ImportMjcf, InertiaIsTurnedIntoTheBodysFrame) {
    auto r = imp::read_robot("<mujoco><worldbody><body><joint/><inertial pos=\"1 2 3\" mass=\"2\" "
                             "quat=\"1 0 0 1\" diaginertia=\"1 2 3\"/></body></worldbody></mujoco>");
    // A quarter turn about z swaps the x and y moments.
    expect_matrix(r.bodies[0].inertia, {2, 0, 0, 0, 1, 0, 0, 0, 3}, 4e-15);
    auto f = imp::read_robot("<mujoco><worldbody><body><joint/><inertial pos=\"0 0 0\" mass=\"2\" "
                             "fullinertia=\"1 2 3 0.1 0.2 0.3\"/></body></worldbody></mujoco>");
    expect_matrix(f.bodies[0].inertia, {1, 0.1, 0.2, 0.1, 2, 0.3, 0.2, 0.3, 3});
}

TEST(ImportUrdf, RpyIsThreeFixedAxisAnglesAndTheInertialTurns) {
    auto r = imp::read_robot(R"(<robot name="r">
  <link name="a"/>
  <link name="b"><inertial><origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/><mass value="1"/>
    <inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 0 0" rpy="0.3 0.2 0.1"/></joint>
</robot>)");
    ASSERT_EQ(first_error(r), "");
    ASSERT_EQ(r.bodies.size(), 2u);
    expect_matrix(r.bodies[1].rot, imp::multiply(rz(0.1), imp::multiply(ry(0.2), rx(0.3))));
    EXPECT_EQ(r.bodies[1].joints[0].axis, (imp::vec3{1, 0, 0})); // URDF's default axis
    expect_matrix(r.bodies[1].inertia, {2, 0, 0, 0, 1, 0, 0, 0, 3});
}

TEST(ImportUrdf, BodiesOnFixedJointsAreMergedIntoTheirParents) {
    // link1 (1 kg at its origin, unit moments) carries a 1 kg point 1 m along x on a fixed
    // joint, turned a quarter about z, and that point carries link3 on a revolute joint.
    auto r = imp::read_robot(R"(<robot name="r">
  <link name="base"/>
  <link name="link1"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <link name="weight"><inertial><mass value="1"/><inertia ixx="0" iyy="0" izz="0"/></inertial></link>
  <link name="link3"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="link1"/><axis xyz="0 0 1"/></joint>
  <joint name="weld" type="fixed"><parent link="link1"/><child link="weight"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="j3" type="revolute"><parent link="weight"/><child link="link3"/><origin xyz="0 1 0"/></joint>
</robot>)");
    ASSERT_EQ(first_error(r), "");
    ASSERT_EQ(r.bodies.size(), 3u); // base, link1 (with weight), link3
    auto const& b = r.bodies[1];
    EXPECT_EQ(b.name, "link1");
    EXPECT_EQ(b.merged, std::vector<std::string>{"weight"});
    EXPECT_EQ(b.mass, 2);
    EXPECT_NEAR(b.com[0], 0.5, 1e-15);
    // About the common centre: each 1 kg half a metre off it along x adds 0.25 to Jyy, Jzz.
    expect_matrix(b.inertia, {1, 0, 0, 0, 1.5, 0, 0, 0, 1.5});
    // link3 hangs from link1 now, at (1, 0, 0) + Rz(90°) (0, 1, 0) = (0, 0, 0), turned by 90°.
    auto const& c = r.bodies[2];
    EXPECT_EQ(c.parent, 1);
    EXPECT_NEAR(c.pos[0], 0.0, 1e-15);
    EXPECT_NEAR(c.pos[1], 0.0, 1e-15);
    expect_matrix(c.rot, rz(pi / 2));
    // The merged link's position output stays, at its own origin in link1's frame.
    ASSERT_EQ(b.sites.size(), 2u);
    EXPECT_EQ(b.sites[1].name, "weight");
    EXPECT_NEAR(b.sites[1].pos[0], 1.0, 1e-15);
    EXPECT_EQ(compile_errors(imp::write_lag(r, "r.urdf")), "");
}

TEST(ImportErrors, MistakesAreReportedAtTheirLine) {
    struct {
        std::string text, want;
    } const cases[] = {
        {"<mujoco>\n<worldbody>\n<body>\n</worldbody>", "3: this XML file cannot be read"},
        {"<mujoco>\n<worldbody>\n<body>\n<joint type=\"screw\"/>\n</body></worldbody></mujoco>",
         "4: a joint's type is hinge, slide, ball or free, not \"screw\""},
        {"<mujoco>\n<worldbody>\n<body name=\"arm\">\n<joint/><geom size=\"1\"/>\n</body></worldbody></mujoco>",
         "3: the body 'arm' has geoms but no <inertial>"},
        {"<mujoco><worldbody><body><joint/>\n<inertial pos=\"0 0 0\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>",
         "2: <inertial> needs mass"},
        {"<mujoco><worldbody><body><joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1\"/></body></worldbody></mujoco>",
         "2: <inertial> diaginertia takes 3 numbers, not 2"},
        {"<mujoco><worldbody>\n<body pos=\"0 0 1x\"><joint/></body></worldbody></mujoco>",
         "2: <body> pos=\"0 0 1x\" is not a list of numbers"},
        {"<mujoco><worldbody>\n<body><joint class=\"nope\"/></body></worldbody></mujoco>", "2: no default class 'nope'"},
        {"<mujoco><worldbody>\n<body quat=\"1 0 0 0\" euler=\"1 2 3\"><joint/></body></worldbody></mujoco>",
         "2: <body> gives its orientation more than once"},
        {"<mujoco><worldbody><body><joint/><body>\n<freejoint/></body></body></worldbody></mujoco>",
         "2: a free joint belongs to a body of the world"},
        {"<mujoco>\n<include file=\"other.xml\"/></mujoco>", "2: <include> is not read by lagc"},
        {"<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n</robot>", "1: the links 'a' and 'b' are both roots"},
        {"<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"planar\"><parent link=\"a\"/>"
         "<child link=\"b\"/></joint></robot>",
         "2: planar joints are not read by lagc"},
        {"<robot name=\"r\"><link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"c\"/>"
         "</joint></robot>",
         "2: the joint 'j' names the link 'c', which the file does not have"},
        {"<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/><joint name=\"j\" type=\"revolute\"><parent link=\"a\"/>"
         "<child link=\"b\"/>\n<mimic joint=\"x&#10;potential 1\"/></joint></robot>",
         "2: the <mimic> joint 'x\npotential 1' is not a revolute, continuous or prismatic joint of this file"},
        {"<sdf version=\"1.6\"/>", "1: lagc reads robot files whose root element is <mujoco> (MJCF) or <robot> (URDF), not <sdf>"},
    };
    for (auto const& c : cases) {
        SCOPED_TRACE(c.text);
        std::string const got = first_error(imp::read_robot(c.text));
        EXPECT_EQ(got.substr(0, c.want.size()), c.want) << got;
    }
}

TEST(ImportWrite, NamesThatAreNotNamesOfTheLanguageAreMadeOnesAndTheModelCompiles) {
    // Joints and bodies named like keywords, built-ins, C++ keywords, with dashes and digits.
    auto r = imp::read_robot(R"(<mujoco model="my-robot 2">
  <worldbody>
    <body name="model"><joint name="der"/><inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="2nd link" pos="0.3 0 0"><joint name="class" axis="0 1 0"/><joint name="t" type="slide" axis="1 0 0"/>
        <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.02 0.03"/><site name="int" pos="0.2 0 0"/>
        <body name="ball"><joint name="sin" type="ball"/><inertial pos="0 0 -0.1" mass="0.5" diaginertia="0.001 0.001 0.001"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>)");
    ASSERT_EQ(first_error(r), "");
    std::string const lag = imp::write_lag(r, "test.xml");
    EXPECT_EQ(compile_errors(lag), "") << lag;
    EXPECT_NE(lag.find("model my_robot_2\n"), std::string::npos) << lag;
    EXPECT_NE(lag.find("coordinate der_2, class_2, t_2, sin_qw, sin_qx, sin_qy, sin_qz\n"), std::string::npos) << lag;
}

TEST(ImportWrite, NamesInCommentsCannotStartStatements) {
    // A body named with a line end: the .lag's comment naming it stays one line.
    auto r = imp::read_robot("<mujoco model=\"m&#10;coordinate evil\"><worldbody><body name=\"b&#10;potential 1e300\">"
                             "<joint name=\"q\"/><inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 1 1\"/></body>"
                             "</worldbody></mujoco>");
    ASSERT_EQ(first_error(r), "");
    std::string const lag = imp::write_lag(r, "a\nb.xml");
    EXPECT_EQ(lag.find("\ncoordinate evil"), std::string::npos) << lag;
    EXPECT_EQ(lag.find("\npotential 1e300"), std::string::npos) << lag;
    EXPECT_EQ(lag.find("\nb.xml"), std::string::npos) << lag;
    EXPECT_EQ(compile_errors(lag), "") << lag;
}

TEST(ImportWrite, SeveralJointsCarryTheParentsAngularVelocityThroughTheWholeTurn) {
    // w = Tᵀ w_parent + (own rates), the parent's w behind one matrix, as a single hinge
    // writes it (lagc's composites follow w from body to body); not X2ᵀ (X1ᵀ w_parent + a1) + a2,
    // whose inner vector is no body's. The values: robot_against_mujoco_humanoid_xml.
    auto r = imp::read_robot("<mujoco><worldbody><body name=\"a\"><joint name=\"q1\"/>"
                             "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 1 1\"/>"
                             "<body name=\"b\" pos=\"0 0 0.5\"><joint name=\"q2\" axis=\"0 0 1\"/>"
                             "<joint name=\"q3\" axis=\"0 1 0\"/><joint name=\"q4\" axis=\"1 0 0\"/>"
                             "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 2 3\"/></body></body></worldbody></mujoco>");
    ASSERT_EQ(first_error(r), "");
    std::string const lag = imp::write_lag(r, "test.xml");
    EXPECT_EQ(compile_errors(lag), "") << lag;
    EXPECT_NE(lag.find("let w_b = transpose(T_b)*w_a + (der(q2)*(transpose(roty(q3)*rotx(q4))*[0.0, 0.0, 1.0]) + "
                       "der(q3)*(transpose(rotx(q4))*[0.0, 1.0, 0.0]) + [der(q4), 0, 0])\n"),
              std::string::npos)
        << lag;
}

TEST(ImportWrite, QuarterTurnsAreWrittenExactly) {
    // A turn the file gives as seven-digit quaternions is written rotx(pi/2), not as numbers.
    auto r = imp::read_robot("<mujoco><worldbody><body quat=\"0.7071068 0.7071068 0 0\"><joint name=\"q\"/>"
                             "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>");
    std::string const lag = imp::write_lag(r, "test.xml");
    EXPECT_NE(lag.find("let T_body1 = rotx(pi/2)*rotz(q)\n"), std::string::npos) << lag;
}
