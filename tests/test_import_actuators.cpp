// Robot files' actuators, keyframes and notes (issue 49), in-process: what the readers take
// from MJCF's <actuator> and <keyframe> and URDF's <transmission>, what they leave out and
// say so (one note per kind, counted), the .lag lines and header constants they become. The
// dynamics of those lines against MuJoCo are in tests/robots/actuators_check.cpp.
#include "driver/compiler.hpp"
#include "import/robot.hpp"

#include <gtest/gtest.h>

#include <string>

namespace imp = lagc::import;

namespace {

std::string const inertial = "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"1 1 1\"/>";

// A chain of hinges j0, j1, … (one a line, from line 2), then `tail` before </mujoco>.
std::string chain(int joints, std::string const& joint_attributes, std::string const& tail) {
    std::string text = "<mujoco model=\"m\"><worldbody>\n";
    for (int i = 0; i < joints; ++i)
        text += "<body name=\"b" + std::to_string(i) + "\"><joint name=\"j" + std::to_string(i) + "\" " + joint_attributes + "/>" +
                inertial + "\n";
    for (int i = 0; i < joints; ++i) text += "</body>";
    return text + "</worldbody>\n" + tail + "</mujoco>\n";
}

// --inputs actuators.
imp::read_options actuated() {
    imp::read_options o;
    o.inputs = imp::input_form::actuators;
    return o;
}

std::string notes(imp::robot_def const& r) {
    std::string out;
    for (auto const& m : r.messages) out += std::to_string(m.line) + (m.error ? ": error: " : ": note: ") + m.text + "\n";
    return out;
}

std::string line_starting(std::string const& text, std::string const& start) {
    std::size_t const at = text.find("\n" + start);
    return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

std::string header_of(std::string const& lag, std::vector<lagc::named_state> const& keyframes, std::string const& scalar = "double") {
    lagc::compile_options o;
    o.emit.source_name = "robot.lag";
    o.emit.header_name = "robot.hpp";
    o.emit.header_only = true;
    o.emit.scalar = scalar;
    o.emit.keyframes = keyframes;
    auto r = lagc::compile(lag, o);
    EXPECT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file("robot.lag", lag));
    return r.files ? r.files->header : "";
}

} // namespace

TEST(ImportNotes, OneNotePerKindCountingTheElements) {
    // A hand's 24 joints with frictionloss: one note at the first one's line, not 24.
    auto const r = imp::read_robot(chain(24, "frictionloss=\"0.1\"", ""));
    EXPECT_EQ(notes(r), "2: note: 24 joints' frictionloss (dry friction) is left out: write it as a force in the .lag (the first here)\n");
    // One of them: the note of its own.
    EXPECT_EQ(notes(imp::read_robot(chain(1, "frictionloss=\"0.1\"", ""))),
              "2: note: a joint's frictionloss (dry friction) is left out: write it as a force in the .lag\n");
    // URDF's friction, counted the same way.
    std::string urdf = "<robot name=\"r\"><link name=\"base\"/>\n";
    for (int i = 0; i < 3; ++i) {
        std::string const n = std::to_string(i), parent = i ? "l" + std::to_string(i - 1) : "base";
        urdf += "<link name=\"l" + n + "\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n"
                "<joint name=\"j" + n + "\" type=\"continuous\"><parent link=\"" + parent + "\"/><child link=\"l" + n +
                "\"/><dynamics friction=\"0.2\"/></joint>\n";
    }
    EXPECT_EQ(notes(imp::read_robot(urdf + "</robot>")),
              "3: note: 3 joints' friction (dry friction) is left out: write it as a force in the .lag (the first here)\n");
}

