// Rewrites of the expression DAG that make the generated code smaller: common factors out
// of sums (greedy multivariate Horner, sin² + cos² = 1) and sums and products that reuse a
// smaller sum or product already computed. Both have fixed work budgets (docs/cli.md).
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <functional>

namespace lagc {

int expression_graph::build_term(product_term const& t) {
    // Repeated factors become powers again (x*x → x², shared by CSE).
    std::vector<std::pair<int, bool>> factors;
    for (std::size_t i = 0; i < t.factors.size();) {
        std::size_t j = i;
        while (j < t.factors.size() && t.factors[j] == t.factors[i]) ++j;
        int f = t.factors[i].first;
        if (j - i > 1) f = make_pow(f, static_cast<long>(j - i));
        factors.push_back({f, t.factors[i].second});
        i = j;
    }
    return make_mul(std::move(factors), t.negative);
}

// Sums with more terms than this are left as they are (each step of the greedy search
// scans every term, and a step removes at least one: quadratic).
constexpr std::size_t horner_limit = 2000;
// The same for the work of the whole search, terms × factors in all terms: a sum of n
// products of n factors (the derivative of a product of n sines) costs n³.
constexpr double horner_work_limit = 1e7;

// In how many terms each factor occurs: the most frequent one (canonically first on a
// tie) and its count, counted as runs of equal factors once every term's distinct factors
// are sorted; ({-1, false}, 1) when none occurs twice.
std::pair<std::pair<int, bool>, int> expression_graph::most_common_factor(std::vector<product_term> const& terms) const {
    using key = std::pair<int, bool>;
    std::vector<key> occurrences;
    for (auto const& t : terms)
        for (std::size_t i = 0; i < t.factors.size(); ++i)
            if (i == 0 || t.factors[i] != t.factors[i - 1]) occurrences.push_back(t.factors[i]);
    std::sort(occurrences.begin(), occurrences.end());
    key best{-1, false};
    int best_count = 1;
    for (std::size_t i = 0; i < occurrences.size();) {
        std::size_t j = i;
        while (j < occurrences.size() && occurrences[j] == occurrences[i]) ++j;
        key const& k = occurrences[i];
        int const c = static_cast<int>(j - i);
        if (c > best_count || (c == best_count && best.first >= 0 && factor_less(k, best))) best = k, best_count = c;
        i = j;
    }
    return {best, best_count};
}

int expression_graph::horner(std::vector<product_term> terms) {
    if (terms.size() == 1) return build_term(terms[0]);
    double factors = 0;
    for (auto const& t : terms) factors += static_cast<double>(t.factors.size());
    if (terms.size() > horner_limit || static_cast<double>(terms.size()) * factors > horner_work_limit) {
        std::vector<std::pair<int, bool>> built;
        for (auto const& t : terms) built.push_back({build_term(t), false});
        return make_add(std::move(built));
    }
    using key = std::pair<int, bool>;
    auto const [best, best_count] = most_common_factor(terms);
    if (best_count < 2) {
        // sin(u)² + cos(u)² = 1 (Horner has already taken any common factor out).
        auto square_of = [&](product_term const& t, char const* fn) {
            if (t.factors.size() != 2 || t.factors[0] != t.factors[1] || t.factors[0].second) return -1;
            node const& f = node_at(t.factors[0].first);
            return f.kind == op::call && f.text == options_.math_prefix + fn ? f.args[0] : -1;
        };
        for (std::size_t i = 0; i < terms.size(); ++i) {
            int u = square_of(terms[i], "sin");
            if (u < 0) continue;
            for (std::size_t j = 0; j < terms.size(); ++j)
                if (square_of(terms[j], "cos") == u && terms[j].negative == terms[i].negative) {
                    terms[i].factors.clear();
                    terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(j));
                    if (j < i) --i;
                    break;
                }
        }
        if (terms.size() == 1) return build_term(terms[0]);
        std::vector<std::pair<int, bool>> built;
        for (auto const& t : terms) built.push_back({build_term(t), false});
        return make_add(std::move(built));
    }
    std::vector<product_term> with, rest;
    for (auto& t : terms)
        (std::find(t.factors.begin(), t.factors.end(), best) != t.factors.end() ? with : rest).push_back(std::move(t));
    // The factors common to all of them (with multiplicity), taken out together.
    std::vector<key> common = with[0].factors;
    for (std::size_t k = 1; k < with.size(); ++k) {
        std::vector<key> both;
        std::vector<key> const& f = with[k].factors;
        std::vector<char> taken(f.size(), 0);
        for (auto const& c : common)
            for (std::size_t i = 0; i < f.size(); ++i)
                if (!taken[i] && f[i] == c) {
                    taken[i] = 1;
                    both.push_back(c);
                    break;
                }
        common = std::move(both);
    }
    for (auto& t : with)
        for (auto const& c : common) t.factors.erase(std::find(t.factors.begin(), t.factors.end(), c));
    int inner = horner(std::move(with));
    product_term combined;
    combined.factors = common;
    combined.factors.push_back({inner, false});
    std::sort(combined.factors.begin(), combined.factors.end(), [&](key const& a, key const& b) { return factor_less(a, b); });
    rest.push_back(std::move(combined));
    return horner(std::move(rest));
}

