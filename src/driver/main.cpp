// The lagc command line: lagc MODEL.lag -o OUT.cpp|OUT.hpp
#include "frontend/check.hpp"
#include "driver/compiler.hpp"
#include "import/robot.hpp"
#include "common/cxx_names.hpp"
#include "driver/output_files.hpp"
#include "emit/translation_units.hpp"
#include "driver/equations_run.hpp"
#include "driver/equations_robot.hpp"
#include "driver/progress.hpp"
#include "emit/function_set.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>
#include <vector>

#ifndef LAGC_VERSION
#define LAGC_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;

namespace {

char const* const usage_text =
    "usage: lagc MODEL.lag -o OUT.cpp|OUT.hpp|OUT.c|- [options]\n"
    "\n"
    "Compiles a Lagrangian model into standalone C++ (equations of motion, forward dynamics).\n"
    "\n"
    "  MODEL.lag         the model; '-' reads it from standard input\n"
    "  -o OUT.cpp        writes OUT.cpp and OUT.hpp\n"
    "  -o OUT.hpp        writes one header-only file\n"
    "  -o OUT.c          writes C99: OUT.c and OUT.h, the header --c-api writes (NAME_function,\n"
    "                    a C parameters struct), defined in C (nothing but <math.h>)\n"
    "  -o -              writes the header-only form to standard output\n"
    "  --language c      with -o -: one C99 file to standard output (OUT.h's declarations,\n"
    "                    then OUT.c's definitions); c++ is the default\n"
    "  --scalar float    single-precision code (float arrays, float literals); default double\n"
    "  --template        header-only functions templated on the scalar type T (e.g. for\n"
    "                    automatic differentiation); needs -o NAME.hpp or -o -\n"
    "  --namespace NAME  the C++ namespace of the generated code (default: the model's name;\n"
    "                    in C, with -o OUT.c or --c-api, the prefix NAME_ of every name)\n"
    "  --translation-units N  writes OUT.cpp as N files that compile in parallel (OUT.cpp,\n"
    "                    OUT.2.cpp ... OUT.N.cpp; compile and link all of them); default 1\n"
    "  --c-api           also writes OUT.h, a C99 interface (NAME_function, a C parameters\n"
    "                    struct), and extern \"C\" wrappers in OUT.cpp; needs -o OUT.cpp\n"
    "  --fold-parameters bakes the parameters' default values into the code as constants\n"
    "                    (for parameters that never change; Parameters is kept, unused)\n"
    "  --split N         cuts functions of more than N operations into parts that pass shared\n"
    "                    values on (compile time linear in model size); default 500\n"
    "  --reuse-above N   linearization calls coriolis_matrix when C has more than N\n"
    "                    operations, instead of repeating it (0: always); default 8000\n"
    "  --max-stack BYTES the stack every API function may need, as the header states it\n"
    "                    (calls included): lagc chooses shared parts and parts to fit, or\n"
    "                    fails naming the functions that cannot\n"
    "  --target mcu      firmware: the form with the smallest stack (or --max-stack's), and\n"
    "                    a source that needs -fno-math-errno (no errno, no .data)\n"
    "  --no-shared-parts  functions cut into parts keep each its own parts, instead of\n"
    "                    sharing those that compute values several of them need (a larger\n"
    "                    file, a few per cent fewer instructions per call)\n"
    "  --max-terms N     the largest expression (in distinct parts, names substituted) a\n"
    "                    model may build; default 400000\n"
    "  --max-coordinates N  the most coordinates a model may declare; default 200\n"
    "  --max-outputs N   the most position outputs a robot file may give its model (one per\n"
    "                    site and per moving URDF link); default 1000\n"
    "  --allow-outside-paths  let a robot file name mesh files outside its own folder\n"
    "  --functions a,b,c  only these API functions, with those they call (e.g.\n"
    "                    forward_dynamics,rk4_step for firmware); default: all\n"
    "  --regressor-parameters a,b,c  the parameters inverse_dynamics_regressor's columns stand\n"
    "                    for (checked: tau must be linear in them); none: no regressor;\n"
    "                    default: the parameters tau is linear in, found by lagc\n"
    "  --regressor base  also inverse_dynamics_regressor_base and base_parameters: the base\n"
    "                    parameters, named and grouped (docs/generated-api.md); full: not\n"
    "  --inertial-parameters com|linear  how a robot file's bodies are written: com (default)\n"
    "                    by centre of mass and inertia about it, as in the file; linear by\n"
    "                    mass, first moments m*c and inertia about the body's frame, the\n"
    "                    parameters the torques are linear in (for identification)\n"
    "  --inputs joints|actuators  a robot file's inputs: joints (default) a generalized force\n"
    "                    per joint, actuators one input per actuator of the file (its gear)\n"
    "  --tree [text|dot] print a robot file's kinematic tree (bodies, joints, coordinates,\n"
    "                    masses, what is fused or left out), or as Graphviz DOT; no -o\n"
    "  --max-derivation N  the terms deriving the equations of motion may build, estimated\n"
    "                    before each step begins (about 5 million a second); default 100000000\n"
    "  --max-diagnostics N  the most errors, warnings and notes printed; default 100, 0 for all\n"
    "  --max-operations N   the largest generated function, in operations once shared\n"
    "                    values are counted once; default 1000000\n"
    "  -w                shows no warnings and notes (errors always show)\n"
    "  -Wno-NAME         hides one kind of warning or note (NAME as printed after it, e.g.\n"
    "                    -Wno-coriolis); -WNAME shows it again\n"
    "  -Werror           treats warnings as errors (notes stay notes)\n"
    "  --equations       writes the model as mathematics instead (M, h, Q, constraints, the\n"
    "                    Euler-Lagrange equations): -o NAME.md (Markdown with LaTeX), -o NAME.tex\n"
    "                    (a standalone LaTeX document) or -o - (Markdown to standard output)\n"
    "  --stats           prints per-phase times and operation counts to standard error\n"
    "  --explain         prints how forward_dynamics and coriolis_matrix were written to\n"
    "                    standard error: each method's operations, or why it does not apply\n"
    "  --progress        prints each step as it begins to standard error, a line each (on a\n"
    "                    terminal lagc shows one status line anyway once a run takes 1 s)\n"
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

// What the command line asks for.
struct command_line {
    std::string input, output;
    bool stats = false, progress = false, explain = false, equations = false;
    lagc::compile_options options;
    fs::path header_path;
    std::vector<std::string> targets; // the files to write (none for -o -)
    std::string equations_preface;    // --equations on a robot file: its tree (equations_robot.hpp)
    bool lag_output = false;          // -o NAME.lag: a robot file written as a model
    std::optional<lagc::import::inertial_form> inertia; // --inertial-parameters, when given
    std::optional<lagc::import::input_form> inputs;      // --inputs, when given
    std::string tree;                 // --tree: "text" or "dot" (a robot file's tree on stdout)
    std::size_t max_outputs = 1000;   // --max-outputs: a robot file's sites and links
    bool allow_outside_paths = false; // --allow-outside-paths: a robot file's meshes anywhere
    bool c_language = false;          // --language c: C99 (-o -: one C file on standard output)
};

// The options that take a number, with its bounds.
struct numeric_limit {
    unsigned long long low, high;
    std::size_t* out;
    char const* what; // " of operations", or ""
};

std::optional<numeric_limit> numeric_option(std::string const& a, lagc::compile_options& o) {
    auto is = [](unsigned long long low, unsigned long long high, std::size_t& out, char const* what) {
        return std::optional<numeric_limit>(numeric_limit{low, high, &out, what});
    };
    if (a == "--split") return is(10, 100000000, o.emit.split_operations, " of operations");
    if (a == "--reuse-above") return is(0, 100000000, o.emit.reuse_operations, " of operations");
    if (a == "--max-terms") return is(1000, 1000000000, o.limits.max_terms, "");
    if (a == "--max-derivation") return is(1000, 1000000000000, o.max_derivation, "");
    if (a == "--max-operations") return is(1000, 1000000000, o.emit.max_operations, "");
    if (a == "--max-diagnostics") return is(0, 1000000000, o.warnings.max_shown, "");
    if (a == "--max-coordinates") return is(1, 100000, o.limits.max_coordinates, "");
    if (a == "--max-stack") return is(64, 1000000000, o.max_stack, " of bytes");
    if (a == "--translation-units") return is(1, 64, o.translation_units, "");
    return std::nullopt;
}

// A list a,b,c of names (--regressor-parameters, --functions; `none` for no name).
std::optional<int> name_list(std::string const& option, std::string const& list, std::vector<std::string>& names) {
    names.clear();
    if (list != "none")
        for (std::size_t at = 0; at <= list.size();) {
            std::size_t const comma = std::min(list.find(',', at), list.size());
            if (comma == at) return usage_error(option + " has an empty name in '" + list + "'");
            names.push_back(list.substr(at, comma - at));
            at = comma + 1;
        }
    return std::nullopt;
}

// --functions a,b,c: API functions by name (those they call come along).
std::optional<int> function_names(std::string const& list, lagc::compile_options& o) {
    if (list == "none") return usage_error("--functions needs at least one function's name");
    if (auto bad = name_list("--functions", list, o.emit.functions)) return bad;
    for (auto const& name : o.emit.functions)
        if (!lagc::may_name_function(name)) {
            std::string names;
            for (auto f : lagc::api_function_names()) names += std::string(names.empty() ? "" : ", ") + std::string(f);
            return usage_error("--functions: no API function is called '" + name + "' (the API: " + names +
                               ", output_NAME[_jacobian|_drift])");
        }
    return std::nullopt;
}

// --inertial-parameters com|linear.
std::optional<lagc::import::inertial_form> inertial_form(std::string const& v) {
    if (v == "com") return lagc::import::inertial_form::centre_of_mass;
    if (v == "linear") return lagc::import::inertial_form::linear;
    return std::nullopt;
}

// --inputs joints|actuators, --tree [text|dot] (robot files) at argv[i].
std::optional<int> robot_option(int argc, char** argv, int& i, command_line& cl) {
    std::string const a = argv[i];
    std::string const next = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--tree") { // text (the default) or dot
        cl.tree = next == "text" || next == "dot" ? argv[++i] : "text";
        return std::nullopt;
    }
    if (next != "joints" && next != "actuators") return usage_error("--inputs takes joints or actuators, not '" + next + "'");
    ++i;
    cl.inputs = next == "joints" ? lagc::import::input_form::joints : lagc::import::input_form::actuators;
    return std::nullopt;
}

