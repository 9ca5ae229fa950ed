// The stack figures lagc states (emit/stack_bound.hpp), --max-stack and --target mcu's
// smallest form (driver/stack_budget.hpp), in-process. Their truth against GCC's own count
// is check_stack.py's (stack_figures) and run_embedded.py's (embedded) business.
#include "driver/compiler.hpp"
#include "emit/stack_bound.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace {

lagc::compile_result compile_model(std::string const& name, lagc::compile_options o) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/" + name + ".lag");
    std::stringstream text;
    text << in.rdbuf();
    o.emit.source_name = name + ".lag";
    o.emit.header_name = name + ".hpp";
    return lagc::compile(text.str(), o);
}

std::map<std::string, std::size_t> totals(lagc::compile_result const& r) {
    std::map<std::string, std::size_t> out;
    for (auto const& f : r.files->stack) out[f.name] = f.total();
    return out;
}

lagc::compile_options float_options() {
    lagc::compile_options o;
    o.emit.scalar = "float";
    return o;
}

} // namespace

// Every API function has a figure, its parts add up, and the header states it.
TEST(StackFigures, EveryFunctionStatedInTheHeader) {
    auto r = compile_model("ur5_like", float_options());
    ASSERT_TRUE(r.files.has_value());
    ASSERT_FALSE(r.files->stack.empty());
    for (auto const& f : r.files->stack) {
        EXPECT_EQ(f.total(), f.arrays + f.temporaries + f.frames + f.libm) << f.name;
        EXPECT_GE(f.frames, lagc::call_frame_margin) << f.name;
        std::string const line = "inline constexpr unsigned long " + f.name + " = " + std::to_string(f.total()) + ";";
        EXPECT_NE(r.files->header.find(line), std::string::npos) << line;
    }
    // mass_matrix calls sin and cos: the libm margin; generalized_forces computes u alone.
    EXPECT_EQ(totals(r).count("mass_matrix"), 1u);
    for (auto const& f : r.files->stack) {
        if (f.name == "mass_matrix") EXPECT_EQ(f.libm, lagc::libm_margin(4));
        if (f.name == "generalized_forces") EXPECT_EQ(f.libm, 0u);
    }
}

// radau_step's own arrays (Z, F, G, J, A[2][n * n], B, y with n = 2 nq, N = 2 n: the local
// constexpr dimensions) are counted: (3 N + N² + 2 n² + n nu + n) floats and a[2][2], c[2].
TEST(StackFigures, LocalDimensionsAndArraysOfArrays) {
    auto r = compile_model("ur5_like", float_options());
    ASSERT_TRUE(r.files.has_value());
    std::size_t const nq = 6, nu = 6, n = 2 * nq, N = 2 * n;
    std::size_t const own = (3 * N + N * N + 2 * n * n + n * nu + n + 4 + 2) * 4;
    for (auto const& f : r.files->stack)
        if (f.name == "radau_step") EXPECT_GT(f.arrays, own);
}

// The smallest form (--target mcu) takes no more stack for any function than the default
// or --no-shared-parts, and less for some (issue 52: mass_matrix 1,112 B with shared parts,
// on a Cortex-M4; 200 B in this form, docs/embedded.md).
TEST(StackFigures, SmallestFormIsNoLarger) {
    auto const given = compile_model("ur5_like", float_options());
    lagc::compile_options o = float_options();
    o.emit.shared_parts = false;
    auto const unshared = compile_model("ur5_like", o);
    o = float_options();
    o.smallest_stack = true;
    auto const smallest = compile_model("ur5_like", o);
    ASSERT_TRUE(given.files && unshared.files && smallest.files);
    auto const a = totals(given), b = totals(unshared), c = totals(smallest);
    for (auto const& [name, bytes] : c) {
        EXPECT_LE(bytes, a.at(name)) << name;
        EXPECT_LE(bytes, b.at(name)) << name;
    }
    // Strictly less somewhere: mass_matrix until it was written by composite rigid bodies
    // (2026-11-29: 1,076 B in every form, its parts few), still coriolis_matrix.
    std::vector<std::string> smaller;
    for (auto const& [name, bytes] : c)
        if (bytes < a.at(name) && bytes < b.at(name)) smaller.push_back(name);
    EXPECT_FALSE(smaller.empty());
    EXPECT_LT(c.at("coriolis_matrix"), b.at("coriolis_matrix"));
    EXPECT_LT(c.at("coriolis_matrix"), a.at("coriolis_matrix"));
}

