// Stage 4: the generated API, function by function, through the templates.
#include "emit.hpp"

#include "codegen.hpp"
#include "templates.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <memory>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

std::string render(std::string_view template_name, std::vector<std::pair<std::string, std::string>> const& values) {
    fmt::dynamic_format_arg_store<fmt::format_context> store;
    for (auto const& [k, v] : values) store.push_back(fmt::arg(k.c_str(), v));
    return fmt::vformat(fmt::string_view(template_text(template_name).data(), template_text(template_name).size()),
                        store);
}

namespace {

// One generated function: its C++ signature pieces and the expressions it writes.
struct argument {
    std::string name; // "t", "q", "qd", "u", "p" or an output array
    std::string type;
    bool output = false;
};

// The unrolled factorisation M = L L^T and the solve M x = b, as statements, for both
// forms of forward dynamics. `m`, `l` and `r` name M_ij, L_ij (i > j) and 1/L_jj; `set`
// is put before an assignment to L or r ("const T " for new locals, "" for an array);
// b(i) is the right-hand side, out(i) where x_i goes.
struct factor_names {
    std::function<std::string(std::size_t, std::size_t)> m, l;
    std::function<std::string(std::size_t)> r;
    std::string set;
};

class emitter {
public:
    emitter(model const& m, derived const& d, emit_options const& o) : m_(m), d_(d), o_(o) {
        auto add = [&](GiNaC::symbol const& s, std::string text, std::string arg) {
            symbols_[s.get_name()] = {std::move(text), std::move(arg)};
        };
        for (std::size_t i = 0; i < m.q.size(); ++i) {
            add(m.q[i], "q[" + std::to_string(i) + "]", "q");
            add(m.qd[i], "qd[" + std::to_string(i) + "]", "qd");
        }
        for (std::size_t i = 0; i < m.u.size(); ++i) add(m.u[i], "u[" + std::to_string(i) + "]", "u");
        for (std::size_t i = 0; i < m.p.size(); ++i) add(m.p[i], "p." + m.parameters[i].name, "p");
        add(m.t, "t", "t");
    }

    emitted_files run();

private:
    model const& m_;
    derived const& d_;
    emit_options const& o_;
    std::map<std::string, symbol_spelling> symbols_;
    std::string declarations_, definitions_, helpers_;
    std::vector<function_stats> stats_;
    double cse_seconds_ = 0;

    // Builds a function's expression graph (conversion, hash-consing: the CSE), timed.
    template <class F>
    auto timed(F f) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = f();
        cse_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }

    // The C++ type of values: T when templated, else the chosen floating type.
    std::string scalar() const { return o_.templated ? "T" : o_.scalar; }
    // Parameters stay concrete when templated (T mixes with double, as dual numbers do).
    std::string parameter_scalar() const { return o_.templated ? "double" : o_.scalar; }
    std::string linkage() const {
        return std::string(o_.templated ? "template <class T>\n" : "") + (o_.header_only ? "inline " : "");
    }
    codegen_options codegen() const {
        codegen_options c;
        c.scalar = scalar();
        c.literal_suffix = !o_.templated && o_.scalar == "float" ? "f" : "";
        c.math_prefix = o_.templated ? "" : "std::";
        return c;
    }

    std::vector<argument> inputs(std::initializer_list<char const*> names) const {
        std::vector<argument> a;
        if (m_.uses_time) a.push_back({"t", scalar()});
        for (char const* n : names) {
            std::string s = n;
            a.push_back({s, s == "p" ? "const Parameters&" : "const " + scalar() + "*"});
        }
        return a;
    }

    static std::string parameter_list(std::vector<argument> const& args, std::vector<std::string> const* used) {
        std::string s;
        for (auto const& a : args) {
            bool named = !used || std::find(used->begin(), used->end(), a.name) != used->end();
            s += (s.empty() ? "" : ", ") + a.type + " " + (named ? a.name : "/*" + a.name + "*/");
        }
        return s;
    }

    static std::string call_arguments(std::vector<argument> const& args) {
        std::string s;
        for (auto const& a : args)
            if (!a.output) s += a.name + ", ";
        return s;
    }

    void declare(std::string const& result, std::string const& name, std::vector<argument> const& args,
                 std::string const& comment) {
        declarations_ += comment + result + " " + name + "(" + parameter_list(args, nullptr) + ");\n";
    }

