// The robot-file readers (src/import/) on what users' files hold: each MJCF and URDF frame
// convention against a matrix worked out by hand, each mistake an error at its line, names
// that are not names of the language, and the written .lag compiled. The dynamics of whole
// robots are compared with MuJoCo in tests/robots/ (mujoco_check).
#include "driver/compiler.hpp"
#include "import/names.hpp"
#include "import/robot.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

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
        {"<mujoco>\n<worldbody>\n<body name=\"arm\">\n<joint/><geom type=\"box\" size=\"1\"/>\n</body></worldbody></mujoco>",
         "4: a geom's sizes must be positive: this one needs 3"},
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
         "2: the <mimic> joint 'x?potential 1' is not a revolute, continuous or prismatic joint of this file"},
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

// ---------------------------------------------------------------------------------------------
// Issue 46: the importer's faults from an adversarial round, each a case below.
namespace {

std::string const unit_inertial = "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 1 1\"/>";

// Bodies in a chain, one per joint (each `<joint .../>` or `<freejoint .../>` text).
std::string mjcf_chain(std::vector<std::string> const& joints, std::string const& head = "") {
    std::string text = "<mujoco model=\"m\">" + head + "<worldbody>";
    for (std::size_t i = 0; i < joints.size(); ++i)
        text += "<body name=\"b" + std::to_string(i) + "\">" + joints[i] + unit_inertial;
    for (std::size_t i = 0; i < joints.size(); ++i) text += "</body>";
    return text + "</worldbody></mujoco>";
}

// Every error, each "line: text", one a line.
std::string all_errors(imp::robot_def const& r) {
    std::string out;
    for (auto const& m : r.messages)
        if (m.error) out += std::to_string(m.line) + ": " + m.text + "\n";
    return out;
}

// The robot's .lag, which must compile: "" and a failure where it does not.
std::string compiled_lag(std::string const& text, imp::inertial_form form = imp::inertial_form::centre_of_mass) {
    auto const r = imp::read_robot(text, form);
    EXPECT_EQ(all_errors(r), "");
    if (r.has_errors()) return "";
    std::string const lag = imp::write_lag(r, "test.xml", form);
    EXPECT_EQ(compile_errors(lag), "") << lag;
    return lag;
}

std::string line_starting(std::string const& lag, std::string const& start) {
    std::size_t const at = lag.find("\n" + start);
    return at == std::string::npos ? "" : lag.substr(at + 1, lag.find('\n', at + 1) - at - 1);
}

} // namespace

TEST(ImportNames, AnUnnamedFreeJointBesideAJointCalledJoint1GetsItsOwnName) {
    // It was named joint1 too: the two joints shared one entry, and a 7-coordinate free joint
    // read the hinge's one coordinate (SIGSEGV, or "out of memory").
    std::string const lag = compiled_lag(mjcf_chain({"<freejoint/>", "<joint name=\"joint1\"/>"}));
    EXPECT_EQ(line_starting(lag, "coordinate"),
              "coordinate joint1_2_x, joint1_2_y, joint1_2_z, joint1_2_qw, joint1_2_qx, joint1_2_qy, joint1_2_qz, joint1");
    // A floating 7-joint arm whose third joint is called joint1.
    std::vector<std::string> arm = {"<freejoint/>"};
    for (int i = 0; i < 7; ++i) arm.push_back("<joint name=\"" + (i == 2 ? std::string("joint1") : "q" + std::to_string(i)) + "\"/>");
    compiled_lag(mjcf_chain(arm));
}

