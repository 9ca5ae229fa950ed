// Several functions' statements at once (expression_graph.hpp's emit_shared): one schedule of all
// their outputs, each statement in the segment of the functions that need it, the segments
// largest set first and cut into parts; and nodes of one graph taken into another (import),
// so that equal expressions of several functions are one node. emit_parts is the case of
// one function.
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <bit>
#include <set>

namespace lagc {

int expression_graph::import(expression_graph const& from, int id, std::vector<int>& memo) {
    if (memo.size() < from.nodes_.size()) memo.resize(from.nodes_.size(), -1);
    // Post-order without recursion (a long chain of sums is deep).
    std::vector<std::pair<int, std::size_t>> stack{{id, 0}};
    std::vector<int> args;
    while (!stack.empty()) {
        auto const [n, next] = stack.back();
        auto const at = static_cast<std::size_t>(n);
        node const& x = from.node_at(n);
        if (memo[at] >= 0) {
            stack.pop_back();
        } else if (next < x.args.size()) {
            ++stack.back().second;
            if (memo[static_cast<std::size_t>(x.args[next])] < 0) stack.push_back({x.args[next], 0});
        } else {
            args.clear();
            for (int c : x.args) args.push_back(memo[static_cast<std::size_t>(c)]);
            memo[at] = intern(x.kind, x.text, args.data(), x.flags.empty() ? nullptr : x.flags.data(), args.size(),
                              x.exponent);
            stack.pop_back();
        }
    }
    return memo[static_cast<std::size_t>(id)];
}

std::vector<emitted_body> expression_graph::emit_parts(std::vector<std::pair<std::string, int>> const& outputs,
                                                       std::string const& indent, std::size_t budget,
                                                       std::size_t& scratch) const {
    shared_emission s = emit_shared({outputs}, indent, budget);
    scratch = s.scratch[0];
    std::vector<emitted_body> bodies;
    for (auto& p : s.parts) bodies.push_back(std::move(p.body));
    if (bodies.empty()) bodies.emplace_back(); // no statements: one empty body
    return bodies;
}

namespace {

// The segments' order: larger sets of functions first, then by the set's bits.
bool runs_before(std::uint64_t a, std::uint64_t b) {
    int const x = std::popcount(a), y = std::popcount(b);
    return x != y ? x > y : a < b;
}

} // namespace

expression_graph::shared_emission expression_graph::emit_shared(std::vector<std::vector<std::pair<std::string, int>>> const& outputs,
                                                             std::string const& indent, std::size_t budget) const {
    std::size_t const N = nodes_.size();
    std::vector<std::pair<std::string, int>> all;
    std::vector<std::size_t> owner;
    for (std::size_t f = 0; f < outputs.size(); ++f)
        for (auto const& o : outputs[f]) all.push_back(o), owner.push_back(f);
    std::vector<statement> const sequence = schedule(all);
    // The functions that need each node.
    std::vector<std::uint64_t> need(N, 0);
    for (std::size_t f = 0; f < outputs.size(); ++f) {
        std::uint64_t const bit = std::uint64_t{1} << f;
        std::vector<int> stack;
        for (auto const& o : outputs[f]) stack.push_back(o.second);
        while (!stack.empty()) {
            int const id = stack.back();
            stack.pop_back();
            if (need[static_cast<std::size_t>(id)] & bit) continue;
            need[static_cast<std::size_t>(id)] |= bit;
            for (int c : node_at(id).args) stack.push_back(c);
        }
    }
    auto set_of = [&](statement const& st) {
        return st.output >= 0 ? std::uint64_t{1} << owner[static_cast<std::size_t>(st.output)]
                              : need[static_cast<std::size_t>(st.id)];
    };
    // The statements in the order they run (each set's in the schedule's order), cut into
    // parts: a new part where the set changes or the budget is spent.
    std::vector<std::uint64_t> set(sequence.size());
    std::vector<std::size_t> order(sequence.size()), part_of(sequence.size());
    for (std::size_t k = 0; k < sequence.size(); ++k) set[k] = set_of(sequence[k]), order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return runs_before(set[a], set[b]); });
    shared_emission out;
    std::size_t acc = 0;
    for (std::size_t k : order) {
        bool const same_set = !out.parts.empty() && out.parts.back().functions == set[k];
        if (!same_set || (budget > 0 && acc > 0 && acc + sequence[k].ops > budget)) {
            out.parts.push_back({{}, set[k]});
            acc = 0;
        }
        acc += sequence[k].ops;
        part_of[k] = out.parts.size() - 1;
    }
    write_shared(sequence, order, part_of, all, indent, out);
    out.scratch.assign(outputs.size(), 0);
    for (auto const& p : out.parts)
        for (std::size_t f = 0; f < outputs.size(); ++f)
            if (p.functions >> f & 1) out.scratch[f] = std::max(out.scratch[f], p.scratch);
    return out;
}