    void define(std::string const& result, std::string const& name, std::vector<argument> const& args,
                std::vector<std::string> const& used, std::string const& body, std::string const& comment,
                std::string& into, std::string const& extra_linkage = "") {
        into += render("function.tpl", {{"comment", comment},
                                        {"linkage", extra_linkage + linkage()},
                                        {"result", result},
                                        {"name", name},
                                        {"parameters", parameter_list(args, &used)},
                                        {"body", body}});
    }

    // A function writing `array[i] = exprs[i]`, split into parts when large.
    void array_function(std::string const& name, std::vector<argument> args,
                        std::vector<std::pair<std::string, ex>> const& outputs, std::string const& comment,
                        bool public_api = true);

    // A function's expression graph, its outputs (target, root) after factoring and
    // sharing, and its statistics.
    struct built_function {
        std::unique_ptr<expression_graph> graph;
        std::vector<std::pair<std::string, int>> roots;
        function_stats stats;
    };
    built_function build(std::string const& name, std::vector<std::pair<std::string, ex>> const& outputs);
    // Each output the sum of its parts, kept apart (see derived::velocity_bias).
    built_function build(std::string const& name, std::vector<std::pair<std::string, GiNaC::exvector>> const& outputs);
    // h_i, or Q_i - h_i, as parts.
    GiNaC::exvector bias_parts(std::size_t i, bool negated) const {
        GiNaC::exvector parts;
        if (negated) parts.push_back(d_.generalized_forces[i]);
        int const s = negated ? -1 : 1;
        if (d_.velocity_bias.empty()) {
            parts.push_back(s * d_.bias[i]);
        } else {
            parts.push_back(s * d_.velocity_bias[i]);
            parts.push_back(s * d_.potential_gradient[i]);
        }
        return parts;
    }
    void write_function(built_function f, std::vector<argument> args, std::string const& comment, bool public_api,
                        bool declared = false);

    // forward_dynamics without constraints in one function: M's lower triangle and b = Q - h
    // as local values, then the unrolled Cholesky factorisation and solve on them.
    // Fills `read` with the arguments the body reads and records f's statistics.
    std::string inline_forward_dynamics(built_function& f, std::vector<std::string>& read);
    // Where the Cholesky factor L of M is non-zero (M's structure plus fill-in), row-major.
    std::vector<char> factor_structure() const;
    std::string factor_statements(factor_names const& names) const;
    std::string solve_statements(factor_names const& names, std::function<std::string(std::size_t)> const& b,
                                 std::function<std::string(std::size_t)> const& out) const;

    // detail::factor_mass_matrix and detail::solve_mass_matrix: the Cholesky factorisation
    // of this model's M and its solve, unrolled and skipping M's structural zeros.
    std::string unrolled_cholesky() const;
    // `if (!isfinite(v0) || ...) return 3;` over count values.
    std::string finite_check(std::size_t count, std::function<std::string(std::size_t)> const& value) const;
};

// Largest nq for which the factorisation is unrolled (its statements grow as nq³/6).
constexpr std::size_t unroll_limit = 32;

std::vector<char> emitter::factor_structure() const {
    std::size_t const n = d_.nq;
    std::vector<char> nz(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) nz[i * n + j] = !d_.mass_matrix[i * n + j].is_zero();
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = j + 1; i < n; ++i)
            for (std::size_t k = 0; k < j; ++k)
                if (nz[i * n + k] && nz[j * n + k]) nz[i * n + j] = 1;
    return nz;
}

