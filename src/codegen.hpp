// GiNaC expressions → C++ statements: a hash-consed DAG with a canonical operand order
// (GiNaC's own order changes from process to process), common-subexpression elimination
// over all outputs of one function, integer powers as products, round-trip literals.
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace lagc {

// How lagc's symbols are spelled in C++, and which argument each belongs to.
struct symbol_spelling {
    std::string text; // "q[0]", "qd[1]", "u[0]", "p.m", "t"
    std::string argument; // "q", "qd", "u", "p", "t"
};

struct codegen_options {
    std::string scalar = "double"; // the C++ type of every value
    std::string literal_suffix;    // "" for double, "f" for float
    std::string math_prefix = "std::";
};

// One generated function body: `const double sK = ...;` then `target = ...;`.
struct emitted_body {
    std::string text;
    std::vector<std::string> used_arguments; // in first-use order, each once
    std::size_t operations = 0;              // arithmetic operations and calls after CSE
    std::size_t temporaries = 0;
};

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

    // Rewrites sums by pulling common factors out (greedy multivariate Horner: the factor
    // in most terms first), so that m1*l*c + m2*l*c becomes (m1 + m2)*l*c. Returns the new
    // roots; decisions follow the canonical order, so the result is deterministic.
    std::vector<int> factor_sums(std::vector<int> const& roots);

    // Rewrites every sum (product) that contains all terms (factors) of another sum
    // (product) of these roots to use it: with a = x + y, x + y + z becomes a + z. Larger
    // parts first; sums and products are visited in canonical order (deterministic).
    std::vector<int> share_subsets(std::vector<int> const& roots);

    // The value of a node with each variable's C++ spelling ("q[0]", "p.m") given a value:
    // what the printed code computes, for tests of the rewrites above.
    double evaluate(int id, std::map<std::string, double> const& values) const;

    // Operations needed to evaluate these roots if every shared node is computed once.
    std::size_t operation_count(std::vector<int> const& roots) const;
    // Operations of the same roots evaluated as trees, without sharing (before CSE).
    double tree_operation_count(std::vector<int> const& roots) const;

    std::string literal(double v) const;

private:
    enum class op : std::uint8_t { number, variable, neg, add, mul, pow, call };
    struct node {
        op kind;
        std::string text;            // literal, variable or function name
        std::vector<int> args;       // children in canonical order
        std::vector<std::uint8_t> flags; // add: 1 = subtracted; mul: 1 = in the denominator
        int exponent = 0;            // pow: 2 or 3
        std::uint64_t hash = 0;
        int rank = 0;                // sort class
    };

    std::map<std::string, symbol_spelling> const& symbols_;
    std::unordered_map<std::string, std::string> argument_of_; // C++ spelling → argument name
    codegen_options options_;
    std::vector<node> nodes_;
    std::unordered_map<std::uint64_t, std::vector<int>> interned_;
    std::unordered_map<GiNaC::basic const*, int> converted_;
    std::vector<GiNaC::ex> keep_alive_;

    int intern(node n);
    int number(GiNaC::numeric const& v);
    int variable(std::string const& text);
    int negate(int id);
    int make_add(std::vector<std::pair<int, bool>> terms);
    int make_mul(std::vector<std::pair<int, bool>> factors, bool negative);
    int make_pow(int base, long n);
    int make_call(std::string const& name, std::vector<int> args);
    int convert(GiNaC::ex const& e);
    std::pair<int, bool> convert_signed(GiNaC::ex const& e); // (magnitude, negative)
    bool less(int a, int b) const;

    struct product_term {
        bool negative = false;
        std::vector<std::pair<int, bool>> factors; // (node, in denominator), repeated for powers
    };
    // The node again with each child replaced by map(child) (sums and products through
    // make_add and make_mul, so canonical order and signs hold).
    int rebuilt(int id, std::function<int(int)> const& map);
    int factored(int id, std::unordered_map<int, int>& memo);
    int horner(std::vector<product_term> terms);
    int build_term(product_term const& t);

    // The part of the DAG the outputs reach: reference counts, bases of powers, post-order.
    struct reach_result {
        std::vector<int> refs;
        std::vector<char> pow_base;
        std::vector<int> order;
    };
    reach_result reach(std::vector<std::pair<std::string, int>> const& outputs) const;
    bool needs_temporary(reach_result const& r, int id) const;
    static void use(emitted_body& b, std::string const& argument);
    // Records the array an output statement writes ("M[3]" → "M") as used.
    static void use_target(emitted_body& b, std::string const& target);

    std::string print(int id, std::vector<std::string> const& names) const;
    std::string print_operand(int id, std::vector<std::string> const& names, bool in_product) const;
};

} // namespace lagc
