// Parser and checker: known answers for expressions, and errors at the right place.
#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "frontend/check.hpp"
#include "graph/expression_graph.hpp"
#include "driver/compiler.hpp"
#include "derive/derive.hpp"
#include "derive/derive_support.hpp"
#include "emit/emit.hpp"
#include "symbolic/simplify.hpp"
#include "emit/templates.hpp"
#include "derive/well_posed.hpp"
#include "frontend/parse.hpp"
#include "derive/rate_structure.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

using GiNaC::ex;

namespace {

struct checked {
    std::optional<lagc::model> m;
    std::string diagnostics;
};

checked check_text(std::string const& text) {
    lagc::source_file file("test.lag", text);
    lagc::diagnostics d;
    auto statements = lagc::parse(file, d);
    auto m = lagc::check(statements, file, d);
    return {std::move(m), d.format(file)};
}

std::string errors_of(std::string const& text) {
    lagc::compile_options o;
    o.emit.source_name = "test.lag";
    o.emit.header_name = "test.hpp";
    auto r = lagc::compile(text, o);
    return r.diags.format(lagc::source_file("test.lag", text));
}

// The value of `output v = EXPR` in a one-coordinate model, as GiNaC sees it.
ex value_of(std::string const& expr, lagc::model* out = nullptr) {
    auto c = check_text("model e\nparameter a = 2\ncoordinate x\nkinetic der(x)^2\noutput v = " + expr + "\n");
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    if (!c.m) return 0;
    if (out) *out = *c.m;
    return c.m->outputs.at(0).val.elems.at(0);
}

bool equal(ex const& a, ex const& b) { return (a - b).expand().is_zero(); }

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

TEST(Derivation, PendulumMassMatrixIsMlSquared) {
    auto c = check_text("model p\nparameter m, l, g\ncoordinate th\nlet pos = l * [sin(th), -cos(th)]\n"
                        "kinetic 0.5 * m * dot(der(pos), der(pos))\npotential m * g * pos[1]\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = lagc::derive(*c.m, d);
    ASSERT_TRUE(r.has_value());
    auto const& p = c.m->p;
    EXPECT_TRUE(equal(r->mass_matrix[0], p[0] * p[1] * p[1])) << r->mass_matrix[0];
    EXPECT_TRUE(equal(r->bias[0], p[0] * p[2] * p[1] * GiNaC::sin(c.m->q[0])));
    ASSERT_TRUE(r->coriolis.has_value());
    EXPECT_TRUE(equal((*r->coriolis)[0], 0));
}

// T as ½ q̇ᵀ M q̇ (the kinetic energy where functions share parts): equal to T as written
// where T is a quadratic form in q̇, absent where it is not (M alone does not give T).
TEST(Derivation, KineticEnergyFromTheMassMatrix) {
    auto c = check_text("model p\nparameter m1 = 1.2, m2 = 0.7, l = 0.9\ncoordinate x, th\n"
                        "let pos = [x, 0] + l * [sin(th), -cos(th)]\n"
                        "kinetic 0.5 * m1 * der(x)^2 + 0.5 * m2 * dot(der(pos), der(pos))\n");
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = lagc::derive(*c.m, d);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->kinetic_from_mass.has_value());
    auto const& q = c.m->q;
    auto const& qd = c.m->qd;
    auto const& p = c.m->p;
    // Cart and pendulum: T = ½ (m1 + m2) ẋ² + m2 l cos θ ẋ θ̇ + ½ m2 l² θ̇².
    ex const T = (p[0] + p[1]) * qd[0] * qd[0] / 2 + p[1] * p[2] * GiNaC::cos(q[1]) * qd[0] * qd[1] +
                 p[1] * p[2] * p[2] * qd[1] * qd[1] / 2;
    EXPECT_TRUE(equal(*r->kinetic_from_mass, T)) << *r->kinetic_from_mass;
    for (char const* text : {"model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2 * (1 + t)\n",
                             "model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * (der(x) + 1)^2\n",
                             "model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2\nlagrangian m * x * der(x)\n"}) {
        auto other = check_text(text);
        ASSERT_TRUE(other.m.has_value()) << other.diagnostics;
        auto ro = lagc::derive(*other.m, d);
        ASSERT_TRUE(ro.has_value()) << text;
        EXPECT_FALSE(ro->kinetic_from_mass.has_value()) << text;
    }
}

// The C header says what the C++ header says (issue 32): indices, output sizes, names,
// status codes, and each function's array sizes beside its declaration.
// A bundled model compiled in-process with these options (file names set as lagc sets them).
lagc::compile_result compile_bundled(std::string const& name, lagc::compile_options o) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/" + name + ".lag");
    std::stringstream text;
    text << in.rdbuf();
    o.emit.source_name = name + ".lag";
    o.emit.header_name = name + ".hpp";
    if (o.emit.c_api) o.emit.c_header_name = name + ".h";
    auto r = lagc::compile(text.str(), o);
    EXPECT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file(name + ".lag", text.str()));
    return r;
}

TEST(CInterface, HeaderHasIndicesSizesNamesAndStatusCodes) {
    lagc::compile_options o;
    o.emit.c_api = true;
    auto r = compile_bundled("four_bar", o);
    ASSERT_TRUE(r.files.has_value());
    std::string const& h = r.files->c_header;
    for (char const* want :
         {"enum { four_bar_coordinate_theta1 = 0, four_bar_coordinate_theta2 = 1, four_bar_coordinate_theta3 = 2 };",
          "enum { four_bar_input_tau = 0 };", "enum { four_bar_output_coupler_joint_size = 2 };",
          "extern const char* const four_bar_coordinate_names[3];", "four_bar_null_parameters = 4",
          "/* q[3], qd[3], u[1], qdd[3], lambda[2] */\nint four_bar_forward_dynamics(",
          "/* q[3], J[6] */\nvoid four_bar_output_coupler_joint_jacobian(",
          "/* q[3], qd[3], u[1], A[36], B[6] */\nint four_bar_linearization("})
        EXPECT_NE(h.find(want), std::string::npos) << want << "\n" << h;
    EXPECT_NE(r.files->source.find("const char* const four_bar_coordinate_names[3] = {\"theta1\", \"theta2\", \"theta3\"};"),
              std::string::npos);
}

// --stats' stack bound: the arrays of a function and of the deepest chain of calls below
// it, counted from the template (issue 32). The four-bar (nq = 3, nu = 1, nc = 2):
// forward_dynamics holds M[9] b[3] A[6] r[2] (its solve is unrolled, on scalars) and may
// call its twin, which
// holds M[9] b[3] h[3] Y[6] S[4] l[2]; linearization holds J[35] M[9] Ac[6] Y[6] S[4]
// z[3] l[2] qdd[3] lambda[2] and calls forward_dynamics.
TEST(StackBound, ArraysOfTheFunctionAndWhatItCalls) {
    lagc::compile_options o;
    auto r = compile_bundled("four_bar", o);
    ASSERT_TRUE(r.files.has_value());
    std::map<std::string, std::size_t> bounds(r.files->stack_bounds.begin(), r.files->stack_bounds.end());
    std::size_t const fd = (9 + 3 + 6 + 2) * 8, twin = (9 + 3 + 3 + 6 + 4 + 2) * 8;
    EXPECT_EQ(bounds["forward_dynamics"], fd + twin);
    EXPECT_EQ(bounds["linearization"], (35 + 9 + 6 + 6 + 4 + 3 + 2 + 3 + 2) * 8 + fd + twin);
    EXPECT_EQ(bounds["mass_matrix"], 0u);
    // In float, half.
    o.emit.scalar = "float";
    auto f = compile_bundled("four_bar", o);
    ASSERT_TRUE(f.files.has_value());
    std::map<std::string, std::size_t> fb(f.files->stack_bounds.begin(), f.files->stack_bounds.end());
    EXPECT_EQ(fb["forward_dynamics"], (fd + twin) / 2);
}

// Quasi-velocities (derive/quasi_velocity.cpp): where they are found, from what, and where not.
lagc::derived derived_of(std::string const& text) {
    auto c = check_text(text);
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = c.m ? lagc::derive(*c.m, d) : std::nullopt;
    EXPECT_TRUE(r.has_value());
    return r ? *r : lagc::derived{};
}

std::string bundled_model(std::string const& name) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/" + name + ".lag");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string const quaternion_tail =
    "kinetic 0.5*(J1*w[0]^2 + J2*w[1]^2 + J3*w[2]^2)\ntorque [tau1, tau2, tau3] at w\n"
    "constraint q0^2 + q1^2 + q2^2 + q3^2 = 1\nbaumgarte alpha = k, beta = k\n";
std::string const quaternion_head =
    "model qb\nparameter J1 = 0.08, J2 = 0.12, J3 = 0.15, k = 10\ncoordinate q0, q1, q2, q3\n"
    "input tau1, tau2, tau3\nlet G = [[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]]\n"
    "let w = 2*G*[der(q0), der(q1), der(q2), der(q3)]\n";

TEST(QuasiVelocities, RotationMatrixFromTheNamedW) {
    lagc::derived const d = derived_of(bundled_model("rotation_matrix_body"));
    ASSERT_EQ(d.quasi_qdd.size(), 9u);
    EXPECT_EQ(d.quasi_lambda.size(), 6u);
    // Three blocks R^T, one determinant to check; D's three pivots in one group, no Schur's.
    EXPECT_EQ(d.quasi_blocks.size(), 2u);
    ASSERT_EQ(d.quasi_groups.size(), 1u);
    EXPECT_EQ(d.quasi_groups[0].end - d.quasi_groups[0].begin, 3u);
    EXPECT_EQ(d.quasi_groups[0].status, 1);
}