TEST(ImportNames, MadeUpNamesEndingInAnUnderscoreAndNamesBeyondAsciiAreUnique) {
    // q- and q+ were both q_, and q__2, q__3, … are reserved in C++: lagc looked forever.
    EXPECT_EQ(line_starting(compiled_lag(mjcf_chain({"<joint name=\"q-\"/>", "<joint name=\"q+\"/>"})), "coordinate"),
              "coordinate q, q_2");
    // Every character beyond ASCII was an underscore (肩 and 肘 both tau_, then tau__2, …):
    // each is its code point.
    std::string const lag = compiled_lag(mjcf_chain({"<joint name=\"肩\"/>", "<joint name=\"肘\"/>", "<joint name=\"右肘\"/>"}));
    EXPECT_EQ(line_starting(lag, "coordinate"), "coordinate u80a9, u8098, u53f3_u8098");
    EXPECT_EQ(line_starting(lag, "input"), "input tau_u80a9, tau_u8098, tau_u53f3_u8098");
}

TEST(ImportNames, NoMadeUpNameIsReservedInCxx) {
    // Bodies a_ and a- were both a_, the second's parameters m_a__2 …: a double underscore.
    std::string const lag = compiled_lag("<mujoco><worldbody><body name=\"a_\"><joint name=\"j_\"/>" + unit_inertial +
                                         "</body><body name=\"a-\"><joint name=\"j-\"/>" + unit_inertial +
                                         "<site name=\"_s_\"/><site name=\"-s-\"/></body></worldbody></mujoco>");
    EXPECT_EQ(lag.find("__"), std::string::npos) << lag;
    EXPECT_NE(lag.find("parameter m_a_2 = 1.0"), std::string::npos) << lag;
    EXPECT_NE(lag.find("output s_2 = "), std::string::npos) << lag;
}

TEST(ImportNames, RepeatedNamesAreRefusedAsMuJoCoAndUrdfRefuseThem) {
    EXPECT_EQ(all_errors(imp::read_robot(mjcf_chain({"<joint name=\"j\"/>", "<joint name=\"j\"/>"}))),
              "1: a second joint named 'j' (the first is at line 1): MuJoCo refuses repeated names (\"repeated name\")\n");
    EXPECT_NE(all_errors(imp::read_robot("<mujoco><worldbody><body name=\"a\"><joint/>" + unit_inertial +
                                         "</body>\n<body name=\"a\"><joint/>" + unit_inertial + "</body></worldbody></mujoco>"))
                  .find("2: a second body named 'a' (the first is at line 1)"),
              std::string::npos);
    auto const urdf = imp::read_robot(R"(<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>
<joint name="j" type="revolute"><parent link="b"/><child link="c"/></joint></robot>)");
    EXPECT_EQ(first_error(urdf), "3: a second joint named 'j' (the first is at line 2): a URDF's joint names are unique");
}

TEST(ImportNames, AJointsParametersDoNotTakeAnotherJointsName) {
    // armature_j was written for j's armature and was also the joint armature_j's coordinate.
    std::string const lag = compiled_lag(mjcf_chain({"<joint name=\"j\" armature=\"0.1\" damping=\"0.2\"/>",
                                                     "<joint name=\"armature_j\"/>", "<joint name=\"damping_j\"/>"}));
    EXPECT_EQ(line_starting(lag, "parameter armature"), "parameter armature_j_2 = 0.1, damping_j_2 = 0.2");
    EXPECT_NE(lag.find("kinetic 0.5*armature_j_2*der(j)^2"), std::string::npos) << lag;
}

TEST(ImportNames, LongNamesAreShortenedAndStayUnique) {
    // Names of 300 characters were written through, past the language's 200.
    std::string const a(300, 'a'), b = std::string(299, 'a') + "b";
    std::string const lag = compiled_lag(mjcf_chain({"<joint name=\"" + a + "\"/>", "<joint name=\"" + b + "\"/>",
                                                     "<joint name=\"" + b + "x\" type=\"ball\"/>"}));
    std::string const cut(100, 'a');
    EXPECT_EQ(line_starting(lag, "coordinate"), "coordinate " + cut + ", " + cut + "_2, " + cut + "_qw, " + cut + "_qx, " +
                                                    cut + "_qy, " + cut + "_qz");
    // A message quotes a name of 2 MB by its first 60 characters and its length.
    auto const r = imp::read_robot(mjcf_chain({"<joint name=\"" + std::string(2000000, 'x') + "\" type=\"screw\"/>"}));
    auto const r2 = imp::read_robot(mjcf_chain({"<joint name=\"" + std::string(2000000, 'x') + "\"/>",
                                                "<joint name=\"" + std::string(2000000, 'x') + "\"/>"}));
    EXPECT_LT(all_errors(r).size(), 200u);
    EXPECT_EQ(all_errors(r2), "1: a second joint named '" + std::string(60, 'x') +
                                  "… (2000000 bytes)' (the first is at line 1): MuJoCo refuses repeated names (\"repeated name\")\n");
}

