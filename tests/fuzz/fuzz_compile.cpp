// libFuzzer entry point: the whole compiler (parse, check, derive, emit) on arbitrary
// bytes must return a result or diagnostics, never crash or hang.
// Build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLAGC_FUZZ=ON -DBUILD_TESTING=OFF
// Run:   build-fuzz/fuzz_compile tests/fuzz/corpus -max_len=4096 -timeout=10
#include "driver/compiler.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    std::string text(reinterpret_cast<char const*>(data), size);
    lagc::compile_options options;
    options.emit.source_name = "fuzz.lag";
    options.emit.header_name = "fuzz.hpp";
    auto result = lagc::compile(text, options);
    std::string printed = result.diags.format(lagc::source_file(options.emit.source_name, text));
    // Errors and output exclude each other.
    if (result.files.has_value() == result.diags.has_errors()) __builtin_trap();
    return printed.empty() && !result.files ? 1 : 0;
}