TEST(QuasiVelocities, AMisleadingNamedValueFallsBackToTheRowsOwnBlock) {
    // v's four entries are linear in q' and cover the quaternion's coordinates, but the rates
    // are no rational combination of them: the rates' and the norm's rows make the block.
    std::string const v = "let v = [sin(q0)*der(q1), cos(q1)*der(q2), q3*der(q3) + der(q0), q0*der(q0)]\n";
    lagc::derived const d = derived_of(quaternion_head + v + quaternion_tail);
    EXPECT_EQ(d.quasi_qdd.size(), 4u);
    EXPECT_EQ(d.quasi_groups.size(), 1u);
}

TEST(QuasiVelocities, NotWhereNoBlocksMakeTheRowsRational) {
    // A pendulum in x, y and theta: its rates and rows share three coordinates four ways, so
    // there is no block and the dense path (M + rho A^T A) stays.
    lagc::derived const d = derived_of(bundled_model("circle_three_coordinates"));
    EXPECT_TRUE(d.mass_singular);
    EXPECT_TRUE(d.quasi_qdd.empty());
}

TEST(QuasiVelocities, ATetherIsItsOwnPartWithASchurPivot) {
    lagc::derived const d = derived_of(bundled_model("kite_quaternion"));
    ASSERT_EQ(d.quasi_qdd.size(), 7u);
    ASSERT_EQ(d.quasi_groups.size(), 2u);
    EXPECT_EQ(d.quasi_groups[1].status, 2);
    EXPECT_EQ(d.quasi_groups[1].end - d.quasi_groups[1].begin, 1u); // the tether's 1 x 1 complement
}

// Forward dynamics by the articulated-body algorithm where the root node has several
// coordinates (derive/point_floating.cpp): q̈ and λ solve [[M, Aᵀ], [A, 0]] [q̈; λ] = [Q − h; r]
// at a state, M, h, Q, A and r from the derivation's own closed forms.
void expect_solves(lagc::model const& m, lagc::derived const& d, GiNaC::exvector const& qdd, GiNaC::exvector const& lambda) {
    std::size_t const n = d.nq, nc = d.nc;
    ASSERT_EQ(qdd.size(), n);
    ASSERT_EQ(lambda.size(), nc);
    GiNaC::exmap x;
    for (std::size_t i = 0; i < n; ++i) x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
    for (std::size_t k = 0; k < m.u.size(); ++k) x[m.u[k]] = 1.5 - 0.8 * double(k);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    auto value = [&](ex const& e) { // each shared part once (subs and evalf walk every path)
        auto const v = lagc::evaluate(e, x);
        return v ? v->to_double() : std::nan("");
    };
    std::vector<double> a(n), l(nc);
    for (std::size_t i = 0; i < n; ++i) a[i] = value(qdd[i]);
    for (std::size_t k = 0; k < nc; ++k) l[k] = value(lambda[k]);
    for (std::size_t i = 0; i < n; ++i) {
        double row = value(d.bias[i]) - value(d.generalized_forces[i]), scale = std::abs(row) + 1;
        for (std::size_t j = 0; j < n; ++j) row += value(d.mass_matrix[i * n + j]) * a[j], scale += std::abs(value(d.mass_matrix[i * n + j]) * a[j]);
        for (std::size_t k = 0; k < nc; ++k) row += value(d.constraint_jacobian[k * n + i]) * l[k];
        EXPECT_NEAR(row, 0, 1e-12 * scale) << "row " << i;
    }
    for (std::size_t k = 0; k < nc; ++k) {
        double row = -value(d.constraint_rhs[k]);
        for (std::size_t j = 0; j < n; ++j) row += value(d.constraint_jacobian[k * n + j]) * a[j];
        EXPECT_NEAR(row, 0, 1e-12 * (1 + std::abs(value(d.constraint_rhs[k])))) << "constraint " << k;
    }
}

std::pair<lagc::model, lagc::derived> model_and_derived(std::string const& text) {
    auto c = check_text(text);
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    if (!c.m) return {};
    lagc::diagnostics diags;
    auto d = lagc::derive(*c.m, diags);
    EXPECT_TRUE(d.has_value());
    return {*c.m, d ? *d : lagc::derived{}};
}

// A free base (the importer's form: Q/|e|², w = 2 G ė/|e|², |e|² = 1) with a body of two
// hinges whose second turns about an anchor off the body's origin, under gravity.
std::string const floating_two_hinges =
    "model floating\nparameter m0 = 3.0, m1 = 1.2, g = 9.81, k = 10\n"
    "coordinate x, y, z, e0, e1, e2, e3, a, b\ninput fx, t1, t2\n"
    "let N = e0^2 + e1^2 + e2^2 + e3^2\n"
    "let R0 = [[e0^2 + e1^2 - e2^2 - e3^2, 2*(e1*e2 - e0*e3), 2*(e1*e3 + e0*e2)],\n"
    "  [2*(e1*e2 + e0*e3), e0^2 - e1^2 + e2^2 - e3^2, 2*(e2*e3 - e0*e1)],\n"
    "  [2*(e1*e3 - e0*e2), 2*(e2*e3 + e0*e1), e0^2 - e1^2 - e2^2 + e3^2]]/N\n"
    "let w0 = 2/N*[[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]]*[der(e0), der(e1), der(e2), der(e3)]\n"
    "let o0 = [x, y, z]\nlet p0 = o0 + R0*[0, 0, 0.02]\n"
    "kinetic 0.5*m0*dot(der(p0), der(p0)) + 0.5*dot(w0, [[0.07, 0, 0], [0, 0.06, 0], [0, 0, 0.08]]*w0)\n"
    "let T1 = rotz(a)*roty(b)\nlet R1 = R0*T1\n"
    "let o1 = o0 + R0*([0, 0.1, -0.05] + rotz(a)*([0, 0, 0.02] - roty(b)*[0, 0, 0.02]))\n"
    "let w1 = transpose(T1)*w0 + (der(a)*(transpose(roty(b))*[0, 0, 1]) + [0, der(b), 0])\n"
    "let p1 = o1 + R1*[0.01, 0, -0.2]\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.004]]*w1)\n"
    "kinetic 0.5*0.01*der(a)^2 + 0.5*0.01*der(b)^2\n"
    "potential g*(m0*p0[2] + m1*p1[2])\n"
    "force [fx, 0, 0] at o0\nforce t1 on a\nforce t2 on b\n"
    "constraint e0^2 + e1^2 + e2^2 + e3^2 = 1\nbaumgarte alpha = k, beta = k\n";

TEST(FloatingArticulated, AFreeBaseWithABodyOfTwoHinges) {
    auto const [m, d] = model_and_derived(floating_two_hinges);
    ASSERT_TRUE(d.quasi_articulated);
    // The hinges' pivots, then the base's 6 x 6 articulated inertia's: the base's twists and
    // the norm's row are orthogonal, so no system of the base's own coordinates is solved.
    ASSERT_EQ(d.quasi_groups.size(), 2u);
    EXPECT_EQ(d.quasi_groups[0].end - d.quasi_groups[0].begin, 2u);
    EXPECT_EQ(d.quasi_groups[1].end - d.quasi_groups[1].begin, 6u);
    expect_solves(m, d, d.quasi_qdd, d.quasi_lambda);
}

TEST(FloatingArticulated, ArmatureOnTheBaseSolvesTheBasesOwnSystem) {
    // ½ a ẋ² on a translation of the base: its coordinates' system [[Sᵀ I^A S + diag(a), Aᵀ],
    // [A, 0]] then, as M + ρ AᵀA: seven pivots and the norm's Schur complement.
    auto const [m, d] = model_and_derived(floating_two_hinges + "kinetic 0.5*0.3*der(x)^2\n");
    ASSERT_TRUE(d.quasi_articulated);
    ASSERT_EQ(d.quasi_groups.size(), 3u);
    EXPECT_EQ(d.quasi_groups[1].end - d.quasi_groups[1].begin, 7u);
    EXPECT_EQ(d.quasi_groups[2].status, 2);
    expect_solves(m, d, d.quasi_qdd, d.quasi_lambda);
}

TEST(FloatingArticulated, ARootBodyOfTwoHingesWithoutConstraints) {
    // A fixed base whose first body turns on two hinges (the second about an anchor off the
    // body's origin) and carries a body on one hinge: no single joint at the root, so the
    // root's 2 x 2 system is solved once the last hinge is eliminated (no constraints: q̈ as
    // the unconstrained algorithm's, one pivot per coordinate).
    std::string const two_bodies =
        "model two_bodies\n"
        "parameter m1 = 1.2, m2 = 0.8, g = 9.81\n"
        "coordinate a, b, c\n"
        "input t1, t2, t3\n"
        "let T1 = rotz(a)*roty(b)\n"
        "let R1 = T1\n"
        "let o1 = [0, 0, 0.5] + rotz(a)*([0, 0, 0.02] - roty(b)*[0, 0, 0.02])\n"
        "let w1 = der(a)*(transpose(roty(b))*[0, 0, 1]) + [0, der(b), 0]\n"
        "let p1 = o1 + R1*[0.01, 0, -0.2]\n"
        "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.004]]*w1)\n"
        "let T2 = rotx(c)\n"
        "let R2 = R1*T2\n"
        "let o2 = o1 + R1*[0, 0, -0.4]\n"
        "let w2 = transpose(T2)*w1 + [der(c), 0, 0]\n"
        "let p2 = o2 + R2*[0, 0.02, -0.15]\n"
        "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.01, 0, 0], [0, 0.012, 0], [0, 0, 0.003]]*w2)\n"
        "kinetic 0.5*0.01*der(a)^2 + 0.5*0.01*der(b)^2\n"
        "potential g*(m1*p1[2] + m2*p2[2])\n"
        "force t1 on a\n"
        "force t2 on b\n"
        "force t3 on c\n";
    auto const [m, d] = model_and_derived(two_bodies);
    ASSERT_EQ(d.recursive_qdd.size(), 3u);
    EXPECT_EQ(d.recursive_pivots.size(), 3u);
    expect_solves(m, d, d.recursive_qdd, {});
}

