// Code generation: the expression graph's rewrites and scales, shared parts, the C header,
// stack bounds, and every template rendering with its names.
#include "emit/emit.hpp"
#include "emit/templates.hpp"
#include "graph/expression_graph.hpp"
#include "symbolic/simplify.hpp"

#include <map>
#include <regex>
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using GiNaC::ex;
using namespace test_support;

namespace {

// The C header says what the C++ header says (issue 32): indices, output sizes, names,
// status codes, and each function's array sizes beside its declaration.

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

// C has one scope for functions: a model whose C names would be the C file's own helpers
// (factor_mass_matrix: the model "factor"'s mass_matrix) is refused in C, and fine in C++.
TEST(Names, COutputRefusesAModelNameThatMakesAnAPIFunctionAHelper) {
    std::string const model = "model factor\nparameter m = 1\ncoordinate x, y\n"
                              "kinetic 0.5 * m * (der(x)^2 + der(y)^2 + der(x) * der(y) * cos(x))\n";
    lagc::compile_options c{{"t.lag", "t.h"}, {}, {}};
    c.emit.c_output = true;
    auto r = lagc::compile(model, c);
    EXPECT_FALSE(r.files.has_value());
    EXPECT_NE(r.diags.format(lagc::source_file("t.lag", model)).find("factor_mass_matrix"), std::string::npos);
    lagc::compile_options cxx{{"t.lag", "t.hpp"}, {}, {}};
    EXPECT_TRUE(lagc::compile(model, cxx).files.has_value());
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
        {"mcu.tpl#reduce_angle", {"linkage", "scalar", "int_type", "to_int", "to_scalar", "short", "big", "short_text",
                                  "big_text", "exact", "inv_two_pi", "two_pi", "zero", "half", "c1", "c2", "c3"}},
        {"mcu.tpl#reduce_angle_generic", {}},
        {"stack.tpl#block", {"scalar", "frame", "spill", "libm", "target_note", "entries"}},
        {"stack.tpl#entry", {"name", "total", "arrays", "temporaries", "frames", "libm"}},
        {"function.tpl", {"comment", "linkage", "result", "name", "parameters", "body"}},
        {"declaration.tpl", {"comment", "result", "name", "parameters"}},
        {"parameter_field.tpl", {"type", "name", "value"}},
        {"detail_block.tpl", {"helpers"}},
        {"split_function.tpl#scratch", {"scalar", "size"}},
        {"split_function.tpl#result", {"scalar"}},
        {"split_function.tpl#return", {}},
        {"split_function.tpl#call", {"part", "arguments", "detail"}},
        {"split_function.tpl#noinline_begin", {}},
        {"split_function.tpl#noinline_end", {}},
        {"cholesky.tpl", {"scalar", "template_head", "math", "tolerance"}},
        {"unrolled_cholesky.tpl#factor", {"linkage", "scalar", "factor"}},
        {"unrolled_cholesky.tpl#solve", {"linkage", "scalar", "solve"}},
        {"unrolled_cholesky.tpl#inverse", {"linkage", "scalar", "statements"}},
        {"unrolled_cholesky.tpl#block", {"linkage", "scalar", "name", "count", "solve"}},
        {"cholesky_steps.tpl#largest", {"scalar", "zero"}},
        {"cholesky_steps.tpl#largest_update", {"m"}},
        {"cholesky_steps.tpl#threshold", {"scalar", "tolerance"}},
        {"cholesky_steps.tpl#pivot", {"scalar", "d", "value", "math", "set", "r", "one", "detail", "mf"}},
        {"cholesky_steps.tpl#factor_entry", {"set", "l", "value", "r"}},
        {"cholesky_steps.tpl#solve_step", {"scalar", "name", "value", "r"}},
        {"cholesky_steps.tpl#store", {"target", "value"}},
        {"cholesky_steps.tpl#finite_check", {"conditions"}},
        {"forward_dynamics_unrolled.tpl", {"terms", "factor", "solve", "finite_check"}},
        {"forward_dynamics.tpl#factored", {"scalar", "args_q_qd_u_p", "factor", "solve", "detail"}},
        {"forward_dynamics.tpl#recursive", {"scalar", "helper", "args_q_qd_u_p", "pivot_checks", "finite_check", "detail"}},
        {"forward_dynamics.tpl#pivot_check", {"begin", "last", "scalar", "largest", "tolerance", "pivots", "status", "detail"}},
        {"forward_dynamics.tpl#call", {"scalar", "args_q_qd_u_p", "detail"}},
        {"forward_dynamics.tpl#loop_solve", {"solve"}},
        {"forward_dynamics_constrained.tpl#head", {"scalar", "args_q_qd_p", "args_q_qd_u_p", "detail"}},
        {"forward_dynamics_constrained.tpl#factor", {"augment", "factor", "singular"}},
        {"forward_dynamics_constrained.tpl#tail", {"scalar", "solve", "detail", "factor_nc", "solve_nc"}},
        {"forward_dynamics_constrained.tpl#twin_head", {"scalar", "args_q_p", "args_q_qd_u_p", "args_q_qd_p"}},
        {"augment.tpl#helpers", {"linkage", "scalar", "one", "zero"}},
        {"forward_dynamics_constrained.tpl#unrolled", {"scalar", "args_q_qd_u_p", "args_q_qd_p", "detail"}},
        {"forward_dynamics_constrained.tpl#unrolled_y", {}},
        {"forward_dynamics_constrained.tpl#unrolled_value", {"scalar", "name", "value"}},
        {"forward_dynamics_constrained.tpl#unrolled_w", {}},
        {"forward_dynamics_constrained.tpl#unrolled_schur", {}},
        {"forward_dynamics_constrained.tpl#unrolled_largest_start", {"scalar", "zero"}},
        {"forward_dynamics_constrained.tpl#unrolled_largest", {"s"}},
        {"forward_dynamics_constrained.tpl#unrolled_threshold", {"scalar", "tolerance"}},
        {"forward_dynamics_constrained.tpl#unrolled_pivot", {"scalar", "d", "value", "math", "r", "one", "detail", "mf"}},
        {"forward_dynamics_constrained.tpl#quasi",
         {"comment", "scalar", "nd", "blocks_declaration", "helper", "args_q_qd_u_p", "blocks_argument",
          "pivot_checks", "blocks_check", "finite_check", "detail"}},
        {"forward_dynamics_constrained.tpl#quasi_velocities_comment", {}},
        {"forward_dynamics_constrained.tpl#floating_articulated_body_comment", {}},
        {"forward_dynamics_constrained.tpl#quasi_blocks_declaration", {"scalar", "nh"}},
        {"forward_dynamics_constrained.tpl#quasi_blocks_check", {"nh", "tolerance", "detail"}},
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
        {"augment.tpl#forward_dynamics", {"scalar", "why", "detail"}},
        {"functions.tpl#sign", {"head", "scalar", "zero", "one"}},
        {"augment.tpl#linearization", {"scalar", "why", "detail"}},
        {"augment.tpl#why_everywhere", {}},
        {"augment.tpl#why_here", {}},
        {"augment.tpl#linearization_column", {"detail"}},
        {"augment.tpl#project_state", {"detail"}},
        {"augment.tpl#project_state_velocity", {"detail"}},
        {"augment.tpl#fail", {"status"}},
        {"augment.tpl#twin_call", {"name", "call", "detail"}},
        {"augment.tpl#twin_comment", {"name"}},
        {"augment.tpl#factorised", {}},
        {"augment.tpl#factorised_augmented", {}},
        {"using_math.tpl#block", {"declarations"}},
        {"using_math.tpl#declaration", {"function"}},
        {"scalar_function_return.tpl", {}},
        {"control.tpl#state_derivative", {"scalar", "t", "detail", "null"}},
        {"control.tpl#linearization", {"scalar", "args", "args_q_p", "factor", "constants", "detail", "end_constants"}},
        {"control.tpl#linearization_factored", {"scalar", "args", "constants", "detail", "end_constants"}},
        {"control.tpl#linearization_columns", {"scalar", "solve", "coriolis", "detail"}},
        {"control.tpl#linearization_blocks", {"solve_a", "solve_b", "coriolis", "one", "zero", "detail"}},
        {"control.tpl#linearization_last_input", {"scalar", "solve"}},
        {"control.tpl#linearization_constrained", {"scalar", "args", "args_q_p", "coriolis", "constants", "detail", "end_constants"}},
        {"control.tpl#linearization_constrained_factor", {"augment", "factor", "singular"}},
        {"control.tpl#linearization_constrained_tail", {"scalar", "solve", "augment_column", "detail", "factor_nc", "solve_nc"}},
        {"control.tpl#linearization_constrained_twin_head", {"scalar", "args_q_p", "constants", "end_constants"}},
        {"control.tpl#linearization_coriolis", {"scalar", "args_q_qd_p"}},
        {"control.tpl#store_column", {"linkage", "scalar", "one", "zero"}},
        {"control.tpl#rk4_step", {"scalar", "t", "t_half", "t_full", "detail", "null"}},
        {"control.tpl#symplectic_euler_step", {"scalar", "t", "detail", "null"}},
        {"control.tpl#radau_step", {"scalar", "math", "zero", "one", "t", "t_stage", "five_twelfths", "minus_one_twelfth",
                                     "three_quarters", "one_quarter", "tolerance", "constants", "detail", "end_constants", "mf",
                                     "on_convergence", "one_tenth"}},
        {"control.tpl#radau_step_done", {"detail"}},
        {"control.tpl#radau_step_jacobian_done", {"scalar", "math", "zero", "one", "t_stage", "constants", "detail",
                                                  "end_constants", "mf"}},
        {"control.tpl#rk4_step_jacobian", {"scalar", "zero", "one", "t_stage", "constants", "detail", "end_constants"}},
        {"control.tpl#zoh_discretization", {"scalar", "math", "zero", "one", "half", "constants", "detail", "end_constants", "mf", "to_scalar"}},
        {"control.tpl#symplectic_euler_step_jacobian", {"scalar", "zero", "one", "t", "constants", "detail", "end_constants", "null"}},
        {"control.tpl#linearization_status", {"linkage", "scalar", "detail"}},
        {"finite.tpl#concrete", {"linkage", "scalar", "size_name", "bytes", "bits", "mask"}},
        {"finite.tpl#generic", {}},
        {"finite.tpl#all_finite", {"head", "scalar"}},
        {"finite.tpl#all_finite_each", {"head", "scalar"}},
        {"control.tpl#non_deduced", {}},
        {"comments.tpl#output", {"name", "shape"}},
        {"c_api.tpl#header", {"source", "ns", "about", "guard", "nq", "nu", "nc", "fields", "indices", "declarations"}},
        {"c_api.tpl#field", {"scalar", "name"}},
        {"c_api.tpl#declaration", {"result", "ns", "name", "parameters", "sizes"}},
        {"c_api.tpl#wrappers", {"c_header", "ns", "to_cpp", "to_c", "names", "wrappers"}},
        {"c_api.tpl#wrapper", {"result", "ns", "name", "parameters", "arguments", "null_check"}},
        {"c_api.tpl#null_check", {"value"}},
        {"c_api.tpl#index_enum", {"entries"}},
        {"c_api.tpl#names_declaration", {"ns", "what", "count"}},
        {"c_api.tpl#names_definition", {"ns", "what", "count", "names"}},
        {"c_api.tpl#regressor_declaration", {"ns", "count"}},
        {"c_api.tpl#base_declaration", {"ns", "groupings", "count"}},
        {"c_api.tpl#regressor_definition", {"ns", "count", "indices"}},
        {"c_api.tpl#copy_to_cpp", {"name"}},
        {"c_api.tpl#copy_to_c", {"name"}},
        {"comments.tpl#output_jacobian", {"name", "size"}},
        {"comments.tpl#output_drift", {"name", "size"}},
        {"comments.tpl#project_state", {"iterations"}},
        {"task.tpl#names", {"coordinates", "coordinate_names", "inputs", "parameters", "outputs", "regressor"}},
        {"task.tpl#regressor_names", {"count", "indices", "names"}},
        {"task.tpl#base_names", {"count", "names"}},
        {"task.tpl#input_names", {"inputs", "input_names"}},
        {"task.tpl#parameter_names", {"parameters", "parameter_names", "count"}},
        {"task.tpl#output_names", {"outputs", "output_names", "count"}},
        {"task.tpl#project_state",
         {"scalar", "holonomic", "iterations", "t", "math", "augment", "augment_velocity", "factor", "project", "singular"}},
        {"task.tpl#project_state_copy", {"scalar", "t", "detail"}},
        {"task.tpl#project_state_in_place_comment", {}},
        {"task.tpl#project_onto_rows", {"template_head", "scalar", "solve", "project", "factorised"}},
        {"comments.tpl#parts", {"name"}},
        {"comments.tpl#inverse_dynamics_regressor_base", {"method"}},
        {"comments.tpl#base_parameters", {"groupings"}},
        {"c/c_api.tpl#about", {"ns"}},
        {"c/c_api.tpl#wrapper", {"result", "ns", "name", "parameters", "null_check", "return", "arguments"}},
        {"c/cholesky.tpl", {"mf", "scalar", "tolerance"}},
        {"c/detail_block.tpl", {"helpers"}},
        {"c/finite.tpl#all_finite", {"scalar"}},
        {"c/finite.tpl#concrete", {"bits", "bytes", "mask", "scalar", "size_name"}},
        {"c/functions.tpl#sign", {"one", "scalar", "zero"}},
        {"c/parameter_field.tpl", {"name", "value"}},
        {"c/source.c.tpl", {"defaults", "definitions", "detail", "header", "names", "ns", "source"}},
        {"c/task.tpl#project_onto_rows", {"factorised", "project", "scalar", "solve"}},
        {"c/task.tpl#project_state", {"augment", "augment_velocity", "factor", "holonomic", "iterations", "mf", "project", "scalar", "singular", "t"}},
        {"c_api.tpl#about", {"cxx_header", "ns"}}};
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

} // namespace
