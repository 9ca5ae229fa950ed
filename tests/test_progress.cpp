// What lagc shows while it works (src/progress.hpp) and the steps the compiler reports.
#include "driver/compiler.hpp"
#include "driver/progress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

// Everything written to a temporary file.
std::string contents(std::FILE* f) {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
    return s;
}

TEST(Progress, EveryStepIsALineOfItsOwn) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        lagc::progress_line p(f, "m.lag", true, false);
        EXPECT_TRUE(p.wanted());
        p.step("checking");
        p.step("generating mass_matrix");
    }
    std::string const s = contents(f);
    std::fclose(f);
    EXPECT_EQ(s.rfind("lagc: m.lag: checking (", 0), 0u) << s;
    EXPECT_NE(s.find(" s)\nlagc: m.lag: generating mass_matrix ("), std::string::npos) << s;
    EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 2);
    EXPECT_EQ(s.find('\r'), std::string::npos) << "no terminal controls in a log";
}

TEST(Progress, NothingUnaskedOutsideATerminal) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        lagc::progress_line p(f, "m.lag", false, false, std::chrono::milliseconds(0));
        EXPECT_FALSE(p.wanted());
        p.step("deriving the equations of motion");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(contents(f), "");
    std::fclose(f);
}

TEST(Progress, NothingOnATerminalForAShortRun) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        lagc::progress_line p(f, "m.lag", false, true);
        p.step("checking");
        p.finish();
    }
    EXPECT_EQ(contents(f), "");
    std::fclose(f);
}

TEST(Progress, OnATerminalOneLineDrawnInPlaceThenErased) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    lagc::progress_line p(f, "arm.lag", false, true, std::chrono::milliseconds(10));
    p.step("deriving the equations of motion");
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // the ticker draws the step
    p.step("generating linearization_terms");                   // drawn at once from then on
    p.finish();
    std::string const s = contents(f);
    std::fclose(f);
    std::string const erase = "\r\x1b[K";
    EXPECT_EQ(s.rfind(erase + "lagc: arm.lag: deriving the equations of motion (", 0), 0u) << s;
    EXPECT_NE(s.find(" s)" + erase + "lagc: arm.lag: generating linearization_terms ("), std::string::npos) << s;
    EXPECT_EQ(s.substr(s.size() - erase.size()), erase) << "the line is erased before the diagnostics";
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
}

TEST(Progress, TheCompilerReportsEachStepInOrder) {
    lagc::compile_options o;
    std::vector<std::string> steps;
    o.progress = [&](std::string const& s) { steps.push_back(s); };
    auto r = lagc::compile("model p\nparameter m = 1, l = 1, g = 9.81\ncoordinate th\n"
                           "kinetic 0.5*m*l^2*der(th)^2\npotential -m*g*l*cos(th)\n",
                           o);
    ASSERT_TRUE(r.files.has_value());
    ASSERT_GE(steps.size(), 4u);
    EXPECT_EQ(steps[0], "checking");
    EXPECT_EQ(steps[1], "deriving the equations of motion");
    EXPECT_EQ(steps[2], "generating mass_matrix");
    for (char const* f : {"generating dynamics_terms", "generating linearization_terms", "generating kinetic_energy",
                          "generating inverse_dynamics"})
        EXPECT_NE(std::find(steps.begin(), steps.end(), f), steps.end()) << f;
    // C is built two ways (Christoffel symbols, ½ ∂h/∂q̇); each step is reported once.
    EXPECT_EQ(std::count(steps.begin(), steps.end(), "generating coriolis_matrix"), 1);
    EXPECT_EQ(std::count(steps.begin(), steps.end(), "generating coriolis_matrix from dh/dqd"), 1);
    // A model with errors stops after checking.
    steps.clear();
    auto bad = lagc::compile("model p\ncoordinate th\nkinetic der(x)^2\n", o);
    EXPECT_FALSE(bad.files.has_value());
    EXPECT_EQ(steps, std::vector<std::string>{"checking"});
}

} // namespace
