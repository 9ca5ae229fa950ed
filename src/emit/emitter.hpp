// Stage 4's working state: the emitter writes the generated API one function at a time
// (emit.cpp: the array and scalar functions, dynamics.cpp: forward dynamics and its
// factorisation) through a cxx_printer (the files' frame). Private to stage 4; the
// stage's interface is emit.hpp.
#pragma once

#include "graph/expression_graph.hpp"
#include "emit/cxx_printer.hpp"
#include "emit/dialect.hpp"
#include "emit/stack_bound.hpp"
#include "emit/emit.hpp"

#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <memory>

namespace lagc::emitting {

// The ways coriolis_matrix can be written (choose.cpp: emitter::coriolis_matrix scores them).
enum class coriolis_method {
    christoffel,          // from the Christoffel symbols (derived::coriolis)
    half_bias_derivative, // ½ ∂h/∂q̇ on the code graph
    composite_shares,     // the same with the points' share from their composites' derivatives
    rnea_derivatives_local_axes, // the same with the tree's share from the RNEA derivatives built
                                 // link by link in the bodies' axes (derived::recursive_derivatives)
};
inline constexpr std::array<coriolis_method, 4> coriolis_methods = {
    coriolis_method::christoffel, coriolis_method::half_bias_derivative, coriolis_method::composite_shares,
    coriolis_method::rnea_derivatives_local_axes};
std::string_view name_of(coriolis_method method);

// The ways inverse_dynamics can be written (choose.cpp: emitter::inverse_dynamics scores them).
enum class inverse_dynamics_method {
    composite_sums,         // M q̈ + h − Q as derived::inverse_dynamics holds it (the composites' sums)
    newton_euler_local_axes // the recursive Newton–Euler algorithm in the tree's own axes
};
inline constexpr std::array<inverse_dynamics_method, 2> inverse_dynamics_methods = {
    inverse_dynamics_method::composite_sums, inverse_dynamics_method::newton_euler_local_axes};
std::string_view name_of(inverse_dynamics_method method);

// The ways mass_matrix can be written (choose.cpp: emitter::chosen_mass_matrix scores them).
enum class mass_matrix_method {
    composite_sums,                 // as derived::mass_matrix holds it (the composites' sums)
    composite_rigid_body_local_axes // the composite-rigid-body algorithm in the tree's own axes
};
inline constexpr std::array<mass_matrix_method, 2> mass_matrix_methods = {
    mass_matrix_method::composite_sums, mass_matrix_method::composite_rigid_body_local_axes};
std::string_view name_of(mass_matrix_method method);

// "a = 0, b = 1" and "\"a\", \"b\"" for names and their values (task_space.cpp): the
// C++ header's index structs and name arrays, and the C header's.
std::pair<std::string, std::string> enumerators(std::vector<std::string> const& names,
                                                std::vector<std::size_t> const& values);
// 0, 1, …, n − 1.
std::vector<std::size_t> indices(std::size_t n);

using GiNaC::ex;
using GiNaC::exvector;

// A template's text with named values (emit.hpp's render, shorter).
std::string text(std::string_view template_name, std::vector<std::pair<std::string, std::string>> const& values = {});

// Names in the unrolled factorisation M = L L^T and the solve M x = b: `m`, `l` and `r`
// spell M_ij, L_ij (i > j) and 1/L_jj; `set` goes before an assignment to L or r
// ("const T " for new locals, "" for an array).
struct factor_names {
    std::function<std::string(std::size_t, std::size_t)> m, l;
    std::function<std::string(std::size_t)> r;
    std::string set;
};

// A function's expression graph, its outputs (target, root) after factoring and sharing,
// and its statistics.
struct built_function {
    std::unique_ptr<expression_graph> graph;
    std::vector<std::pair<std::string, int>> roots;
    function_stats stats;
};

// The size from which a function with the composites' derivatives (derived::
// composite_derivatives) is kept without building the forms without them to compare: their
// analytic part costs O(n) 6×6 products, the forward-mode share they replace about 300
// operations per pair of joints, so small functions can be the smaller without them (the
// generic 3- and 4-joint arms' C), larger ones never were (C and the linearization of the
// generic arms 3-12 and the UR5- and Panda-like arms, every bundled model), and building
// every form cost lagc a tenth more time on the 10-joint arm.
constexpr std::size_t composite_alone = 3000;

// Largest nq for which the factorisation is unrolled whatever M's structure (its statements
// grow as nq³/6); beyond it, M is factorised unrolled where its structure (a tree's branches)
// leaves no more products than a dense M of this size has.
constexpr std::size_t unroll_limit = 32;

class emitter {
public:
    emitter(model const& m, derived const& d, emit_options const& o);
    emitted_files run();

private:
    model const& m_;
    derived const& d_;
    emit_options const& o_;
    // C++ or C (-o NAME.c), and the templates rendered in it while this emitter lives.
    dialect dialect_;
    dialect_scope dialect_scope_{dialect_};
    std::map<std::string, symbol_spelling> symbols_;
    stack_bounds stack_; // every definition's arrays and calls, for --stats
    cxx_printer out_;
    std::vector<function_stats> stats_;
    double cse_seconds_ = 0;
    // --fold-parameters: each parameter's exact default, put into every expression a function
    // is built from (fold), but those it is differentiated by (the regressor's).
    GiNaC::exmap folded_;
    exvector fold(exvector const& parts, std::vector<std::string> const& kept = {}) const;
    std::string parameter_literal(double value, bool parenthesized) const;
    // --functions: the API functions this file holds (empty: all); wanted(name) asks.
    std::set<std::string> wanted_;
    bool wanted(std::string const& name) const { return wanted_.empty() || wanted_.count(name) > 0; }

