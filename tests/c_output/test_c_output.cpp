// The C output (lagc -o NAME.c) computes what the C++ output computes: every function of
// every bundled model, called in C (NAME_f) and in C++ (NAME::f) on the same random
// inputs, returns the same value and writes the same arrays (to 1e-14 relative; counted
// bit for bit too). The cases are written by compare_cases.py from the C headers.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

// --scalar float (test_c99_float_output) or double; float agrees to a few units in the last place.
#ifdef LAGC_C_OUTPUT_FLOAT
using real = float;
constexpr double tolerance = 1e-5;
#else
using real = double;
constexpr double tolerance = 1e-14;
#endif

struct output_pair {
    char const* name;
    std::vector<real> const* c;
    std::vector<real> const* cxx;
};

struct comparison {
    int states = 3;
    std::string model;
    std::mt19937_64 random{12345};
    long values = 0, identical = 0;
    double worst = 0;

    std::vector<real> inputs(int n) {
        std::uniform_real_distribution<double> d(-1.0, 1.0);
        std::vector<real> v(static_cast<std::size_t>(n) + 1);
        for (auto& x : v) x = static_cast<real>(d(random));
        return v;
    }
    static std::vector<real> untouched(int n) { return std::vector<real>(static_cast<std::size_t>(n) + 1, real(7.25)); }
    static real scalar(std::string const& name) { return real(name == "dt" ? 0.01 : 0.3); }

    void same_parameters(char const* name, void const* c, void const* cxx, std::size_t c_size, std::size_t cxx_size) {
        model = name;
        // A C struct of no parameters holds one char; C++'s Parameters is empty then.
        if (cxx_size > 1) {
            ASSERT_EQ(c_size, cxx_size) << model;
            EXPECT_EQ(std::memcmp(c, cxx, c_size), 0) << model << ": NAME_default_parameters differs from Parameters{}";
        }
    }
    void one(std::string const& what, double a, double b) {
        ++values;
        if (a == b || (std::isnan(a) && std::isnan(b))) {
            ++identical;
            return;
        }
        double const gap = std::fabs(a - b) / std::fmax(1.0, std::fmax(std::fabs(a), std::fabs(b)));
        worst = std::fmax(worst, gap);
        EXPECT_LE(gap, tolerance) << model << "::" << what << ": C " << a << ", C++ " << b;
    }
    void compare(char const* function, double r_c, double r_cxx, std::vector<output_pair> const& outputs) {
        one(std::string(function) + " (result)", r_c, r_cxx);
        for (auto const& o : outputs)
            for (std::size_t i = 0; i < o.c->size(); ++i)
                one(std::string(function) + " " + o.name + "[" + std::to_string(i) + "]", (*o.c)[i], (*o.cxx)[i]);
    }
};

struct model_case {
    char const* name;
    void (*run)(comparison&);
};

} // namespace

#define LAGC_C_VS_CXX_CASES
#include "c_vs_cxx_cases.inc"

TEST(COutput, EveryFunctionOfEveryModelAgreesWithTheCxx) {
    long values = 0, identical = 0;
    double worst = 0;
    for (auto const& m : all_cases) {
        comparison c;
        m.run(c);
        values += c.values;
        identical += c.identical;
        worst = std::fmax(worst, c.worst);
    }
    std::printf("%zu models, %ld values compared, %ld identical bit for bit, largest relative gap %.3g\n",
                sizeof all_cases / sizeof all_cases[0], values, identical, worst);
    EXPECT_GT(values, 0);
}
