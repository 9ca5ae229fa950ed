// Parser and checker: known answers for expressions, and errors at the right place.
#include "symbolic/simplify.hpp"

#include <regex>
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using GiNaC::ex;
using namespace test_support;

namespace {

TEST(Expressions, PrecedenceAndAssociativity) {
    EXPECT_TRUE(equal(value_of("-2^2"), -4));     // ^ binds tighter than unary minus
    EXPECT_TRUE(equal(value_of("2^3^2"), 512));   // right-associative
    EXPECT_TRUE(equal(value_of("8/4/2"), 1));     // left-associative
    EXPECT_TRUE(equal(value_of("1-2-3"), -4));
    EXPECT_TRUE(equal(value_of("2+3*4"), 14));
    EXPECT_TRUE(equal(value_of("(2+3)*4"), 20));
    EXPECT_TRUE(equal(value_of("2^-1"), GiNaC::numeric(1, 2)));
}

TEST(Expressions, NumbersAreExactRationals) {
    EXPECT_TRUE(value_of("0.1 + 0.2").is_equal(GiNaC::numeric(3, 10)));
    EXPECT_TRUE(value_of(".5").is_equal(GiNaC::numeric(1, 2)));
    EXPECT_TRUE(value_of("6.674e-11").is_equal(GiNaC::numeric(6674) / GiNaC::numeric(100000000000000LL)));
    EXPECT_TRUE(value_of("1E3").is_equal(1000));
}

TEST(Expressions, DerAppliesTheChainRuleAndTime) {
    lagc::model m;
    ex v = value_of("der(a * x^2 + t)", &m);
    ex expected = 2 * m.p[0] * m.q[0] * m.qd[0] + 1;
    EXPECT_TRUE(equal(v, expected)) << v;
    EXPECT_TRUE(m.uses_time);
}

TEST(Expressions, VectorsMatricesAndBuiltins) {
    lagc::model m;
    EXPECT_TRUE(equal(value_of("dot([1, 2, 3], [4, 5, 6])"), 32));
    EXPECT_TRUE(equal(value_of("cross([1, 0, 0], [0, 1, 0])[2]"), 1));
    EXPECT_TRUE(equal(value_of("norm([3, 4])"), 5));
    EXPECT_TRUE(equal(value_of("([[1, 2], [3, 4]] * [[5, 6], [7, 8]])[1][0]"), 43));
    EXPECT_TRUE(equal(value_of("transpose([[1, 2], [3, 4]])[0][1]"), 3));
    // Active, right-handed rotations (each value_of makes a new model, so read m after it).
    ex r = value_of("(rotz(x) * [1, 0, 0])[1]", &m);
    EXPECT_TRUE(equal(r, GiNaC::sin(m.q[0])));
    r = value_of("(rot(x) * [0, 1])[0]", &m);
    EXPECT_TRUE(equal(r, -GiNaC::sin(m.q[0])));
    r = value_of("(rotx(x) * [0, 1, 0])[2]", &m);
    EXPECT_TRUE(equal(r, GiNaC::sin(m.q[0])));
    r = value_of("(roty(x) * [0, 0, 1])[0]", &m);
    EXPECT_TRUE(equal(r, GiNaC::sin(m.q[0])));
    EXPECT_TRUE(equal(value_of("atan2(1, 1)"), GiNaC::Pi / 4));
}

TEST(Expressions, RotationAboutAnAxis) {
    // rot(axis, angle) about the coordinate axes is rotx, roty, rotz (any axis length), entry
    // by entry.
    for (auto [axis, named] : {std::pair{"[2, 0, 0]", "rotx"}, {"[0, 0.5, 0]", "roty"}, {"[0, 0, 1]", "rotz"}})
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                std::string const at = "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
                lagc::model a, b;
                ex x = value_of(std::string("rot(") + axis + ", x)" + at, &a);
                ex y = value_of(std::string(named) + "(x)" + at, &b);
                EXPECT_TRUE(equal(x, y.subs(GiNaC::exmap{{b.q[0], a.q[0]}}))) << axis << at;
            }
    // A general axis: orthogonal with determinant 1, the axis itself fixed, and rotating
    // (1, -1, 0) (orthogonal to the axis (1, 1, 1)) by x: its component along
    // (1,1,1) x (1,-1,0) / |.| is |(1,-1,0)| sin x.
    lagc::model m;
    ex fixed = value_of("(rot([1, 1, 1], x)*[1, 1, 1])[2]", &m);
    EXPECT_TRUE(equal(fixed, 1));
    for (double angle : {0.3, 1.1, -2.4}) {
        GiNaC::exmap at;
        ex gram = value_of("(transpose(rot([1, 2, 2], x))*rot([1, 2, 2], x))[0][0] + "
                           "(transpose(rot([1, 2, 2], x))*rot([1, 2, 2], x))[1][2]",
                           &m);
        at[m.q[0]] = angle;
        EXPECT_NEAR(GiNaC::ex_to<GiNaC::numeric>(gram.subs(at).evalf()).to_double(), 1.0, 1e-14);
        // (1,1,1) x (1,-1,0) = (1, 1, -2)
        ex turned = value_of("dot(rot([1, 1, 1], x)*[1, -1, 0], [1, 1, -2])/norm([1, 1, -2])", &m);
        at.clear();
        at[m.q[0]] = angle;
        EXPECT_NEAR(GiNaC::ex_to<GiNaC::numeric>(turned.subs(at).evalf()).to_double(), std::sqrt(2.0) * std::sin(angle),
                    1e-14);
    }
}

