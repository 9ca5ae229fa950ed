// Stage 4: derived equations → C++ text, one generated API function at a time (forward
// dynamics: dynamics.cpp), framed by a cxx_printer. A pure function of its inputs,
// which is what makes golden files work.
#include "emit/emitter.hpp"
#include "emit/function_set.hpp"
#include "symbolic/dag.hpp"

#include "builtins.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace lagc {

namespace emitting {

std::string text(std::string_view template_name, std::vector<std::pair<std::string, std::string>> const& values) {
    return render_in_dialect(template_name, values);
}

std::vector<std::pair<std::string, ex>> entries(std::string const& array, exvector const& v) {
    std::vector<std::pair<std::string, ex>> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back({array + "[" + std::to_string(i) + "]", v[i]});
    return out;
}

emitter::emitter(model const& m, derived const& d, emit_options const& o)
    : m_(m), d_(d), o_(o),
      dialect_(o.c_output ? dialect::c99(m.name, o.scalar) : dialect::cxx(m.name, o.templated ? "T" : o.scalar)),
      stack_(d.nq, d.nu, d.nc, d.holonomic_rows, o.scalar == "float" ? 4 : 8, o.reduce_angles,
             o.fold_parameters),
      out_(std::string(o.templated ? "template <class T>\n" : "") + (o.header_only || o.templated ? "inline " : ""),
           &stack_),
      wanted_(functions_needed(o.functions, d.nc > 0)) {
    auto add = [&](GiNaC::symbol const& s, std::string spelled, std::string arg) {
        symbols_[s.get_name()] = {std::move(spelled), std::move(arg)};
    };
    for (std::size_t i = 0; i < m.q.size(); ++i) {
        add(m.q[i], "q[" + std::to_string(i) + "]", "q");
        add(m.qd[i], "qd[" + std::to_string(i) + "]", "qd");
    }
    for (std::size_t i = 0; i < m.u.size(); ++i) add(m.u[i], "u[" + std::to_string(i) + "]", "u");
    for (std::size_t i = 0; i < m.p.size(); ++i) add(m.p[i], "p." + m.parameters[i].name, "p");
    add(m.t, "t", "t");
    for (std::size_t i = 0; i < d.qdd.size(); ++i) add(d.qdd[i], "qdd[" + std::to_string(i) + "]", "qdd");
    for (std::size_t k = 0; k < d.lambda.size(); ++k) add(d.lambda[k], "lambda[" + std::to_string(k) + "]", "lambda");
    // --fold-parameters: a parameter of 0 or ±1 is put into the expressions (terms vanish,
    // factors go); any other is a leaf spelled as its literal, where p.NAME would be, so that
    // the expressions keep the structure they have with run-time parameters (a number put in
    // would be multiplied into every sum it scales, and those sums would share no more).
    if (o.fold_parameters)
        for (std::size_t i = 0; i < m.p.size(); ++i) {
            GiNaC::ex const& v = m.parameters[i].exact_value;
            if (v.is_zero() || v == 1 || v == -1) folded_[m.p[i]] = v;
            else add(m.p[i], parameter_literal(m.parameters[i].default_value, true), "");
        }
}

// A parameter's value as the file's scalar type writes it: "2.5", "2.5f"; "(-0.5)" for a
// leaf of an expression (`parenthesized`).
std::string emitter::parameter_literal(double value, bool parenthesized) const {
    char buf[64];
    bool const single_fields = parameter_scalar() == "float";
    auto r = single_fields ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value))
                           : std::to_chars(buf, buf + sizeof buf, value);
    std::string lit(buf, r.ptr);
    if (lit.find_first_of(".e") == std::string::npos) lit += ".0";
    if (single_fields) lit += "f";
    return parenthesized && lit[0] == '-' ? "(" + lit + ")" : lit;
}