// The parts' text, as emit prints statements: a value read by another part in w, a slot
// free again once the last part to read its value (in the order the parts run) has read it;
// the others as locals of their part.
void expression_graph::write_shared(std::vector<statement> const& sequence, std::vector<std::size_t> const& order,
                                    std::vector<std::size_t> const& part_of,
                                    std::vector<std::pair<std::string, int>> const& outputs, std::string const& indent,
                                    shared_emission& out) const {
    std::size_t const N = nodes_.size();
    auto at = [](int id) { return static_cast<std::size_t>(id); };
    std::vector<std::size_t> defined_in(N, 0), last_read(N, 0);
    for (std::size_t k : order)
        if (sequence[k].output < 0) defined_in[at(sequence[k].id)] = part_of[k];
    std::vector<char> passed(N, 0);
    for (std::size_t pos = 0; pos < order.size(); ++pos)
        for (int t : sequence[order[pos]].temps) {
            if (defined_in[at(t)] != part_of[order[pos]]) passed[at(t)] = 1;
            last_read[at(t)] = pos;
        }
    std::vector<std::vector<std::size_t>> dies(order.size());
    for (std::size_t id = 0; id < N; ++id)
        if (passed[id]) dies[last_read[id]].push_back(id);
    std::set<std::size_t> free_slots;
    std::size_t slots = 0, local = 0;
    std::vector<std::size_t> slot(N, 0);
    std::vector<std::string> names(N);
    // A call's argument that is an argument of the function (sin(q[1]), cos(q[1])) is read
    // once per part into a local: a store into w between two reads of q[1] would otherwise
    // keep GCC from taking sin and cos of it in one sincos call.
    std::vector<int> aliased;
    std::size_t part = order.empty() ? 0 : part_of[order.front()];
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        statement const& st = sequence[order[pos]];
        function_part& p = out.parts[part_of[order[pos]]];
        emitted_body& b = p.body;
        if (part_of[order[pos]] != part) {
            for (int v : aliased) names[at(v)].clear();
            aliased.clear();
            part = part_of[order[pos]];
        }
        if (st.output < 0 && node_at(st.id).kind == op::call)
            for (int a : node_at(st.id).args)
                if (node_at(a).kind == op::variable && names[at(a)].empty()) {
                    std::string const alias = "a" + std::to_string(local++);
                    b.text += indent + "const " + options_.scalar + " " + alias + " = " + print(a, names) + ";\n";
                    names[at(a)] = alias;
                    aliased.push_back(a);
                }
        for (auto const& a : st.args) use(b, a);
        for (int t : st.temps)
            if (passed[at(t)]) use(b, "w"), p.scratch = std::max(p.scratch, slot[at(t)] + 1);
        b.operations += st.ops;
        out.operations += st.ops;
        if (st.output >= 0) {
            std::string const& target = outputs[at(st.output)].first;
            b.text += indent + target + " = " + print(st.id, names) + ";\n";
            use_target(b, target);
        } else {
            ++b.temporaries;
            std::string name;
            if (passed[at(st.id)]) {
                std::size_t s = slots;
                if (free_slots.empty()) ++slots;
                else s = *free_slots.begin(), free_slots.erase(free_slots.begin());
                slot[at(st.id)] = s;
                p.scratch = std::max(p.scratch, s + 1);
                use(b, "w");
                name = "w[";
                name.append(std::to_string(s)).append("]"); // not "w[" + ... (a GCC 12 -Wrestrict false positive)
                b.text += indent + name + " = " + print(st.id, names) + ";\n";
            } else {
                name = "s";
                name += std::to_string(local++);
                b.text += indent + "const " + options_.scalar + " " + name + " = " + print(st.id, names) + ";\n";
            }
            names[at(st.id)] = name;
        }
        for (std::size_t id : dies[pos]) free_slots.insert(slot[id]);
    }
}

} // namespace lagc
