// GiNaC expressions → C++ statements: a hash-consed DAG with a canonical operand order
// (GiNaC's own order changes from process to process), common-subexpression elimination
// over all outputs of one function, integer powers as products, round-trip literals.
// The class's work is in four files, one job each: expression_graph.cpp (the DAG's nodes, canonical
// order, evaluating and printing nodes), from_ginac.cpp (GiNaC expressions into nodes),
// rewrites.cpp (factoring sums, sharing parts of sums and products) and schedule.cpp (one
// statement sequence per function, printed whole or cut into parts).
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace lagc {

// A number an expression holds exactly that the scalar type cannot (past 1.8e308 in a
// double): thrown while converting, so that a check can fail instead of the run
// (samples::add) and the derivation can say why (derive()).
struct constant_out_of_range : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct builtin; // builtins.hpp

// How lagc's symbols are spelled in C++, and which argument each belongs to.
struct symbol_spelling {
    std::string text; // "q[0]", "qd[1]", "u[0]", "p.m", "t"
    std::string argument; // "q", "qd", "u", "p", "t"
};

struct codegen_options {
    std::string scalar = "double"; // the C++ type of every value
    std::string literal_suffix;    // "" for double, "f" for float
    std::string math_prefix = "std::";
    // Printed as C (the C output): calls unqualified (sin, sign), <cmath>'s with math_suffix
    // ("f" for float: sinf), p.NAME as p->NAME. Only the printing changes: the nodes, their
    // order and so every statement are the C++ output's, which the C's values equal bit for bit.
    bool c_spelling = false;
    std::string math_suffix;
    // Where not empty, the helper each sin and cos argument goes through (--target mcu:
    // "detail::reduce_angle", "reduce_angle" in C).
    std::string reduce_angle;
    // How a sum that is a factor is converted (convert_unit_scaled): at the scale most of its
    // coefficients have (unit), as GiNaC keeps it with its integer content taken out (none),
    // or as that with only a power of ten beyond 10^±6 taken out (decimal). The
    // articulated-body algorithm's sums nest level after level: at unit scales their scales
    // compound into factors that cost a multiplication each and cancel nothing, so it takes
    // none in double; in float (and templates, which may be float) a 17-digit decimal's
    // content would leave factors like 1e+34 that overflow, so decimal.
    enum class sum_scales { unit, decimal, none };
    sum_scales scales = sum_scales::unit;
    // For a graph that is only evaluated (the derivation's checks at random states): sums as
    // GiNaC keeps them, the scales' exact arithmetic skipped (it moves no value).
    static codegen_options for_values() {
        codegen_options o;
        o.scales = sum_scales::none;
        return o;
    }
};

// One generated function body: `const double sK = ...;` then `target = ...;`.
struct emitted_body {
    std::string text;
    std::vector<std::string> used_arguments; // in first-use order, each once
    std::size_t operations = 0;              // arithmetic operations and calls after CSE
    std::size_t temporaries = 0;
};

// A call's function without its prefix: "sin" of "std::sin" and "detail::sign".
inline std::string call_name(std::string const& text) {
    std::size_t const colon = text.rfind("::");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

class expression_graph {
public:
    expression_graph(std::map<std::string, symbol_spelling> const& symbols, codegen_options options);

    int add(GiNaC::ex const& e);
    // The sum of several expressions, each kept as its own node (not merged into one sum),
    // so that a part shared by several outputs is found and computed once.
    int add_parts(std::vector<GiNaC::ex> const& parts);

    // Statements assigning outputs[i].second to outputs[i].first, sharing every
    // repeated subexpression; `indent` precedes each line.
    emitted_body emit(std::vector<std::pair<std::string, int>> const& outputs, std::string const& indent) const;

    // The same statements cut into parts of at most `budget` operations, for functions too
    // large to compile quickly. Every value is still computed once: a temporary used by a
    // later part is stored in the scratch array `w` (its size is returned in scratch).
    std::vector<emitted_body> emit_parts(std::vector<std::pair<std::string, int>> const& outputs,
                                         std::string const& indent, std::size_t budget, std::size_t& scratch) const;

    // Several functions' statements at once (outputs[f]: function f's), every value that
    // two of them need computed once (shared_schedule.cpp). Each statement belongs to the set
    // of functions that need it; the sets run largest first (a value needs only values of
    // larger sets: every function that needs it needs them), each cut into parts of at most
    // `budget` operations, so that function f runs, in order, the parts whose set holds f.
    // A value read by another part goes through the scratch array w; a slot is used again
    // once the value in it has been read for the last time by any part.
    struct function_part {
        emitted_body body;
        std::uint64_t functions = 0; // bit f: function f runs this part
        std::size_t scratch = 0;     // the size of w it reads and writes
    };
    struct shared_emission {
        std::vector<function_part> parts;
        std::vector<std::size_t> scratch; // per function: the size of w it needs (0: none)
        std::size_t operations = 0;       // of all parts, each value once
    };
    shared_emission emit_shared(std::vector<std::vector<std::pair<std::string, int>>> const& outputs,
                             std::string const& indent, std::size_t budget) const;

    // The node of another graph (built over the same symbols) in this one, interned, so that
    // equal expressions of several functions become one node. memo: `from`'s nodes → this
    // graph's, -1 where not imported yet (sized to from's nodes by the first call).
    int import(expression_graph const& from, int id, std::vector<int>& memo);

    // Rewrites sums by pulling common factors out (greedy multivariate Horner: the factor
    // in most terms first), so that m1*l*c + m2*l*c becomes (m1 + m2)*l*c. Returns the new
    // roots; decisions follow the canonical order, so the result is deterministic.
    std::vector<int> factor_sums(std::vector<int> const& roots);

    // Rewrites every sum (product) that contains all terms (factors) of another sum
    // (product) of these roots to use it: with a = x + y, x + y + z becomes a + z. Larger
    // parts first; sums and products are visited in canonical order (deterministic).
    std::vector<int> share_subsets(std::vector<int> const& roots);

    // Whether a number of a graph without sum scales (for_values) was too small for a double
    // and is held as 0 or a subnormal: its values may be wrong, its checks cannot judge.
    bool underflowed() const { return underflowed_; }

    // ∂root/∂variable for every root and variable, row-major (roots × variables), by the
    // chain rule on the DAG (differentiate.cpp); an identically zero entry is the number 0.
    std::vector<int> jacobian(std::vector<int> const& roots, std::vector<int> const& variables);
    // A variable's derivative along another given (a node): jacobian() takes it instead of
    // 0, so that ∂/∂t with ∂q_k/∂t = δ_k is one directional derivative Σ_k ∂/∂q_k δ_k.
    void set_tangent(int variable, int along, int tangent) { tangents_[{variable, along}] = tangent; }
    // a + b (either may be the number 0).
    int plus(int a, int b);
    // The node of the variable spelled so ("q[3]").
    int variable_node(std::string const& spelling);

    // The value of a node with each variable's C++ spelling ("q[0]", "p.m") given a value:
    // what the printed code computes, for tests of the rewrites above.
    double evaluate(int id, std::map<std::string, double> const& values) const;
    // The values of several roots at once, each shared node evaluated once (linear in the
    // size of the graph, for large models): values[k] is the value of variable_node k's
    // spelling as given in `variables`, in that order.
    std::vector<double> evaluate_all(std::vector<int> const& roots, std::vector<std::string> const& variables,
                                     std::vector<double> const& values) const;
    // evaluate_all's every node value (in its program's order), to give evaluate_changed.
    std::vector<double> evaluate_program(std::vector<int> const& roots, std::vector<std::string> const& variables,
                                         std::vector<double> const& values) const;
    // evaluate_all's result where only the variables `changed` (indices into `variables`)
    // differ from the point whose node values `base` holds (evaluate_program's, same roots
    // and variables): only the nodes that depend on them are evaluated again, by the same
    // operations, so the values are evaluate_all's bit for bit.
    std::vector<double> evaluate_changed(std::vector<int> const& roots, std::vector<std::string> const& variables,
                                         std::vector<double> const& values, std::vector<double> const& base,
                                         std::vector<std::size_t> const& changed) const;

    // Operations needed to evaluate these roots if every shared node is computed once.
    std::size_t operation_count(std::vector<int> const& roots) const;
    // Operations of the same roots evaluated as trees, without sharing (before CSE).
    double tree_operation_count(std::vector<int> const& roots) const;
    // Σ over the operations the roots reach of how many of `variables` (spellings) each
    // depends on: the size of their forward-mode derivatives along all of those variables.
    double derivative_work(std::vector<int> const& roots, std::vector<std::string> const& variables) const;

    std::string literal(double v) const;

private:
    enum class op : std::uint8_t { number, variable, neg, add, mul, pow, call };
    // The canonical order sorts nodes by kind first, in this order (then by text or structure).
    static constexpr int rank_of(op k) {
        switch (k) {
        case op::number: return 0;
        case op::variable: return 1;
        case op::call: return 2;
        case op::pow: return 3;
        case op::neg: return 4;
        case op::mul: return 5;
        case op::add: return 6;
        }
        return 7;
    }
    // Arithmetic operations a node costs (a division counts as one; x^n is n - 1 products).
    static constexpr std::size_t cost_of(op k, std::size_t args, int exponent) {
        switch (k) {
        case op::number:
        case op::variable: return 0;
        case op::neg:
        case op::call: return 1;
        case op::add:
        case op::mul: return args - 1;
        case op::pow: return static_cast<std::size_t>(exponent - 1);
        }
        return 0;
    }
    struct node {
        op kind;
        std::string text;            // literal, variable or function name
        std::vector<int> args;       // children in canonical order
        std::vector<std::uint8_t> flags; // add: 1 = subtracted; mul: 1 = in the denominator
        int exponent = 0;            // pow: 2 or 3
        std::uint64_t hash = 0;
        double value = 0;            // number: its value, read once (evaluate_all)
        builtin const* function = nullptr; // call: the built-in, looked up once
    };
    std::size_t cost(node const& n) const { return cost_of(n.kind, n.args.size(), n.exponent); }
    template <class Operand, class Variable>
    double value_of(node const& n, Operand arg, Variable variable) const;

    std::map<std::string, symbol_spelling> const& symbols_;
    std::unordered_map<std::string, std::string> argument_of_; // C++ spelling → argument name
    codegen_options options_;
    bool underflowed_ = false;
    std::vector<node> nodes_;
    // Node `id`. A reference into nodes_, which grows while rewrites add nodes: read it
    // again after anything that may add one, do not hold it across.
    node const& node_at(int id) const { return nodes_[static_cast<std::size_t>(id)]; }
    // Hash → the last node interned with it; same_hash_[id] → the one before (or -1): one
    // map entry per hash and no allocation per node.
    std::unordered_map<std::uint64_t, int> interned_;
    std::vector<int> same_hash_;
    std::unordered_map<std::uint64_t, int> numbers_; // bits of a double → its number node
    std::map<std::pair<int, int>, int> tangents_;    // (variable, along) → its derivative
    std::unordered_map<GiNaC::basic const*, int> converted_;
    std::unordered_map<GiNaC::basic const*, std::pair<GiNaC::numeric, int>> unit_scaled_;
    std::vector<GiNaC::ex> keep_alive_;
    // evaluate_all's last roots and variables, and the nodes they need, children first, each
    // with its children's places in that list (and a variable's index): callers evaluate the
    // same roots at many points.
    struct program_step {
        int id;
        int variable = -1;
        std::vector<int> args;
    };
    mutable std::vector<int> evaluated_roots_;
    mutable std::vector<std::string> evaluated_variables_;
    mutable std::vector<program_step> program_;
    mutable std::vector<int> root_places_;
    void compile_program(std::vector<int> const& roots, std::vector<std::string> const& variables) const;

    int intern(node n);
    int intern(op kind, std::string const& text, int const* args, std::uint8_t const* flags, std::size_t count,
               int exponent, node* spare = nullptr);
    // Scratch operands for make_add and make_mul (not reentrant: filled, then interned).
    std::vector<int> args_;
    std::vector<std::uint8_t> flags_;
    int number(GiNaC::numeric const& v);
    int number_of(double v); // the node of a double (number's, once it is one)

    void gather_like_terms(std::vector<std::pair<int, bool>>& terms);
    int variable(std::string const& text);
    int negate(int id);
    int make_add(std::vector<std::pair<int, bool>> terms);
    int make_mul(std::vector<std::pair<int, bool>> factors, bool negative);
    int make_pow(int base, long n);
    int make_call(std::string const& name, std::vector<int> args);
    int convert(GiNaC::ex const& e);
    std::pair<GiNaC::numeric, int> convert_unit_scaled(GiNaC::ex const& sum);
    int convert_product(GiNaC::ex const& e, GiNaC::numeric const& scale = 1);
    void product_factor(GiNaC::ex const& f, GiNaC::numeric& coefficient, std::vector<std::pair<int, bool>>& factors);
    // A factor that is a sum, or a small power of one (positive or negative) whose scale fits
    // a double: the scale it brings into its product (kⁿ, or k⁻ⁿ for a denominator), the node
    // of the sum at its natural scale, n (1 for a sum), and whether it divides; nothing for
    // another factor. What product_factor converts, and what a sum around such products
    // counts (convert_unit_scaled).
    struct scaled_sum {
        GiNaC::numeric scale;
        int node;
        long exponent;
        bool denominator = false;
    };
    std::optional<scaled_sum> scaled_sum_factor(GiNaC::ex const& f);
    std::optional<GiNaC::numeric> pair_scale(GiNaC::expair const& p);
    int product_with(std::vector<std::pair<int, bool>> factors, GiNaC::numeric coefficient);
    std::pair<int, bool> convert_scaled_term(GiNaC::ex const& t, GiNaC::numeric const& scale);
    std::pair<int, bool> convert_term(GiNaC::expair const& p, GiNaC::numeric const& scale);
    // differentiate.cpp; -1 stands for an identically zero derivative.
    int derivative(int id, int variable, std::vector<int>& memo);
    int product_derivative(node const& n, int variable, std::vector<int>& memo);
    int call_derivative(int id, node const& n, int variable, std::vector<int>& memo);
    class derivative_builder; // the graph as builtins.cpp's derivative rules see it
    int sum_of(std::vector<std::pair<int, bool>> terms);                    // -1 terms dropped
    int product_of(std::vector<std::pair<int, bool>> factors, bool negative); // -1 if any factor is
    std::pair<int, bool> convert_signed(GiNaC::ex const& e); // (magnitude, negative)
    bool less(int a, int b) const;
    // The order of a product's factors (node, in the denominator): numerators first, then
    // canonical order.
    bool factor_less(std::pair<int, bool> const& a, std::pair<int, bool> const& b) const {
        if (a.second != b.second) return a.second < b.second;
        return less(a.first, b.first);
    }

    struct product_term {
        bool negative = false;
        std::vector<std::pair<int, bool>> factors; // (node, in denominator), repeated for powers
    };
    // The node again with each child replaced by map(child) (sums and products through
    // make_add and make_mul, so canonical order and signs hold).
    int rebuilt(int id, std::function<int(int)> const& map);
    int factored(int id, std::vector<int>& memo);
    int horner(std::vector<product_term> terms);
    std::pair<std::pair<int, bool>, int> most_common_factor(std::vector<product_term> const& terms) const;
    int build_term(product_term const& t);

    // The part of the DAG the outputs reach: reference counts, bases of powers, post-order.
    struct reach_result {
        std::vector<int> refs;
        std::vector<char> pow_base;
        std::vector<int> order;
    };
    reach_result reach(std::vector<std::pair<std::string, int>> const& outputs) const;
    bool needs_temporary(reach_result const& r, int id) const;

    // One statement of a function body: a temporary's definition or an output's assignment.
    struct statement {
        int id = 0;
        int output = -1;               // index into the outputs, or -1 for a temporary
        std::vector<int> temps;        // temporaries it reads
        std::vector<std::string> args; // arguments it reads
        std::size_t ops = 0;
    };
    // The one order of a function's statements, which emit prints whole and emit_parts
    // cuts: temporaries in post-order with calls (and what they need) first, every output
    // right after the last temporary it reads.
    std::vector<statement> schedule(std::vector<std::pair<std::string, int>> const& outputs) const;
    void describe(statement& st, reach_result const& reached, int root, bool defines) const;
    // emit_shared's text: the statements in `order` (indices into sequence), each in its part.
    void write_shared(std::vector<statement> const& sequence, std::vector<std::size_t> const& order,
                      std::vector<std::size_t> const& part_of, std::vector<std::pair<std::string, int>> const& outputs,
                      std::string const& indent, shared_emission& out) const;
    // For share_subsets: which earlier sums (products) each sum (product) contains.
    struct shared_part {
        int id;
        bool flipped; // a sum whose terms all appear with opposite signs: subtract it
    };
    struct shared_choice {
        std::vector<shared_part> parts;
        std::vector<char> covered; // operands of the node the parts stand for
    };
    std::unordered_map<int, shared_choice> find_shared_parts(std::vector<int> const& roots) const;
    shared_choice covering(node const& n, std::vector<shared_part> subsets, std::vector<int> const& rank) const;
    std::vector<int> share_candidates(std::vector<int> const& roots) const;
    static void use(emitted_body& b, std::string const& argument);
    // Records the array an output statement writes ("M[3]" → "M") as used.
    static void use_target(emitted_body& b, std::string const& target);

    std::string print(int id, std::vector<std::string> const& names) const;
    std::string print_operand(int id, std::vector<std::string> const& names, bool in_product) const;
};

} // namespace lagc