// The well-posedness pass takes every default as written, 0 included (issue 31): an
// inertia tensor with a zero product of inertia is positive definite, not refused.
TEST(WellPosed, ZeroDefaultsAreTakenAsWritten) {
    std::string const model = "model zero_param\n"
                              "parameter Jxx = 0.001, Jyy = 0.001, Jzz = 0.001, Jxy = 0.0\n"
                              "coordinate a, b\n"
                              "let w = [der(a), der(b), 0]\n"
                              "let J = [[Jxx, Jxy, 0], [Jxy, Jyy, 0], [0, 0, Jzz]]\n"
                              "kinetic 0.5*dot(w, J*w)\n";
    EXPECT_EQ(errors_of(model), "");
    // The same tensor with a written product that makes it indefinite is an error.
    std::string indefinite = model;
    indefinite.replace(indefinite.find("Jxy = 0.0"), 9, "Jxy = 0.5");
    EXPECT_NE(errors_of(indefinite).find("error: the kinetic energy is negative"), std::string::npos)
        << errors_of(indefinite);
}

// Where no default is written, the pass invents values; a defect found with them is a
// warning that names those parameters, never an error (the model may be right with the
// values it will be given).
TEST(WellPosed, DefectsWithInventedValuesAreWarningsNamingThem) {
    std::string const model = "model invented\n"
                              "parameter Jxx = 0.001, Jyy = 0.001, Jzz = 0.001, Jxy\n"
                              "coordinate a, b\n"
                              "let w = [der(a), der(b), 0]\n"
                              "let J = [[Jxx, Jxy, 0], [Jxy, Jyy, 0], [0, 0, Jzz]]\n"
                              "kinetic 0.5*dot(w, J*w)\n";
    std::string const out = errors_of(model);
    EXPECT_EQ(out.find("error:"), std::string::npos) << out;
    EXPECT_NE(out.find("warning: the kinetic energy is negative"), std::string::npos) << out;
    EXPECT_NE(out.find("values lagc chose for Jxy, which have no default"), std::string::npos) << out;
    EXPECT_NE(out.find("[-Winvented-values]"), std::string::npos) << out;
    // A parameter without a default that M does not read changes nothing: still an error.
    std::string written = model;
    written.replace(written.find("Jxy\n"), 4, "Jxy = 0.5, k\n");
    EXPECT_NE(errors_of(written).find("error: the kinetic energy is negative"), std::string::npos) << errors_of(written);
}

TEST(Derivation, CoriolisIsWithheldWithANote) {
    std::string notes = errors_of("model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2 * (1 + t)\n");
    EXPECT_NE(notes.find("note: coriolis_matrix is not emitted: the mass matrix depends on t"), std::string::npos)
        << notes;
    notes = errors_of("model p\nparameter m\ncoordinate x\nkinetic 0.5 * m * der(x)^2\nlagrangian m * x * der(x)\n");
    EXPECT_NE(notes.find("'lagrangian' terms"), std::string::npos) << notes;
}

// Two bodies on hinges z, then y, points off their axes: every coordinate moves the points as
// a joint does (∂p/∂q_i = s_i × p + u_i), so their translational inertia is carried as
// composites, and the composite M q̈ is M q̈.
std::string const two_link_arm =
    "model arm\nparameter m1 = 1.1, m2 = 1.3, g = 9.81\ncoordinate q1, q2\n"
    "let R1 = rotz(q1)\nlet o1 = [0, 0, 0.1]\nlet w1 = [0, 0, der(q1)]\nlet p1 = o1 + R1*[0.2, 0.05, 0.01]\n"
    "kinetic 0.5*m1*dot(der(p1), der(p1)) + 0.5*dot(w1, [[0.01, 0.001, 0], [0.001, 0.02, 0], [0, 0, 0.03]]*w1)\n"
    "let T2 = roty(q2)\nlet R2 = R1*T2\nlet o2 = o1 + R1*[0.4, 0, 0]\nlet w2 = transpose(T2)*w1 + [0, der(q2), 0]\n"
    "let p2 = o2 + R2*[0.3, 0.02, 0.01]\n"
    "kinetic 0.5*m2*dot(der(p2), der(p2)) + 0.5*dot(w2, [[0.02, 0, 0.001], [0, 0.03, 0], [0.001, 0, 0.01]]*w2)\n"
    "potential g*(m1*p1[2] + m2*p2[2])\n";

double at_state(ex const& e, lagc::model const& m, std::vector<GiNaC::symbol> const& extra = {}) {
    GiNaC::exmap x;
    for (std::size_t i = 0; i < m.q.size(); ++i) x[m.q[i]] = 0.3 + 0.4 * double(i), x[m.qd[i]] = 0.7 - 0.9 * double(i);
    for (std::size_t k = 0; k < m.p.size(); ++k) x[m.p[k]] = m.parameters[k].default_value;
    for (std::size_t k = 0; k < extra.size(); ++k) x[extra[k]] = 1.5 - 0.8 * double(k);
    return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(x))).to_double();
}

TEST(RateForm, PointsOfRotatingFramesAreComposites) {
    auto c = check_text(two_link_arm);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    EXPECT_EQ(m.points.size(), 4u); // der(p1) and der(p2), each written twice
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::composite_inertia const rotational(m, *f);
    lagc::point_composite const points(m, *f, rotational);
    ASSERT_TRUE(points.usable());
    std::size_t covered = 0;
    for (std::size_t k = 0; k < f->rates.size(); ++k) covered += points.covers(k) ? 1 : 0;
    EXPECT_EQ(covered, 5u); // the elements of der(p1) and der(p2) but der(p1)[2] = 0
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    std::vector<GiNaC::symbol> qdd = {GiNaC::symbol("a1"), GiNaC::symbol("a2")};
    lagc::rate_structures const structures(m, *f);
    GiNaC::exvector const p = lagc::momentum_from_bilinear_form(m, structures, {qdd[0], qdd[1]});
    ASSERT_EQ(p.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        double const expected = at_state(r->mass_matrix[i * 2] * qdd[0] + r->mass_matrix[i * 2 + 1] * qdd[1], m, qdd);
        EXPECT_NEAR(at_state(p[i], m, qdd), expected, 1e-12 * std::abs(expected)) << i;
    }
}

// A ten-joint arm (hinges about z, y, x, z, … in the turning frames, centres of mass off the
// links): its gravity, V = Σ m g p_z, is Σ w·p over the points, so ∂V/∂q comes from the same
// composite sums, smaller than V's own derivatives and equal to them.
std::string arm_text(int n) {
    std::string t = "model arm\nparameter g = 9.81\n";
    std::string coordinates = "coordinate q1", body;
    char const* rot[3] = {"rotz", "roty", "rotx"};
    char const* axis[3] = {"[0, 0, der(q%)]", "[0, der(q%), 0]", "[der(q%), 0, 0]"};
    for (int k = 1; k <= n; ++k) {
        std::string const K = std::to_string(k), P = std::to_string(k - 1);
        if (k > 1) coordinates += ", q" + K;
        std::string w = axis[(k - 1) % 3];
        w.replace(w.find('%'), 1, K);
        t += "parameter m" + K + " = " + std::to_string(1 + 0.1 * k) + "\n";
        body += "let T" + K + " = " + rot[(k - 1) % 3] + "(q" + K + ")\n";
        body += k == 1 ? "let R1 = T1\nlet o1 = [0, 0, 0.1]\nlet w1 = " + w + "\n"
                       : "let R" + K + " = R" + P + "*T" + K + "\nlet o" + K + " = o" + P + " + R" + P + "*[0.3, 0, 0]\nlet w" + K +
                             " = transpose(T" + K + ")*w" + P + " + " + w + "\n";
        body += "let p" + K + " = o" + K + " + R" + K + "*[0.15, 0.02, 0.01]\n";
        body += "kinetic 0.5*m" + K + "*dot(der(p" + K + "), der(p" + K + ")) + 0.5*dot(w" + K +
                ", [[0.02, 0.001, 0], [0.001, 0.03, 0.002], [0, 0.002, 0.01]]*w" + K + ")\n";
        body += "potential m" + K + "*g*p" + K + "[2]\n";
    }
    return t + coordinates + "\n" + body;
}

TEST(RateForm, GravityOfPointsIsACompositeToo) {
    auto c = check_text(arm_text(10));
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::composite_inertia const rotational(m, *f);
    lagc::point_composite const points(m, *f, rotational);
    ASSERT_TRUE(points.usable());
    GiNaC::exvector gradient;
    for (auto const& q : m.q) gradient.push_back(m.potential.diff(q));
    GiNaC::exvector composite = gradient;
    ASSERT_TRUE(points.potential_gradient(composite));
    std::size_t replaced = 0;
    for (std::size_t i = 0; i < m.q.size(); ++i) {
        replaced += composite[i].is_equal(gradient[i]) ? 0 : 1;
        double const expected = at_state(gradient[i], m);
        EXPECT_NEAR(at_state(composite[i], m), expected, 1e-12 * (1 + std::abs(expected))) << i;
    }
    EXPECT_EQ(replaced, m.q.size() - 1); // all but q1, about the vertical: 0 either way
}