// One option at argv[i] (i moves past its value). An exit status when lagc is done
// (--help, --version, a usage error), else nullopt.
// The options that take no value; false for any other.
bool switch_option(std::string const& a, command_line& cl) {
    lagc::compile_options& o = cl.options;
    if (a == "--stats") cl.stats = true;
    else if (a == "--explain") cl.explain = true;
    else if (a == "--progress") cl.progress = true;
    else if (a == "--equations") cl.equations = true;
    else if (a == "--template") o.emit.templated = true;
    else if (a == "--c-api") o.emit.c_api = true;
    else if (a == "--fold-parameters") o.emit.fold_parameters = true;
    else if (a == "--no-shared-parts") o.emit.shared_parts = false;
    else return false;
    return true;
}

// -Wno-NAME hides one kind of warning, -WNAME shows it again.
std::optional<int> warning_option(std::string const& a, lagc::compile_options& o) {
    bool const off = a.rfind("-Wno-", 0) == 0;
    std::string const name = a.substr(off ? 5 : 2);
    auto const& flags = lagc::warning_flags();
    if (std::find(flags.begin(), flags.end(), name) == flags.end()) {
        std::string known;
        for (auto f : flags) known += (known.empty() ? "" : ", ") + std::string(f);
        return usage_error("unknown warning '" + name + "' in '" + a + "' (known: " + known + ")");
    }
    auto& d = o.warnings.disabled;
    d.erase(std::remove(d.begin(), d.end(), name), d.end());
    if (off) d.push_back(name);
    return std::nullopt;
}