    // -- the API, one function each (emit.cpp) --------------------------------
    void mass_matrix();
    void coriolis_matrix();
    void potential_gradient();
    void bias_forces();
    void generalized_forces();
    void energies();
    void constraint_functions();
    void semi_implicit_system();
    void outputs();
    void check_functions_asked() const;

    // -- forward dynamics (dynamics.cpp) ---------------------------------
    void forward_dynamics();
    // Without constraints and small enough: one function on local values.
    std::string inline_forward_dynamics(built_function& f, std::vector<std::string>& read);
    // The closed form's helpers (dynamics_terms, constraint_terms, forward_dynamics_factored).
    void closed_form_dynamics(std::vector<cxx_argument> const& args);
    // forward_dynamics from a candidate's helper: without constraints checking D's pivots as
    // the factorisation would M's, with them the quasi-velocity form's statuses as well.
    void candidate_forward_dynamics(std::vector<cxx_argument> const& args,
                                    std::vector<std::pair<std::string, std::string>> values);
    void constrained_candidate_forward_dynamics(std::vector<cxx_argument> const& args);

    // -- the method, chosen once, before anything is written (choose.cpp) -------------
    // Scores the closed form against every candidate derive found (derived::forward_dynamics)
    // and keeps the built functions of the winner: fd_ (fd_choice_ says why), and
    // closed_built_ or chosen_built_.
    void choose_forward_dynamics();
    // inverse_dynamics as composite sums or by Newton–Euler in local axes, the smaller.
    built_function chosen_inverse_dynamics();
    // mass_matrix as composite sums or by composite rigid bodies in local axes, the smaller.
    built_function chosen_mass_matrix();
    // Of derive's form and a recursive one (where it applies), the one with fewer operations,
    // traced in `c` (both choices above).
    built_function smaller_form(method_choice& c, std::string_view first, std::string_view second, built_function sums,
                                std::optional<built_function> recursive, std::string const& why);
    // Whether f's roots are finite at two random states (choose.cpp), and which of the two.
    std::array<bool, 2> finite_at_random_states(built_function const& f) const;
    // M's lower triangle, Q − h: as derived, or (recursive) by derived::mass_matrix_recursive
    // and bias_recursive.
    std::vector<std::pair<std::string, exvector>> dynamics_terms_outputs(bool recursive);
    built_function candidate_function(fd_method method, fd_candidate const& c);
    std::size_t closed_form_score(std::size_t terms_operations) const;
    fd_method fd_ = fd_method::closed_form;
    method_choice fd_choice_, coriolis_choice_, inverse_dynamics_choice_, mass_matrix_choice_;
    static method_choice::entry& trace_entry(method_choice& c, std::string_view method);
    fd_candidate const* chosen_ = nullptr; // null: the closed form
    std::optional<built_function> closed_built_, chosen_built_;
    bool closed_inline_ = false; // the closed form fits one function (no constraints, unrolled, small)
    // The chosen candidate solves the constraints itself: no constraint_terms helper.
    bool candidate_solves_constraints() const { return chosen_ && d_.nc > 0; }
    // The lines that factor M + rho A^T A where M alone is singular (d_.mass_singular), for
    // one place (an augment.tpl section; its helpers added once); "" otherwise.
    std::string augmented(char const* section);
    // The same section whether or not M is singular (for the run-time twins).
    std::string augmentation(char const* section, char const* why);
    bool augment_helpers_added_ = false;
    // With constraints and M regular where lagc tried it, a function that factorises M has a
    // twin in detail, `name`_augmented, written from the same template with M + rho A^T A
    // and the loop Cholesky: where M alone is not positive definite at run time (a mass or an
    // inertia set to 0) but [[M, A^T], [A, 0]] is regular, the function returns what its twin
    // returns. `fail` is what it returns otherwise; `call` the twin's arguments.
    // A one-line section without its line end, for a place inside a line.
    static std::string one_line(std::string s) {
        while (!s.empty() && s.back() == '\n') s.pop_back();
        return s;
    }
    bool regularizes_at_run_time() const { return d_.nc > 0 && !d_.mass_singular; }
    std::string on_singular_mass(std::string const& name, std::string const& call, char const* fail) const;
    // The values of a function's template for its twin: the loop Cholesky, the augmentation's
    // sections put in their places, and `fail` where the factorisation fails.
    std::vector<std::pair<std::string, std::string>>
    twin_values(std::vector<std::pair<std::string, std::string>> values,
                std::vector<std::pair<std::string, std::string>> const& augment_sections, char const* fail);
    // Defines the twin NAME_augmented (cold, never inlined) with this body.
    void define_augmented_twin(std::string const& name, std::string const& result, std::vector<cxx_argument> const& args,
                               std::vector<std::string> const& used, std::string const& body);
    // forward_dynamics is a wrapper of detail::forward_dynamics_factored (large models
    // without constraints), which linearization calls for q̈ and M's factor.
    bool forward_dynamics_factored_ = false;
    // How the generated code factors M and solves with it, wherever it does (forward
    // dynamics, linearization, project_state): unrolled over M's structure up to nq = 32
    // (detail::factor_mass_matrix and detail::solve_mass_matrix, added once, here, when
    // first asked for); the loop forms beyond, and where M alone is singular (augmented,
    // which fills it in).
    struct factorisation {
        bool unrolled;
        std::string factor, solve;
    };
    bool unrolls_mass_matrix() const;
    mutable std::optional<bool> unrolls_; // unrolls_mass_matrix, once found
    factorisation mass_factorisation();
    std::string mass_solve(factorisation const& mf);
    bool unrolled_helpers_added_ = false, unrolled_solve_added_ = false;
    unsigned block_solves_added_ = 0; // the widths (2, 4, 8) whose solve_mass_matrix_xW is written
    // The order the factorisation eliminates M's rows in (the coordinates', or the reverse
    // where that fills in less), and L's non-zeros in that order: M's plus fill-in, row-major.
    std::vector<std::size_t> const& elimination_order() const;
    std::vector<char> const& factor_structure() const;
    mutable std::vector<std::size_t> order_;
    mutable std::vector<char> structure_;
    mutable std::vector<char> stored_; // M's lower-triangle entries the factorisation reads (M's, and rho A^T A's)
    std::vector<char> augmented_entries() const; // where rho A^T A adds to M (M singular)
    std::pair<std::string, std::string> unrolled_augmentation() const;
    std::string factor_statements(factor_names const& names) const;
    // Forward substitution L z = v over L's structure, in the elimination order: `const T
    // name(i) = (v(i) − Σ L_ik z_k) r_i` for every z_i that is not a structural zero (v(i)
    // is "" where the right-hand side has one); which z_i were written, by coordinate.
    std::vector<char> forward_substitution(factor_names const& names, std::function<std::string(std::size_t)> const& v,
                                           std::function<std::string(std::size_t)> const& name, std::string& out) const;
    // Backward substitution Lᵀ x = z: `const T name(i) = (start(i) − Σ L_ki x_k) r_i`.
    void backward_substitution(factor_names const& names, std::function<std::string(std::size_t)> const& start,
                               std::function<std::string(std::size_t)> const& name, std::string& out) const;
    std::string scaled_step(std::string const& name, std::string const& value, std::string const& r) const;
    std::string solve_statements(factor_names const& names, std::function<std::string(std::size_t)> const& b,
                                 std::function<std::string(std::size_t)> const& out) const;
    std::string finite_check(std::size_t count, std::function<std::string(std::size_t)> const& value) const;
    std::string pivot_check(std::size_t begin, std::size_t end, int status) const;
    std::string unrolled_cholesky() const;
    std::string unrolled_block_solve(std::size_t width) const;
    static std::string block_solve_name(std::size_t width);
    // The calls that solve `count` columns, from column `first` of J into column `first` of
    // `target` (row stride `stride`), eight at a time, then four, then two; adds the helpers
    // they call.
    std::string block_solve_calls(std::size_t first, std::size_t count, std::string const& target,
                                  std::string const& stride);
    std::string linearization_columns(factorisation const& mf, std::string const& coriolis);
    std::vector<std::size_t> unit_input_columns() const;
    std::string unrolled_inverse_columns(std::vector<std::size_t> const& pi) const;
    std::string block_solve_statements(factor_names const& names, std::size_t width,
                                       std::function<std::string(std::size_t, std::size_t)> const& b,
                                       std::function<std::string(std::size_t, std::size_t)> const& out) const;
    // forward_dynamics' solve with constraints, unrolled (constrained_solve.cpp).
    std::string unrolled_constrained_solve() const;
    // "A[i * nq + j]" and "A[j * nq + j]": M or L in a row-major array; "b[i]": a vector.
    std::function<std::string(std::size_t, std::size_t)> in_array(char const* array) const;
    std::function<std::string(std::size_t)> diagonal_of(char const* array) const;
    static std::function<std::string(std::size_t)> element_of(char const* array);