// The same arm's h to evaluate takes the points' accelerations as the RNEA does (Ω̇ × p +
// Ω × ṗ + V̇ from the twists): smaller than the form C and the linearization differentiate,
// and equal to it.
TEST(RateForm, RecursiveAccelerationsMakeACompactBias) {
    auto c = check_text(arm_text(10));
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->bias_compact.size(), m.q.size());
    EXPECT_LT(lagc::operations_of(m, r->bias_compact), lagc::operations_of(m, r->bias));
    lagc::samples values(m); // at random states, on the code generator's DAG
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < m.q.size(); ++i) pairs.push_back({values.add(r->bias[i]), values.add(r->bias_compact[i])});
    ASSERT_TRUE(values.evaluate(m, 12345, 3));
    for (std::size_t k = 0; k < values.count(); ++k)
        for (auto const& [a, b] : pairs)
            EXPECT_NEAR(values(k, b), values(k, a), 1e-11 * (1 + std::abs(values(k, a)))) << k << " " << a;
}

// The points' shares of ∂R/∂q and of C from their composites (the analytic RNEA
// derivatives, derived::composite_derivatives), added to the derivatives of the rest, are
// the derivatives of the whole: ∂R/∂q of the residual rows (q̈ random too) and the
// Christoffel C, at random states on the code generator's DAG. Fails when a term of the
// formulas is dropped (derive's own check then rejects them and this finds them missing)
// or when the rest is not what is left once the shares are taken out.
void expect_composite_derivatives(std::string const& text, bool bodies = false, bool gravity = true) {
    auto c = check_text(text);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    lagc::diagnostics diags;
    auto r = lagc::derive(m, diags);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->point_derivatives.has_value());
    ASSERT_TRUE(r->coriolis.has_value());
    auto const& pd = *r->point_derivatives;
    std::size_t const n = m.q.size();
    EXPECT_EQ(pd.bodies, bodies);
    EXPECT_EQ(pd.gravity, gravity);
    std::vector<std::string> order;
    auto symbols = lagc::graph_spellings(m, order);
    for (std::size_t i = 0; i < n; ++i) {
        symbols[r->qdd[i].get_name()] = {"qdd[" + std::to_string(i) + "]", "x"};
        order.push_back("qdd[" + std::to_string(i) + "]");
    }
    lagc::expression_graph g(symbols, {});
    std::vector<int> whole, rest, half_rest, q, qd;
    for (std::size_t i = 0; i < n; ++i) {
        whole.push_back(g.add_parts(r->residual_rows[i]));
        rest.push_back(g.add_parts(pd.residual_rest[i]));
        half_rest.push_back(g.add(pd.bias_rest[i] / 2));
        q.push_back(g.variable_node(order[i]));
        qd.push_back(g.variable_node(order[n + i]));
    }
    std::vector<int> const dwhole = g.jacobian(whole, q), drest = g.jacobian(rest, q), dhalf = g.jacobian(half_rest, qd);
    std::vector<int> analytic, christoffel, dC;
    for (std::size_t k = 0; k < n * n; ++k) {
        analytic.push_back(g.add(pd.dtau_dq[k]));
        dC.push_back(g.add(pd.coriolis[k]));
        christoffel.push_back(g.add((*r->coriolis)[k]));
    }
    std::uint64_t state = 2718281828;
    for (int k = 0; k < 3; ++k) {
        std::vector<double> x = lagc::random_point(m, state, lagc::parameter_values::random);
        for (std::size_t i = 0; i < n; ++i) x.push_back(std::sin(1.7 * static_cast<double>(i) + k));
        auto value = [&](std::vector<int> const& roots) { return g.evaluate_all(roots, order, x); };
        std::vector<double> const W = value(dwhole), Rs = value(drest), A = value(analytic), H = value(dhalf),
                                  Cs = value(dC), C = value(christoffel);
        double scale = 0;
        for (std::size_t e = 0; e < n * n; ++e) scale = std::max({scale, std::abs(W[e]), std::abs(C[e])});
        for (std::size_t e = 0; e < n * n; ++e) {
            EXPECT_NEAR(Rs[e] + A[e], W[e], 1e-11 * scale) << "dR/dq " << e / n << "," << e % n;
            EXPECT_NEAR(H[e] + Cs[e], C[e], 1e-11 * scale) << "C " << e / n << "," << e % n;
        }
    }
}

TEST(RateForm, CompositeDerivativesOfThePoints) { expect_composite_derivatives(arm_text(10)); }

// Gravity is uniform on the arm's points (each weight m γ, γ = [0, 0, g]): ∂V/∂q is in the
// shares, its derivatives from the base's acceleration γ. Other terms of V (springs) stay in
// the rest. A weight that is not m γ (one link counted twice) leaves ∂V/∂q in the rest.
TEST(RateForm, CompositeDerivativesOfGravity) {
    expect_composite_derivatives(arm_text(6) + "potential 0.5*3*q2^2 + 2*cos(q4)\n");
    expect_composite_derivatives(arm_text(6) + "potential m3*g*p3[2]\n", false, false);
}

// The bundled Panda-like arm: its bodies' rotational inertia (½ ωᵀ J ω, composites in body
// axes) is in the analytic shares too, as R J Rᵀ in world axes (R: the frame with
// Ṙ = R [ω]×, ω's elements found in the rate form's order and signs).
TEST(RateForm, CompositeDerivativesOfBodies) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/panda_like.lag");
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty());
    expect_composite_derivatives(text.str(), true);
}

// A base turning about z with two branches of two links each: the points the joints move
// form a tree with a fork (the base's node has two children), and the composite M q̈ summed
// along it equals M q̈.
// `links` links on each branch (2: the model of the test below).
std::string fork_text(int links = 2) {
    std::string text = "model fork\nparameter g = 9.81\ncoordinate q0";
    for (std::string const b : {"a", "b"})
        for (int k = 1; k <= links; ++k) text += ", q" + b + std::to_string(k);
    text += "\nlet R0 = rotz(q0)\nlet o0 = [0, 0, 0.2]\nlet w0 = [0, 0, der(q0)]\nlet p0 = o0 + R0*[0.05, 0.02, 0.1]\n"
            "kinetic 0.5*2*dot(der(p0), der(p0)) + 0.5*dot(w0, [[0.05, 0.001, 0], [0.001, 0.06, 0], [0, 0, 0.04]]*w0)\n";
    for (std::string const b : {"a", "b"}) {
        std::string const side = b == "a" ? "0.15" : "-0.15";
        std::string parent = "0";
        for (int n = 1; n <= links; ++n) {
            bool const first = n == 1, odd = n % 2 == 1;
            std::string const x = b + std::to_string(n);
            std::string const T = odd ? "roty" : "rotx", axis = odd ? "[0, der(q" + x + "), 0]" : "[der(q" + x + "), 0, 0]";
            text += "let T" + x + " = " + T + "(q" + x + ")\nlet R" + x + " = R" + parent + "*T" + x + "\n";
            text += "let o" + x + " = o" + parent + " + R" + parent + "*" + (first ? "[0, " + side + ", 0.1]" : "[0.3, 0, 0]") + "\n";
            text += "let w" + x + " = transpose(T" + x + ")*w" + parent + " + " + axis + "\n";
            text += "let p" + x + " = o" + x + " + R" + x + "*[0.12, 0.02, 0.01]\n";
            text += "kinetic 0.5*dot(der(p" + x + "), der(p" + x + ")) + 0.5*dot(w" + x +
                    ", [[0.01, 0.0005, 0], [0.0005, 0.012, 0], [0, 0, 0.009]]*w" + x + ")\npotential g*p" + x + "[2]\n";
            parent = x;
        }
    }
    return text;
}

TEST(RateForm, CompositesAlongABranchedTree) {
    std::string const text = fork_text();
    auto c = check_text(text);
    ASSERT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::model const& m = *c.m;
    auto f = lagc::bilinear_form_of(m);
    ASSERT_TRUE(f.has_value());
    lagc::rate_structures const structures(m, *f);
    ASSERT_TRUE(structures.points.usable());
    lagc::diagnostics d;
    auto r = lagc::derive(m, d);
    ASSERT_TRUE(r.has_value());
    std::size_t const n = m.q.size();
    std::vector<GiNaC::symbol> qdd;
    GiNaC::exvector a;
    for (std::size_t j = 0; j < n; ++j) qdd.emplace_back("a" + std::to_string(j)), a.push_back(qdd.back());
    GiNaC::exvector const p = lagc::momentum_from_bilinear_form(m, structures, a);
    ASSERT_EQ(p.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ex mq = 0;
        for (std::size_t j = 0; j < n; ++j) mq += r->mass_matrix[i * n + j] * qdd[j];
        double const expected = at_state(mq, m, qdd);
        EXPECT_NEAR(at_state(p[i], m, qdd), expected, 1e-12 * (1 + std::abs(expected))) << i;
    }
}

// The same on the fork: joints on different branches have no share in each other's τ.
TEST(RateForm, CompositeDerivativesAlongABranchedTree) { expect_composite_derivatives(fork_text(4)); }