std::optional<int> take_option(int argc, char** argv, int& i, command_line& cl) {
    std::string const a = argv[i];
    char const* v = nullptr;
    auto value = [&]() { return v = i + 1 < argc ? argv[++i] : nullptr; };
    lagc::compile_options& o = cl.options;
    if (a == "--help" || a == "-h") {
        std::cout << usage_text;
        return 0;
    }
    if (a == "--version") {
        std::cout << "lagc " << LAGC_VERSION << "\n";
        return 0;
    }
    if (switch_option(a, cl)) {
    } else if (a == "--language") {
        if (!value() || (std::string(v) != "c" && std::string(v) != "c++"))
            return usage_error("--language takes c or c++, not '" + std::string(v ? v : "") + "'");
        cl.c_language = std::string(v) == "c";
    } else if (a == "--namespace") {
        if (!value()) return usage_error("--namespace needs a name");
        o.namespace_name = v;
        if (!lagc::is_usable_cxx_name(o.namespace_name, lagc::cxx_name_use::namespace_) || lagc::is_reserved_word(o.namespace_name))
            return usage_error("--namespace needs a plain C++ name that is not reserved, not '" + o.namespace_name + "'");
    } else if (auto const limit = numeric_option(a, o)) {
        if (!value()) return usage_error(a + " needs a number" + limit->what);
        if (!number_argument(v, limit->low, limit->high, *limit->out))
            return usage_error(a + " takes a number" + limit->what + " from " + std::to_string(limit->low) +
                               (a == "--max-diagnostics" ? " (all)" : "") + " to " + std::to_string(limit->high) +
                               ", not '" + v + "'");
    } else if (a == "--regressor-parameters") {
        if (!value() || !*v) return usage_error("--regressor-parameters needs parameter names, a,b,c (or none)");
        std::vector<std::string> names;
        if (auto bad = name_list("--regressor-parameters", v, names)) return bad;
        o.regressor = names;
    } else if (a == "--regressor") {
        if (!value() || (std::string(v) != "base" && std::string(v) != "full"))
            return usage_error("--regressor takes base or full");
        o.emit.base_regressor = std::string(v) == "base";
    } else if (a == "--functions") {
        if (!value() || !*v) return usage_error("--functions needs API functions' names, a,b,c");
        if (auto bad = function_names(v, o)) return bad;
    } else if (a == "--allow-outside-paths") {
        cl.allow_outside_paths = true;
    } else if (a == "--max-outputs") {
        if (!value() || !number_argument(v, 1, 1000000, cl.max_outputs))
            return usage_error("--max-outputs takes a number from 1 to 1000000, not '" + std::string(v ? v : "") + "'");
    } else if (a == "--inertial-parameters") {
        if (!value()) return usage_error("--inertial-parameters needs a form: com or linear");
        cl.inertia = inertial_form(v);
        if (!cl.inertia) return usage_error("--inertial-parameters takes com or linear, not '" + std::string(v) + "'");
    } else if (a == "--inputs" || a == "--tree") {
        if (auto bad = robot_option(argc, argv, i, cl)) return bad;
    } else if (a == "--target") {
        if (!value() || std::string(v) != "mcu")
            return usage_error("--target takes mcu, not '" + std::string(v ? v : "") + "'");
        o.smallest_stack = o.emit.no_errno = o.emit.reduce_angles = true;
        o.emit.paired_solves = false;
    } else if (a == "--scalar") {
        if (!value()) return usage_error("--scalar needs a type: float or double");
        o.emit.scalar = v;
        if (o.emit.scalar != "float" && o.emit.scalar != "double")
            return usage_error("--scalar takes float or double, not '" + o.emit.scalar + "'");
    } else if (a == "-w") {
        o.warnings.none = true;
    } else if (a == "-Werror") {
        o.warnings.as_errors = true;
    } else if (a.rfind("-Wno-", 0) == 0 || a.rfind("-W", 0) == 0) {
        if (auto bad = warning_option(a, o)) return bad;
    } else if (a == "-o") {
        if (!value() || !*v) return usage_error("-o needs a file name");
        if (!cl.output.empty()) return usage_error("-o given twice");
        cl.output = v;
    } else {
        return usage_error("unknown option '" + a + "' (a model whose name starts with '-' goes after '--')");
    }
    return std::nullopt;
}