exvector emitter::fold(exvector const& parts, std::vector<std::string> const& kept) const {
    if (folded_.empty()) return parts;
    GiNaC::exmap values = folded_;
    for (std::size_t i = 0; i < m_.p.size(); ++i)
        if (std::find(kept.begin(), kept.end(), "p." + m_.parameters[i].name) != kept.end()) values.erase(m_.p[i]);
    return substitute(parts, values);
}

codegen_options emitter::codegen(bool unit_scales) const {
    codegen_options c;
    c.scalar = scalar();
    c.literal_suffix = single() ? "f" : "";
    c.math_prefix = o_.templated ? "" : "std::"; // printed unqualified in C (c_spelling)
    c.c_spelling = dialect_.c;
    c.math_suffix = dialect_.math_suffix;
    if (o_.reduce_angles) c.reduce_angle = dialect_.detail + "reduce_angle";
    using scales = codegen_options::sum_scales;
    bool const may_be_float = o_.templated || o_.scalar == "float";
    c.scales = unit_scales ? scales::unit : may_be_float ? scales::decimal : scales::none;
    return c;
}

std::vector<cxx_argument> emitter::inputs(std::initializer_list<char const*> names) const {
    std::vector<cxx_argument> a;
    if (m_.uses_time) a.push_back({"t", scalar()});
    for (char const* n : names) {
        std::string s = n;
        a.push_back({s, s == "p" ? dialect_.parameters_type : "const " + scalar() + "*"});
    }
    return a;
}

std::vector<cxx_argument> emitter::with_output(std::vector<cxx_argument> a, std::string const& out) const {
    a.push_back({out, scalar() + "*", true});
    return a;
}

std::vector<std::pair<std::string, exvector>> emitter::bias_parts(bool negated, bool differentiated) const {
    std::vector<std::pair<std::string, exvector>> out;
    for (std::size_t i = 0; i < d_.nq; ++i) {
        exvector parts;
        if (negated) parts.push_back(d_.generalized_forces[i]);
        for (ex const& e : lagc::bias_parts(d_, i, !differentiated)) parts.push_back(negated ? -e : e);
        out.push_back({(negated ? "b[" : "h[") + std::to_string(i) + "]", parts});
    }
    return out;
}

built_function emitter::build(std::string const& name, std::vector<std::pair<std::string, ex>> const& outputs) {
    std::vector<std::pair<std::string, exvector>> parts;
    for (auto const& [target, e] : outputs) parts.push_back({target, {e}});
    return build(name, parts);
}

// Conversion (hash-consing: the CSE), then sharing, factoring and sharing again.
built_function emitter::build(std::string const& name, std::vector<std::pair<std::string, exvector>> const& outputs,
                              std::string const& form, bool unit_scales) {
    if (o_.progress) o_.progress("generating " + name + (form.empty() ? "" : " " + form));
    auto const start = std::chrono::steady_clock::now();
    built_function f{std::make_unique<expression_graph>(symbols_, codegen(unit_scales)), {}, {}};
    std::vector<int> ids;
    std::vector<std::string> targets;
    for (auto const& output : outputs) {
        ids.push_back(timed([&] { return f.graph->add_parts(fold(output.second)); }));
        targets.push_back(output.first);
    }
    finish(f, name, ids, targets, start);
    return f;
}

// array[r * variables + c] = ∂row_r/∂variable_c (negated: −∂), the rows given as parts.
built_function emitter::build_jacobian(std::string const& name, std::vector<exvector> const& rows,
                                       std::vector<std::string> const& variables, std::string const& array, bool negated,
                                       std::string const& form) {
    return build_jacobian(name, {{rows, variables}}, array, negated, form);
}