// A coordinate that moves two points differently (p1 by s along [1, 1, 0], p2 by s²) is no
// joint: no composites (the points' terms stay term by term). Moved alike, they are.
TEST(RateForm, PointsNotMovedAsByAJointAreNotComposites) {
    auto usable = [](std::string const& second) {
        auto c = check_text("model slide\nparameter m = 1, J = 0.1\ncoordinate s, th\nlet R = rotz(th)\n"
                            "let w = [0, 0, der(th)]\nlet p1 = [s, s, 0] + R*[0.1, 0.05, 0]\nlet p2 = " + second +
                            " + R*[0.2, 0.1, 0]\nkinetic 0.5*m*dot(der(p1), der(p1)) + 0.5*m*dot(der(p2), der(p2)) + "
                            "0.5*J*dot(w, w)\n");
        EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
        auto f = lagc::bilinear_form_of(*c.m);
        EXPECT_TRUE(f.has_value());
        if (!f) return false;
        lagc::composite_inertia const rotational(*c.m, *f);
        lagc::point_composite const points(*c.m, *f, rotational);
        std::size_t covered = 0;
        for (std::size_t k = 0; k < f->rates.size(); ++k) covered += points.covers(k) ? 1 : 0;
        EXPECT_EQ(covered, points.usable() ? 4u : 0u);
        return points.usable();
    };
    EXPECT_FALSE(usable("[s^2, s^2, 0]"));
    EXPECT_TRUE(usable("[s, s, 0]"));
}

// ---- substitution and evaluation over distinct parts (symbolic/dag.hpp) -------

TEST(Dag, SubstituteAndEvaluateAgreeWithGiNaC) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l");
    std::vector<ex> cases = {l * sin(a) + 2 * l * sin(a + b) + l * cos(a + b + c), pow(a * b + c, 3) / (1 + pow(c, 2)),
                             exp(a * b) * log(2 + cos(c)) + sqrt(1 + a * a) + atan2(b, 2 + a), GiNaC::ex(7), l};
    GiNaC::exmap const swap{{a, b + 1}, {c, 2 * l}};
    GiNaC::exmap const at{{a, GiNaC::numeric(3, 10)}, {b, GiNaC::numeric(7, 10)}, {c, GiNaC::numeric(-11, 10)},
                          {l, GiNaC::numeric(13, 10)}};
    for (auto const& e : cases) {
        ex const mine = lagc::substitute(e, swap), theirs = e.subs(swap, GiNaC::subs_options::no_pattern);
        EXPECT_TRUE((mine - theirs).expand().is_zero()) << e << ": " << mine << " against " << theirs;
        auto const v = lagc::evaluate(e, at);
        ASSERT_TRUE(v.has_value()) << e;
        double const want = GiNaC::ex_to<GiNaC::numeric>(e.subs(at).evalf()).to_double();
        EXPECT_NEAR(v->to_double(), want, 1e-13 * (1 + std::abs(want))) << e;
    }
    // A symbol left without a value, or a pole: no number.
    EXPECT_FALSE(lagc::evaluate(a + b, {{a, 1}}).has_value());
    EXPECT_FALSE(lagc::evaluate(1 / (a - 1), {{a, 1}}).has_value());
    // Parts without a replaced symbol are kept, not rebuilt.
    ex const part = sin(b) * l;
    EXPECT_TRUE(GiNaC::are_ex_trivially_equal(lagc::substitute(part, swap), part));
}

// a_i = a_(i-1) + sin(a_(i-1)), 200 levels: a tree of 2^200 nodes, 400 parts. Each part is
// substituted and evaluated once (GiNaC's subs and evalf would walk every path), and the
// value is the recurrence's.
TEST(Dag, SharedPartsAreVisitedOnce) {
    GiNaC::symbol x("x"), y("y");
    ex a = x;
    double value = 0.3;
    for (int i = 0; i < 200; ++i) a = a + sin(a), value = value + std::sin(value);
    auto const direct = lagc::evaluate(a, {{x, GiNaC::numeric(3, 10)}});
    ASSERT_TRUE(direct.has_value());
    EXPECT_NEAR(direct->to_double(), value, 1e-12 * value);
    ex const b = lagc::substitute(a, {{x, 2 * y}});
    auto const through = lagc::evaluate(b, {{y, GiNaC::numeric(3, 20)}});
    ASSERT_TRUE(through.has_value());
    EXPECT_NEAR(through->to_double(), value, 1e-12 * value);
}

// ---- the chain rule and the code generator's rewrites ------------------------

TEST(ChainRule, DirectionalDerivativeIsTheSumOfPartials) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l"), r1("r1"), r2("r2"), r3("r3");
    std::vector<GiNaC::symbol> x = {a, b, c};
    std::vector<ex> r = {r1, r2, r3};
    std::vector<ex> cases = {l * sin(a) + 2 * l * sin(a + b) + l * cos(a + b + c),
                             pow(a * b + c, 3) / (1 + pow(c, 2)),
                             exp(a * b) * log(2 + cos(c)) + sqrt(1 + a * a) + atan2(b, 2 + a),
                             pow(2 + sin(a), b) + tan(l * c) * sinh(b) + pow(a, -2),
                             l * r1 * sin(a),  // rates are constants of the walk
                             GiNaC::ex(7)};
    for (auto const& e : cases) {
        ex expected = 0;
        for (std::size_t i = 0; i < 3; ++i) expected += e.diff(x[i]) * r[i];
        ex got = lagc::directional_derivative(e, x, r);
        // Compare at an arbitrary point (the forms differ, the values must not).
        GiNaC::exmap at{{a, GiNaC::numeric(3, 10)}, {b, GiNaC::numeric(7, 10)}, {c, GiNaC::numeric(-11, 10)},
                        {l, GiNaC::numeric(13, 10)}, {r1, GiNaC::numeric(1, 3)}, {r2, GiNaC::numeric(-2, 5)},
                        {r3, GiNaC::numeric(5, 7)}};
        double const want = GiNaC::ex_to<GiNaC::numeric>(expected.subs(at).evalf()).to_double();
        double const have = GiNaC::ex_to<GiNaC::numeric>(got.subs(at).evalf()).to_double();
        EXPECT_NEAR(have, want, 1e-12 * (1 + std::abs(want))) << e;
    }
    // The point of it: a chain's velocity keeps one term per link (n, not n²).
    ex chain = 0, angle = 0;
    for (auto const& q : x) angle += q, chain += l * sin(angle);
    ex v = lagc::directional_derivative(chain, x, r);
    ASSERT_TRUE(GiNaC::is_a<GiNaC::add>(v)) << v;
    EXPECT_EQ(v.nops(), 3u) << v;
}

// One deriver for many expressions (total_time_derivative's memo) gives each what a walk
// of its own gives: the same expression, whatever was derived before it.
TEST(ChainRule, SharedDeriverMatchesOneWalkEach) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l"), r1("r1"), r2("r2"), r3("r3");
    std::vector<GiNaC::symbol> x = {a, b, c};
    std::vector<ex> r = {r1, r2, r3};
    ex const s = sin(a + b), k = cos(b + c) * l;
    std::vector<ex> cases = {s * k, s + k, pow(s, 2) * k - 3 * s, k, s * k * sin(c), GiNaC::ex(7), l * r2};
    lagc::directional_deriver shared(x, r);
    EXPECT_EQ(shared.variables(), 3u);
    for (int pass = 0; pass < 2; ++pass)
        for (auto const& e : cases) {
            ex const alone = lagc::directional_derivative(e, x, r);
            ex const got = shared(e);
            EXPECT_TRUE(got.is_equal(alone)) << e << ": " << got << " against " << alone;
            EXPECT_TRUE((got - alone).expand().is_zero()) << e;
        }
    EXPECT_TRUE(shared(l * a).is_equal(l * r1));
}

// sum_terms reads a sum's terms as GiNaC stores them: rest · coeff for each pair, then the
// constant, must be the sum's op(i) in order, and add up to the sum.
TEST(Expressions, SumTermsAreTheSumsTerms) {
    GiNaC::symbol x("x"), y("y"), z("z");
    std::vector<ex> sums = {3 * x + y - GiNaC::numeric(2, 7) * x * y * z + 5, x + y, 2 * x * (y + 2 * z) - z / 3,
                            pow(x + y, 2) * 4 + sin(z) - 1, 6 * (x + 2 * y)};
    for (auto const& e : sums) {
        ASSERT_TRUE(GiNaC::is_exactly_a<GiNaC::add>(e)) << e;
        GiNaC::add const& a = GiNaC::ex_to<GiNaC::add>(e);
        auto const& pairs = lagc::sum_terms::pairs(a);
        ex const& constant = lagc::sum_terms::constant(a);
        ASSERT_EQ(pairs.size() + (constant.is_zero() ? 0u : 1u), e.nops()) << e;
        ex total = constant;
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            EXPECT_TRUE(GiNaC::is_exactly_a<GiNaC::numeric>(pairs[i].coeff)) << e;
            EXPECT_TRUE((pairs[i].rest * pairs[i].coeff - e.op(i)).expand().is_zero()) << e << " term " << i;
            total += pairs[i].rest * pairs[i].coeff;
        }
        if (!constant.is_zero()) EXPECT_TRUE(constant.is_equal(e.op(e.nops() - 1))) << e;
        EXPECT_TRUE((total - e).expand().is_zero()) << e;
    }
    // unit_scale reads the coefficients from the pairs: the magnitude most terms have.
    EXPECT_EQ(lagc::unit_scale(3 * x + 3 * y + 6 * z), GiNaC::numeric(3));
    EXPECT_EQ(lagc::unit_scale(x + 3 * y + 6 * z), GiNaC::numeric(1));
    EXPECT_EQ(lagc::unit_scale(GiNaC::numeric(2, 5) * x - GiNaC::numeric(2, 5) * y + 4), GiNaC::numeric(2, 5));
}