std::optional<int> parse_arguments(int argc, char** argv, command_line& cl) {
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (options_done || a == "-" || a.empty() || a[0] != '-') {
            if (!cl.input.empty()) return usage_error("more than one model given ('" + cl.input + "' and '" + a + "')");
            cl.input = a;
        } else if (a == "--") {
            options_done = true;
        } else if (auto done = take_option(argc, argv, i, cl)) {
            return done;
        }
    }
    if (cl.input.empty()) return usage_error("no model given");
    if (!cl.tree.empty() && !cl.output.empty()) return usage_error("--tree prints the robot's tree: leave out -o");
    if (cl.output.empty() && cl.tree.empty()) return usage_error("no output given (-o OUT.cpp, -o OUT.hpp or -o -)");
    return std::nullopt;
}

// -o NAME.c: NAME.h (the C interface's header) and NAME.c; C++'s options refused.
std::optional<int> plan_c_output(command_line& cl, fs::path const& out_path) {
    lagc::emit_options& e = cl.options.emit;
    if (e.templated) return usage_error("--template writes C++ templates: it cannot be used with -o NAME.c (C99)");
    if (e.c_api) return usage_error("-o NAME.c writes C already, with NAME.h as its interface: leave out --c-api");
    cl.header_path = out_path;
    cl.header_path.replace_extension(".h");
    e.header_name = cl.header_path.filename().string();
    if (!includable(e.header_name))
        return usage_error("the header's name '" + e.header_name +
                           "' cannot be #included (it has a quote, a backslash or a control character)");
    cl.targets = {cl.header_path.string(), out_path.string()};
    for (auto const& t : cl.targets)
        if (cl.input != "-" && lagc::same_file(cl.input, t))
            return usage_error("the output '" + t + "' is the model itself; choose another output name");
    return std::nullopt;
}

