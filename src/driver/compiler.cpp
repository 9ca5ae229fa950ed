// The pipeline, with per-phase timing.
#include "driver/compiler.hpp"

#include "frontend/check.hpp"
#include "derive/derive.hpp"
#include "symbolic/dag.hpp"
#include "frontend/parse.hpp"
#include "driver/stack_budget.hpp"

#include <new>
#include <chrono>
#include <optional>
#include <sstream>
#include <functional>
#include <set>
#include <cmath>

namespace lagc {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
// Every expression of the model the parameters may appear in (T, V, L, D, the Baumgarte gains,
// forces and their points, constraints, outputs), for `f` to read or replace.
template <class Model, class F>
void each_expression(Model& m, F&& f) {
    for (auto* e : {&m.kinetic, &m.potential, &m.lagrangian, &m.dissipation, &m.alpha, &m.beta}) f(*e);
    for (auto& force : m.forces) {
        for (auto& e : force.vec.elems) f(e);
        for (auto& e : force.target.elems) f(e);
    }
    for (auto& c : m.constraints) f(c.residual);
    for (auto& o : m.outputs)
        for (auto& e : o.val.elems) f(e);
}
// --fold-parameters' check: every parameter replaced by its default, exactly, everywhere,
// one parameter at a time so that a default that makes the model undefined (k = 0 under
// 1/k) is reported at its declaration. False (with that error) then.
bool fold_parameters(model& m, diagnostics& diags) {
    for (std::size_t i = 0; i < m.p.size(); ++i) {
        GiNaC::exmap value{{m.p[i], m.parameters[i].exact_value}};
        try {
            each_expression(m, [&](GiNaC::ex& e) { e = substitute(e, value); });
        } catch (std::exception const& e) {
            diags.error(m.parameters[i].where, "--fold-parameters: with its default value, parameter '" +
                                                   m.parameters[i].name + "' makes the model undefined (" + e.what() +
                                                   "); give it a usable default");
            return false;
        }
    }
    return true;
}
// A call of a built-in on numbers alone (asin(2) once a = 2 is folded) whose value is not a
// finite real number, as text; each distinct part visited once.
std::optional<std::string> non_finite_constant(model const& m) {
    std::set<GiNaC::ex, GiNaC::ex_is_less> seen;
    std::optional<std::string> bad;
    std::function<void(GiNaC::ex const&)> visit = [&](GiNaC::ex const& e) {
        if (bad || !seen.insert(e).second) return;
        for (std::size_t i = 0; i < e.nops(); ++i) visit(e.op(i));
        if (!GiNaC::is_a<GiNaC::function>(e) && !GiNaC::is_a<GiNaC::power>(e)) return;
        for (std::size_t i = 0; i < e.nops(); ++i)
            if (!GiNaC::is_a<GiNaC::numeric>(e.op(i))) return;
        GiNaC::ex const v = e.evalf();
        if (!GiNaC::is_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real() ||
            !std::isfinite(GiNaC::ex_to<GiNaC::numeric>(v).to_double())) {
            std::ostringstream text;
            text << e;
            bad = text.str();
        }
    };
    each_expression(m, visit);
    return bad;
}
// --fold-parameters' checks, on a copy of the model (false, with the error, where one fails).
// The model is derived with the parameters as symbols, so that its structure (bodies, points,
// composites) is found as without the option; the emitter folds the values into every
// function it builds.
bool folds_cleanly(model const& m, diagnostics& diags) {
    model folded = m;
    if (!fold_parameters(folded, diags)) return false;
    if (auto bad = non_finite_constant(folded)) {
        diags.error(m.model_span, "--fold-parameters: with the parameters' default values, " + *bad +
                                      " is not a finite number");
        return false;
    }
    return true;
}
// The path as the banner comments show it, inert in every comment form: a control
// character (a newline would end a // comment and let the rest of the path be compiled)
// becomes '?', and so do the '/' of every "*/" (which would close the C header's /* */) and
// the '*' of every "/*" (a comment inside a comment, which -Wcomment reports).
std::string printable(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    for (std::size_t at = text.find("*/"); at != std::string::npos; at = text.find("*/", at)) text[at + 1] = '?';
    for (std::size_t at = text.find("/*"); at != std::string::npos; at = text.find("/*", at)) text[at + 1] = '?';
    return text;
}
} // namespace