TEST(ImportActuators, MjcfActuatorsAreReadWithTheirGearsAndKinds) {
    std::string const text = chain(3, "", R"(<default><motor gear="7"/></default>
<actuator>
  <motor name="m0" joint="j0" gear="50"/>
  <motor name="m0 assist" joint="j0"/>
  <general name="g1" joint="j1" gainprm="0.5" gear="3"/>
  <position name="p2" joint="j2" kp="20"/>
  <cylinder name="c2" joint="j2"/>
  <motor name="on_site" site="s"/>
  <muscle name="bicep" joint="j1"/>
  <general name="filtered" joint="j1" dyntype="filter"/>
</actuator>
)");
    auto const r = imp::read_robot(text, imp::inertial_form::centre_of_mass, actuated());
    ASSERT_EQ(r.actuators.size(), 4u) << notes(r);
    EXPECT_EQ(r.actuators[0].gear, 50);
    EXPECT_EQ(r.actuators[1].gear, 7); // the default class's
    EXPECT_EQ(r.actuators[2].gain, 0.5);
    EXPECT_EQ(r.actuators[3].gear, 7); // a default <motor>'s gear is every actuator's (MuJoCo keeps one)
    EXPECT_EQ(r.actuators[3].kp, 20);
    // What lagc cannot write: one note per kind, counted, at the first one's line.
    EXPECT_EQ(notes(r), "12: note: 2 actuators are left out: lagc writes <motor>, <general>, <position> and <velocity> "
                        "actuators, not these (the first here)\n"
                        "13: note: an actuator is left out: lagc writes actuators on joints and fixed tendons (not on sites or "
                        "bodies)\n"
                        "15: note: an actuator is left out: lagc writes a <general> of fixed gain, bias none or affine and no "
                        "dynamics (dyntype none)\n");
    std::string const lag = imp::write_lag(r, "a.xml", imp::inertial_form::centre_of_mass, imp::input_form::actuators);
    EXPECT_EQ(line_starting(lag, "input"), "input m0, m0_assist, g1, p2");
    EXPECT_EQ(line_starting(lag, "parameter gear_m0 "), "parameter gear_m0 = 50.0");
    EXPECT_NE(lag.find("\nforce gear_m0*m0 on j0\n# the actuator 'm0 assist' (<motor>, line 9)\nforce gear_m0_assist*m0_assist on j0\n"),
              std::string::npos)
        << lag;
    EXPECT_NE(lag.find("\nforce gear_p2*(kp_p2*(p2 - gear_p2*j2)) on j2\n"), std::string::npos) << lag;
    EXPECT_EQ(lag.find("force tau_"), std::string::npos); // no joint inputs
    EXPECT_NE(header_of(lag, {}).find("inline constexpr int nq = 3, nu = 4, nc = 0;"), std::string::npos);
    // By default the joints are the inputs, and the actuators one note.
    auto const joints = imp::read_robot(text);
    EXPECT_NE(notes(joints).find("8: note: the file's 4 actuators are left out: each joint's generalized force is an input "
                                 "(--inputs actuators makes one input per actuator, with its gear)"),
              std::string::npos)
        << notes(joints);
    EXPECT_EQ(line_starting(imp::write_lag(joints, "a.xml"), "input"), "input tau_j0, tau_j1, tau_j2");
}


