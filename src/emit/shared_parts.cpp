// Stage 4: the functions cut into parts, written last and together. Each was built and
// rewritten on its own graph (its choices of form kept); their outputs are taken into one
// graph, where equal expressions of several functions are one node, and scheduled at once
// (expression_graph::emit_shared): a value that several functions need is computed in a
// part all of them call (detail::shared_partK), the rest in each function's own parts. A
// call computes what it did before and nothing else; the file holds each value once (the
// 10-joint 3-D arm: M, C, h, forward dynamics, linearization and inverse dynamics share
// their kinematics and composites).
#include "emit/emitter.hpp"

#include <algorithm>
#include <bit>
#include <exception>

namespace lagc::emitting {

std::string emitter::definition_marker(std::size_t k) { return "\x02lagc deferred function " + std::to_string(k) + "\x02"; }

std::string emitter::parts_marker(std::size_t k) { return "\x02lagc deferred parts " + std::to_string(k) + "\x02"; }

namespace {

// A part's parameters: those of `args` (a function's) it uses, in their order, then w.
std::vector<cxx_argument> part_parameters(std::vector<cxx_argument> const& args, emitted_body const& b,
                                          std::string const& scalar) {
    std::vector<cxx_argument> out;
    auto used = [&](std::string const& name) {
        return std::find(b.used_arguments.begin(), b.used_arguments.end(), name) != b.used_arguments.end();
    };
    for (auto const& a : args)
        if (used(a.name)) out.push_back(a);
    if (used("w")) out.push_back({"w", scalar + "*", true});
    return out;
}

} // namespace

// Each function whole where it is within --split's limit and no function is larger (small
// models: every function its own statements); else the functions share parts in groups:
// all of them (up to 64, a part's set is a 64-bit mask), the small ones too, since they
// read the same sines and frames; with --no-shared-parts each large one alone. Forward
// dynamics' terms (the hot path of every simulation step) are always written on their own:
// in a group they go through the group's rewrites and parts, which the other functions
// profit from and they do not (the generic 10-joint arm: 10,792 instructions per call in
// the group, 10,037 alone). And in smaller parts, of at most 3/10 of --split's operations
// (150 by default): g++ -O2 spills fewer of a part's values than of a long one's, more than
// the values the parts pass on in w cost (bench's generic arms, instructions per call: 8
// joints 7,115 → 7,037, 12 joints 12,143 → 11,771).
void emitter::write_deferred() {
    std::size_t const split = o_.split_operations;
    bool const large = std::any_of(deferred_.begin(), deferred_.end(),
                                   [&](deferred_function const& d) {
                                       return d.f.stats.operations_after_cse > split && !o_.writes_whole(d.f.stats.name);
                                   });
    auto hot = [&](std::size_t f) {
        std::string const& name = deferred_[f].f.stats.name;
        return name == "dynamics_terms" || (chosen_ && name == helper_name(fd_));
    };
    auto alone = [&](std::size_t f) {
        std::size_t const budget = hot(f) ? std::max<std::size_t>(split * 3 / 10, 10) : split;
        if (deferred_[f].f.stats.operations_after_cse > budget && !o_.writes_whole(deferred_[f].f.stats.name))
            return write_group({f}, budget);
        deferred_function const& d = deferred_[f];
        emitted_body b = d.f.graph->emit(d.f.roots, "    ");
        if (d.returns()) b.text += text("scalar_function_return.tpl");
        stats_[d.stats_index].temporaries = b.temporaries;
        out_.fill(parts_marker(f), "");
        out_.fill(definition_marker(f),
                  out_.definition(d.result, d.f.stats.name, d.args, b.used_arguments, b.text, d.comment, d.where));
    };
    if (!large || !o_.shared_parts) {
        for (std::size_t f = 0; f < deferred_.size(); ++f) alone(f);
        return;
    }
    // A function with a form for shared parts (kinetic_energy as ½ q̇ᵀ M q̇) takes it where it
    // is large enough alone (energies()); the form is only an alternative, so past
    // --max-operations (it holds all of M) the function keeps its own.
    for (deferred_function& d : deferred_) {
        if (!d.shared_form || d.f.stats.operations_after_cse <= d.shared_form_above) continue;
        try {
            d.f = d.shared_form();
            stats_[d.stats_index] = d.f.stats;
        } catch (std::exception const&) {
        }
    }
    std::vector<std::size_t> shared;
    for (std::size_t f = 0; f < deferred_.size(); ++f) {
        if (hot(f)) alone(f);
        else shared.push_back(f);
    }
    for (std::size_t first = 0; first < shared.size(); first += 64) {
        std::vector<std::size_t> members(shared.begin() + static_cast<std::ptrdiff_t>(first),
                                         shared.begin() + static_cast<std::ptrdiff_t>(std::min(shared.size(), first + 64)));
        write_group(members, split);
    }
}

void emitter::write_group(std::vector<std::size_t> const& members, std::size_t budget) {
    expression_graph g(symbols_, codegen());
    std::vector<std::vector<std::pair<std::string, int>>> outputs;
    // A function that returns its output writes it to result[0] (its definition's array).
    auto arguments = [&](deferred_function const& d) {
        return d.returns() ? with_output(d.args, "result") : d.args;
    };
    for (std::size_t f : members) {
        std::vector<int> memo;
        outputs.emplace_back();
        for (auto const& [target, root] : deferred_[f].f.roots)
            outputs.back().push_back({deferred_[f].returns() ? "result[0]" : target,
                                      g.import(*deferred_[f].f.graph, root, memo)});
    }
    // Each function's sums were shared and factored on its own graph; on the group's, the
    // same rewrites find the sub-sums several functions hold (the 10-joint arm: 15,814
    // operations → 14,255), as a function's own did within it.
    if (members.size() > 1) {
        std::vector<int> roots;
        for (auto const& o : outputs)
            for (auto const& [target, id] : o) roots.push_back(id);
        roots = timed([&] { return g.share_subsets(g.factor_sums(g.share_subsets(roots))); });
        std::size_t k = 0;
        for (auto& o : outputs)
            for (auto& [target, id] : o) id = roots[k++];
    }
    auto e = timed([&] { return g.emit_shared(outputs, "    ", budget); });
    shared_operations_ += e.operations;
    for (std::size_t f : members) grouped_.push_back(f);
    std::size_t const n = members.size();
    std::vector<std::string> bodies(n), helpers(n);
    std::vector<std::vector<std::string>> used(n);
    std::vector<std::size_t> own(n, 0), runs(n, 0), temporaries(n, 0);
    for (auto& p : e.parts) {
        auto const first = static_cast<std::size_t>(std::countr_zero(p.functions));
        bool const alone = std::popcount(p.functions) == 1;
        deferred_function const& d = deferred_[members[first]];
        std::string const name = alone ? d.f.stats.name + "_part" + std::to_string(own[first]++)
                                       : "shared_part" + std::to_string(shared_parts_++);
        std::vector<cxx_argument> const params = part_parameters(arguments(d), p.body, scalar());
        std::vector<std::string> names;
        for (auto const& a : params) names.push_back(a.name);
        std::string comment;
        if (!alone && shared_parts_ == 1) comment = text("comments.tpl#shared_parts");
        if (alone && own[first] == 1) comment = text("comments.tpl#parts", {{"name", d.f.stats.name}});
        // Shared parts go where the group's first function's parts would: before every caller.
        helpers[alone ? first : 0] +=
            out_.definition("void", name, params, names, p.body.text, comment, cxx_printer::place::part);
        for (std::size_t f = 0; f < n; ++f) {
            if (!(p.functions >> f & 1)) continue;
            bodies[f] += text("split_function.tpl#call", {{"part", name}, {"arguments", cxx_printer::all_arguments(params)}});
            for (auto const& a : names)
                if (a != "w" && std::find(used[f].begin(), used[f].end(), a) == used[f].end()) used[f].push_back(a);
            ++runs[f];
            temporaries[f] += p.body.temporaries;
        }
    }
    for (std::size_t f = 0; f < n; ++f) {
        deferred_function const& d = deferred_[members[f]];
        stats_[d.stats_index].parts = runs[f];
        stats_[d.stats_index].temporaries = temporaries[f];
        std::string body;
        if (e.scratch[f] > 0)
            body = text("split_function.tpl#scratch", {{"scalar", scalar()}, {"size", std::to_string(e.scratch[f])}});
        if (d.returns()) body += text("split_function.tpl#result", {{"scalar", scalar()}});
        out_.fill(parts_marker(members[f]), helpers[f]);
        out_.fill(definition_marker(members[f]),
                  out_.definition(d.result, d.f.stats.name, d.args, used[f],
                                  body + bodies[f] + (d.returns() ? text("split_function.tpl#return") : ""), d.comment, d.where));
    }
}

} // namespace lagc::emitting
