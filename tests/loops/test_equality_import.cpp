// MJCF's <equality> and <tendon><fixed> as the importer reads them (src/import/equality.hpp):
// the constraints written at the file's numbers, the rows left out and the degrees of
// freedom said in notes, active="false" left out, each mistake an error at its line, and the
// written .lag compiled.
#include "driver/compiler.hpp"
#include "import/robot.hpp"

#include <gtest/gtest.h>

#include <string>

namespace imp = lagc::import;

namespace {

// Two slides and a hinge on a chain (radians), then the given <tendon> and <equality> text.
std::string chain(std::string const& extra) {
    return "<mujoco model=\"m\">\n<compiler angle=\"radian\"/>\n<worldbody>\n"
           "<body name=\"a\"><joint name=\"a\" type=\"slide\" axis=\"1 0 0\" ref=\"0.1\"/>"
           "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
           "<body name=\"b\"><joint name=\"b\" type=\"slide\" axis=\"0 1 0\" ref=\"0.3\"/>"
           "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
           "<body name=\"c\" pos=\"0 0 1\"><joint name=\"c\" axis=\"0 0 1\"/>"
           "<inertial pos=\"1 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body></body></body>\n"
           "</worldbody>\n" + extra + "</mujoco>\n";
}

std::string messages(imp::robot_def const& r, bool errors) {
    std::string out;
    for (auto const& m : r.messages)
        if (m.error == errors) out += std::to_string(m.line) + ": " + m.text + "\n";
    return out;
}

std::string compile_errors(std::string const& lag) {
    lagc::compile_options o;
    o.emit.source_name = "robot.lag";
    o.emit.header_name = "robot.hpp";
    auto r = lagc::compile(lag, o);
    return r.files ? "" : r.diags.format(lagc::source_file("robot.lag", lag));
}

std::string written(std::string const& text) {
    auto const r = imp::read_robot(text);
    EXPECT_EQ(messages(r, true), "") << text;
    std::string const lag = imp::write_lag(r, "m.xml");
    EXPECT_EQ(compile_errors(lag), "") << lag;
    return lag;
}

bool has(std::string const& text, std::string const& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST(ImportEquality, JointCouplingIsThePolynomialAboutTheDrawnPose) {
    // b - 0.3 = 0.2 + 0.5 (a - 0.1) + 2 (a - 0.1)^2, about the joints' refs (MuJoCo's qpos0).
    std::string const lag = written(chain("<equality>\n<joint joint1=\"b\" joint2=\"a\" polycoef=\"0.2 0.5 2 0 0\"/>\n</equality>\n"));
    EXPECT_TRUE(has(lag, "constraint (b - 0.3) = 0.2 + 0.5*(a - 0.1) + 2.0*(a - 0.1)^2\n")) << lag;
    EXPECT_TRUE(has(lag, "baumgarte alpha = stabilization, beta = stabilization\n")) << lag;
    // Without joint2 the joint is held at ref + polycoef[0].
    std::string const held = written(chain("<equality><joint joint1=\"c\" polycoef=\"0.25 3 0 0 0\"/></equality>\n"));
    EXPECT_TRUE(has(held, "constraint c = 0.25\n")) << held;
}

TEST(ImportEquality, FixedTendonsAreLinearLengths) {
    std::string const text = chain("<tendon>\n<fixed name=\"t\"><joint joint=\"a\" coef=\"0.5\"/><joint joint=\"c\" coef=\"-2\"/></fixed>\n"
                                   "<fixed name=\"u\"><joint joint=\"b\" coef=\"1\"/></fixed>\n"
                                   "<fixed name=\"unused\"><joint joint=\"b\" coef=\"1\"/></fixed>\n</tendon>\n"
                                   "<equality>\n<tendon tendon1=\"t\" tendon2=\"u\" polycoef=\"0 3 0 0 0\"/>\n</equality>\n");
    std::string const lag = written(text);
    EXPECT_TRUE(has(lag, "constraint 0.5*(a - 0.1) - 2.0*c = 3.0*(b - 0.3)\n")) << lag;
    auto const notes = messages(imp::read_robot(text), false);
    EXPECT_TRUE(has(notes, "11: 1 fixed tendon not used by an <equality>: its springs, limits and actuators are left out")) << notes;
    EXPECT_TRUE(has(notes, "13: the mechanism has 2 degrees of freedom: the joints' 3 less 1 independent constraint rows of 1 equality"))
        << notes;
}

TEST(ImportEquality, InactiveEqualitiesAndDependentRowsAreLeftOutWithANote) {
    // A connect of c's point (1, 0, 0) to the world where it is drawn (the slides at their
    // refs, c at 0: [1, 0, 1]): the z row never changes (c turns about z, a and b slide in x
    // and y) and is left out; x and y hold c's point.
    std::string const text = chain("<equality>\n<connect body1=\"c\" anchor=\"1 0 0\"/>\n"
                                   "<joint joint1=\"a\" joint2=\"b\" active=\"false\"/>\n</equality>\n");
    auto const r = imp::read_robot(text);
    std::string const notes = messages(r, false);
    EXPECT_TRUE(has(notes, "10: 1 equality with active=\"false\" left out")) << notes;
    EXPECT_TRUE(has(notes, "8: 1 constraint row is left out, each depending on the rows before it at every state tried")) << notes;
    EXPECT_TRUE(has(notes, "the connect at line 9 (z)")) << notes;
    EXPECT_TRUE(has(notes, "8: the mechanism has 1 degree of freedom: the joints' 3 less 2 independent constraint rows")) << notes;
    std::string const lag = written(text);
    EXPECT_TRUE(has(lag, "let connect_line9_2 = [1.0, 0.0, 1.0]\n")) << lag;
    EXPECT_TRUE(has(lag, "constraint connect_line9_1[0] = connect_line9_2[0]\nconstraint connect_line9_1[1] = connect_line9_2[1]\n"))
        << lag;
    EXPECT_FALSE(has(lag, "constraint a")) << lag;
}

TEST(ImportEquality, ABodyWithoutJointsIsReadOnTheBodyItIsFixedTo) {
    // tip is merged into c (fixed to it, turned a quarter about z at (1, 0, 0)): the anchor
    // (0.5, 0, 0) of tip is c's point (1, 0.5, 0); body2 the world, where it is drawn.
    std::string const text = "<mujoco model=\"m\">\n<worldbody>\n"
                             "<body name=\"c\" pos=\"0 0 1\"><joint name=\"c\" axis=\"0 1 0\"/>"
                             "<inertial pos=\"1 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
                             "<body name=\"tip\" pos=\"1 0 0\" euler=\"0 0 90\"><inertial pos=\"0 0 0\" mass=\"1\" "
                             "diaginertia=\"1 1 1\"/></body></body>\n</worldbody>\n"
                             "<equality><connect name=\"pin\" body1=\"tip\" anchor=\"0.5 0 0\"/></equality>\n</mujoco>\n";
    std::string const lag = written(text);
    EXPECT_TRUE(has(lag, "let pin_1 = o_c + R_c*[1.0, 0.5, 0.0]\nlet pin_2 = [1.0, 0.5, 1.0]\n")) << lag;
    // c turns about y, its one coordinate: the row x holds it, z depends on x, y never moves.
    EXPECT_TRUE(has(lag, "constraint pin_1[0] = pin_2[0]\nbaumgarte")) << lag;
}

TEST(ImportEquality, MistakesAreErrorsAtTheirLine) {
    struct {
        std::string extra, want;
    } const cases[] = {
        {"<equality>\n<connect body1=\"nobody\"/>\n</equality>\n", "9: body1 'nobody' is no body of this file"},
        {"<equality>\n<connect anchor=\"0 0 0\"/>\n</equality>\n", "9: <connect> needs body1=\"...\""},
        {"<equality>\n<connect body1=\"c\" body2=\"c\"/>\n</equality>\n", "9: a connect joins two different bodies"},
        {"<equality>\n<connect site1=\"s\" site2=\"t\"/>\n</equality>\n", "9: lagc reads a connect by body1, body2 and anchor"},
        {"<equality>\n<joint joint1=\"nojoint\"/>\n</equality>\n", "9: joint1 'nojoint' is not a hinge or slide joint of this file"},
        {"<equality>\n<joint joint2=\"a\"/>\n</equality>\n", "9: <joint> needs joint1=\"...\""},
        {"<equality>\n<joint joint1=\"a\" polycoef=\"1 2\"/>\n</equality>\n", "9: <joint> polycoef takes 5 numbers, not 2"},
        {"<equality>\n<tendon tendon1=\"none\"/>\n</equality>\n", "9: tendon1 'none' is not a fixed tendon of this file"},
        {"<equality>\n<screw body1=\"c\"/>\n</equality>\n", "9: an equality is connect, weld, joint or tendon, not <screw>"},
        {"<tendon>\n<fixed name=\"t\"><joint joint=\"zz\" coef=\"1\"/></fixed>\n</tendon>\n",
         "9: the tendon's joint 'zz' is not a hinge or slide of this file"},
        // A weld whose relpose puts c's origin on the world's, off c's plane z = 1: a row that
        // never changes and is not zero.
        {"<equality>\n<weld body1=\"c\" relpose=\"0 0 0 1 0 0 0\"/>\n</equality>\n",
         "9: the weld's row z never changes and is not zero"},
    };
    for (auto const& c : cases) {
        auto const r = imp::read_robot(chain(c.extra));
        std::string const got = messages(r, true);
        EXPECT_EQ(got.rfind(c.want, 0), 0u) << "got: " << got << "\nwant: " << c.want;
    }
}

// A planar four-bar hanging from a hip hinge that turns it out of its plane, and a strut on a
// ball joint held on a lever (tests/robots/leg_loops.xml, which robot_against_mujoco_leg_loops_xml
// checks against MuJoCo). The rows are taken in the frame of the body both sides hang from, through the bodies between: the
// four-bar's z row is dependent at every state (in world axes the hip's turn made it look
// independent off the loop, and a dependent row was kept: 2 degrees of freedom, not 3).
TEST(ImportEquality, LoopRowsAreInTheAxesOfTheBodyBothSidesHangFrom) {
    std::string const inertial = "<inertial pos=\"0.05 0.02 0.01\" mass=\"0.2\" diaginertia=\"1e-3 2e-3 2e-3\"/>";
    std::string const text =
        "<mujoco>\n<compiler angle=\"radian\"/>\n<worldbody>\n"
        "<body name=\"thigh\" euler=\"0.3 0 0\"><joint name=\"hip\" axis=\"1 0 0\"/>" + inertial + "\n"
        "<body name=\"crank\"><joint name=\"crank\"/>" + inertial + "\n"
        "<body name=\"coupler\" pos=\"0 0.1 0\"><joint name=\"coupler\"/>" + inertial + "</body></body>\n"
        "<body name=\"rocker\" pos=\"0.3 0 0\"><joint name=\"rocker\"/>" + inertial + "</body>\n"
        "<body name=\"strut\" pos=\"0 0.05 0.05\"><joint name=\"strut\" type=\"ball\" damping=\"0.02\" armature=\"0.001\"/>" +
        inertial + "</body>\n"
        "<body name=\"lever\" pos=\"0.2 0.05 -0.15\"><joint name=\"lever\" axis=\"0 1 0\"/>" + inertial + "</body>\n"
        "</body>\n</worldbody>\n<equality>\n"
        "<connect name=\"four_bar\" body1=\"coupler\" body2=\"rocker\" anchor=\"0.3 0.05 0\"/>\n"
        "<connect name=\"strut\" body1=\"strut\" body2=\"lever\" anchor=\"0.25 0 0\"/>\n</equality>\n</mujoco>\n";
    auto const r = imp::read_robot(text);
    std::string const notes = messages(r, false);
    EXPECT_TRUE(has(notes, "1 constraint row is left out, each depending on the rows before it at every state tried (a planar "
                           "loop's rows along its hinges' axes): the connect at line 13 (z)")) << notes;
    EXPECT_TRUE(has(notes, "the mechanism has 3 degrees of freedom: the joints' 8 less 5 independent constraint rows")) << notes;
    EXPECT_FALSE(has(notes, "armature, damping")) << notes; // a ball's are written now
    std::string const lag = written(text);
    EXPECT_TRUE(has(lag, "let four_bar_1 = T_crank*([0.0, 0.1, 0.0]) + T_crank*T_coupler*[0.3, 0.05, 0.0]\n")) << lag;
    EXPECT_TRUE(has(lag, "constraint four_bar_1[0] = four_bar_2[0]\nconstraint four_bar_1[1] = four_bar_2[1]\n")) << lag;
    EXPECT_TRUE(has(lag, "constraint strut_1 = strut_2\n")) << lag;
    // The ball's torque, damping and armature on its own rate (MuJoCo's joint forces act between
    // the strut and the thigh), not on the strut's angular velocity.
    EXPECT_TRUE(has(lag, "let wr_strut = 2/N_strut*[[-strut_qx, strut_qw, strut_qz, -strut_qy], ")) << lag;
    EXPECT_TRUE(has(lag, "kinetic 0.5*armature_strut*dot(wr_strut, wr_strut)\n")) << lag;
    EXPECT_TRUE(has(lag, "dissipation 0.5*damping_strut*dot(wr_strut, wr_strut)\n")) << lag;
    EXPECT_TRUE(has(lag, "torque [strut_tx, strut_ty, strut_tz] at wr_strut\n")) << lag;
}