// On a fixed tendon: the length Σ coef q in place of q, coef times the force on each joint;
// on a spatial tendon: left out with a note; on a tendon the file does not have: an error.
TEST(ImportActuators, TendonActuatorsActThroughTheirCoefficients) {
    std::string const tendons = R"(<tendon>
  <fixed name="t"><joint joint="j0" coef="2"/><joint joint="j2" coef="-0.5"/></fixed>
  <spatial name="rope"><site site="a"/><site site="b"/></spatial>
</tendon>
<actuator>
  <position name="servo" tendon="t" kp="3" gear="4"/>
  <motor name="pull" tendon="rope"/>
</actuator>
)";
    auto const r = imp::read_robot(chain(3, "", tendons), imp::inertial_form::centre_of_mass, actuated());
    ASSERT_EQ(r.actuators.size(), 1u) << notes(r);
    ASSERT_EQ(r.actuators[0].terms.size(), 2u);
    EXPECT_EQ(r.actuators[0].terms[1].first, "j2");
    EXPECT_EQ(r.actuators[0].terms[1].second, -0.5);
    EXPECT_NE(notes(r).find("note: an actuator on a spatial tendon is left out"), std::string::npos) << notes(r);
    std::string const lag = imp::write_lag(r, "a.xml", imp::inertial_form::centre_of_mass, imp::input_form::actuators);
    EXPECT_NE(lag.find("\nforce 2.0*gear_servo*(kp_servo*(servo - gear_servo*(2.0*j0 - 0.5*j2))) on j0\n"
                       "force -0.5*gear_servo*(kp_servo*(servo - gear_servo*(2.0*j0 - 0.5*j2))) on j2\n"),
              std::string::npos)
        << lag;
    EXPECT_NE(header_of(lag, {}).find("inline constexpr int nq = 3, nu = 1, nc = 0;"), std::string::npos);
    auto const unknown = imp::read_robot(chain(1, "", "<actuator><motor name=\"m\" tendon=\"none\"/></actuator>\n"),
                                         imp::inertial_form::centre_of_mass, actuated());
    EXPECT_EQ(notes(unknown), "4: error: the actuator 'm' acts on the tendon 'none', which the file does not have\n");
}
TEST(ImportActuators, AnActuatorOnAJointTheFileLacksIsAnError) {
    auto const r = imp::read_robot(chain(1, "", "<actuator>\n<motor joint=\"elbow\"/></actuator>\n"));
    EXPECT_EQ(notes(r), "5: error: the actuator 'actuator1' acts on the joint 'elbow', which the file does not have\n");
    // --inputs actuators on a file without one: a model without inputs, and a note.
    auto const none = imp::read_robot(chain(1, "", ""), imp::inertial_form::centre_of_mass, actuated());
    EXPECT_EQ(notes(none), "1: note: --inputs actuators: the file has no actuator lagc writes, so the model has no inputs\n");
    EXPECT_EQ(line_starting(imp::write_lag(none, "a.xml", imp::inertial_form::centre_of_mass, imp::input_form::actuators), "input"), "");
}

TEST(ImportActuators, UrdfTransmissionsGiveTheirMechanicalReduction) {
    std::string const text = R"(<robot name="r"><link name="base"/>
<link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
<joint name="j2" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/></joint>
<transmission name="t1"><type>transmission_interface/SimpleTransmission</type>
  <joint name="j1"><hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface></joint>
  <actuator name="motor 1"><mechanicalReduction>100</mechanicalReduction></actuator></transmission>
<transmission name="t2" type="pr2_mechanism_model/SimpleTransmission">
  <joint name="j2"/><actuator name="motor2"/><mechanicalReduction>-2.5</mechanicalReduction></transmission>
<transmission name="t3"><type>transmission_interface/DifferentialTransmission</type><joint name="j1"/><joint name="j2"/></transmission>
</robot>)";
    auto const r = imp::read_robot(text, imp::inertial_form::centre_of_mass, actuated());
    EXPECT_EQ(notes(r), "11: note: a <transmission> is left out: lagc reads a SimpleTransmission of one joint\n");
    std::string const lag = imp::write_lag(r, "r.urdf", imp::inertial_form::centre_of_mass, imp::input_form::actuators);
    EXPECT_EQ(line_starting(lag, "input"), "input motor_1, motor2");
    EXPECT_EQ(line_starting(lag, "parameter gear_motor_1"), "parameter gear_motor_1 = 100.0");
    EXPECT_EQ(line_starting(lag, "parameter gear_motor2"), "parameter gear_motor2 = -2.5");
    EXPECT_NE(lag.find("\nforce gear_motor_1*motor_1 on j1\n"), std::string::npos) << lag;
    header_of(lag, {}); // compiles
}

