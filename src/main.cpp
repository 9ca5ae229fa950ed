// The lagc command line: lagc MODEL.lag -o OUT.cpp|OUT.hpp
#include "check.hpp"
#include "compiler.hpp"

#include <cctype>

#include <cerrno>
#include <cstdio>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
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
    "  --stats           prints per-phase times and operation counts to standard error\n"
    "  --help            prints this text\n"
    "  --version         prints the version\n"
    "\n"
    "Exit status: 0 on success, 1 when the model has errors, 2 for usage and I/O errors.\n";

int usage_error(std::string const& message) {
    std::cerr << "lagc: error: " << message << "\n" << "Try 'lagc --help'.\n";
    return 2;
}

// Outputs are written to temporary files first and renamed into place only when every
// one was written, so a failure leaves existing outputs untouched; a file whose content
// is unchanged is left alone (builds do not churn).
struct pending_file {
    fs::path path, temporary;
};

bool unchanged(fs::path const& path, std::string const& content) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream old;
    old << in.rdbuf();
    return old.str() == content;
}

bool write_all(std::vector<std::pair<fs::path, std::string>> const& files, std::string& error) {
    std::vector<pending_file> pending;
    auto discard = [&] {
        std::error_code ec;
        for (auto const& p : pending) fs::remove(p.temporary, ec);
    };
    for (auto const& [path, content] : files) {
        if (unchanged(path, content)) continue;
        fs::path tmp = path;
        tmp += ".lagc-tmp";
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (out) pending.push_back({path, tmp});
        if (out) out << content;
        if (out) out.flush();
        if (!out) {
            error = "cannot write '" + path.string() + "': " + std::strerror(errno);
            discard();
            return false;
        }
    }
    for (auto const& p : pending) {
        std::error_code ec;
        fs::rename(p.temporary, p.path, ec);
        if (ec) {
            error = "cannot write '" + p.path.string() + "': " + ec.message();
            discard();
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    std::string input, output;
    bool stats = false, templated = false;
    std::string scalar = "double", namespace_name;
    std::size_t split_operations = 2000;
    bool fold_parameters = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::cout << usage_text;
            return 0;
        }
        if (a == "--version") {
            std::cout << "lagc " << LAGC_VERSION << "\n";
            return 0;
        }
        if (a == "--stats") {
            stats = true;
        } else if (a == "--namespace") {
            if (i + 1 >= argc) return usage_error("--namespace needs a name");
            namespace_name = argv[++i];
            bool ok = !namespace_name.empty() && !std::isdigit(static_cast<unsigned char>(namespace_name[0]));
            for (char c : namespace_name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
            if (!ok || lagc::is_reserved_word(namespace_name) || namespace_name.find("__") != std::string::npos ||
                namespace_name == "std" || namespace_name[0] == '_')
                return usage_error("--namespace needs a plain C++ name that is not reserved, not '" + namespace_name + "'");
        } else if (a == "--template") {
            templated = true;
        } else if (a == "--fold-parameters") {
            fold_parameters = true;
        } else if (a == "--split") {
            if (i + 1 >= argc) return usage_error("--split needs a number of operations");
            std::string v = argv[++i];
            unsigned long long n = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || n < 10 || n > 100000000)
                return usage_error("--split takes a number of operations from 10 to 100000000, not '" + v + "'");
            split_operations = static_cast<std::size_t>(n);
        } else if (a == "--scalar") {
            if (i + 1 >= argc) return usage_error("--scalar needs a type: float or double");
            scalar = argv[++i];
            if (scalar != "float" && scalar != "double")
                return usage_error("--scalar takes float or double, not '" + scalar + "'");
        } else if (a == "-o") {
            if (i + 1 >= argc) return usage_error("-o needs a file name");
            if (!output.empty()) return usage_error("-o given twice");
            output = argv[++i];
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("unknown option '" + a + "'");
        } else {
            if (!input.empty()) return usage_error("more than one model given ('" + input + "' and '" + a + "')");
            input = a;
        }
    }
    if (input.empty()) return usage_error("no model given");
    if (output.empty()) return usage_error("no output given (-o OUT.cpp, -o OUT.hpp or -o -)");

    fs::path out_path(output);
    bool header_only = output == "-" || out_path.extension() == ".hpp" || out_path.extension() == ".h";
    if (!header_only && out_path.extension() != ".cpp" && out_path.extension() != ".cc" &&
        out_path.extension() != ".cxx")
        return usage_error("the output must end in .cpp or .hpp (or be '-'), not '" + output + "'");

    if (templated && !header_only) return usage_error("--template writes one header: use -o NAME.hpp or -o -");
    if (templated && scalar != "double") return usage_error("--template and --scalar exclude each other");

    std::string text;
    if (input == "-") {
        std::ostringstream s;
        s << std::cin.rdbuf();
        text = s.str();
    } else {
        std::error_code ec;
        if (fs::is_directory(input, ec)) return usage_error("'" + input + "' is a directory, not a model file");
        std::ifstream in(input, std::ios::binary);
        if (!in) return usage_error("cannot read '" + input + "': " + std::strerror(errno));
        std::ostringstream s;
        s << in.rdbuf();
        text = s.str();
    }

    lagc::compile_options options;
    options.source_name = input == "-" ? "<stdin>" : input;
    options.header_only = header_only;
    options.scalar = scalar;
    options.templated = templated;
    options.namespace_name = namespace_name;
    options.split_operations = split_operations;
    options.fold_parameters = fold_parameters;
    fs::path header_path = out_path;
    if (!header_only) header_path.replace_extension(".hpp");
    options.header_name = header_path.filename().string();

    lagc::compile_result r = lagc::compile(text, options);
    lagc::source_file file(options.source_name, text);
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
        std::cout << r.files->header;
        return std::cout.good() ? 0 : 2;
    }
    std::string error;
    std::vector<std::pair<fs::path, std::string>> files = {{header_path, r.files->header}};
    if (!header_only) files.push_back({out_path, r.files->source});
    if (!write_all(files, error)) {
        std::cerr << "lagc: error: " << error << "\n";
        return 2;
    }
    return 0;
}