std::string emitter::factor_statements(factor_names const& n) const {
    std::size_t const nq = d_.nq;
    std::string const T = scalar(), math = o_.templated ? "" : "std::";
    bool const single = !o_.templated && o_.scalar == "float";
    std::string const one = single ? "1.0f" : "1.0", zero = single ? "0.0f" : "0.0",
                      tolerance = single ? "1e-12f" : "1e-12";
    std::vector<char> const nz = factor_structure();
    std::string f = "    " + T + " largest = " + zero + ";\n";
    for (std::size_t i = 0; i < nq; ++i) f += "    if (" + n.m(i, i) + " > largest) largest = " + n.m(i, i) + ";\n";
    f += "    const " + T + " threshold = " + tolerance + " * largest;\n";
    for (std::size_t j = 0; j < nq; ++j) {
        std::string const d = "d" + std::to_string(j);
        f += "    const " + T + " " + d + " = " + n.m(j, j);
        for (std::size_t k = 0; k < j; ++k)
            if (nz[j * nq + k]) f += " - " + n.l(j, k) + "*" + n.l(j, k);
        f += ";\n";
        f += "    if (!(" + d + " > threshold) || !" + math + "isfinite(" + d + ")) return 1;\n";
        f += "    " + n.set + n.r(j) + " = " + one + " / " + math + "sqrt(" + d + ");\n";
        for (std::size_t i = j + 1; i < nq; ++i) {
            if (!nz[i * nq + j]) continue;
            // L_ij = (M_ij − Σ_k L_ik L_jk) / L_jj; M_ij is a structural zero under fill-in.
            std::string s = d_.mass_matrix[i * nq + j].is_zero() ? "" : n.m(i, j);
            for (std::size_t k = 0; k < j; ++k)
                if (nz[i * nq + k] && nz[j * nq + k]) {
                    s += s.empty() ? "-" : " - ";
                    s += n.l(i, k) + "*" + n.l(j, k);
                }
            bool const compound = s.find(' ') != std::string::npos || s[0] == '-';
            f += "    " + n.set + n.l(i, j) + " = " + (compound ? "(" + s + ")" : s) + "*" + n.r(j) + ";\n";
        }
    }
    return f;
}

std::string emitter::solve_statements(factor_names const& n, std::function<std::string(std::size_t)> const& b,
                                      std::function<std::string(std::size_t)> const& out) const {
    std::size_t const nq = d_.nq;
    std::string const T = scalar();
    std::vector<char> const nz = factor_structure();
    auto y = [](std::size_t i) { return fmt::format("y{}", i); };
    auto x = [](std::size_t i) { return fmt::format("x{}", i); };
    std::string f;
    auto statement = [&](std::string const& name, std::string s, std::size_t i) {
        bool const compound = s.find(' ') != std::string::npos;
        f += "    const " + T + " " + name + " = " + (compound ? "(" + s + ")" : s) + "*" + n.r(i) + ";\n";
    };
    for (std::size_t i = 0; i < nq; ++i) {
        std::string s = b(i);
        for (std::size_t k = 0; k < i; ++k)
            if (nz[i * nq + k]) s += " - " + n.l(i, k) + "*" + y(k);
        statement(y(i), s, i);
    }
    for (std::size_t i = nq; i-- > 0;) {
        std::string s = y(i);
        for (std::size_t k = i + 1; k < nq; ++k)
            if (nz[k * nq + i]) s += " - " + n.l(k, i) + "*" + x(k);
        statement(x(i), s, i);
    }
    for (std::size_t i = 0; i < nq; ++i) f += "    " + out(i) + " = " + x(i) + ";\n";
    return f;
}

std::string emitter::inline_forward_dynamics(built_function& f, std::vector<std::string>& read) {
    std::size_t const n = d_.nq;
    factor_names names{[](std::size_t i, std::size_t j) { return fmt::format("M{}_{}", i, j); },
                       [](std::size_t i, std::size_t j) { return fmt::format("L{}_{}", i, j); },
                       [](std::size_t j) { return fmt::format("r{}", j); }, "const " + scalar() + " "};
    auto rhs = [](std::size_t i) { return fmt::format("b{}", i); };
    // f's roots are M's lower triangle row by row, then b; M's structural zeros are not stored.
    std::vector<std::pair<std::string, int>> locals;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j, ++k)
            if (!d_.mass_matrix[i * n + j].is_zero()) locals.push_back({names.set + names.m(i, j), f.roots[k].second});
    for (std::size_t i = 0; i < n; ++i, ++k) locals.push_back({names.set + rhs(i), f.roots[k].second});
    emitted_body terms = f.graph->emit(locals, "    ");
    f.stats.temporaries = terms.temporaries;
    stats_.push_back(f.stats);
    read = terms.used_arguments;
    read.push_back("qdd");
    return "    // M's lower triangle and b = Q - h.\n" + terms.text +
           "    // M = L L^T (unrolled for this model's M; structural zeros skipped), r_j = 1/L_jj.\n" +
           factor_statements(names) + "    // L y = b, L^T x = y.\n" +
           solve_statements(names, rhs, [](std::size_t i) { return fmt::format("qdd[{}]", i); }) +
           finite_check(n, [](std::size_t i) { return fmt::format("x{}", i); }) + "    return 0;\n";
}