TEST(ImportKeyframes, KeyframesAreStatesInLagcsCoordinates) {
    // A ball joint (qw qx qy qz, normalised), a hinge; a key without a name is key<index>, a
    // name that is no C++ name is made one.
    std::string const text = R"(<mujoco><compiler angle="radian"/><worldbody><body name="a"><joint name="ball" type="ball"/>)" + inertial +
                             R"(<body name="b"><joint name="h" ref="0.25"/>)" + inertial + R"(</body></body></worldbody>
<keyframe><key name="home pose" qpos="2 0 0 0 0.5" qvel="0 0 2 -1"/><key/>
<key name="bad" qpos="1 2"/></keyframe></mujoco>)";
    auto const r = imp::read_robot(text);
    EXPECT_EQ(notes(r), "3: error: the keyframe's qpos has 2 numbers; the robot's joints have 5 (MuJoCo: \"invalid qpos size\")\n");
    auto fixed = r;
    fixed.keyframes.pop_back();
    auto const states = imp::keyframe_states(fixed);
    ASSERT_EQ(states.size(), 2u);
    EXPECT_EQ(states[0].name, "home_pose");
    EXPECT_EQ(states[0].q, (std::vector<double>{1, 0, 0, 0, 0.5}));
    // q̇ of the quaternion (1, 0, 0, 0) turning at ω = (0, 0, 2) in the body: ½ (0, ω).
    EXPECT_EQ(states[0].qd, (std::vector<double>{0, 0, 0, 1, -1}));
    EXPECT_EQ(states[1].name, "key1");
    EXPECT_EQ(states[1].q, (std::vector<double>{1, 0, 0, 0, 0.25})); // qpos0: the hinge at its ref
    EXPECT_TRUE(states[1].qd.empty());
    // As constants of the header.
    std::string const lag = imp::write_lag(fixed, "k.xml");
    std::vector<lagc::named_state> named;
    for (auto const& s : states) named.push_back({s.name, s.q, s.qd});
    std::string const header = header_of(lag, named);
    EXPECT_NE(header.find("namespace keyframes {\ninline constexpr double home_pose_q[nq] = {1.0, 0.0, 0.0, 0.0, 0.5};\n"
                          "inline constexpr double home_pose_qd[nq] = {0.0, 0.0, 0.0, 1.0, -1.0};\n"
                          "inline constexpr double key1_q[nq] = {1.0, 0.0, 0.0, 0.0, 0.25};\n}  // namespace keyframes\n"),
              std::string::npos)
        << header;
    EXPECT_NE(header_of(lag, named, "float").find("inline constexpr float key1_q[nq] = {1.0f, 0.0f, 0.0f, 0.0f, 0.25f};"),
              std::string::npos);
}

// MuJoCo 3's <position dampratio> makes kv from the robot's inertia at qpos0, which lagc does
// not compute: the actuator keeps its kp, and a note says its damping is left out (the
// published Trossen WX-250s gives every arm actuator dampratio="0.95" by its class).
TEST(ImportActuators, APositionsDampratioIsNoted) {
    auto const r = imp::read_robot(chain(2, "", "<default><position dampratio=\"0.95\"/></default>\n<actuator>\n"
                                                "<position joint=\"j0\" kp=\"50\"/>\n<position joint=\"j1\" kp=\"5\" kv=\"1\" dampratio=\"0\"/>\n"
                                                "</actuator>\n"),
                                   imp::inertial_form::centre_of_mass, actuated());
    EXPECT_EQ(notes(r), "7: note: a <position>'s dampratio is left out (its kv is 0): MuJoCo makes its damping from the robot's "
                        "inertia at qpos0; give kv in the file or write the damping in the .lag\n") << notes(r);
    ASSERT_EQ(r.actuators.size(), 2u);
    EXPECT_EQ(r.actuators[0].kp, 50.0);
    EXPECT_EQ(r.actuators[0].kv, 0.0);
    EXPECT_EQ(r.actuators[1].kv, 1.0);
}