built_function emitter::build_jacobian(std::string const& name, std::vector<jacobian_columns> const& blocks,
                                       std::string const& array, bool negated, std::string const& form) {
    if (o_.progress) o_.progress("generating " + name + (form.empty() ? "" : " " + form));
    auto const start = std::chrono::steady_clock::now();
    built_function f{std::make_unique<expression_graph>(symbols_, codegen()), {}, {}};
    expression_graph& g = *f.graph;
    std::size_t const n_rows = blocks.empty() ? 0 : blocks.front().rows.size();
    std::size_t columns = 0;
    for (auto const& b : blocks) columns += b.variables.size();
    std::vector<int> ids(n_rows * columns);
    std::size_t first = 0;
    for (auto const& b : blocks) {
        std::vector<int> row_ids, variable_ids;
        for (auto const& row : b.rows) {
            exvector parts = fold(row, b.variables);
            if (negated)
                for (auto& e : parts) e = -e;
            row_ids.push_back(timed([&] { return g.add_parts(parts); }));
        }
        for (auto const& v : b.variables) variable_ids.push_back(g.variable_node(v));
        std::vector<int> block = timed([&] { return g.jacobian(row_ids, variable_ids); });
        // added covers the first rows (the nq rows of R; a constraint's rows S have none).
        if (b.added)
            for (std::size_t k = 0; k < block.size() && k < b.added->size(); ++k)
                if (ex const e = fold({(*b.added)[k]}, b.variables).front(); !e.is_zero())
                    block[k] = g.plus(block[k], timed([&] { return g.add(negated ? -e : e); }));
        for (std::size_t r = 0; r < n_rows; ++r)
            for (std::size_t c = 0; c < variable_ids.size(); ++c)
                ids[r * columns + first + c] = block[r * variable_ids.size() + c];
        first += variable_ids.size();
    }
    std::vector<std::string> targets;
    for (std::size_t k = 0; k < ids.size(); ++k) targets.push_back(array + "[" + std::to_string(k) + "]");
    finish(f, name, ids, targets, start);
    return f;
}