// --language c -o -: the header, then the source without its #include of it (one C file).
std::optional<int> plan_c_stdout(command_line& cl) {
    lagc::emit_options& e = cl.options.emit;
    if (e.templated) return usage_error("--template writes C++ templates: it cannot be used with --language c");
    if (e.c_api) return usage_error("--language c writes C already: leave out --c-api");
    e.header_name = lagc::stdout_c_header;
    return std::nullopt;
}

// The form (.cpp + .hpp, one .hpp, .c + .h, standard output) and the files to write, checked.
std::optional<int> plan_outputs(command_line& cl) {
    lagc::emit_options& e = cl.options.emit;
    fs::path out_path(cl.output);
    if (cl.equations) { // --equations: one document (equations_run.hpp)
        if (!lagc::equations_format_for(cl.output)) return usage_error("--equations writes NAME.md, NAME.tex or -, not '" + cl.output + "'");
        if (cl.output != "-") cl.targets.push_back(cl.output);
        if (cl.output != "-" && cl.input != "-" && lagc::same_file(cl.input, cl.output))
            return usage_error("the output '" + cl.output + "' is the model itself; choose another output name");
        return std::nullopt;
    }
    if (out_path.extension() == ".lag") {
        cl.lag_output = true;
        cl.targets.push_back(out_path.string());
        if (cl.input != "-" && lagc::same_file(cl.input, out_path.string()))
            return usage_error("the output '" + cl.output + "' is the input itself; choose another output name");
        return std::nullopt;
    }
    e.c_output = cl.output != "-" ? out_path.extension() == ".c" : cl.c_language;
    if (cl.c_language && !e.c_output)
        return usage_error("--language c writes C99: use -o NAME.c (and NAME.h) or -o - (one C file), not '" + cl.output + "'");
    if (cl.options.translation_units > 1 && (e.c_output || cl.output == "-" || out_path.extension() == ".hpp" || out_path.extension() == ".h"))
        return usage_error("--translation-units cuts a C++ source into files: use -o NAME.cpp");
    if (e.c_output && cl.output == "-") return plan_c_stdout(cl);
    if (e.c_output) return plan_c_output(cl, out_path);
    e.header_only = cl.output == "-" || out_path.extension() == ".hpp" || out_path.extension() == ".h";
    if (!e.header_only && out_path.extension() != ".cpp" && out_path.extension() != ".cc" && out_path.extension() != ".cxx")
        return usage_error("the output must end in .cpp, .hpp or .c (or be '-'), not '" + cl.output + "'");
    if (e.templated && !e.header_only) return usage_error("--template writes one header: use -o NAME.hpp or -o -");
    if (e.templated && e.scalar != "double") return usage_error("--template and --scalar exclude each other");
    if (e.c_api && (e.header_only || e.templated))
        return usage_error("--c-api adds C wrappers to a .cpp: use -o NAME.cpp (it also writes NAME.h), without --template");
    cl.header_path = out_path;
    if (!e.header_only) cl.header_path.replace_extension(".hpp");
    e.header_name = cl.header_path.filename().string();
    if (!includable(e.header_name))
        return usage_error("the header's name '" + e.header_name +
                           "' cannot be #included (it has a quote, a backslash or a control character)");
    if (cl.output != "-") {
        cl.targets.push_back(cl.header_path.string());
        if (!e.header_only) cl.targets.push_back(out_path.string());
    }
    if (e.c_api) {
        fs::path c_header = out_path;
        c_header.replace_extension(".h");
        e.c_header_name = c_header.filename().string();
        if (!includable(e.c_header_name)) return usage_error("the C header's name '" + e.c_header_name + "' cannot be #included");
        cl.targets.push_back(c_header.string());
    }
    for (auto const& t : cl.targets)
        if (cl.input != "-" && lagc::same_file(cl.input, t))
            return usage_error("the output '" + t + "' is the model itself; choose another output name");
    return std::nullopt;
}

