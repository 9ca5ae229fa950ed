// Regression test over the fuzzing corpus (tests/fuzz/corpus): every input the fuzzer
// kept, including the ones that once crashed lagc, still compiles or fails cleanly.
#include "driver/compiler.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

TEST(FuzzCorpus, EveryInputCompilesOrFailsWithDiagnostics) {
    std::size_t inputs = 0, accepted = 0;
    for (auto const& e : fs::directory_iterator(fs::path(LAGC_SOURCE_DIR) / "tests" / "fuzz" / "corpus")) {
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        lagc::compile_options o;
        o.emit.source_name = "corpus.lag";
        o.emit.header_name = "corpus.hpp";
        auto r = lagc::compile(s.str(), o);
        ++inputs;
        if (r.files) ++accepted;
        EXPECT_NE(r.files.has_value(), r.diags.has_errors()) << e.path();
        if (!r.files) EXPECT_FALSE(r.diags.format(lagc::source_file("corpus.lag", s.str())).empty()) << e.path();
    }
    EXPECT_GT(inputs, 10u);
    std::printf("[ corpus   ] %zu inputs, %zu compiled, %zu rejected with diagnostics\n", inputs, accepted,
                inputs - accepted);
}