// The text as the language reads it: without a UTF-8 byte-order mark (editors on Windows
// write one), and with each lone CR (classic Mac OS line ends) an LF, byte for byte, so a
// CR-only file has its lines and columns.
std::string normalized_source(std::string text) {
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
    return text;
}

compile_result compile(std::string const& raw_text, compile_options const& options) {
    compile_result r;
    std::string const text = normalized_source(raw_text);
    source_file file(options.emit.source_name, text);
    r.diags.set_controls(options.warnings);
    if (text.size() > max_source_bytes) {
        r.diags.error({0, 0}, "the model is larger than " + std::to_string(max_source_bytes >> 20) + " MiB");
        return r;
    }
    auto t0 = std::chrono::steady_clock::now();
    std::vector<failed_statement> failed;
    auto statements = parse(file, r.diags, &failed);
    r.times.parse = seconds_since(t0);
    auto step = [&](char const* what) {
        if (options.progress) options.progress(what);
    };
    step("checking");
    t0 = std::chrono::steady_clock::now();
    check_limits limits = options.limits;
    limits.single_precision = options.emit.scalar == "float" && !options.emit.templated;
    auto m = check(statements, file, r.diags, limits, failed);
    r.times.check = seconds_since(t0);
    if (!m || r.diags.has_errors()) return r;
    if (!options.namespace_name.empty()) m->name = options.namespace_name;
    if (options.emit.scalar == "float" && !options.emit.templated)
        for (auto const& p : m->parameters)
            if (!std::isfinite(static_cast<float>(p.default_value)))
                r.diags.error(p.where, "the default value of '" + p.name + "' does not fit in a float (--scalar float)");
    if (r.diags.has_errors()) return r;
    // --fold-parameters: checked on a copy, derived with symbols, folded by the emitter (emitter::fold).
    if (options.emit.fold_parameters && !folds_cleanly(*m, r.diags)) return r;
    step("deriving the equations of motion");
    t0 = std::chrono::steady_clock::now();
    auto d = derive(*m, r.diags, static_cast<double>(options.max_derivation),
                    options.regressor ? &*options.regressor : nullptr);
    if (d && options.emit.base_regressor) {
        std::string why_not;
        d->base = base_parameters(*m, *d, why_not);
        if (!d->base) r.diags.add(severity::note, m->model_span, "no base parameters (--regressor base): " + why_not);
    }
    r.times.derive = seconds_since(t0);
    if (!d) return r;
    if (!d->coriolis)
        r.diags.note(m->model_span, "coriolis_matrix is not emitted: " + d->coriolis_reason +
                                        " (bias_forces gives h directly)",
                     warning_kind::coriolis);
    t0 = std::chrono::steady_clock::now();
    try {
        emit_options eo = options.emit;
        eo.source_name = printable(eo.source_name);
        eo.header_only = eo.header_only || eo.templated;
        eo.progress = options.progress;
        r.files = emit_within_stack(*m, *d, eo, options.max_stack, options.smallest_stack, m->model_span, r.diags);
    } catch (std::bad_alloc const&) {
        std::string message = options.emit.c_output ? "out of memory while generating C" : "out of memory while generating C++";
        message += " (the functions are too large for this machine's memory; --split and --max-operations bound them)";
        r.diags.error(m->model_span, message);
    } catch (std::exception const& e) {
        std::string message = options.emit.c_output ? "cannot generate C: " : "cannot generate C++: ";
        message += e.what();
        r.diags.error(m->model_span, message);
    }
    r.times.emit = seconds_since(t0);
    // Where M alone is singular, the note ends with how forward_dynamics solves, as written.
    if (r.files && d->singular_mass_note) {
        fd_method const method = r.files->forward_dynamics;
        r.diags.note(d->singular_mass_note->first,
                     d->singular_mass_note->second +
                         (method == fd_method::floating_articulated_body ? " (by the articulated-body algorithm, with no M formed)"
                          : method == fd_method::quasi_velocities      ? " (in quasi-velocities, with no M formed)"
                                                                       : " (with M + rho A^T A)"),
                     warning_kind::singular_mass_matrix);
    }
    if (r.files) {
        r.times.cse = r.files->cse_seconds;
        r.times.emit -= r.times.cse;
    }
    return r;
}

} // namespace lagc