void emitter::finish(built_function& f, std::string const& name, std::vector<int> ids,
                     std::vector<std::string> const& targets, std::chrono::steady_clock::time_point start) {
    expression_graph& g = *f.graph;
    // Checked before the rewrites, whose work grows faster than the function's size.
    if (std::size_t const operations = g.operation_count(ids); operations > o_.max_operations)
        throw std::runtime_error("the generated function '" + name + "' would need " + std::to_string(operations) +
                                 " operations, more than the " + std::to_string(o_.max_operations) +
                                 " allowed; simplify the model (or raise the limit with --max-operations)");
    double const tree_operations = g.tree_operation_count(ids);
    ids = timed([&] { return g.share_subsets(g.factor_sums(g.share_subsets(ids))); });
    for (std::size_t i = 0; i < ids.size(); ++i) f.roots.push_back({targets[i], ids[i]});
    f.stats = {name, tree_operations, g.operation_count(ids), 0, 1,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

void emitter::write_function(built_function f, std::vector<cxx_argument> const& args, std::string const& comment,
                             cxx_printer::place where, std::string const& result) {
    bool const api = where == cxx_printer::place::api;
    std::string const& name = f.stats.name;
    function_stats st = f.stats;
    if (api) out_.declare(result, name, args, comment);
    std::string const definition_comment = api ? "" : comment;
    // Written with the others at the end (write_deferred): whole, or in parts.
    out_.add_helpers(parts_marker(deferred_.size()));
    out_.mark(where, definition_marker(deferred_.size()));
    deferred_.push_back({std::move(f), args, definition_comment, where, stats_.size(), result, {}, 0});
    stats_.push_back(st);
}

void emitter::array_function(std::string const& name, std::vector<cxx_argument> const& args,
                             std::vector<std::pair<std::string, ex>> const& outputs) {
    write_function(build(name, outputs), args, text("comments.tpl#" + name), cxx_printer::place::api);
}

// ---- the API ---------------------------------------------------------------------------

void emitter::mass_matrix() {
    write_function(chosen_mass_matrix(), with_output(inputs({"q", "p"}), "M"), text("comments.tpl#mass_matrix"),
                   cxx_printer::place::api);
}

void emitter::potential_gradient() {
    array_function("potential_gradient", with_output(inputs({"q", "p"}), "dVdq"), entries("dVdq", d_.potential_gradient));
}

void emitter::bias_forces() {
    write_function(build("bias_forces", bias_parts(false)), with_output(inputs({"q", "qd", "p"}), "h"),
                   text("comments.tpl#bias_forces"), cxx_printer::place::api);
}

void emitter::generalized_forces() {
    array_function("generalized_forces", with_output(inputs({"q", "qd", "u", "p"}), "Q"),
                   entries("Q", d_.generalized_forces));
}

// Energies return a value: one-output functions, built as the array functions are (sharing
// and factoring, the operations' limit). Where the functions share parts, T as ½ q̇ᵀ M q̇
// (derived::kinetic_from_mass) reads M's values from them and adds n² + 3n operations; it is
// taken where T as written has more than four times that, so that the file loses most of T
// (the 10-joint 3-D arm: 1,124 operations, the file 995 fewer), since a call then evaluates
// M (1.8× the instructions on that arm). A planar chain's T (10 links: 146 operations
// against 130) stays as written: half the instructions of M.
void emitter::energies() {
    std::string const target = "const " + scalar() + " result";
    auto scalar_function = [&](std::string const& name, std::vector<cxx_argument> const& args, ex const& e) {
        write_function(build(name, {{target, exvector{e}}}), args, text("comments.tpl#" + name), cxx_printer::place::api,
                       scalar());
    };
    if (wanted("kinetic_energy")) scalar_function("kinetic_energy", inputs({"q", "qd", "p"}), d_.kinetic_energy);
    if (wanted("kinetic_energy") && d_.kinetic_from_mass) {
        deferred_function& d = deferred_.back();
        d.shared_form = [this, target] {
            return build("kinetic_energy", {{target, exvector{*d_.kinetic_from_mass}}}, "from the mass matrix");
        };
        d.shared_form_above = 4 * (d_.nq * d_.nq + 3 * d_.nq);
    }
    if (wanted("potential_energy")) scalar_function("potential_energy", inputs({"q", "p"}), d_.potential_energy);
}

// Residuals, A, the index-1 system [[M, Aᵀ], [A, 0]] [q̈; λ] = [Q − h; r], and A with r
// together for forward_dynamics.
void emitter::constraint_functions() {
    std::size_t const nc = d_.nc;
    if (nc == 0) return;
    if (wanted("constraint_residuals"))
        array_function("constraint_residuals", with_output(inputs({"q", "qd", "p"}), "c"), entries("c", d_.constraint_residuals));
    if (wanted("constraint_jacobian"))
        array_function("constraint_jacobian", with_output(inputs({"q", "p"}), "A"), entries("A", d_.constraint_jacobian));
    if (wanted("semi_implicit_system")) semi_implicit_system();
    if (!wanted("forward_dynamics") || candidate_solves_constraints()) return; // forward_dynamics' own terms (choose.cpp)
    std::vector<std::pair<std::string, ex>> ar = entries("A", d_.constraint_jacobian);
    for (std::size_t k = 0; k < nc; ++k) ar.push_back({"r[" + std::to_string(k) + "]", d_.constraint_rhs[k]});
    write_function(build("constraint_terms", ar), with_output(with_output(inputs({"q", "qd", "p"}), "A"), "r"),
                   text("comments.tpl#constraint_terms"), cxx_printer::place::helper);
}

// The index-1 system [[M, Aᵀ], [A, 0]] [q̈; λ] = [Q − h; r].
void emitter::semi_implicit_system() {
    std::size_t const n = d_.nq, nc = d_.nc, N = n + nc;
    std::vector<std::pair<std::string, ex>> combined;
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
    for (std::size_t k = 0; k < nc; ++k) combined.push_back({"rhs[" + std::to_string(n + k) + "]", d_.constraint_rhs[k]});
    array_function("semi_implicit_system", with_output(with_output(inputs({"q", "qd", "u", "p"}), "K"), "rhs"), combined);
}

// --functions: each name asked for is a function of this model's file.
void emitter::check_functions_asked() const {
    auto const& api = out_.api();
    for (auto const& name : o_.functions)
        if (std::none_of(api.begin(), api.end(), [&](auto const& f) { return f.name == name; }))
            throw std::runtime_error("--functions: model '" + m_.name + "' has no function '" + name +
                                     "' (constraint functions need constraints, output_ functions outputs, "
                                     "the regressor parameters it is linear in)");
}

// ---- the files --------------------------------------------------------------------------

std::string emitter::parameter_fields() const {
    std::string fields;
    for (auto const& p : m_.parameters)
        fields += text("parameter_field.tpl",
                       {{"type", parameter_scalar()}, {"name", p.name}, {"value", parameter_literal(p.default_value, false)}});
    return fields;
}

// Templated code calls sin, cos, ... unqualified so that argument-dependent lookup finds
// the overloads of the user's scalar type; these declarations supply the std ones.
std::string emitter::using_math() const {
    if (!o_.templated) return "";
    std::string declarations;
    std::vector<std::string_view> done;
    for (auto const& b : builtins())
        if (b.scalar() && b.how == builtin::code::cmath && std::find(done.begin(), done.end(), b.cxx) == done.end()) {
            declarations += text("using_math.tpl#declaration", {{"function", std::string(b.cxx)}});
            done.push_back(b.cxx);
        }
    declarations += text("using_math.tpl#declaration", {{"function", "isfinite"}});
    declarations.pop_back(); // the block's template ends the last line
    return text("using_math.tpl#block", {{"declarations", declarations}});
}

// detail::is_finite and all_finite, which every status check calls: on the bits of float and
// double (for T, its own isfinite too), so that -ffast-math does not fold them away.
std::string emitter::finite_helpers() const {
    auto concrete = [&](std::string const& type, std::string const& linkage) {
        bool const single_type = type == "float";
        return text("finite.tpl#concrete", {{"linkage", linkage},
                                            {"scalar", type},
                                            {"size_name", single_type ? "FLOAT" : "DOUBLE"},
                                            {"bytes", single_type ? "4" : "8"},
                                            {"bits", single_type ? "32" : "64"},
                                            {"mask", single_type ? "0x7f800000u" : "0x7ff0000000000000ull"}});
    };
    if (o_.templated)
        return concrete("double", "inline ") + concrete("float", "inline ") + text("finite.tpl#generic") +
               text("finite.tpl#all_finite_each", {{"head", "template <class T>\ninline "}, {"scalar", "T"}});
    std::string const linkage = o_.header_only ? "inline " : "static inline ";
    return concrete(scalar(), linkage) + text("finite.tpl#all_finite", {{"head", linkage}, {"scalar", scalar()}});
}

// detail::reduce_angle (--target mcu): for float and double, as the file's scalars are.
// Its frame is not a path of its own in the stack figures: it calls nothing and is counted
// within the math library's margin (stack_bound.hpp), whose sin it precedes.
std::string emitter::angle_helpers() const {
    auto concrete = [&](std::string const& type, std::string const& linkage) {
        bool const single_type = type == "float";
        std::string const f = single_type ? "f" : "";
        std::string const int_type = single_type ? "int" : "long long";
        return text("mcu.tpl#reduce_angle",
                    {{"linkage", linkage}, {"scalar", type}, {"int_type", int_type},
                     {"to_int", dialect_.c ? "(" + int_type + ")" : "static_cast<" + int_type + ">"},
                     {"to_scalar", dialect_.c ? "(" + type + ")" : "static_cast<" + type + ">"},
                     {"short", single_type ? "201.0f" : "823549.0"},
                     {"big", single_type ? "5.0e7f" : "2.8e16"},
                     {"short_text", single_type ? "201" : "823,549"},
                     {"big_text", single_type ? "5e7" : "2.8e16"},
                     {"exact", single_type ? "k = 2^16" : "k = 2^20"},
                     {"inv_two_pi", single_type ? "0.159154937f" : "0.15915494309189535"},
                     {"two_pi", single_type ? "6.28318548f" : "6.283185307179586"},
                     {"zero", single_type ? "0.0f" : "0.0"},
                     {"half", single_type ? "0.5f" : "0.5"},
                     {"c1", single_type ? "6.28125f" : "6.28318530693650245667"},
                     {"c2", single_type ? "1.93530717e-3f" : "2.43084020252158639064e-10"},
                     {"c3", single_type ? "1.02533763e-11f" : "8.08906499518380292960e-21"}});
    };
    if (o_.templated)
        return concrete("double", "inline ") + concrete("float", "inline ") + text("mcu.tpl#reduce_angle_generic");
    return concrete(scalar(), o_.header_only ? "inline " : "static inline ");
}

std::string emitter::stack_table(std::vector<stack_figure> const& figures) const {
    std::string entries;
    for (auto const& f : figures)
        entries += text("stack.tpl#entry", {{"name", f.name},
                                            {"total", std::to_string(f.total())},
                                            {"arrays", std::to_string(f.arrays)},
                                            {"temporaries", std::to_string(f.temporaries)},
                                            {"frames", std::to_string(f.frames)},
                                            {"libm", std::to_string(f.libm)}});
    // --target mcu's margins are a Cortex-M's (stack_margins::mcu), the host's hold anywhere.
    static char const* const mcu_note =
        "// --target mcu: the margins are a Cortex-M's (measured on the M4 with newlib), and the math\n"
        "// library's short path, since detail::reduce_angle keeps sin and cos off the long one.\n";
    static char const* const register_note =
        "// In float, a frame without loops counts the M4F's register file: a tenth more temporaries\n"
        "// than live at once as written less 16, or those and its inputs less 23 (16 in the parts),\n"
        "// whichever is more, and 64 B + 4 B an argument + 8 B (8-aligned) of saved registers, not\n"
        "// the frame margin; a frame with loops spills one value every two assignments.\n";
    return text("stack.tpl#block", {{"scalar", o_.templated ? "T = double" : scalar()},
                                    {"frame", std::to_string(stack_.margins().frame)},
                                    {"spill", std::to_string(stack_.margins().spill)},
                                    {"libm", std::to_string(stack_.margins().libm)},
                                    {"target_note", o_.reduce_angles ? std::string(mcu_note) +
                                                        (stack_.margins().register_file ? register_note : "") : ""},
                                    {"entries", entries}});
}

// The helpers every file starts with: the errno guard (--target mcu), sign, the finiteness
// tests, the loop Cholesky.
void emitter::common_helpers() {
    if (o_.no_errno) out_.add_helpers(text("mcu.tpl#errno_guard"));
    if (o_.reduce_angles) out_.add_unbounded_helpers(angle_helpers());
    if (m_.uses_sign) {
        // Inline even in a .cpp (static inline): --fold-parameters may leave it unused.
        std::string head = o_.templated ? "template <class T>\ninline " : o_.header_only ? "inline " : "static inline ";
        out_.add_helpers(text("functions.tpl#sign", {{"head", head},
                                                     {"scalar", scalar()},
                                                     {"zero", single() ? "0.0f" : "0.0"},
                                                     {"one", single() ? "1.0f" : "1.0"}}));
    }
    out_.add_helpers(finite_helpers());
    // The loop Cholesky serves A M^-1 A^T, and M where it is too large to unroll or
    // singular alone (augmented).
    out_.add_helpers(text("cholesky.tpl", {{"scalar", scalar()},
                                               {"template_head", o_.templated ? "template <int n, class T>" : "template <int n>"},
                                               {"math", math()},
                                               {"tolerance", single() ? "1e-12f" : "1e-12"}}));
}

emitted_files emitter::run() {
    common_helpers();
    auto write = [&](char const* name, void (emitter::*function)()) {
        if (wanted(name)) (this->*function)();
    };
    write("mass_matrix", &emitter::mass_matrix);
    write("coriolis_matrix", &emitter::coriolis_matrix);
    write("potential_gradient", &emitter::potential_gradient);
    write("bias_forces", &emitter::bias_forces);
    write("generalized_forces", &emitter::generalized_forces);
    energies();
    // Before the first function whose form depends on it (constraint_terms is not written
    // where the chosen candidate solves the constraints itself).
    write("forward_dynamics", &emitter::choose_forward_dynamics);
    constraint_functions();
    write("forward_dynamics", &emitter::forward_dynamics);
    write("state_derivative", &emitter::state_derivative);
    write("linearization", &emitter::linearization);
    write("inverse_dynamics", &emitter::inverse_dynamics);
    write("inverse_dynamics_regressor", &emitter::regressor);
    if (wanted("inverse_dynamics_regressor_base") || wanted("base_parameters")) base_regressor();
    write("input_matrix", &emitter::input_matrix);
    integrators();
    constraint_state_functions();
    outputs();
    write_deferred();
    check_functions_asked();
    std::vector<stack_figure> figures;
    for (auto const& f : out_.api()) figures.push_back(stack_.figure(f.name));
    std::vector<std::pair<std::string, std::string>> common = {
        {"source", o_.source_name},
        {"ns", m_.name},
        {"nq", std::to_string(d_.nq)},
        {"nu", std::to_string(d_.nu)},
        {"nc", std::to_string(d_.nc)},
        {"names", index_names()},
        {"parameter_fields", parameter_fields()},
        {"declarations", out_.declarations()},
        {"detail", out_.detail_block()},
        {"definitions", out_.definitions()},
        {"header", o_.header_name},
        {"using_math", using_math()},
        {"stack", stack_table(figures)},
        {"parameters_comment", text(o_.fold_parameters ? "comments.tpl#folded_parameters" : "comments.tpl#runtime_parameters")}};
    emitted_files files;
    files.stats = stats_;
    for (auto const& f : out_.api()) files.stack_bounds.push_back({f.name, stack_.bound(f.name)});
    files.stack = figures;
    for (auto const& st : stats_)
        if (stack_.defines(st.name)) files.built_stack.push_back(stack_.figure(st.name));
    files.cse_seconds = cse_seconds_;
    files.forward_dynamics = fd_;
    files.choices = {mass_bias_choice_of(d_), fd_choice_};
    if (!coriolis_choice_.function.empty()) files.choices.push_back(coriolis_choice_);
    if (!inverse_dynamics_choice_.function.empty()) files.choices.push_back(inverse_dynamics_choice_);
    if (!mass_matrix_choice_.function.empty()) files.choices.push_back(mass_matrix_choice_);
    if (d_.base) files.choices.push_back(base_choice());
    for (auto const& st : stats_) files.operations += st.operations_after_cse;
    for (std::size_t f : grouped_) files.operations -= stats_[deferred_[f].stats_index].operations_after_cse;
    files.operations += shared_operations_;
    files.shared_operations = shared_operations_;
    if (o_.c_output) {
        c_output(files);
    } else if (o_.header_only || o_.templated) {
        files.header = text("header_only.hpp.tpl", common);
    } else {
        // The pair's stamp: a hash of both files as written with a placeholder in its place,
        // so that identical runs give identical files.
        std::string const placeholder = "0x0000000000000000ull";
        common.push_back({"stamp", placeholder});
        files.header = text("header.hpp.tpl", common);
        files.source = text("source.cpp.tpl", common);
        if (o_.c_api) c_interface(files);
        std::string const stamp = fmt::format("0x{:016x}ull", stable_hash(files.header + '\0' + files.source));
        for (std::string* f : {&files.header, &files.source})
            for (std::size_t at = f->find(placeholder); at != std::string::npos; at = f->find(placeholder, at))
                f->replace(at, placeholder.size(), stamp);
    }
    return files;
}

} // namespace emitting

std::uint64_t stable_hash(std::string const& text) {
    std::uint64_t h = 14695981039346656037ull; // FNV-1a, 64 bits: the same on every machine
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return h;
}

emitted_files emit(model const& m, derived const& d, emit_options const& options) {
    return emitting::emitter(m, d, options).run();
}

} // namespace lagc