TEST(Lexical, CommentsContinuationsCrlfAndNoFinalNewline) {
    auto c = check_text("model m   # comment\r\nparameter a = 1,\r\n  b = 2\r\ncoordinate x\r\n"
                        "kinetic (a +\r\n  b) * der(x)^2 *\r\n 0.5\r\npotential [x,\n x][1]");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    EXPECT_EQ(c.m->parameters.size(), 2u);
    EXPECT_TRUE(equal(c.m->kinetic, (c.m->p[0] + c.m->p[1]) * GiNaC::pow(c.m->qd[0], 2) / 2));
    EXPECT_TRUE(c.m->potential.is_equal(c.m->q[0]));
}

TEST(Lexical, ParameterDefaultsAreNearestDoubles) {
    auto c = check_text("model m\nparameter a = -0.1, b, c = +1e-3\ncoordinate x\nkinetic der(x)^2\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    EXPECT_EQ(c.m->parameters[0].default_value, -0.1);
    EXPECT_EQ(c.m->parameters[1].default_value, 0.0);
    EXPECT_EQ(c.m->parameters[2].default_value, 1e-3);
}

// ---- errors at line and column ----------------------------------------------

struct error_case {
    char const* name;
    char const* source;
    char const* expected; // a line of the diagnostics
};

void PrintTo(error_case const& c, std::ostream* os) { *os << c.name; }

class Errors : public ::testing::TestWithParam<error_case> {};

TEST_P(Errors, AreReportedWhereTheyAre) {
    std::string out = errors_of(GetParam().source);
    EXPECT_NE(out.find(GetParam().expected), std::string::npos) << "diagnostics were:\n" << out;
}

std::string const head = "model m\nparameter a = 1\ncoordinate x, y\n";

INSTANTIATE_TEST_SUITE_P(
    Checker, Errors,
    ::testing::Values(
        error_case{"UnknownName", "model m\ncoordinate x\nkinetic der(x)^2 * zeta\n",
                   "test.lag:3:20: error: unknown name 'zeta'"},
        error_case{"Duplicate", "model m\nparameter a\ncoordinate a\n",
                   "test.lag:3:12: error: 'a' is already declared as a parameter at line 2, column 11"},
        error_case{"ReservedWord", "model m\nparameter sin\n",
                   "test.lag:2:11: error: 'sin' is a built-in function and cannot be used as a parameter name"},
        error_case{"CxxKeyword", "model m\ncoordinate x\nlet class = 2\n",
                   "test.lag:3:5: error: 'class' is a C++ keyword and cannot be used as a let name"},
        error_case{"ModelNameKeyword", "model int\ncoordinate x\n", "test.lag:1:7: error: 'int' is a C++ keyword"},
        error_case{"ArgumentCount", "model m\ncoordinate x\nkinetic atan2(x)\n",
                   "test.lag:3:9: error: atan2() takes 2 arguments, not 1"},
        error_case{"ShapeMismatch", "model m\ncoordinate x\nlet v = [1, 2] + [1, 2, 3]\n",
                   "test.lag:3:16: error: cannot add a 2-vector and a 3-vector"},
        error_case{"IndexOutOfRange", "model m\ncoordinate x\nlet v = [1, 2][2]\n",
                   "test.lag:3:16: error: index 2 is out of range for a 2-vector (indices run from 0 to 1)"},
        error_case{"PotentialWithVelocity", "model m\ncoordinate x\nkinetic der(x)^2\npotential der(x) * x\n",
                   "test.lag:4:11: error: a potential may not depend on velocities"},
        error_case{"Acceleration", "model m\ncoordinate x\nkinetic der(der(x))^2\n",
                   "test.lag:3:13: error: der() of an expression that already contains velocities"},
        error_case{"ForceOnNonCoordinate", "model m\nparameter a\ncoordinate x\nkinetic der(x)^2\nforce 1 on a\n",
                   "test.lag:5:12: error: 'force ... on' needs a coordinate name after 'on', and 'a' is not a coordinate"},
        error_case{"GainDependsOnState", "model m\ncoordinate x\nkinetic der(x)^2\nbaumgarte alpha = x\n",
                   "test.lag:4:19: error: Baumgarte gains are expressions of parameters only"},
        error_case{"SingularMassMatrix", "model m\ncoordinate x, y\nkinetic der(x)^2\n",
                   "error: the mass matrix is singular: coordinate 'y' has no inertia"},
        error_case{"SyntaxExpected", "model m\ncoordinate x\nkinetic (x + 1\n",
                   "test.lag:3:9: error: this '(' is never closed (its statement ends on line 3)"},
        error_case{"SyntaxOperand", "model m\ncoordinate x\nkinetic x * * 2\n",
                   "test.lag:3:13: error: expected an operand, found '*'"},
        error_case{"MalformedNumber", "model m\ncoordinate x\nkinetic 1.5e * der(x)^2\n",
                   "test.lag:3:9: error: malformed number '1.5e'"},
        error_case{"UnknownStatement", "model m\ncoordinate x\nkinetik der(x)^2\n",
                   "test.lag:3:1: error: expected a statement"},
        error_case{"LogOfZero", "model m\ncoordinate x\nkinetic der(x)^2\npotential log(x - x)\n",
                   "test.lag:4:11: error: log() is undefined here"},
        error_case{"VelocityConstraintNotAffine", "model m\ncoordinate x, y\nkinetic der(x)^2 + der(y)^2\n"
                                                  "constraint der(x)^2 = der(y)\n",
                   "test.lag:4:1: error: this velocity constraint is not affine in the velocities"},
        error_case{"MissingModel", "coordinate x\n", "test.lag:1:1: error: a model starts with 'model NAME'"}),
    [](auto const& info) { return std::string(info.param.name); });

TEST(Constraints, ClassificationAndRowOrder) {
    // Holonomic rows first (file order), then velocity rows; an integrable velocity
    // constraint stays a velocity constraint; t is allowed in either.
    // (A third coordinate z, in the third constraint, keeps the three rows independent.)
    auto c = check_text("model m\nparameter R\ncoordinate x, y, z\nkinetic der(x)^2 + der(y)^2 + der(z)^2\n"
                        "constraint der(x) = R * der(y)\nconstraint x^2 + y^2 = 1 + t\nconstraint y = x + z\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = lagc::derive(*c.m, d);
    ASSERT_TRUE(r.has_value()) << d.format(lagc::source_file("test.lag", ""));
    ASSERT_EQ(r->nc, 3u);
    auto const &q = c.m->q, &qd = c.m->qd;
    EXPECT_TRUE(equal(r->constraint_residuals[0], q[0] * q[0] + q[1] * q[1] - 1 - c.m->t));
    EXPECT_TRUE(equal(r->constraint_residuals[1], q[1] - q[0] - q[2]));
    EXPECT_TRUE(equal(r->constraint_residuals[2], qd[0] - c.m->p[0] * qd[1]));
    // A = dc/dq for holonomic rows, dg/dqd for velocity rows.
    EXPECT_TRUE(equal(r->constraint_jacobian[0], 2 * q[0]));
    EXPECT_TRUE(equal(r->constraint_jacobian[3], -1));
    EXPECT_TRUE(equal(r->constraint_jacobian[7], -c.m->p[0]));
    // gamma of row 0 includes the time term: c'' = A qdd + 2 qd0^2 + 2 qd1^2 (c_tt = 0),
    // r = -gamma - 2 alpha c' - beta^2 c with alpha = beta = 0.
    EXPECT_TRUE(equal(r->constraint_rhs[0], -2 * qd[0] * qd[0] - 2 * qd[1] * qd[1]));
}

TEST(Constraints, AMatrixConstraintsRowsAreItsUpperTriangleWhereItIsSymmetric) {
    // transpose(R)*R = I for a 2x2 R: three rows (r11^2 + r21^2 - 1, r11 r12 + r21 r22,
    // r12^2 + r22^2 - 1), not four of which two repeat.
    auto c = check_text("model m\ncoordinate a, b, c, d\nkinetic der(a)^2 + der(b)^2 + der(c)^2 + der(d)^2\n"
                        "let R = [[a, b], [c, d]]\nconstraint transpose(R)*R = [[1, 0], [0, 1]]\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    auto const& q = c.m->q;
    ASSERT_EQ(c.m->constraints.size(), 3u);
    EXPECT_TRUE(equal(c.m->constraints[0].residual, q[0] * q[0] + q[2] * q[2] - 1));
    EXPECT_TRUE(equal(c.m->constraints[1].residual, q[0] * q[1] + q[2] * q[3]));
    EXPECT_TRUE(equal(c.m->constraints[2].residual, q[1] * q[1] + q[3] * q[3] - 1));
    // A matrix that is not symmetric gives every entry, row by row.
    auto n = check_text("model m\ncoordinate a, b, c, d\nkinetic der(a)^2 + der(b)^2 + der(c)^2 + der(d)^2\n"
                        "constraint [[a, b], [c, d]] = [[1, 2], [3, 4]]\n");
    ASSERT_TRUE(n.m.has_value()) << n.diagnostics;
    ASSERT_EQ(n.m->constraints.size(), 4u);
    EXPECT_TRUE(equal(n.m->constraints[1].residual, n.m->q[1] - 2));
    EXPECT_TRUE(equal(n.m->constraints[2].residual, n.m->q[2] - 3));
}

TEST(Constraints, WarningsThatHelp) {
    std::string out = errors_of("model m\nparameter a\ncoordinate x\nkinetic der(x)^2\nconstraint a = 1\n");
    EXPECT_NE(out.find("test.lag:5:1: warning: this constraint's row of the Jacobian A is identically zero"),
              std::string::npos) << out;
    EXPECT_NE(out.find("warning: the model has 1 constraints for 1 coordinates"), std::string::npos) << out;
}

TEST(Errors, SeveralIndependentErrorsInOneRun) {
    std::string out = errors_of("model m\ncoordinate x\nlet a = zeta\nlet b = [1] + [1, 2]\nkinetic der(x)^2\n");
    EXPECT_NE(out.find("3:9: error: unknown name 'zeta'"), std::string::npos) << out;
    EXPECT_NE(out.find("4:13: error: cannot add"), std::string::npos) << out;
}

TEST(Errors, CaretUnderTheToken) {
    std::string out = errors_of("model m\ncoordinate x\nkinetic der(x)^2 * zeta\n");
    EXPECT_NE(out.find("  kinetic der(x)^2 * zeta\n                     ^~~~\n"), std::string::npos) << out;
}

} // namespace