// has_any walks each distinct part once; GiNaC rebuilds a sum's term c·x as a new object
// on every op(i), so the walk must keep what it visited alive, or a freed term's address,
// reused by a later one, would make that one look visited (t was missed in the crane
// model's constraint until it did).
TEST(Expressions, HasAnyFindsSymbolsBehindRebuiltTerms) {
    GiNaC::symbol t("t");
    std::vector<GiNaC::symbol> x;
    for (int i = 0; i < 12; ++i) x.emplace_back("x" + std::to_string(i));
    for (int where = 0; where < 40; ++where) {
        GiNaC::ex e = 0;
        for (int k = 0; k < 40; ++k) {
            GiNaC::ex inner = 0;
            for (int j = 0; j < 6; ++j) inner += (j + 2) * x[static_cast<std::size_t>((k + j) % 12)];
            if (k == where) inner += 3 * t;
            e += (k + 2) * x[static_cast<std::size_t>(k % 12)] * GiNaC::pow(inner, 2);
        }
        ASSERT_TRUE(e.has(t));
        EXPECT_TRUE(lagc::has_any(e, {t})) << "t in term " << where;
        EXPECT_TRUE(lagc::has_any(e, {x[3], t}));
        EXPECT_FALSE(lagc::has_any(e.subs(t == 0), {t}));
        EXPECT_FALSE(lagc::has_any(e, {}));
    }
}

TEST(Codegen, FactoringAndSharingKeepValuesAndSaveOperations) {
    GiNaC::symbol a("a"), b("b"), c("c"), m1("m1"), m2("m2"), m3("m3");
    std::map<std::string, lagc::symbol_spelling> symbols = {
        {"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}, {"c", {"q[2]", "q"}},
        {"m1", {"p.m1", "p"}}, {"m2", {"p.m2", "p"}}, {"m3", {"p.m3", "p"}}};
    std::map<std::string, double> values = {{"q[0]", 0.3},  {"q[1]", -0.7}, {"q[2]", 1.1},
                                            {"p.m1", 1.5}, {"p.m2", 0.25}, {"p.m3", 2.0}};
    ex s = sin(a), co = cos(a);
    std::vector<ex> outputs = {
        m1 * b * s + m2 * b * s + m3 * b * co - m1 * c * s,           // common factors
        m1 * pow(s, 2) * c + m1 * pow(co, 2) * c + m2,                  // sin² + cos² = 1
        m1 + m2 + m3, m1 + m2 + m3 + a * b, -(m1 + m2) + c,             // sums inside sums, signs
        m1 * m2 * a * b, m1 * m2 * a * b * c, pow(a + b, 2) * (a - b) / (1 + c * c)};
    lagc::expression_graph g(symbols, {});
    std::vector<int> roots;
    for (auto const& e : outputs) roots.push_back(g.add(e));
    std::vector<int> rewritten = g.share_subsets(g.factor_sums(g.share_subsets(roots)));
    EXPECT_LT(g.operation_count(rewritten), g.operation_count(roots));
    GiNaC::exmap at{{a, 0.3}, {b, -0.7}, {c, 1.1}, {m1, 1.5}, {m2, 0.25}, {m3, 2.0}};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        double const want = GiNaC::ex_to<GiNaC::numeric>(outputs[i].subs(at).evalf()).to_double();
        EXPECT_NEAR(g.evaluate(roots[i], values), want, 1e-13 * (1 + std::abs(want))) << outputs[i];
        EXPECT_NEAR(g.evaluate(rewritten[i], values), want, 1e-13 * (1 + std::abs(want))) << outputs[i];
    }
    // m1 (sin² + cos²) c + m2 needs no sine or cosine at all.
    auto code = g.emit({{"y", rewritten[1]}}, "");
    EXPECT_EQ(code.text.find("sin"), std::string::npos) << code.text;
}