TEST(ImportNames, ControlCharactersInNamesAreShownAsQuestionMarks) {
    // An escape sequence in a joint's name reached the terminal (a forged line, a window title).
    auto const r = imp::read_robot(mjcf_chain({"<joint name=\"a&#27;]0;title&#7;&#10;x.xml:1:1: error: forged\"/>",
                                               "<joint name=\"a&#27;]0;title&#7;&#10;x.xml:1:1: error: forged\"/>"}));
    EXPECT_EQ(all_errors(r), "1: a second joint named 'a?]0;title??x.xml:1:1: error: forged' (the first is at line 1): "
                             "MuJoCo refuses repeated names (\"repeated name\")\n");
    for (auto const& m : r.messages)
        for (unsigned char c : m.text) EXPECT_FALSE(c < 0x20 || c == 0x7F) << m.text;
    // The bidirectional overrides and C1 controls, too; other characters beyond ASCII are kept.
    EXPECT_EQ(imp::shown("肩\xE2\x80\xAE" "x\xC2\x9B" "y\xFF"), "肩?x?y?");
}

TEST(ImportMjcf, AnInvalidEulerseqIsAnErrorAndNotUsed) {
    // Its letters indexed the quaternion: "abc" wrote before it (a bus error in Release).
    auto const r = imp::read_robot("<mujoco>\n<compiler eulerseq=\"abc\"/><worldbody><body euler=\"10 20 30\"><joint/>" +
                                   unit_inertial + "</body></worldbody></mujoco>");
    EXPECT_EQ(first_error(r), "2: <compiler> eulerseq takes three of x, y, z, X, Y, Z, not \"abc\"");
    EXPECT_EQ(first_error(mjcf("euler=\"1 2 3\"", "<compiler eulerseq=\"xyzx\"/>")).substr(3, 23), "<compiler> eulerseq tak");
}

TEST(ImportMjcf, TheJointsOfOneBodyFollowMuJoCosRules) {
    auto body = [](std::string const& joints) {
        return imp::read_robot("<mujoco><worldbody><body name=\"a\">" + joints + unit_inertial + "</body></worldbody></mujoco>");
    };
    // A hinge and then a free joint: R turned by the hinge, no angular velocity from it.
    EXPECT_EQ(first_error(body("<joint name=\"h\"/>\n<freejoint name=\"f\"/>")),
              "2: the joint 'f' gives the body 'a' more than 6 degrees of freedom (a free joint is its body's only joint): "
              "MuJoCo refuses it (\"more than 6 dofs in body\")");
    EXPECT_EQ(first_error(body("<freejoint name=\"f\"/>\n<joint name=\"s\" type=\"slide\"/>")).substr(0, 47),
              "2: the joint 's' gives the body 'a' more than 6");
    EXPECT_EQ(first_error(body("<joint/><joint/><joint/><joint/><joint/><joint/>\n<joint name=\"seventh\"/>")),
              "2: the joint 'seventh' gives the body 'a' more than 6 degrees of freedom: MuJoCo refuses it (\"more than 6 "
              "dofs in body\")");
    // Two ball joints (their Q_a and N_a written twice), or a hinge after a ball.
    EXPECT_EQ(first_error(body("<joint name=\"b1\" type=\"ball\"/>\n<joint name=\"b2\" type=\"ball\"/>")),
              "2: the joint 'b2' turns the body 'a' after the ball joint 'b1', which already turns it every way: MuJoCo "
              "refuses it (\"ball followed by rotation\")");
    EXPECT_NE(first_error(body("<joint name=\"b1\" type=\"ball\"/>\n<joint name=\"h\"/>")), "");
    // What MuJoCo takes: a slide after a ball, a ball after a hinge, six hinges.
    EXPECT_EQ(first_error(body("<joint type=\"ball\"/><joint type=\"slide\"/>")), "");
    EXPECT_EQ(first_error(body("<joint/><joint type=\"ball\"/>")), "");
    EXPECT_EQ(first_error(body("<joint/><joint/><joint/><joint/><joint/><joint/>")), "");
}