// --max-stack: a budget the given form meets keeps it; one only the smallest form meets
// takes that; one no form meets is an error naming each function that cannot fit.
TEST(StackFigures, BudgetChoosesTheFormOrNamesTheFunction) {
    auto const given = compile_model("ur5_like", float_options());
    ASSERT_TRUE(given.files.has_value());
    std::size_t most = 0;
    for (auto const& f : given.files->stack) most = std::max(most, f.total());
    lagc::compile_options o = float_options();
    o.max_stack = most;
    auto const same = compile_model("ur5_like", o);
    ASSERT_TRUE(same.files.has_value());
    EXPECT_EQ(same.files->source, given.files->source);
    o.max_stack = most - 100;
    auto const smaller = compile_model("ur5_like", o);
    ASSERT_TRUE(smaller.files.has_value());
    for (auto const& f : smaller.files->stack) EXPECT_LE(f.total(), o.max_stack) << f.name;
    o.max_stack = 1200;
    auto const none = compile_model("ur5_like", o);
    EXPECT_FALSE(none.files.has_value());
    std::string const shown = none.diags.format(lagc::source_file("ur5_like.lag", ""));
    EXPECT_NE(shown.find("--max-stack 1,200: 'linearization' needs"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("'mass_matrix'"), std::string::npos) << shown;
}

// --target mcu's source stops a build that would set errno.
TEST(StackFigures, TargetMcuNeedsNoMathErrno) {
    lagc::compile_options o = float_options();
    o.emit.no_errno = true;
    auto const r = compile_model("cart_pendulum", o);
    ASSERT_TRUE(r.files.has_value());
    EXPECT_NE(r.files->source.find("#if (defined(__GNUC__) || defined(__clang__)) && !defined(__NO_MATH_ERRNO__)"),
              std::string::npos);
    auto const plain = compile_model("cart_pendulum", float_options());
    EXPECT_EQ(plain.files->source.find("__NO_MATH_ERRNO__"), std::string::npos);
}

// --target mcu in float counts a frame with the M4F's register file (stack_margins::mcu):
// 40 inputs read on two lines are live between them where the frame's stores cannot
// overwrite them (LAGC_RESTRICT, or a local array), 40 - 35 scalars on the stack (40 - 16 in a
// part); in a part that stores to an argument's array between the reads, GCC loads them again:
// none. A frame with loops: one spill every two assignments (22, `int i = 0` among them: 11).
TEST(StackFigures, RegisterFileCountsWhatTheStoresLeaveLive) {
    std::string sum;
    for (int i = 0; i < 40; ++i) sum += (i ? " + p.x" : "p.x") + std::to_string(i);
    auto body = [&](std::string const& to, std::string const& between) {
        return "\n    " + to + "[0] = " + sum + ";\n    " + between + "[0] = 1.0f;\n    " + to + "[1] = " + sum + ";\n";
    };
    lagc::stack_bounds b(6, 6, 0, 0, 4, true);
    b.add("api", body("w", "M"), false, 3, true);
    b.add("part", body("w", "M"), false, 3, false);
    b.add("part_local", "\n    float t[2], v[1];" + body("t", "v"), false, 3, false);
    std::string loop = "\n    for (int i = 0; i < 6; ++i) x[i] = 0;";
    for (int i = 0; i < 20; ++i) loop += "\n    y[" + std::to_string(i) + "] = x[0];";
    b.add("loops", loop + "\n", false, 3, true);
    EXPECT_EQ(b.figure("api").temporaries, (40u - 35) * 4);
    EXPECT_EQ(b.figure("part").temporaries, 0u);
    EXPECT_EQ(b.figure("part_local").temporaries, (40u - 16) * 4);
    EXPECT_EQ(b.figure("loops").temporaries, 11u * 4);
    // The host's figures count every input and 32 spilled scalars.
    lagc::stack_bounds host(6, 6, 0, 0, 4, false);
    host.add("part", body("w", "M"), false, 3, false);
    EXPECT_EQ(host.figure("part").temporaries, 40u * 4);
}

// The temporaries of a frame without loops: what 61 live at once need beyond the registers
// (1.19 x 61 - 32 = 41 > 61 - 21; 200 live: 238 - 32 = 206), and those live across a call of
// the math library beyond 10 (14 read after a sin: 4, where only 15 are live).
TEST(StackFigures, RegisterFileCountsLiveTemporariesAndThoseAcrossCalls) {
    auto chain = [](int n, bool call) {
        std::string text;
        for (int i = 0; i < n; ++i) text += "\n    const float s" + std::to_string(i) + " = p.x*q[" + std::to_string(i % 6) + "];";
        if (call) text += "\n    const float c = std::sin(detail::reduce_angle(q[0]));";
        text += "\n    M[0] = c";
        for (int i = 0; i < n; ++i) text += " + s" + std::to_string(i);
        return text + ";\n";
    };
    lagc::stack_bounds b(6, 6, 0, 0, 4, true);
    b.add("live61", chain(61, false), false, 3, true);
    b.add("live200", chain(200, false), false, 3, true);
    b.add("across14", chain(14, true), false, 3, true);
    EXPECT_EQ(b.figure("live61").temporaries, 41u * 4);
    EXPECT_EQ(b.figure("live200").temporaries, 206u * 4);
    EXPECT_EQ(b.figure("across14").temporaries, 4u * 4);
}