int expression_graph::rebuilt(int id, std::function<int(int)> const& map) {
    op const kind = node_at(id).kind;
    if (kind == op::number || kind == op::variable) return id;
    // nodes_ grows while children are mapped: the node is read by index, not by reference.
    std::size_t const size = node_at(id).args.size();
    std::vector<std::pair<int, bool>> operands;
    operands.reserve(size);
    bool changed = false;
    for (std::size_t i = 0; i < size; ++i) {
        int const a = node_at(id).args[i];
        int const m = map(a);
        changed = changed || m != a;
        operands.push_back({m, node_at(id).flags[i] != 0});
    }
    // Every node is already in canonical form (made by make_add, make_mul, make_pow,
    // negate): with the same children it would be built again as itself.
    if (!changed) return id;
    switch (kind) {
    case op::number:
    case op::variable: return id;
    case op::neg: return negate(operands[0].first);
    case op::pow: return make_pow(operands[0].first, node_at(id).exponent);
    case op::call: {
        node c = node_at(id);
        for (std::size_t i = 0; i < size; ++i) c.args[i] = operands[i].first;
        return intern(std::move(c));
    }
    case op::add: return make_add(std::move(operands));
    case op::mul: return make_mul(std::move(operands), false);
    }
    return id;
}

int expression_graph::factored(int id, std::vector<int>& memo) {
    if (int const done = memo[static_cast<std::size_t>(id)]; done >= 0) return done;
    // nodes_ grows while children are factored: the node is read by index, not by reference.
    op const kind = node_at(id).kind;
    int result = id;
    switch (kind) {
    case op::number:
    case op::variable:
    case op::neg:
    case op::pow:
    case op::call:
    case op::mul: result = rebuilt(id, [&](int c) { return factored(c, memo); }); break;
    case op::add: {
        std::vector<product_term> terms;
        std::size_t const size = node_at(id).args.size();
        for (std::size_t i = 0; i < size; ++i) {
            product_term t;
            t.negative = node_at(id).flags[i] != 0;
            int c = factored(node_at(id).args[i], memo);
            if (node_at(c).kind == op::neg) t.negative = !t.negative, c = node_at(c).args[0];
            auto push = [&](int f, bool den) {
                node const& fn = node_at(f);
                if (fn.kind == op::pow)
                    for (int k = 0; k < fn.exponent; ++k) t.factors.push_back({fn.args[0], den});
                else
                    t.factors.push_back({f, den});
            };
            node const& cn = node_at(c); // nothing is added below
            if (cn.kind == op::mul)
                for (std::size_t k = 0; k < cn.args.size(); ++k) push(cn.args[k], cn.flags[k] != 0);
            else
                push(c, false);
            std::sort(t.factors.begin(), t.factors.end(), [&](auto const& a, auto const& b) { return factor_less(a, b); });
            terms.push_back(std::move(t));
        }
        result = horner(std::move(terms));
        break;
    }
    }
    memo[static_cast<std::size_t>(id)] = result;
    return result;
}

