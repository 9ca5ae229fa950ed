// The lagc command line: lagc MODEL.lag -o OUT.cpp|OUT.hpp
#include "check.hpp"
#include "compiler.hpp"
#include "cxx_names.hpp"
#include "output_files.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <unistd.h>
#include <vector>

#ifndef LAGC_VERSION
#define LAGC_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;

namespace {

char const* const usage_text =
    "usage: lagc MODEL.lag -o OUT.cpp|OUT.hpp|- [options]\n"
    "\n"
    "Compiles a Lagrangian model into standalone C++ (equations of motion, forward dynamics).\n"
    "\n"
    "  MODEL.lag         the model; '-' reads it from standard input\n"
    "  -o OUT.cpp        writes OUT.cpp and OUT.hpp\n"
    "  -o OUT.hpp        writes one header-only file\n"
    "  -o -              writes the header-only form to standard output\n"
    "  --scalar float    single-precision code (float arrays, float literals); default double\n"
    "  --template        header-only functions templated on the scalar type T (e.g. for\n"
    "                    automatic differentiation); needs -o NAME.hpp or -o -\n"
    "  --namespace NAME  the C++ namespace of the generated code (default: the model's name)\n"
    "  --fold-parameters bakes the parameters' default values into the code as constants\n"
    "                    (for parameters that never change; Parameters is kept, unused)\n"
    "  --split N         cuts functions of more than N operations into parts that pass shared\n"
    "                    values on (compile time linear in model size); default 2000\n"
    "  --max-terms N     the largest expression (in nodes, names substituted) a model may\n"
    "                    build; default 400000\n"
    "  --max-coordinates N  the most coordinates a model may declare; default 200\n"
    "  --stats           prints per-phase times and operation counts to standard error\n"
    "  --help            prints this text\n"
    "  --version         prints the version\n"
    "  --                ends the options (for a model whose path starts with '-')\n"
    "\n"
    "Exit status: 0 on success, 1 when the model has errors, 2 for usage and I/O errors.\n";

int usage_error(std::string const& message) {
    std::cerr << "lagc: error: " << message << "\n" << "Try 'lagc --help'.\n";
    return 2;
}

// A number argument of an option, from `low` to `high`; false if it is not one.
bool number_argument(std::string const& v, unsigned long long low, unsigned long long high, std::size_t& out) {
    unsigned long long n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < low || n > high) return false;
    out = static_cast<std::size_t>(n);
    return true;
}

// A file name the generated source can #include "NAME": no quote, backslash or control
// character (the #include syntax has no escapes).
bool includable(std::string const& name) {
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') return false;
    return true;
}

// Standard streams that are closed at start would be reused by the next open(), and
// output meant for them would land in a file: point them at /dev/null, read-only, so a
// write to a closed standard output still fails (and is reported).
void keep_standard_streams_apart() {
    for (int fd = 0; fd <= 2; ++fd)
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = ::open("/dev/null", O_RDONLY);
            if (n >= 0 && n != fd) ::close(n);
        }
}

} // namespace