// A frame's turn is written with the file's own digits: a quat as the exact ratios of
// Q(q)/|q|^2, URDF's rpy as three turns. From the rotation matrix instead (an axis of 16
// digits), the square roots of 32-digit rationals made ANYmal C's derivation overflow
// (issue 46); quarter turns stay as they were (rotx(pi/2)).
TEST(ImportFrames, TurnsAreWrittenWithTheFilesOwnDigits) {
    auto const mjcf_robot = imp::read_robot(R"(<mujoco><worldbody>
  <body name="a" quat="0.183013 0.683013 0.683013 -0.183013"><joint name="j" axis="1 0 0"/>
    <inertial pos="0 0 0.1" mass="1" diaginertia="1 1 1"/>
    <body name="b" quat="1 1 0 0"><joint name="k"/><inertial pos="0 0 0.1" mass="1" diaginertia="1 1 1"/></body>
  </body></worldbody></mujoco>)");
    std::string const lag = imp::write_lag(mjcf_robot, "q.xml");
    EXPECT_NE(lag.find("let T_a = [[0, 1, 0], [216506500000/250000258169, 0, -125000258169/250000258169], "
                       "[-125000258169/250000258169, 0, -216506500000/250000258169]]*rotx(j)"),
              std::string::npos)
        << lag;
    EXPECT_NE(lag.find("let T_b = rotx(pi/2)*rotz(k)"), std::string::npos) << lag;
    EXPECT_EQ(compile_errors(lag), "");
    auto const urdf_robot = imp::read_robot(R"(<robot name="r"><link name="base"/>
  <link name="l"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="l"/><origin rpy="0.25 0 -1.5"/><axis xyz="0 0 1"/></joint>
</robot>)");
    std::string const written = imp::write_lag(urdf_robot, "r.urdf");
    EXPECT_NE(written.find("let T_l = rotz(-(1.5))*rotx(0.25)*rotz(j)"), std::string::npos) << written;
    EXPECT_EQ(compile_errors(written), "");
}

// The turn kept as the file gave it (euler in any sequence, axisangle, quat) is the frame's
// rotation: its turns multiplied in order, or its axis and angle, give rot.
TEST(ImportFrames, AFramesTurnAsGivenIsItsRotation) {
    using kind = imp::body_def::given_rotation::kind;
    std::pair<char const*, char const*> const cases[] = {
        {"euler=\"30 20 10\"", ""},
        {"euler=\"0.3 0.2 0.1\"", "<compiler angle=\"radian\" eulerseq=\"XYZ\"/>"},
        {"euler=\"0.3 -0.2 0.1\"", "<compiler angle=\"radian\" eulerseq=\"zYx\"/>"},
        {"axisangle=\"1 2 -3 40\"", ""},
        {"quat=\"0.9 0.1 -0.3 0.2\"", ""}};
    for (auto const& [attributes, compiler] : cases) {
        auto const r = mjcf(attributes, compiler);
        imp::body_def const& b = r.bodies[0];
        ASSERT_TRUE(b.rot_given) << attributes;
        imp::mat3 R = imp::identity3;
        auto const& g = *b.rot_given;
        if (g.form == kind::quaternion) R = imp::quaternion_matrix(g.values);
        if (g.form == kind::axis_angle) R = imp::axis_angle_matrix({g.values[0], g.values[1], g.values[2]}, g.values[3]);
        for (auto const& [axis, a] : g.turns) R = imp::multiply(R, axis == 0 ? rx(a) : axis == 1 ? ry(a) : rz(a));
        expect_matrix(R, b.rot, 1e-15);
        EXPECT_NE(imp::written_turn(b), "") << attributes;
    }
    // xyaxes and zaxis are written by their axis and angle, as before.
    EXPECT_FALSE(mjcf("zaxis=\"0 1 1\"").bodies[0].rot_given);
}