std::string emitter::finite_check(std::size_t count, std::function<std::string(std::size_t)> const& value) const {
    std::string const math = o_.templated ? "" : "std::";
    std::string s = "    // NaN or Inf in the state, inputs or parameters: not a solution.\n    if (";
    for (std::size_t i = 0; i < count; ++i) s += (i ? " || !" : "!") + math + "isfinite(" + value(i) + ")";
    return s + ") return 3;\n";
}

std::string emitter::unrolled_cholesky() const {
    std::size_t const nq = d_.nq;
    std::string const T = scalar();
    auto in = [nq](char const* array) {
        return [nq, array](std::size_t i, std::size_t j) { return fmt::format("{}[{}]", array, i * nq + j); };
    };
    auto diagonal = [nq](char const* array) {
        return [nq, array](std::size_t j) { return fmt::format("{}[{}]", array, j * nq + j); };
    };
    auto element = [](char const* array) { return [array](std::size_t i) { return fmt::format("{}[{}]", array, i); }; };
    return "\nnamespace detail {\n"
           "// M = L L^T in place (lower triangle), unrolled for this model's M, whose structural zeros\n"
           "// are skipped; the diagonal receives 1/L_jj. Non-zero when a pivot is not greater than\n"
           "// 1e-12 times the largest diagonal entry, or is not finite.\n" +
           linkage() + "int factor_mass_matrix(" + T + "* M) {\n" +
           factor_statements({in("M"), in("M"), diagonal("M"), ""}) + "    return 0;\n}\n\n" +
           "// Solves M x = b in place with the factor from factor_mass_matrix.\n" + linkage() +
           "void solve_mass_matrix(const " + T + "* L, " + T + "* b) {\n" +
           solve_statements({in("L"), in("L"), diagonal("L"), ""}, element("b"), element("b")) +
           "}\n}  // namespace detail\n";
}

emitter::built_function emitter::build(std::string const& name, std::vector<std::pair<std::string, ex>> const& outputs) {
    std::vector<std::pair<std::string, exvector>> parts;
    for (auto const& [target, e] : outputs) parts.push_back({target, {e}});
    return build(name, parts);
}

emitter::built_function emitter::build(std::string const& name,
                                       std::vector<std::pair<std::string, exvector>> const& outputs) {
    built_function f{std::make_unique<expression_graph>(symbols_, codegen()), {}, {}};
    expression_graph& g = *f.graph;
    std::vector<int> ids;
    for (auto const& output : outputs) {
        f.roots.push_back({output.first, timed([&] { return g.add_parts(output.second); })});
        ids.push_back(f.roots.back().second);
    }
    double const tree_operations = g.tree_operation_count(ids);
    ids = timed([&] { return g.share_subsets(g.factor_sums(g.share_subsets(ids))); });
    for (std::size_t i = 0; i < f.roots.size(); ++i) f.roots[i].second = ids[i];
    f.stats = {name, tree_operations, g.operation_count(ids), 0, 1};
    return f;
}

void emitter::array_function(std::string const& name, std::vector<argument> args,
                             std::vector<std::pair<std::string, ex>> const& outputs, std::string const& comment,
                             bool public_api) {
    write_function(build(name, outputs), std::move(args), comment, public_api);
}