    // -- the C interface (c_api.cpp) and the C output (c_dialect.cpp) ----------------
    void c_interface(emitted_files& files) const;
    // The C header: the C interface's, also the C output's; the definitions of its name arrays.
    std::string c_header(std::string& name_definitions) const;
    void c_output(emitted_files& files) const;
    void c_names(std::string& indices, std::string& definitions) const;
    std::string constrained_linearization_tail(std::vector<std::pair<std::string, std::string>> const& values,
                                               std::vector<cxx_argument> const& args);
    std::string c_array_sizes(std::string const& function, std::vector<cxx_argument> const& args) const;

    // -- task space and state handling (task_space.cpp) -------------------------
    std::string index_names() const;
    void constraint_state_functions();

    // -- the control API (control.cpp) ------------------------------------
    void state_derivative();
    void linearization();
    built_function chosen_linearization_terms(
        std::function<built_function(derived::composite_derivatives const*, char const*)> const& terms);
    void inverse_dynamics();
    void regressor();
    void base_regressor(); // base_regressor.cpp
    std::string base_groupings(std::string const& prefix) const;
    std::string base_names() const;
    method_choice base_choice() const;
    void input_matrix();
    void integrators();
    // [t,] x, u, p: the state as one array (in place for the integrators).
    std::vector<cxx_argument> state_arguments(bool in_place) const;
    // What goes before a helper function: "template <class T>\ninline ", "inline ", or
    // "static " in a .cpp file (internal linkage, see cxx_printer::define); "static inline "
    // with --functions, where a helper written for several functions may have no caller.
    std::string helper_linkage() const {
        if (!o_.templated && !o_.header_only) return o_.functions.empty() ? "static " : "static inline ";
        return std::string(o_.templated ? "template <class T>\n" : "") + "inline ";
    }