std::vector<int> expression_graph::factor_sums(std::vector<int> const& roots) {
    // Indexed by node: only nodes that exist now are looked up (the children of nodes that
    // exist now), though the rewrite adds nodes.
    std::vector<int> memo(nodes_.size(), -1);
    std::vector<int> out;
    for (int r : roots) out.push_back(factored(r, memo));
    return out;
}

// Sums and products with at least two operands (products without repeated factors), in
// the order the search visits them: by kind, then size, then canonical order.
std::vector<int> expression_graph::share_candidates(std::vector<int> const& roots) const {
    std::vector<std::pair<std::string, int>> outputs;
    for (int r : roots) outputs.push_back({"", r});
    reach_result const reached = reach(outputs);
    std::vector<int> candidates;
    for (int id : reached.order) {
        node const& n = node_at(id);
        if ((n.kind != op::add && n.kind != op::mul) || n.args.size() < 2) continue;
        bool repeated = false;
        for (std::size_t i = 1; i < n.args.size(); ++i) repeated = repeated || n.args[i] == n.args[i - 1];
        if (!repeated) candidates.push_back(id);
    }
    std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
        node const& x = node_at(a);
        node const& y = node_at(b);
        if (x.kind != y.kind) return x.kind < y.kind;
        if (x.args.size() != y.args.size()) return x.args.size() < y.args.size();
        return less(a, b);
    });
    return candidates;
}

// Of the parts a node contains, those it uses: largest first (then in canonical order),
// each operand covered once.
expression_graph::shared_choice expression_graph::covering(node const& n, std::vector<shared_part> subsets,
                                                           std::vector<int> const& rank) const {
    std::sort(subsets.begin(), subsets.end(), [&](shared_part const& x, shared_part const& y) {
        std::size_t sx = node_at(x.id).args.size();
        std::size_t sy = node_at(y.id).args.size();
        if (sx != sy) return sx > sy;
        return rank[static_cast<std::size_t>(x.id)] < rank[static_cast<std::size_t>(y.id)];
    });
    shared_choice out{{}, std::vector<char>(n.args.size(), 0)};
    for (auto const& sub : subsets) {
        node const& a = node_at(sub.id);
        std::vector<std::size_t> where;
        for (std::size_t k = 0; k < a.args.size(); ++k) {
            std::uint8_t want = sub.flipped ? static_cast<std::uint8_t>(1 - a.flags[k]) : a.flags[k];
            for (std::size_t i = 0; i < n.args.size(); ++i)
                if (!out.covered[i] && n.args[i] == a.args[k] && n.flags[i] == want) {
                    where.push_back(i);
                    break;
                }
        }
        if (where.size() != a.args.size()) continue;
        for (std::size_t i : where) out.covered[i] = 1;
        out.parts.push_back(sub);
    }
    return out;
}