void emitter::write_function(built_function f, std::vector<argument> args, std::string const& comment, bool public_api,
                             bool declared) {
    expression_graph const& g = *f.graph;
    auto const& roots = f.roots;
    std::string const& name = f.stats.name;
    function_stats st = f.stats;

    if (public_api && !declared) declare("void", name, args, comment);
    // Internal helpers (not in the API) live in namespace detail, like the parts.
    std::string& into = public_api ? definitions_ : helpers_;
    std::string const open = public_api ? "" : "\nnamespace detail {";
    std::string const close = public_api ? "" : "}  // namespace detail\n";
    if (st.operations_after_cse <= o_.split_operations) {
        emitted_body b = g.emit(roots, "    ");
        st.temporaries = b.temporaries;
        into += open;
        define("void", name, args, b.used_arguments, b.text, public_api ? "" : comment, into);
        into += close;
    } else {
        // Parts share one scratch array for the values they pass on: nothing is computed twice.
        std::size_t scratch = 0;
        std::vector<emitted_body> parts = g.emit_parts(roots, "    ", o_.split_operations, scratch);
        st.parts = parts.size();
        std::vector<argument> part_args = args;
        part_args.push_back({"w", scalar() + "*", true});
        std::string call;
        for (auto const& a : part_args) call += (call.empty() ? "" : ", ") + a.name;
        std::string body = "    " + scalar() + " w[" + std::to_string(std::max<std::size_t>(scratch, 1)) + "];\n";
        helpers_ += "\nnamespace detail {";
        for (std::size_t k = 0; k < parts.size(); ++k) {
            emitted_body& b = parts[k];
            st.temporaries += b.temporaries;
            std::string part = name + "_part" + std::to_string(k);
            define("void", part, part_args, b.used_arguments, b.text,
                   k == 0 ? "// " + name + " in parts (short compile times); w carries values between them.\n" : "",
                   helpers_);
            body += "    detail::" + part + "(" + call + ");\n";
        }
        helpers_ += "}  // namespace detail\n";
        std::vector<std::string> forwarded;
        for (auto const& a : args) forwarded.push_back(a.name);
        into += open;
        define("void", name, args, forwarded, body, public_api ? "" : comment, into);
        into += close;
    }
    stats_.push_back(st);
}