    // -- building and writing functions (emit.cpp) ----------------------------
    template <class F>
    auto timed(F f) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = f();
        cse_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    std::string scalar() const { return o_.templated ? "T" : o_.scalar; }
    // Parameters stay concrete when templated (T mixes with double, as dual numbers do).
    std::string parameter_scalar() const { return o_.templated ? "double" : o_.scalar; }
    std::string math() const { return o_.templated || o_.c_output ? "" : "std::"; }
    bool single() const { return !o_.templated && o_.scalar == "float"; }
    // unit_scales: sums' unit scales (codegen_options::scales), else none or decimal.
    codegen_options codegen(bool unit_scales = true) const;
    std::vector<cxx_argument> inputs(std::initializer_list<char const*> names) const;
    std::vector<cxx_argument> with_output(std::vector<cxx_argument> a, std::string const& out) const;
    // h_i, or Q_i - h_i, as parts: derived::bias_compact where there is one, unless the parts
    // are to be differentiated.
    std::vector<std::pair<std::string, exvector>> bias_parts(bool negated, bool differentiated = false) const;

    built_function build(std::string const& name, std::vector<std::pair<std::string, exvector>> const& outputs,
                         std::string const& form = {}, bool unit_scales = true);
    built_function build(std::string const& name, std::vector<std::pair<std::string, ex>> const& outputs);
    // `form`, when given, tells --progress which of two forms of one function this is.
    built_function build_jacobian(std::string const& name, std::vector<exvector> const& rows,
                                  std::vector<std::string> const& variables, std::string const& array, bool negated,
                                  std::string const& form = {});
    // Columns of one Jacobian from different rows: each block's rows along its variables;
    // array[r * m + c], c counted across the blocks in order (m columns in all).
    struct jacobian_columns {
        std::vector<exvector> const& rows;
        std::vector<std::string> variables;
        // Added to the derivatives, row-major (variables per row): the first added->size() /
        // variables rows (R's nq rows where the rows go on with the constraints' S).
        exvector const* added = nullptr;
    };
    built_function build_jacobian(std::string const& name, std::vector<jacobian_columns> const& blocks,
                                  std::string const& array, bool negated, std::string const& form = {});
    // The rewrites and the statistics (seconds counted from `start`, when building began).
    void finish(built_function& f, std::string const& name, std::vector<int> ids, std::vector<std::string> const& targets,
                std::chrono::steady_clock::time_point start);
    // The spellings of q, q̇ and u ("q[0]", …), in that order.
    std::vector<std::string> spellings(std::initializer_list<char const*> arrays) const;
    // A function writing its outputs' arrays, or (result not "void") returning its one
    // output; cut into parts (detail helpers) when large.
    void write_function(built_function f, std::vector<cxx_argument> const& args, std::string const& comment,
                        cxx_printer::place where, std::string const& result = "void");
    // Functions cut into parts wait until every function is built (their places marked in
    // the printer): then their parts are emitted together (expression_graph::emit_shared,
    // shared_parts.cpp), a value that several of them need computed once, in a part each of
    // them calls.
    struct deferred_function {
        built_function f;
        std::vector<cxx_argument> args;
        std::string comment;
        cxx_printer::place where;
        std::size_t stats_index;
        std::string result = "void"; // else the type of the one output it returns
        bool returns() const { return result != "void"; }
        // Another form of the function for where it shares parts with the others, taken when
        // f alone has more operations than shared_form_above (energies()).
        std::function<built_function()> shared_form;
        std::size_t shared_form_above = 0;
    };
    std::vector<deferred_function> deferred_;
    static std::string definition_marker(std::size_t k);
    static std::string parts_marker(std::size_t k);
    void write_deferred();
    // members: indices into deferred_; budget: the operations of a part at most
    void write_group(std::vector<std::size_t> const& members, std::size_t budget);
    std::size_t shared_parts_ = 0; // shared_partK written so far
    // The operations of the functions written in parts (write_group), each value once, and
    // which those functions are (emitted_files::operations).
    std::size_t shared_operations_ = 0;
    std::vector<std::size_t> grouped_;
    void array_function(std::string const& name, std::vector<cxx_argument> const& args,
                        std::vector<std::pair<std::string, ex>> const& outputs);
    std::string parameter_fields() const;
    std::string using_math() const;
    std::string finite_helpers() const;
    std::string angle_helpers() const; // detail::reduce_angle (--target mcu)
    void common_helpers(); // what every file's detail block starts with (run())
    // The header's table of stack needs (stack.tpl), from every function written.
    std::string stack_table(std::vector<stack_figure> const& figures) const;
};

// array[0] = v[0], ... as (target, expression) pairs.
std::vector<std::pair<std::string, ex>> entries(std::string const& array, exvector const& v);

} // namespace lagc::emitting