// For each candidate, the smaller candidates of its kind whose operands it contains (with
// the same signs, or all flipped for sums), largest first, each operand covered once.
std::unordered_map<int, expression_graph::shared_choice>
expression_graph::find_shared_parts(std::vector<int> const& roots) const {
    std::vector<int> const candidates = share_candidates(roots);
    // An operand of a kind: (kind, node, flag) as one index, 4 per node.
    auto key = [](op kind, int operand, std::uint8_t flag) {
        return static_cast<std::size_t>(operand) * 4 + (kind == op::add ? 2 : 0) + flag;
    };
    // How many candidates have each operand, all told, and how many earlier ones so far.
    std::vector<std::uint32_t> total(nodes_.size() * 4, 0), earlier(nodes_.size() * 4, 0);
    for (int b : candidates) {
        node const& n = node_at(b);
        for (std::size_t i = 0; i < n.args.size(); ++i) ++total[key(n.kind, n.args[i], n.flags[i])];
    }
    // A candidate contained in a later one has every operand in it, its rarest too: each
    // candidate is filed under its rarest operand only (the first of equals), and checked
    // whole when a later candidate has that operand (or, for sums, has it flipped).
    std::vector<std::vector<int>> filed(nodes_.size() * 4);
    std::unordered_map<int, shared_choice> chosen;
    std::vector<int> rank(nodes_.size(), -1);
    for (std::size_t c = 0; c < candidates.size(); ++c) rank[static_cast<std::size_t>(candidates[c])] = static_cast<int>(c);
    // The search is bounded by the counting it once did: for every operand, the earlier
    // candidates that contain it (cubic for n sums of n shared terms each). Past this much
    // (deterministic, not timed) no more parts are looked for; what was found is kept.
    double work = 0;
    constexpr double work_limit = 2e7;
    // The current candidate's operands: mark[node] = flag + 1.
    std::vector<std::uint8_t> mark(nodes_.size(), 0);
    for (int b : candidates) {
        node const& n = node_at(b);
        for (std::size_t i = 0; i < n.args.size() && work < work_limit; ++i) {
            work += static_cast<double>(earlier[key(n.kind, n.args[i], n.flags[i])]);
            if (n.kind == op::add) work += static_cast<double>(earlier[key(n.kind, n.args[i], static_cast<std::uint8_t>(1 - n.flags[i]))]);
        }
        if (work >= work_limit) break;
        for (std::size_t i = 0; i < n.args.size(); ++i) mark[static_cast<std::size_t>(n.args[i])] = static_cast<std::uint8_t>(n.flags[i] + 1);
        std::vector<shared_part> subsets;
        // Whether every operand of a is in n with its own sign (flipped = false) or the other.
        auto inside = [&](node const& a, bool flipped) {
            for (std::size_t k = 0; k < a.args.size(); ++k) {
                std::uint8_t const want = flipped ? static_cast<std::uint8_t>(1 - a.flags[k]) : a.flags[k];
                if (mark[static_cast<std::size_t>(a.args[k])] != want + 1) return false;
            }
            return true;
        };
        for (std::size_t i = 0; i < n.args.size(); ++i) {
            for (int flipped = 0; flipped < (n.kind == op::add ? 2 : 1); ++flipped) {
                std::uint8_t const flag = flipped ? static_cast<std::uint8_t>(1 - n.flags[i]) : n.flags[i];
                for (int a : filed[key(n.kind, n.args[i], flag)]) {
                    node const& an = node_at(a);
                    if (an.args.size() < n.args.size() && inside(an, flipped != 0)) subsets.push_back({a, flipped != 0});
                }
            }
        }
        for (std::size_t i = 0; i < n.args.size(); ++i) mark[static_cast<std::size_t>(n.args[i])] = 0;
        if (shared_choice choice = covering(n, std::move(subsets), rank); !choice.parts.empty()) chosen[b] = std::move(choice);
        std::size_t rarest = 0;
        for (std::size_t i = 0; i < n.args.size(); ++i) {
            ++earlier[key(n.kind, n.args[i], n.flags[i])];
            if (total[key(n.kind, n.args[i], n.flags[i])] < total[key(n.kind, n.args[rarest], n.flags[rarest])]) rarest = i;
        }
        filed[key(n.kind, n.args[rarest], n.flags[rarest])].push_back(b);
    }
    return chosen;
}

std::vector<int> expression_graph::share_subsets(std::vector<int> const& roots) {
    std::unordered_map<int, shared_choice> const chosen = find_shared_parts(roots);
    // Rebuild bottom-up with the chosen parts (memo by node, as in factor_sums).
    std::vector<int> memo(nodes_.size(), -1);
    std::function<int(int)> rebuild = [&](int id) -> int {
        if (int const done = memo[static_cast<std::size_t>(id)]; done >= 0) return done;
        int result;
        if (auto it = chosen.find(id); it != chosen.end()) {
            std::vector<std::pair<int, bool>> operands;
            for (auto const& sub : it->second.parts) operands.push_back({rebuild(sub.id), sub.flipped});
            // Read by index: nodes_ grows while operands are rebuilt.
            std::size_t const size = node_at(id).args.size();
            for (std::size_t i = 0; i < size; ++i)
                if (!it->second.covered[i])
                    operands.push_back({rebuild(node_at(id).args[i]), node_at(id).flags[i] != 0});
            bool const sum = node_at(id).kind == op::add;
            result = sum ? make_add(std::move(operands)) : make_mul(std::move(operands), false);
        } else {
            result = rebuilt(id, rebuild);
        }
        memo[static_cast<std::size_t>(id)] = result;
        return result;
    };
    std::vector<int> out;
    for (int r : roots) out.push_back(rebuild(r));
    return out;
}

} // namespace lagc