// GiNaC keeps a sum that is a factor or a base with its integer content out: 0.52 a + b as
// (13 a + 25 b)/25 in (0.52 a + b)² and in (0.52 a + b) c. The graph takes each such sum at
// the scale where most coefficients are ±1, so all three uses share one node, and its
// coefficient is 0.52 (one multiplication), not 13 and 25 (two).
TEST(Codegen, SumsInProductsKeepTheirNaturalScale) {
    GiNaC::symbol a("a"), b("b"), c("c"), m("m");
    std::map<std::string, lagc::symbol_spelling> symbols = {
        {"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}, {"c", {"q[2]", "q"}}, {"m", {"p.m", "p"}}};
    std::map<std::string, double> values = {{"q[0]", 0.3}, {"q[1]", -0.7}, {"q[2]", 1.1}, {"p.m", 1.5}};
    ex const sum = GiNaC::numeric(13, 25) * a + b;
    std::vector<ex> const outputs = {sum, m * pow(sum, 2) / 2, sum * c * m, pow(sum, 3), 2 * m + 4 * a * b * c,
                                     m + 2 * a};
    ASSERT_TRUE(GiNaC::is_a<GiNaC::mul>(outputs[1])); // the case at hand: content taken out
    lagc::expression_graph g(symbols, {});
    std::vector<int> roots;
    for (auto const& e : outputs) roots.push_back(g.add(e));
    GiNaC::exmap at{{a, 0.3}, {b, -0.7}, {c, 1.1}, {m, 1.5}};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        double const want = GiNaC::ex_to<GiNaC::numeric>(outputs[i].subs(at).evalf()).to_double();
        EXPECT_NEAR(g.evaluate(roots[i], values), want, 1e-14 * (1 + std::abs(want))) << outputs[i];
    }
    // The sum x once (2 operations), then m·x²/2 (3), x·c·m (2), x³ (2): 9. (Taken as GiNaC
    // holds them, 13 a + 25 b would be a second sum and each use would need its 1/25ⁿ: 14.)
    EXPECT_EQ(g.operation_count({roots[0], roots[1], roots[2], roots[3]}), 9u);
    auto code = g.emit({{"y", roots[1]}, {"z", roots[2]}}, "");
    EXPECT_NE(code.text.find("0.52"), std::string::npos) << code.text;
    EXPECT_EQ(code.text.find("25"), std::string::npos) << code.text;
    // A sum whose coefficients are mostly ±1 already stays as it is (m + 2a, not 2 (a + m/2)).
    EXPECT_EQ(g.operation_count({roots[5]}), 2u);
    EXPECT_EQ(g.operation_count({roots[4]}), 5u);
}

// The same for a sum whose terms are powers of such sums: with a 17-digit literal (MuJoCo's
// 0.33999999999999997) GiNaC keeps ½ m ((l a + b)² + (l c + d)²) as 10⁻³⁴/2 · m · ((…)² + (…)²)
// with the squares' sums at 10⁻¹⁷. Taken at scale 1, the outer sum's terms each carried
// 10³⁴ and the product 5·10⁻³⁵: a multiplication more per term, and the result no longer the
// double of ½ m (x² + y²) (5e-35 * 1e+34 is not 0.5). Counted with the squares' scales, the
// outer sum is at 10⁻³⁴ and the product's number is ½ exactly.
TEST(Codegen, SumsOfScaledSumsKeepTheirNaturalScale) {
    GiNaC::symbol a("a"), b("b"), c("c"), d("d"), m("m");
    std::map<std::string, lagc::symbol_spelling> symbols = {
        {"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}, {"c", {"q[2]", "q"}}, {"d", {"q[3]", "q"}}, {"m", {"p.m", "p"}}};
    ex const l = GiNaC::numeric(33999999999999997, 100000000000000000);
    ex const e = m * (pow(l * a + b, 2) + pow(l * c + d, 2)) / 2;
    lagc::expression_graph g(symbols, {});
    int const root = g.add(e);
    auto code = g.emit({{"y", root}}, "");
    EXPECT_EQ(code.text.find("e+"), std::string::npos) << code.text;
    EXPECT_EQ(code.text.find("e-"), std::string::npos) << code.text;
    EXPECT_NE(code.text.find("0.5*"), std::string::npos) << code.text;
    // x, y: 2 operations each, x², y², their sum, · m, · ½: 9.
    EXPECT_EQ(g.operation_count({root}), 9u);
    // What the same formula gives in doubles.
    std::map<std::string, double> values = {{"q[0]", 0.3}, {"q[1]", -0.7}, {"q[2]", 1.1}, {"q[3]", 0.45}, {"p.m", 1.5}};
    double const x = 0.33999999999999997 * 0.3 + -0.7, y = 0.33999999999999997 * 1.1 + 0.45;
    EXPECT_NEAR(g.evaluate(root, values), 0.5 * 1.5 * (x * x + y * y), 1e-15);
}

// Two functions' outputs scheduled together (emit_shared): what both need (k and sin a) is
// computed once, in a part both run first; each function runs its own part after it and
// nothing of the other's; the parts hold the union's operations, each once, and the values
// the later parts read pass through w.
TEST(Codegen, SharedPartsComputeEachValueOnce) {
    GiNaC::symbol a("a"), b("b"), c("c");
    std::map<std::string, lagc::symbol_spelling> symbols = {
        {"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}, {"c", {"qd[0]", "qd"}}};
    ex const k = sin(a) * cos(b) + a * b;
    lagc::expression_graph g(symbols, {});
    int const m0 = g.add(k * k + 1), m1 = g.add(k * a + cos(a)), h0 = g.add(k * c + sin(a) * c);
    auto const e = g.emit_shared({{{"M[0]", m0}, {"M[1]", m1}}, {{"h[0]", h0}}}, "", 0);
    ASSERT_EQ(e.parts.size(), 3u);
    EXPECT_EQ(e.parts[0].functions, 3u);
    EXPECT_EQ(e.parts[1].functions, 1u);
    EXPECT_EQ(e.parts[2].functions, 2u);
    // A call of q[i] reads it once per part, into a local (sin and cos then make one sincos).
    auto calls = [](std::string const& text, std::string const& f, std::string const& q) {
        std::regex const r("const double (a[0-9]+) = " + q + ";[^]*std::" + f + "\\(\\1\\)");
        return std::regex_search(text, r);
    };
    std::string const& both = e.parts[0].body.text;
    EXPECT_TRUE(calls(both, "sin", "q\\[0\\]")) << both;
    EXPECT_TRUE(calls(both, "cos", "q\\[1\\]")) << both;
    EXPECT_EQ(both.find("M["), std::string::npos) << both;
    EXPECT_EQ(both.find("qd["), std::string::npos) << both;
    for (std::size_t p = 1; p < 3; ++p) {
        std::string const& own = e.parts[p].body.text;
        EXPECT_FALSE(calls(own, "sin", "q\\[0\\]")) << own;
        EXPECT_NE(own.find("w["), std::string::npos) << own;
    }
    EXPECT_NE(e.parts[1].body.text.find("M[0] = "), std::string::npos);
    EXPECT_TRUE(calls(e.parts[1].body.text, "cos", "q\\[0\\]")) << e.parts[1].body.text; // f's alone
    EXPECT_NE(e.parts[2].body.text.find("h[0] = "), std::string::npos);
    EXPECT_EQ(e.operations, g.operation_count({m0, m1, h0}));
    EXPECT_LT(e.operations, g.operation_count({m0, m1}) + g.operation_count({h0}));
    ASSERT_EQ(e.scratch.size(), 2u);
    EXPECT_GE(e.scratch[0], 2u); // k and sin(q[0]) at least
    EXPECT_GE(e.scratch[1], 2u);
}

// The size of forward-mode derivatives along some variables: each operation's cost times
// how many of them it depends on. a·b·c (2 operations) depends on a and b: 4; sin(a): 1;
// the sum: 1 · 2. c is not one of the variables.
TEST(Codegen, DerivativeWorkCountsOperationsTimesDependencies) {
    GiNaC::symbol a("a"), b("b"), c("c");
    std::map<std::string, lagc::symbol_spelling> symbols = {
        {"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}, {"c", {"q[2]", "q"}}};
    lagc::expression_graph g(symbols, {});
    int const r = g.add(a * b * c + sin(a));
    EXPECT_EQ(g.derivative_work({r}, {"q[0]", "q[1]"}), 7.0);
    EXPECT_EQ(g.derivative_work({r}, {"q[2]"}), 3.0); // a·b·c and the sum
    EXPECT_EQ(g.derivative_work({r}, {}), 0.0);
}

// Functions in parts share what their sums hold in common, found on the group's graph:
// y1 = (k1 + k2 + k3) b, built alone, holds one sum of three terms; with y0 = (k1 + k2) a
// in the file, it reads k1 + k2 from y0's sum and adds k3.
TEST(Codegen, FunctionsInPartsShareTheirSubSums) {
    std::string const text = "model two\nparameter m = 1, l = 0.5, k1 = 1.1, k2 = 1.2, k3 = 1.3\ncoordinate a, b\n"
                             "kinetic 0.5*m*l^2*(der(a)^2 + der(b)^2 + 2*cos(a - b)*der(a)*der(b))\n"
                             "output y0 = (k1 + k2)*a\noutput y1 = (k1 + k2 + k3)*b\n";
    lagc::compile_options o{{"two.lag", "two.hpp"}, {}, {}};
    o.emit.split_operations = 10;
    auto r = lagc::compile(text, o);
    ASSERT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file("two.lag", text));
    std::string const& src = r.files->source;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(src, m, std::regex("(w\\[\\d+\\]) = p\\.k1 \\+ p\\.k2;"))) << src;
    EXPECT_EQ(src.find("p.k1 + p.k2", static_cast<std::size_t>(m.position(0) + m.length(0))), std::string::npos) << src;
    EXPECT_NE(src.find("p.k3 + " + m[1].str() + ";"), std::string::npos) << src;
}

// More functions in parts than a part's set can name (64 bits): they share in groups of
// 64, each group's parts before its functions, and every function is defined once.
TEST(Codegen, MoreThanSixtyFourFunctionsInPartsShareInGroups) {
    std::string text = "model many\nparameter m = 1, l = 0.5\ncoordinate a, b\n"
                       "kinetic 0.5*m*l^2*(der(a)^2 + der(b)^2 + 2*cos(a - b)*der(a)*der(b))\n";
    for (int k = 0; k < 70; ++k)
        text += "output y" + std::to_string(k) + " = sin(" + std::to_string(k + 1) + "*a)*cos(b) + " + std::to_string(k) + "*a*b\n";
    lagc::compile_options o{{"many.lag", "many.hpp"}, {}, {}};
    o.emit.split_operations = 10;
    auto r = lagc::compile(text, o);
    ASSERT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file("many.lag", text));
    std::string const& src = r.files->source;
    std::size_t in_parts = 0;
    for (auto const& st : r.files->stats) in_parts += st.parts > 1 ? 1 : 0;
    EXPECT_GT(in_parts, 64u);
    for (int k : {0, 69}) {
        std::string const f = "void output_y" + std::to_string(k) + "(";
        std::size_t const at = src.find(f);
        ASSERT_NE(at, std::string::npos) << f;
        EXPECT_EQ(src.find(f, at + 1), std::string::npos) << f;
    }
    EXPECT_EQ(src.find('\x02'), std::string::npos); // every place marked was filled
    EXPECT_NE(src.find("shared_part0("), std::string::npos);
    EXPECT_LT(r.files->operations, [&] {
        std::size_t sum = 0;
        for (auto const& st : r.files->stats) sum += st.operations_after_cse;
        return sum;
    }());
}

TEST(Names, GeneratedArgumentNamesAreLegalModelNames) {
    lagc::compile_options o{{"t.lag", "t.hpp"}, {}, {}};
    auto r = lagc::compile("model clash\nparameter q = 1, qd = 2, h = 3, M = 4, A = 5, u = 6, p = 7\n"
                           "coordinate c\ninput lambda_\nkinetic 0.5 * M * der(c)^2\npotential h * c * q\n"
                           "force lambda_ * p on c\n",
                           o);
    ASSERT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file("t.lag", ""));
    EXPECT_NE(r.files->source.find("M[0] = p.M;"), std::string::npos) << r.files->source;
    EXPECT_NE(r.files->source.find("Q[0] = p.p*u[0];"), std::string::npos) << r.files->source;
}

// Every embedded template renders with the names the emitter supplies, and needs each
// of them (fmt throws "argument not found" without naming it, so this is checked here).
TEST(Templates, EveryTemplateRendersWithItsNames) {
    std::map<std::string, std::vector<std::string>> const names = {
        {"header.hpp.tpl",
         {"source", "ns", "nq", "nu", "nc", "stamp", "names", "parameters_comment", "parameter_fields", "stack", "declarations"}},
        {"source.cpp.tpl", {"source", "header", "ns", "stamp", "detail", "definitions"}},
        {"header_only.hpp.tpl", {"source", "ns", "using_math", "nq", "nu", "nc", "names", "parameters_comment", "parameter_fields", "stack", "detail", "definitions"}},
        {"mcu.tpl#errno_guard", {}},
        {"stack.tpl#block", {"scalar", "frame", "spill", "libm", "entries"}},
        {"stack.tpl#entry", {"name", "total", "arrays", "temporaries", "frames", "libm"}},
        {"function.tpl", {"comment", "linkage", "result", "name", "parameters", "body"}},
        {"declaration.tpl", {"comment", "result", "name", "parameters"}},
        {"parameter_field.tpl", {"type", "name", "value"}},
        {"detail_block.tpl", {"helpers"}},
        {"split_function.tpl#scratch", {"scalar", "size"}},
        {"split_function.tpl#result", {"scalar"}},
        {"split_function.tpl#return", {}},
        {"split_function.tpl#call", {"part", "arguments"}},
        {"split_function.tpl#noinline_begin", {}},
        {"split_function.tpl#noinline_end", {}},
        {"cholesky.tpl", {"scalar", "template_head", "math", "tolerance"}},
        {"unrolled_cholesky.tpl", {"linkage", "scalar", "factor", "solve"}},
        {"cholesky_steps.tpl#largest", {"scalar", "zero"}},
        {"cholesky_steps.tpl#largest_update", {"m"}},
        {"cholesky_steps.tpl#threshold", {"scalar", "tolerance"}},
        {"cholesky_steps.tpl#pivot", {"scalar", "d", "value", "math", "set", "r", "one"}},
        {"cholesky_steps.tpl#factor_entry", {"set", "l", "value", "r"}},
        {"cholesky_steps.tpl#solve_step", {"scalar", "name", "value", "r"}},
        {"cholesky_steps.tpl#store", {"target", "value"}},
        {"cholesky_steps.tpl#finite_check", {"conditions"}},
        {"forward_dynamics_unrolled.tpl", {"terms", "factor", "solve", "finite_check"}},
        {"forward_dynamics.tpl#factored", {"scalar", "args_q_qd_u_p", "factor", "solve", "math"}},
        {"forward_dynamics.tpl#recursive", {"scalar", "args_q_qd_u_p", "pivot_checks", "finite_check"}},
        {"forward_dynamics.tpl#pivot_check", {"begin", "last", "scalar", "largest", "tolerance", "pivots", "status"}},
        {"forward_dynamics.tpl#call", {"scalar", "args_q_qd_u_p"}},
        {"forward_dynamics.tpl#loop_solve", {"solve"}},
        {"forward_dynamics_constrained.tpl#head", {"scalar", "args_q_qd_p", "args_q_qd_u_p"}},
        {"forward_dynamics_constrained.tpl#factor", {"augment", "factor", "singular"}},
        {"forward_dynamics_constrained.tpl#tail", {"scalar", "solve", "math"}},
        {"forward_dynamics_constrained.tpl#twin_head", {"scalar", "args_q_p", "args_q_qd_u_p", "args_q_qd_p"}},
        {"augment.tpl#helpers", {"linkage", "scalar", "one", "zero"}},
        {"forward_dynamics_constrained.tpl#unrolled", {"scalar", "args_q_qd_u_p", "args_q_qd_p"}},
        {"forward_dynamics_constrained.tpl#unrolled_y", {}},
        {"forward_dynamics_constrained.tpl#unrolled_value", {"scalar", "name", "value"}},
        {"forward_dynamics_constrained.tpl#unrolled_w", {}},
        {"forward_dynamics_constrained.tpl#unrolled_schur", {}},
        {"forward_dynamics_constrained.tpl#unrolled_largest_start", {"scalar", "zero"}},
        {"forward_dynamics_constrained.tpl#unrolled_largest", {"s"}},
        {"forward_dynamics_constrained.tpl#unrolled_threshold", {"scalar", "tolerance"}},
        {"forward_dynamics_constrained.tpl#unrolled_pivot", {"scalar", "d", "value", "math", "r", "one"}},
        {"forward_dynamics_constrained.tpl#quasi",
         {"comment", "scalar", "nd", "blocks_declaration", "args_q_qd_u_p", "blocks_argument", "pivot_checks",
          "blocks_check", "finite_check"}},
        {"forward_dynamics_constrained.tpl#quasi_comment", {}},
        {"forward_dynamics_constrained.tpl#articulated_comment", {}},
        {"forward_dynamics_constrained.tpl#quasi_blocks_declaration", {"scalar", "nh"}},
        {"forward_dynamics_constrained.tpl#quasi_blocks_check", {"nh", "tolerance", "math"}},
        {"forward_dynamics_constrained.tpl#unrolled_lambda", {}},
        {"forward_dynamics_constrained.tpl#unrolled_x", {}},
        {"forward_dynamics_constrained.tpl#unrolled_end", {"conditions", "stores", "lambdas"}},
        {"augment.tpl#unrolled_helpers", {"linkage", "scalar", "zero", "augment", "right_hand_side"}},
        {"augment.tpl#largest_m", {"m"}},
        {"augment.tpl#largest_a", {"scalar", "sum"}},
        {"augment.tpl#rho", {"scalar", "zero", "one"}},
        {"augment.tpl#add", {"entry"}},
        {"augment.tpl#right_hand_side_entry", {"entry"}},
        {"augment.tpl#right_hand_side_unused", {}},
        {"augment.tpl#forward_dynamics", {"scalar", "why"}},
        {"functions.tpl#sign", {"head", "scalar", "zero", "one"}},
        {"augment.tpl#linearization", {"scalar", "why"}},
        {"augment.tpl#why_everywhere", {}},
        {"augment.tpl#why_here", {}},
        {"augment.tpl#linearization_column", {}},
        {"augment.tpl#project_state", {}},
        {"augment.tpl#project_state_velocity", {}},
        {"augment.tpl#fail", {"status"}},
        {"augment.tpl#twin_call", {"name", "call"}},
        {"augment.tpl#twin_comment", {"name"}},
        {"augment.tpl#factorised", {}},
        {"augment.tpl#factorised_augmented", {}},
        {"using_math.tpl#block", {"declarations"}},
        {"using_math.tpl#declaration", {"function"}},
        {"scalar_function_return.tpl", {}},
        {"control.tpl#state_derivative", {"scalar", "t", "math"}},
        {"control.tpl#linearization", {"scalar", "args", "args_q_p", "factor"}},
        {"control.tpl#linearization_factored", {"scalar", "args"}},
        {"control.tpl#linearization_columns", {"scalar", "solve", "coriolis"}},
        {"control.tpl#linearization_constrained", {"scalar", "args", "args_q_p", "coriolis"}},
        {"control.tpl#linearization_constrained_factor", {"augment", "factor", "singular"}},
        {"control.tpl#linearization_constrained_tail", {"scalar", "solve", "augment_column"}},
        {"control.tpl#linearization_constrained_twin_head", {"scalar", "args_q_p"}},
        {"control.tpl#linearization_coriolis", {"scalar", "args_q_qd_p"}},
        {"control.tpl#store_column", {"linkage", "scalar", "one", "zero"}},
        {"control.tpl#rk4_step", {"scalar", "t", "t_half", "t_full", "math"}},
        {"control.tpl#symplectic_euler_step", {"scalar", "t", "math"}},
        {"control.tpl#radau_step", {"scalar", "math", "zero", "one", "t", "t_stage", "five_twelfths", "minus_one_twelfth",
                                     "three_quarters", "one_quarter", "tolerance"}},
        {"control.tpl#rk4_step_jacobian", {"scalar", "math", "zero", "one", "t_stage"}},
        {"control.tpl#zoh_discretization", {"scalar", "math", "zero", "one", "half"}},
        {"control.tpl#symplectic_euler_step_jacobian", {"scalar", "math", "zero", "one", "t"}},
        {"control.tpl#linearization_status", {"linkage", "scalar", "zero", "math"}},
        {"control.tpl#non_deduced", {}},
        {"comments.tpl#output", {"name", "shape"}},
        {"c_api.tpl#header", {"source", "ns", "cxx_header", "guard", "nq", "nu", "nc", "fields", "indices", "declarations"}},
        {"c_api.tpl#field", {"scalar", "name"}},
        {"c_api.tpl#declaration", {"result", "ns", "name", "parameters", "sizes"}},
        {"c_api.tpl#wrappers", {"c_header", "ns", "to_cpp", "to_c", "names", "wrappers"}},
        {"c_api.tpl#wrapper", {"result", "ns", "name", "parameters", "arguments", "null_check"}},
        {"c_api.tpl#null_check", {"value"}},
        {"c_api.tpl#index_enum", {"entries"}},
        {"c_api.tpl#names_declaration", {"ns", "what", "count"}},
        {"c_api.tpl#names_definition", {"ns", "what", "count", "names"}},
        {"c_api.tpl#regressor_declaration", {"ns", "count"}},
        {"c_api.tpl#regressor_definition", {"ns", "count", "indices"}},
        {"c_api.tpl#copy_to_cpp", {"name"}},
        {"c_api.tpl#copy_to_c", {"name"}},
        {"comments.tpl#output_jacobian", {"name", "size"}},
        {"comments.tpl#output_drift", {"name", "size"}},
        {"comments.tpl#project_state", {"iterations"}},
        {"task.tpl#names", {"coordinates", "coordinate_names", "inputs", "parameters", "outputs", "regressor"}},
        {"task.tpl#regressor_names", {"count", "indices", "names"}},
        {"task.tpl#input_names", {"inputs", "input_names"}},
        {"task.tpl#parameter_names", {"parameters", "parameter_names", "count"}},
        {"task.tpl#output_names", {"outputs", "output_names", "count"}},
        {"task.tpl#project_state",
         {"scalar", "holonomic", "iterations", "t", "math", "augment", "augment_velocity", "factor", "project", "singular"}},
        {"task.tpl#project_state_copy", {"scalar", "t", "math"}},
        {"task.tpl#project_state_in_place_comment", {}},
        {"task.tpl#project_onto_rows", {"template_head", "scalar", "solve", "project", "factorised"}},
        {"comments.tpl#parts", {"name"}}};
    // Every other section of comments.tpl is plain text.
    for (auto const& f : lagc::named_templates())
        if (std::string(f.name).rfind("comments.tpl#", 0) == 0 && !names.count(std::string(f.name)))
            EXPECT_NO_THROW(lagc::render(f.name, {})) << f.name;
    for (auto const& f : lagc::named_templates()) {
        if (std::string(f.name).rfind("comments.tpl#", 0) == 0 && !names.count(std::string(f.name))) continue;
        auto it = names.find(std::string(f.name));
        ASSERT_NE(it, names.end()) << "no test names for template " << f.name;
        std::vector<std::pair<std::string, std::string>> values;
        for (auto const& n : it->second) values.push_back({n, "X"});
        EXPECT_NO_THROW(lagc::render(f.name, values)) << f.name;
        for (std::size_t skip = 0; skip < values.size(); ++skip) {
            auto fewer = values;
            fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(skip));
            EXPECT_ANY_THROW(lagc::render(f.name, fewer)) << f.name << " does not use " << values[skip].first;
        }
    }
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