int main(int argc, char** argv) {
    keep_standard_streams_apart();
    lagc::report_write_errors_as_errors();
    std::string input, output;
    bool stats = false, options_done = false;
    lagc::compile_options options;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> char const* { return i + 1 < argc ? argv[++i] : nullptr; };
        if (options_done || a == "-" || a.empty() || a[0] != '-') {
            if (!input.empty()) return usage_error("more than one model given ('" + input + "' and '" + a + "')");
            input = a;
        } else if (a == "--") {
            options_done = true;
        } else if (a == "--help" || a == "-h") {
            std::cout << usage_text;
            return 0;
        } else if (a == "--version") {
            std::cout << "lagc " << LAGC_VERSION << "\n";
            return 0;
        } else if (a == "--stats") {
            stats = true;
        } else if (a == "--namespace") {
            char const* v = value();
            if (!v) return usage_error("--namespace needs a name");
            options.namespace_name = v;
            if (!lagc::is_usable_cxx_name(options.namespace_name, lagc::cxx_name_use::namespace_) ||
                lagc::is_reserved_word(options.namespace_name))
                return usage_error("--namespace needs a plain C++ name that is not reserved, not '" +
                                   options.namespace_name + "'");
        } else if (a == "--template") {
            options.emit.templated = true;
        } else if (a == "--fold-parameters") {
            options.emit.fold_parameters = true;
        } else if (a == "--split") {
            char const* v = value();
            if (!v) return usage_error("--split needs a number of operations");
            if (!number_argument(v, 10, 100000000, options.emit.split_operations))
                return usage_error("--split takes a number of operations from 10 to 100000000, not '" + std::string(v) + "'");
        } else if (a == "--max-terms") {
            char const* v = value();
            if (!v || !number_argument(v, 1000, 1000000000, options.limits.max_terms))
                return usage_error("--max-terms takes a number from 1000 to 1000000000");
        } else if (a == "--max-coordinates") {
            char const* v = value();
            if (!v || !number_argument(v, 1, 100000, options.limits.max_coordinates))
                return usage_error("--max-coordinates takes a number from 1 to 100000");
        } else if (a == "--scalar") {
            char const* v = value();
            if (!v) return usage_error("--scalar needs a type: float or double");
            options.emit.scalar = v;
            if (options.emit.scalar != "float" && options.emit.scalar != "double")
                return usage_error("--scalar takes float or double, not '" + options.emit.scalar + "'");
        } else if (a == "-o") {
            char const* v = value();
            if (!v) return usage_error("-o needs a file name");
            if (!output.empty()) return usage_error("-o given twice");
            output = v;
            if (output.empty()) return usage_error("-o needs a file name");
        } else {
            return usage_error("unknown option '" + a + "' (a model whose name starts with '-' goes after '--')");
        }
    }
    if (input.empty()) return usage_error("no model given");
    if (output.empty()) return usage_error("no output given (-o OUT.cpp, -o OUT.hpp or -o -)");

    fs::path out_path(output);
    options.emit.header_only = output == "-" || out_path.extension() == ".hpp" || out_path.extension() == ".h";
    if (!options.emit.header_only && out_path.extension() != ".cpp" && out_path.extension() != ".cc" &&
        out_path.extension() != ".cxx")
        return usage_error("the output must end in .cpp or .hpp (or be '-'), not '" + output + "'");
    if (options.emit.templated && !options.emit.header_only)
        return usage_error("--template writes one header: use -o NAME.hpp or -o -");
    if (options.emit.templated && options.emit.scalar != "double") return usage_error("--template and --scalar exclude each other");

    fs::path header_path = out_path;
    if (!options.emit.header_only) header_path.replace_extension(".hpp");
    options.emit.header_name = header_path.filename().string();
    if (!includable(options.emit.header_name))
        return usage_error("the header's name '" + options.emit.header_name +
                           "' cannot be #included (it has a quote, a backslash or a control character)");
    std::vector<std::pair<std::string, std::string>> files; // (path, content), filled after compiling
    std::vector<std::string> targets;
    if (output != "-") {
        targets.push_back(header_path.string());
        if (!options.emit.header_only) targets.push_back(out_path.string());
    }
    for (auto const& t : targets)
        if (input != "-" && lagc::same_file(input, t))
            return usage_error("the output '" + t + "' is the model itself; choose another output name");

    std::string text, error;
    if (!lagc::read_source(input, lagc::max_source_bytes, text, error)) {
        std::cerr << "lagc: error: " << error << "\n";
        return 2;
    }
    options.emit.source_name = input == "-" ? "<stdin>" : input;

    lagc::compile_result r = lagc::compile(text, options);
    lagc::source_file file(options.emit.source_name, text);
    std::cerr << r.diags.format(file);
    if (stats) {
        std::fprintf(stderr, "lagc: parse %.3f s, check %.3f s, derive %.3f s, cse %.3f s, emit %.3f s\n",
                     r.times.parse, r.times.check, r.times.derive, r.times.cse, r.times.emit);
        if (r.files)
            for (auto const& s : r.files->stats)
                std::fprintf(stderr, "lagc: %-24s operations %.0f before CSE, %zu after, %zu temporaries, %zu part%s\n",
                             s.name.c_str(), s.operations_before_cse, s.operations_after_cse, s.temporaries, s.parts,
                             s.parts == 1 ? "" : "s");
    }
    if (!r.files) return 1;

    if (output == "-") {
        if (!lagc::write_stdout(r.files->header, error)) {
            std::cerr << "lagc: error: " << error << "\n";
            return 2;
        }
        return 0;
    }
    files.push_back({targets[0], r.files->header});
    if (!options.emit.header_only) files.push_back({targets[1], r.files->source});
    if (!lagc::write_files(files, error)) {
        std::cerr << "lagc: error: " << error << "\n";
        return 2;
    }
    return 0;
}