void print_stats(lagc::compile_result const& r) {
    std::fprintf(stderr, "lagc: parse %.3f s, check %.3f s, derive %.3f s, cse %.3f s, emit %.3f s\n", r.times.parse,
                 r.times.check, r.times.derive, r.times.cse, r.times.emit);
    if (!r.files) return;
    for (auto const& s : r.files->stats)
        std::fprintf(stderr, "lagc: %-24s operations %.0f before CSE, %zu after, %zu temporaries, %zu part%s, %.3f s\n",
                     s.name.c_str(), s.operations_before_cse, s.operations_after_cse, s.temporaries, s.parts,
                     s.parts == 1 ? "" : "s", s.seconds);
    for (auto const& f : r.files->stack)
        std::fprintf(stderr, "lagc: %-24s stack: %zu bytes with the functions it calls (arrays %zu, temporaries %zu, "
                             "frames %zu, libm %zu)\n",
                     f.name.c_str(), f.total(), f.arrays, f.temporaries, f.frames, f.libm);
    for (auto const& choice : r.files->choices)
        std::fprintf(stderr, "lagc: %s by %s\n", choice.function.c_str(), choice.method.c_str());
    if (r.files->shared_operations > 0)
        std::fprintf(stderr, "lagc: the file: %zu operations (%zu in the functions cut into parts)\n",
                     r.files->operations, r.files->shared_operations);
    else
        std::fprintf(stderr, "lagc: the file: %zu operations\n", r.files->operations);
}

int io_error(std::string const& message) {
    std::cerr << "lagc: error: " << message << "\n";
    return 2;
}

// A robot file (URDF, MJCF) becomes its .lag text, which is written (-o NAME.lag) or compiled
// as a model; its errors and notes are printed by the diagnostics engine at its lines (the
// line shown, control characters made visible, -w and --max-diagnostics as for a model). An
// exit status when lagc is done.
std::optional<int> robot_file(command_line& cl, std::string& text, std::string& shown_as) {
    std::string error;
    if (lagc::import::is_robot_file(text)) {
        auto const form = cl.inertia.value_or(lagc::import::inertial_form::centre_of_mass);
        lagc::import::robot_def robot;
        std::string lag;
        try {
            lagc::import::read_options files;
            files.folder = cl.input == "-" ? "." : std::filesystem::path(cl.input).parent_path().string();
            files.allow_outside_paths = cl.allow_outside_paths;
            files.inputs = cl.inputs.value_or(lagc::import::input_form::joints);
            robot = lagc::import::read_robot(text, form, files);
            // Past the limits, before a model of that size is written and checked.
            std::size_t const coordinates = lagc::import::coordinate_count(robot);
            if (coordinates > cl.options.limits.max_coordinates)
                robot.error(1, "this robot has " + std::to_string(coordinates) + " coordinates, more than the " +
                                   std::to_string(cl.options.limits.max_coordinates) + " allowed (--max-coordinates)");
            std::size_t const outputs = lagc::import::output_count(robot);
            if (outputs > cl.max_outputs)
                robot.error(1, "this robot has " + std::to_string(outputs) + " position outputs (its sites, and its links "
                               "that move), more than the " + std::to_string(cl.max_outputs) + " allowed (--max-outputs)");
            if (!robot.has_errors() && cl.tree.empty())
                lag = lagc::import::write_lag(robot, cl.options.emit.source_name, form, cl.inputs.value_or(lagc::import::input_form::joints));
            if (!robot.has_errors()) // the file's <keyframe>s as NAME::keyframes::KEY_q
                for (auto const& k : lagc::import::keyframe_states(robot)) cl.options.emit.keyframes.push_back({k.name, k.q, k.qd});
        } catch (std::bad_alloc const&) {
            robot.error(1, "out of memory while reading the robot file");
        } catch (std::exception const& e) {
            robot.error(1, std::string("cannot read the robot file: ") + e.what());
        }
        lagc::diagnostics diags;
        diags.set_controls(cl.options.warnings);
        lagc::import::report(robot, text, diags);
        std::cerr << diags.format(lagc::source_file(cl.options.emit.source_name, text));
        if (robot.has_errors()) return 1;
        if (!cl.tree.empty())
            return std::cout << (cl.tree == "dot" ? lagc::import::tree_dot(robot)
                                                  : lagc::import::tree_text(robot, cl.inputs.value_or(lagc::import::input_form::joints)))
                       ? 0 : io_error("cannot write the tree to standard output");
        if (cl.equations) cl.equations_preface = lagc::robot_section(robot, *lagc::equations_format_for(cl.output));
        text = std::move(lag);
        shown_as += " (as .lag)";
        if (cl.lag_output) return lagc::write_files({{cl.targets[0], text}}, error) ? 0 : io_error(error);
    } else if (cl.lag_output) {
        return usage_error("-o NAME.lag writes a robot file (URDF or MJCF) as a model; '" + cl.input + "' is a model already");
    } else if (!cl.tree.empty() || cl.inputs) {
        return usage_error(std::string(cl.tree.empty() ? "--inputs chooses a robot file's inputs" : "--tree shows a robot file's tree") +
                           " (URDF or MJCF); '" + cl.input + "' is a model already");
    } else if (cl.inertia) {
        return usage_error("--inertial-parameters chooses how a robot file (URDF or MJCF) is written; '" + cl.input +
                           "' is a model already");
    }
    return std::nullopt;
}


} // namespace

