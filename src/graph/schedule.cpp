// The order of a function's statements, once: temporaries (nodes used more than once, bases
// of powers, calls) in post-order with calls first, outputs right after the last temporary
// they read; printed whole, or cut into parts that pass shared values through a scratch array.
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <functional>

namespace lagc {

expression_graph::reach_result expression_graph::reach(std::vector<std::pair<std::string, int>> const& outputs) const {
    reach_result r{std::vector<int>(nodes_.size(), 0), std::vector<char>(nodes_.size(), 0), {}};
    std::vector<char> seen(nodes_.size(), 0);
    std::function<void(int)> count = [&](int id) {
        ++r.refs[static_cast<std::size_t>(id)];
        if (seen[static_cast<std::size_t>(id)]) return;
        seen[static_cast<std::size_t>(id)] = 1;
        node const& n = node_at(id);
        for (int c : n.args) {
            count(c);
            if (n.kind == op::pow) r.pow_base[static_cast<std::size_t>(c)] = 1;
        }
        r.order.push_back(id);
    };
    for (auto const& o : outputs) count(o.second);
    return r;
}

// A node gets a temporary when it is used more than once, or is the base of a power
// (printed as b*b); leaves never do.
bool expression_graph::needs_temporary(reach_result const& r, int id) const {
    node const& n = node_at(id);
    return n.kind != op::variable && n.kind != op::number &&
           (r.refs[static_cast<std::size_t>(id)] > 1 || r.pow_base[static_cast<std::size_t>(id)] || n.kind == op::call);
}

void expression_graph::use(emitted_body& b, std::string const& argument) {
    if (std::find(b.used_arguments.begin(), b.used_arguments.end(), argument) == b.used_arguments.end())
        b.used_arguments.push_back(argument);
}

void expression_graph::use_target(emitted_body& b, std::string const& target) {
    std::size_t bracket = target.find('[');
    if (bracket != std::string::npos) use(b, target.substr(0, bracket));
}

// A node's statement: what it reads inline (temporaries stop the walk) and what that costs.
// `defines`: the statement defines the node itself (a temporary), so its own cost counts and
// the walk starts at its operands.
void expression_graph::describe(statement& st, reach_result const& reached, int root, bool defines) const {
    std::vector<int> stack;
    if (defines) {
        node const& r = node_at(root);
        st.ops += cost(r);
        stack.assign(r.args.begin(), r.args.end());
    } else {
        stack.push_back(root);
    }
    while (!stack.empty()) {
        int id = stack.back();
        stack.pop_back();
        node const& n = node_at(id);
        if (needs_temporary(reached, id)) {
            if (std::find(st.temps.begin(), st.temps.end(), id) == st.temps.end()) st.temps.push_back(id);
            continue;
        }
        if (n.kind == op::variable) {
            std::string const& argument = argument_of_.at(n.text);
            if (std::find(st.args.begin(), st.args.end(), argument) == st.args.end()) st.args.push_back(argument);
            continue;
        }
        st.ops += cost(n);
        for (int c : n.args) stack.push_back(c);
    }
}

std::vector<expression_graph::statement>
expression_graph::schedule(std::vector<std::pair<std::string, int>> const& outputs) const {
    reach_result const reached = reach(outputs);
    // Calls first (sin, cos, ... and what their arguments need): every value live across a
    // call is spilled, so values are best computed after the last call.
    std::vector<char> early(nodes_.size(), 0);
    std::function<void(int)> mark = [&](int id) {
        if (early[static_cast<std::size_t>(id)]) return;
        early[static_cast<std::size_t>(id)] = 1;
        for (int c : node_at(id).args) mark(c);
    };
    for (int id : reached.order)
        if (node_at(id).kind == op::call) mark(id);
    std::vector<int> order;
    for (int pass = 1; pass >= 0; --pass)
        for (int id : reached.order)
            if (early[static_cast<std::size_t>(id)] == pass) order.push_back(id);

    std::vector<statement> temporaries;
    std::vector<int> position(nodes_.size(), -1); // index of each temporary's statement
    for (int id : order)
        if (needs_temporary(reached, id)) {
            statement st;
            st.id = id;
            describe(st, reached, id, true);
            position[static_cast<std::size_t>(id)] = static_cast<int>(temporaries.size());
            temporaries.push_back(std::move(st));
        }
    // Each output right after the last temporary it reads (short live ranges).
    std::vector<std::vector<statement>> after(temporaries.size() + 1);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        statement st;
        st.id = outputs[i].second;
        st.output = static_cast<int>(i);
        describe(st, reached, outputs[i].second, false);
        int last = -1;
        for (int t : st.temps) last = std::max(last, position[static_cast<std::size_t>(t)]);
        after[static_cast<std::size_t>(last + 1)].push_back(std::move(st));
    }
    std::vector<statement> sequence;
    for (auto& st : after[0]) sequence.push_back(std::move(st));
    for (std::size_t k = 0; k < temporaries.size(); ++k) {
        sequence.push_back(std::move(temporaries[k]));
        for (auto& st : after[k + 1]) sequence.push_back(std::move(st));
    }
    return sequence;
}

emitted_body expression_graph::emit(std::vector<std::pair<std::string, int>> const& outputs,
                                    std::string const& indent) const {
    std::size_t scratch = 0;
    std::vector<emitted_body> whole = emit_parts(outputs, indent, 0, scratch);
    return std::move(whole.front());
}

} // namespace lagc