TEST(ImportFrames, LargeComponentsAreNormalisedWithoutOverflow) {
    // Squares of 1e200 overflowed: quat="1e200 1e200 0 0" became a zero matrix (exit 0).
    expect_matrix(mjcf("quat=\"1e200 1e200 0 0\"").bodies[0].rot, rx(pi / 2));
    expect_matrix(mjcf("axisangle=\"0 0 1e300 90\"").bodies[0].rot, rz(pi / 2));
    expect_matrix(mjcf("zaxis=\"0 -1e300 0\"").bodies[0].rot, rx(pi / 2));
    expect_matrix(mjcf("xyaxes=\"0 1e200 0 -1e200 0 0\"").bodies[0].rot, rz(pi / 2));
    // The inertial's own frame, and a joint's axis.
    auto const r = imp::read_robot("<mujoco><worldbody><body><joint axis=\"0 1e300 1e300\"/><inertial pos=\"0 0 0\" "
                                   "mass=\"1\" quat=\"1e200 0 0 1e200\" diaginertia=\"1 2 3\"/></body></worldbody></mujoco>");
    ASSERT_EQ(first_error(r), "");
    expect_matrix(r.bodies[0].inertia, {2, 0, 0, 0, 1, 0, 0, 0, 3}, 4e-15);
    EXPECT_NEAR(r.bodies[0].joints[0].axis[1], std::sqrt(0.5), 2e-16);
    EXPECT_NEAR(imp::norm(imp::vec3{3e300, 4e300, 0}), 5e300, 1e286);
    // An ordinary vector's length is the same double as sqrt(x² + y² + z²).
    imp::vec3 const v{0.1, 0.7, 0.3};
    EXPECT_EQ(imp::norm(v), std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    auto const u = imp::read_robot(R"(<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">
<parent link="a"/><child link="b"/><axis xyz="1e300 0 1e300"/></joint></robot>)");
    EXPECT_NEAR(u.bodies[1].joints[0].axis[2], std::sqrt(0.5), 2e-16);
}

TEST(ImportNumbers, NoNumberThatIsNotFiniteReachesTheLag) {
    // gravity 1e200: its length's square overflowed, g = inf.0 was written.
    std::string const lag = compiled_lag(mjcf_chain({"<joint name=\"j\"/>"}, "<option gravity=\"0 1e200 -1e200\"/>"));
    EXPECT_EQ(line_starting(lag, "parameter g"), "parameter g = 1.414213562373095e+200");
    // Two masses of 1e308 fused: the sum is inf.
    auto const fused = imp::read_robot(R"(<robot name="r"><link name="base"/>
<link name="a"><inertial><mass value="1e308"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<link name="b"><inertial><mass value="1e308"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint>
<joint name="w" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)");
    EXPECT_EQ(first_error(fused), "3: merging the body 'b' into 'a', to which it is fixed, gives numbers that do not fit in "
                                  "a double (its mass, centre of mass, inertia or position, added to the other's)");
    // The linear form's m·c and inertia about the frame: 1e200 · 1e200.
    std::string const big = "<mujoco><worldbody>\n<body name=\"a\"><joint name=\"j\"/><inertial pos=\"1e200 0 0\" "
                            "mass=\"1e200\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>";
    EXPECT_EQ(first_error(imp::read_robot(big)), "");
    EXPECT_EQ(first_error(imp::read_robot(big, imp::inertial_form::linear)).substr(0, 86),
              "2: the body 'a' in linear parameters (--inertial-parameters linear): its first moments");
    // A body fixed to the world far out, twice over: its frame, written as constants.
    auto const world = imp::read_robot("<mujoco><worldbody><body pos=\"1e308 0 0\"><body pos=\"1e308 0 0\">\n<body name=\"c\">"
                                       "<joint/>" + unit_inertial + "</body></body></body></worldbody></mujoco>");
    EXPECT_EQ(first_error(world).substr(0, 30), "2: the frame of the body 'c' i");
    // A description made by hand (not read): write_lag throws rather than write inf.
    imp::robot_def hand = imp::read_robot(mjcf_chain({"<joint name=\"j\"/>"}));
    hand.bodies[0].mass = std::numeric_limits<double>::infinity();
    EXPECT_THROW(imp::write_lag(hand, "hand.xml"), std::domain_error);
}

TEST(ImportNumbers, ANumberThatIsNotFiniteIsReportedOnceWithItsReason) {
    // mass="nan": "not a list of numbers", then "a mass cannot be negative" from a fallback -1.
    auto const r = imp::read_robot("<mujoco><worldbody><body><joint/>\n<inertial pos=\"0 0 0\" mass=\"nan\" "
                                   "diaginertia=\"1 1 1\"/></body></worldbody></mujoco>");
    EXPECT_EQ(all_errors(r), "2: <inertial> mass=\"nan\": nan is not a finite number (a double holds up to 1.8e308)\n");
    EXPECT_EQ(first_error(mjcf("pos=\"0 1e400 0\"")), "1: <body> pos=\"0 1e400 0\": 1e400 is not a finite number (a double "
                                                     "holds up to 1.8e308)");
    // An underflow is 0, as strtod (and MuJoCo) read it.
    EXPECT_EQ(first_error(mjcf("pos=\"0 1e-400 0\"")), "");
}

TEST(ImportInertia, InertiasNoMassHasAreRefusedAsMuJoCoRefusesThem) {
    auto inertial = [](std::string const& attributes) {
        return first_error(imp::read_robot("<mujoco><worldbody><body name=\"a\"><joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" " +
                                           attributes + "/></body></worldbody></mujoco>"));
    };
    EXPECT_EQ(inertial("diaginertia=\"1 1 3\""),
              "2: the inertia of the body 'a' breaks the triangle inequality (principal moments 1, 1, 3), 1 + 1 < 3: no "
              "distribution of mass has it, and MuJoCo refuses it (\"inertia must satisfy A + B >= C\")");
    EXPECT_EQ(inertial("fullinertia=\"1 1 1 2 0 0\""),
              "2: the inertia of the body 'a' is not positive semi-definite (principal moments -1, 1, 3): no distribution "
              "of mass has it, and MuJoCo refuses it (\"inertia must have positive eigenvalues\")");
    EXPECT_NE(inertial("diaginertia=\"1 -1 1\""), "");
    // On the edge (a thin disc, a rod), a point mass, huge moments: taken.
    EXPECT_EQ(inertial("diaginertia=\"1 1 2\""), "");
    EXPECT_EQ(inertial("diaginertia=\"0 1 1\" quat=\"0.3 0.1 0.7 0.2\""), "");
    EXPECT_EQ(inertial("diaginertia=\"0 0 0\""), "");
    EXPECT_EQ(inertial("fullinertia=\"1e308 1e308 1e308 1e307 0 0\""), "");
    auto const urdf = imp::read_robot(R"(<robot name="r"><link name="base"/><link name="a"><inertial><mass value="1"/>
<inertia ixx="1" iyy="2" izz="4" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint></robot>)");
    EXPECT_EQ(first_error(urdf).substr(0, 60), "2: the inertia of the body 'a' breaks the triangle inequalit");
}

TEST(ImportStructure, ALoopDetachedFromTheRootIsAClearError) {
    // Its joints were never reached from the root, and writing them said "map::at".
    auto const r = imp::read_robot(R"(<robot name="r"><link name="base"/><link name="a"/><link name="b"/><link name="c"/>
<joint name="j0" type="revolute"><parent link="base"/><child link="a"/></joint>
<joint name="j1" type="revolute"><parent link="b"/><child link="c"/></joint>
<joint name="j2" type="revolute"><parent link="c"/><child link="b"/></joint></robot>)");
    EXPECT_EQ(all_errors(r), "4: the links 'b', 'c' form a closed loop of joints, detached from the root link 'base': a "
                             "URDF is a tree (write the loop's closing joint as a constraint in the .lag)\n");
}

TEST(ImportStructure, ARobotWithoutJointsIsAClearError) {
    // It wrote `coordinate ` with nothing after it.
    EXPECT_EQ(first_error(imp::read_robot("<mujoco>\n<worldbody><body>" + unit_inertial + "</body></worldbody></mujoco>")),
              "1: the robot has no joints: nothing in it moves, and a model needs a coordinate (give a body a <joint>, or "
              "a <freejoint/> to a body of the world)");
    EXPECT_EQ(first_error(imp::read_robot(R"(<robot name="r"><link name="a"/><link name="b"/>
<joint name="w" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)")),
              "1: the robot has no joints: nothing in it moves, and a model needs a coordinate (give a joint a type other "
              "than fixed)");
    imp::robot_def none;
    none.bodies.resize(1);
    EXPECT_EQ(imp::write_lag(none, "none.xml").find("coordinate"), std::string::npos);
}

TEST(ImportUrdf, AFixedJointsAxisIsIgnored) {
    // A CAD exporter writes <axis xyz="0 0 0"/> into fixed joints; URDF ignores it there.
    compiled_lag(R"(<robot name="r"><link name="base"/>
<link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
<joint name="w" type="fixed"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint></robot>)");
}

TEST(ImportStructure, FusingFixedBodiesIsLinear) {
    // 100,000 bodies fixed to one: each merge searched the later bodies for its children
    // (17.7 s); now one pass (about 0.3 s here).
    std::string text = "<mujoco><worldbody><body name=\"a\"><joint name=\"j\"/>" + unit_inertial;
    for (int i = 0; i < 100000; ++i) text += "<body pos=\"0 0 0.01\">" + unit_inertial + "</body>";
    text += "</body></worldbody></mujoco>";
    auto const start = std::chrono::steady_clock::now();
    auto const r = imp::read_robot(text);
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(first_error(r), "");
    ASSERT_EQ(r.bodies.size(), 1u);
    EXPECT_EQ(r.bodies[0].mass, 100001);
    EXPECT_LT(seconds, 5.0);
    EXPECT_LT(imp::write_lag(r, "many.xml").size(), 3000u); // the merged bodies' names: the first 20
}

TEST(ImportStructure, OutputsAreCounted) {
    // Each URDF link that moves is an output (--max-outputs bounds them in the driver).
    std::string text = R"(<robot name="r"><link name="base"/><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="a"/></joint>)";
    for (int i = 0; i < 30; ++i)
        text += "<link name=\"f" + std::to_string(i) + "\"/><joint name=\"w" + std::to_string(i) +
                "\" type=\"fixed\"><parent link=\"a\"/><child link=\"f" + std::to_string(i) + "\"/></joint>";
    EXPECT_EQ(imp::output_count(imp::read_robot(text + "</robot>")), 31u);
}

// Keyframes (named poses) are read (tests/test_import_actuators.cpp); what lagc does not keep
// of them (ctrl, act, time) is a note, one for all the keys that give it.
TEST(ImportReport, KeyframesCtrlAndTimeAreLeftOutWithANote) {
    std::string const text = "<mujoco>\n<worldbody>\n  <body name=\"a\"><joint name=\"j\"/>" + unit_inertial +
                             "</body>\n</worldbody>\n<keyframe><key name=\"home\" qpos=\"0.3\" ctrl=\"1\"/>\n"
                             "<key name=\"up\" qpos=\"0.5\" time=\"2\"/></keyframe>\n</mujoco>\n";
    auto const r = imp::read_robot(text);
    lagc::diagnostics diags;
    imp::report(r, text, diags);
    std::string const out = diags.format(lagc::source_file("a.xml", text));
    EXPECT_NE(out.find("a.xml:5:1: note: 2 keyframes' time, act, ctrl, mpos and mquat are left out (lagc keeps their qpos "
                       "and qvel) (the first here)"),
              std::string::npos)
        << out;
    EXPECT_FALSE(diags.has_errors());
    ASSERT_EQ(r.keyframes.size(), 2u);
    EXPECT_EQ(r.keyframes[1].qpos, std::vector<double>{0.5});
}

TEST(ImportReport, MessagesAreDiagnosticsAtTheirLines) {
    std::string const text = "<mujoco>\n<worldbody>\n  <body name=\"a\"><joint name=\"j&#27;[2J\" type=\"screw\"/>" +
                             unit_inertial + "</body>\n</worldbody><sensor/></mujoco>\n";
    auto const r = imp::read_robot(text);
    lagc::diagnostics diags;
    imp::report(r, text, diags);
    EXPECT_EQ(diags.format(lagc::source_file("a.xml", text)),
              "a.xml:3:1: error: a joint's type is hinge, slide, ball or free, not \"screw\"\n"
              "  " + text.substr(text.find("  <body"), text.find("</body>") + 7 - text.find("  <body")) + "\n  ^\n"
              "a.xml:4:1: note: <sensor> is ignored: write the outputs you need in the .lag\n"
              "  </worldbody><sensor/></mujoco>\n  ^\n");
}

// MuJoCo's medium (<option density viscosity>) pushes on every moving body; lagc's equations
// are in vacuum, and a note says so (a published quadrotor's file sets air's).
TEST(ImportReport, TheMediumsForcesAreNoted) {
    std::string const body = "<worldbody><body name=\"a\"><freejoint/>" + unit_inertial + "</body></worldbody></mujoco>\n";
    auto const air = imp::read_robot("<mujoco>\n<option density=\"1.225\" viscosity=\"1.8e-5\"/>\n" + body);
    ASSERT_EQ(air.messages.size(), 1u);
    EXPECT_EQ(air.messages[0].line, 2);
    EXPECT_EQ(air.messages[0].text, "the medium's forces (<option> density, viscosity: MuJoCo's fluid drag and lift) are left "
                                    "out: lagc's equations are those in vacuum (write a drag force in the .lag)");
    EXPECT_TRUE(imp::read_robot("<mujoco>\n<option gravity=\"0 0 -9\"/>\n" + body).messages.empty());
}

// A URDF link with collision shapes and no <inertial> is massless (the URDF specification);
// MuJoCo's importer gives it the shapes' mass, so the difference is said (the published
// Unitree A1's collision-only shoulder links: MuJoCo's hip is 0.17 kg heavier).
TEST(ImportReport, AMasslessLinkWithCollisionShapesIsNoted) {
    std::string const text = "<robot name=\"r\">\n<link name=\"base\"/>\n"
                             "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/></joint>\n"
                             "<link name=\"arm\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n"
                             "<joint name=\"f\" type=\"fixed\"><parent link=\"arm\"/><child link=\"shoulder\"/></joint>\n"
                             "<link name=\"shoulder\"><collision><geometry><cylinder length=\"0.03\" radius=\"0.04\"/></geometry>"
                             "</collision></link>\n</robot>\n";
    auto const r = imp::read_robot(text);
    std::string notes;
    for (auto const& m : r.messages) notes += std::to_string(m.line) + ": " + m.text + "\n";
    EXPECT_NE(notes.find("6: a link with <collision> but no <inertial> is massless, as URDF says (MuJoCo's importer gives it "
                         "its collision shapes' mass at density 1000)\n"), std::string::npos) << notes;
    for (auto const& b : r.bodies)
        if (b.name == "arm") EXPECT_EQ(b.mass, 1.0) << "the shoulder adds nothing";
}