int main(int argc, char** argv) {
    keep_standard_streams_apart();
    lagc::report_write_errors_as_errors();
    command_line cl;
    if (auto done = parse_arguments(argc, argv, cl)) return *done;
    if (auto done = cl.tree.empty() ? plan_outputs(cl) : std::nullopt) return *done;
    std::string text, error;
    if (!lagc::read_source(cl.input, lagc::max_source_bytes, text, error)) return io_error(error);
    cl.options.emit.source_name = cl.input == "-" ? "<stdin>" : cl.input;
    std::string shown_as = cl.options.emit.source_name; // the name diagnostics give the text
    if (auto done = robot_file(cl, text, shown_as)) return *done;

    if (cl.equations) {
        lagc::equations_result e = lagc::compile_equations(text, cl.options, *lagc::equations_format_for(cl.output),
                                                                   cl.equations_preface);
        std::cerr << e.diags.format(lagc::source_file(shown_as, lagc::normalized_source(text)));
        if (!e.text) return 1;
        if (cl.output == "-") return lagc::write_stdout(*e.text, error) ? 0 : io_error(error);
        return lagc::write_files({{cl.targets[0], *e.text}}, error) ? 0 : io_error(error);
    }
    // No status line under make (MAKELEVEL): parallel jobs share the terminal, and their
    // lines would be drawn over.
    bool const terminal = ::isatty(STDERR_FILENO) == 1 && !std::getenv("MAKELEVEL");
    lagc::progress_line progress(stderr, cl.options.emit.source_name, cl.progress, terminal);
    if (progress.wanted()) cl.options.progress = [&progress](std::string const& step) { progress.step(step); };
    lagc::compile_result r = lagc::compile(text, cl.options);
    progress.finish();
    std::cerr << r.diags.format(lagc::source_file(shown_as, lagc::normalized_source(text)));
    if (cl.stats) print_stats(r);
    if (cl.explain && r.files)
        for (auto const& choice : r.files->choices) std::cerr << lagc::explain(choice);
    if (!r.files) return 1;
    if (cl.output == "-" && cl.options.emit.c_output)
        return lagc::write_stdout(lagc::one_c_file(r.files->header, r.files->source), error) ? 0 : io_error(error);
    if (cl.output == "-") return lagc::write_stdout(r.files->header, error) ? 0 : io_error(error);
    std::vector<std::pair<std::string, std::string>> files = {{cl.targets[0], r.files->header}};
    if (!cl.options.emit.header_only) {
        std::vector<std::string> const units = lagc::translation_units(r.files->source, static_cast<int>(cl.options.translation_units));
        for (std::size_t k = 0; k < units.size(); ++k)
            files.push_back({lagc::translation_unit_path(cl.targets[1], static_cast<int>(k + 1)), units[k]});
    }
    if (cl.options.emit.c_api) files.push_back({cl.targets[2], r.files->c_header});
    return lagc::write_files(files, error) ? 0 : io_error(error);
}