emitted_files emitter::run() {
    std::size_t const n = d_.nq, nc = d_.nc;
    auto entries = [](std::string const& array, GiNaC::exvector const& v) {
        std::vector<std::pair<std::string, ex>> out;
        for (std::size_t i = 0; i < v.size(); ++i) out.push_back({array + "[" + std::to_string(i) + "]", v[i]});
        return out;
    };
    auto with_output = [&](std::vector<argument> a, std::string const& out) {
        a.push_back({out, scalar() + "*", true});
        return a;
    };

    array_function("mass_matrix", with_output(inputs({"q", "p"}), "M"), entries("M", d_.mass_matrix),
                   "// Mass matrix M(q) = d2L/dqd2, nq x nq, row-major.\n");
    if (d_.coriolis)
        array_function("coriolis_matrix", with_output(inputs({"q", "qd", "p"}), "C"), entries("C", *d_.coriolis),
                       "// Coriolis matrix from Christoffel symbols: h = C qd + dV/dq, Mdot - 2C skew-symmetric.\n");
    array_function("potential_gradient", with_output(inputs({"q", "p"}), "dVdq"),
                   entries("dVdq", d_.potential_gradient), "// Gradient of the potential, dV/dq.\n");
    {
        std::vector<std::pair<std::string, exvector>> h;
        for (std::size_t i = 0; i < n; ++i) h.push_back({"h[" + std::to_string(i) + "]", bias_parts(i, false)});
        auto args = with_output(inputs({"q", "qd", "p"}), "h");
        declare("void", "bias_forces", args, "// Bias forces h(q, qd): M qdd + h + A^T lambda = Q.\n");
        write_function(build("bias_forces", h), args, "", true, true);
    }
    array_function("generalized_forces", with_output(inputs({"q", "qd", "u", "p"}), "Q"),
                   entries("Q", d_.generalized_forces), "// Generalized forces Q(q, qd, u).\n");

    // Energies return a value: emitted as one-output bodies.
    auto scalar_function = [&](std::string const& name, std::vector<argument> args, ex const& e,
                               std::string const& comment) {
        expression_graph g(symbols_, codegen());
        int id = timed([&] { return g.add(e); });
        emitted_body b = g.emit({{"const " + scalar() + " result", id}}, "    ");
        b.text += "    return result;\n";
        declare(scalar(), name, args, comment);
        define(scalar(), name, args, b.used_arguments, b.text, "", definitions_);
        stats_.push_back({name, g.tree_operation_count({id}), g.operation_count({id}), b.temporaries, 1});
    };
    scalar_function("kinetic_energy", inputs({"q", "qd", "p"}), d_.kinetic_energy, "// Kinetic energy (the kinetic terms).\n");
    scalar_function("potential_energy", inputs({"q", "p"}), d_.potential_energy, "// Potential energy (the potential terms).\n");

    if (nc > 0) {
        array_function("constraint_residuals", with_output(inputs({"q", "qd", "p"}), "c"),
                       entries("c", d_.constraint_residuals),
                       "// Constraint residuals: holonomic rows c(q, t), then velocity rows A q_dot + a0.\n");
        array_function("constraint_jacobian", with_output(inputs({"q", "p"}), "A"),
                       entries("A", d_.constraint_jacobian), "// Constraint Jacobian A, nc x nq, row-major.\n");
        // The index-1 system [[M, A^T], [A, 0]] [qdd; lambda] = [Q - h; r].
        std::size_t const N = n + nc;
        std::vector<std::pair<std::string, ex>> k_out, combined;
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j) {
                ex e = 0;
                if (i < n && j < n) e = d_.mass_matrix[i * n + j];
                else if (i < n) e = d_.constraint_jacobian[(j - n) * n + i];
                else if (j < n) e = d_.constraint_jacobian[(i - n) * n + j];
                combined.push_back({"K[" + std::to_string(i * N + j) + "]", e});
            }
        for (std::size_t i = 0; i < n; ++i)
            combined.push_back({"rhs[" + std::to_string(i) + "]", d_.generalized_forces[i] - d_.bias[i]});
        for (std::size_t k = 0; k < nc; ++k)
            combined.push_back({"rhs[" + std::to_string(n + k) + "]", d_.constraint_rhs[k]});
        auto args = inputs({"q", "qd", "u", "p"});
        args.push_back({"K", scalar() + "*", true});
        args.push_back({"rhs", scalar() + "*", true});
        array_function("semi_implicit_system", args, combined,
                       "// Index-1 system [[M, A^T], [A, 0]] [qdd; lambda] = [Q - h; r], Baumgarte-stabilised;\n"
                       "// K is (nq+nc) x (nq+nc) row-major, rhs has nq+nc entries.\n");
        // A and r together, for forward_dynamics.
        std::vector<std::pair<std::string, ex>> ar = entries("A", d_.constraint_jacobian);
        for (std::size_t k = 0; k < nc; ++k) ar.push_back({"r[" + std::to_string(k) + "]", d_.constraint_rhs[k]});
        auto ar_args = inputs({"q", "qd", "p"});
        ar_args.push_back({"A", scalar() + "*", true});
        ar_args.push_back({"r", scalar() + "*", true});
        array_function("constraint_terms", ar_args, ar,
                       "// Constraint Jacobian and the right-hand side r of A qdd = r.\n", false);
    }

    // forward_dynamics reads M's lower triangle and Q - h, computed together with one
    // CSE (sin, cos and shared products once, not once per function). Without constraints
    // and when small enough, everything is one function working on local values; else
    // detail::dynamics_terms writes arrays for the factorisation.
    {
        bool const unrolled = n <= unroll_limit;
        std::vector<std::pair<std::string, exvector>> terms;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                terms.push_back({"M[" + std::to_string(i * n + j) + "]", {d_.mass_matrix[i * n + j]}});
        for (std::size_t i = 0; i < n; ++i) terms.push_back({"b[" + std::to_string(i) + "]", bias_parts(i, true)});
        built_function f = build("dynamics_terms", terms);
        auto args = inputs({"q", "qd", "u", "p"});
        args.push_back({"qdd", scalar() + "*", true});
        args.push_back({"lambda", scalar() + "*", true});
        std::string comment = "// Forward dynamics: qdd (and lambda when nc > 0). Returns 0 on success, 1 when M (2 when\n"
                              "// A M^-1 A^T) is singular at this state, 3 when qdd or lambda is not finite.\n";
        declare("int", "forward_dynamics", args, comment);
        if (nc == 0 && unrolled && f.stats.operations_after_cse <= o_.split_operations) {
            std::vector<std::string> read;
            std::string body = inline_forward_dynamics(f, read);
            define("int", "forward_dynamics", args, read, body, "", definitions_);
        } else {
            auto terms_args = inputs({"q", "qd", "u", "p"});
            terms_args.push_back({"M", scalar() + "*", true});
            terms_args.push_back({"b", scalar() + "*", true});
            write_function(std::move(f), terms_args,
                           "// The lower triangle of M and b = Q - h, for forward_dynamics.\n", false);
            auto call_args = [&](std::initializer_list<char const*> names) { return call_arguments(inputs(names)); };
            if (unrolled) helpers_ += unrolled_cholesky();
            std::vector<std::pair<std::string, std::string>> values = {
                {"scalar", scalar()},
                {"args_q_qd_u_p", call_args({"q", "qd", "u", "p"})},
                {"factor", unrolled ? "detail::factor_mass_matrix" : "detail::cholesky_factor<nq>"},
                {"solve", unrolled ? "detail::solve_mass_matrix" : "detail::cholesky_solve<nq>"},
                {"math", o_.templated ? "" : "std::"}};
            if (nc > 0) values.push_back({"args_q_qd_p", call_args({"q", "qd", "p"})});
            std::string body = render(nc > 0 ? "forward_dynamics_constrained.tpl" : "forward_dynamics.tpl", values);
            std::vector<std::string> used = {"t", "q", "qd", "u", "p", "qdd"};
            if (nc > 0) used.push_back("lambda");
            define("int", "forward_dynamics", args, used, body, "", definitions_);
        }
    }

    for (auto const& out : m_.outputs) {
        std::vector<std::pair<std::string, ex>> e;
        for (std::size_t i = 0; i < out.val.size(); ++i) e.push_back({"out[" + std::to_string(i) + "]", out.val.elems[i]});
        std::string shape = out.val.describe();
        array_function("output_" + out.name, with_output(inputs({"q", "qd", "p"}), "out"), e,
                       "// Output '" + out.name + "': " + shape + (out.val.shape == value::kind::matrix ? ", row-major" : "") + ".\n");
    }

    std::string fields;
    bool const single = parameter_scalar() == "float";
    for (auto const& p : m_.parameters) {
        char buf[64];
        auto r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(p.default_value))
                        : std::to_chars(buf, buf + sizeof buf, p.default_value);
        std::string lit(buf, r.ptr);
        if (lit.find_first_of(".e") == std::string::npos) lit += ".0";
        if (single) lit += "f";
        fields += "    " + parameter_scalar() + " " + p.name + " = " + lit + ";\n";
    }
    // The loop Cholesky serves A M^-1 A^T, and M when it is too large to unroll.
    std::string cholesky = nc == 0 && n <= unroll_limit ? "" : render("cholesky.tpl", {{"scalar", scalar()},
                                                    {"template_head", o_.templated ? "template <int n, class T>" : "template <int n>"},
                                                    {"math", o_.templated ? "" : "std::"},
                                                    {"tolerance", single ? "1e-12f" : "1e-12"}});
    // Templated code calls sin, cos, ... unqualified so that argument-dependent lookup finds
    // the overloads of the user's scalar type; these declarations supply the std ones.
    std::string using_math;
    if (o_.templated) {
        using_math = "\n// Math functions for double; a scalar type T brings its own, found by argument-dependent lookup.\n";
        for (char const* f : {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
                              "log", "sqrt", "pow", "fabs", "isfinite"})
            using_math += std::string("using std::") + f + ";\n";
    }
    std::vector<std::pair<std::string, std::string>> common = {
        {"source", o_.source_name},        {"ns", m_.name},
        {"nq", std::to_string(n)},          {"nu", std::to_string(d_.nu)},
        {"nc", std::to_string(nc)},         {"parameter_fields", fields},
        {"declarations", declarations_},    {"helpers", cholesky + helpers_},
        {"definitions", definitions_},      {"header", o_.header_name},
        {"using_math", using_math},
        {"parameters_comment",
         o_.fold_parameters ? "// The parameters, in declaration order, as folded into the code (lagc --fold-parameters):\n"
                              "// the functions do not read them, and changing them has no effect."
                            : "// Runtime parameters, in declaration order."}};
    emitted_files files;
    files.stats = stats_;
    files.cse_seconds = cse_seconds_;
    if (o_.header_only) {
        files.header = render("header_only.hpp.tpl", common);
    } else {
        files.header = render("header.hpp.tpl", common);
        files.source = render("source.cpp.tpl", common);
    }
    return files;
}

} // namespace

emitted_files emit(model const& m, derived const& d, emit_options const& options) {
    return emitter(m, d, options).run();
}

} // namespace lagc
