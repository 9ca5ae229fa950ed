// Stack figures read off generated bodies (see stack_bound.hpp).
#include "emit/stack_bound.hpp"

#include <algorithm>
#include <cctype>
#include "builtins.hpp"
#include "emit/stack_scan.hpp"

namespace lagc {

namespace {

// A dimension as lagc writes them: integers, nq, nu, nc, nh, m = 2 nq + nu, + - *,
// parentheses and `a > 0 ? a : 1`. Recursive descent over the text.
struct dimension_parser {
    std::string const& s;
    std::map<std::string, long> const& names;
    std::size_t at = 0;

    void blanks() {
        while (at < s.size() && s[at] == ' ') ++at;
    }
    bool take(char c) {
        blanks();
        if (at < s.size() && s[at] == c) return ++at, true;
        return false;
    }
    long atom() {
        blanks();
        if (take('(')) {
            long v = conditional();
            take(')');
            return v;
        }
        std::size_t const start = at;
        while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_')) ++at;
        std::string const word = s.substr(start, at - start);
        if (word.empty()) return 0;
        if (std::isdigit(static_cast<unsigned char>(word[0]))) return std::stol(word);
        auto it = names.find(word);
        return it == names.end() ? 0 : it->second;
    }
    long product() {
        long v = atom();
        while (take('*')) v *= atom();
        return v;
    }
    long sum() {
        long v = product();
        for (;;) {
            if (take('+')) v += product();
            else if (take('-')) v -= product();
            else return v;
        }
    }
    long conditional() {
        long v = sum();
        if (take('>')) v = v > sum() ? 1 : 0;
        if (take('?')) {
            long const yes = conditional();
            take(':');
            long const no = conditional();
            return v ? yes : no;
        }
        return v;
    }
};

// A word of C++ at `at`: letters, digits and '_'.
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The libm functions (those of the built-ins that are more than an instruction or two:
// sqrt and fabs are one on an FPU).
bool is_libm(std::string const& name) {
    for (auto const& b : builtins())
        if (b.scalar() && b.how == builtin::code::cmath && b.cxx == name)
            return name != "sqrt" && name != "fabs" && name != "abs";
    return false;
}

// The most temporaries live across a call of the math library (defined before its line,
// read after it): a Cortex-M4F keeps them in s16-s31, which the call preserves, or spills them.
std::size_t live_across_calls(std::string const& body, std::map<std::string, std::size_t> const& defined_at,
                              std::map<std::string, std::size_t> const& last_read) {
    std::size_t most = 0, line = 0;
    for (std::size_t at = 0; at < body.size(); ++line) {
        std::size_t const end = std::min(body.find('\n', at), body.size());
        std::string const text = body.substr(at, end - at);
        bool calls = false;
        for (std::string_view const name : stack_scan::calls(text))
            calls = calls || is_libm(std::string(name));
        if (calls) {
            std::size_t across = 0;
            for (auto const& [name, first] : defined_at) {
                auto const r = last_read.find(name);
                across += first < line && r != last_read.end() && r->second > line;
            }
            most = std::max(most, across);
        }
        at = end + 1;
    }
    return most;
}

} // namespace

// "constexpr int n = 2 * nq, N = 2 * n, m = nu > 0 ? nu : 1;": the body's own dimensions.
std::map<std::string, long> stack_bounds::local_constants(std::string const& body) const {
    std::map<std::string, long> locals;
    for (auto const& [name, value] : stack_scan::constants(body)) locals[name] = static_cast<long>(size_of(value, locals));
    return locals;
}

std::size_t stack_bounds::size_of(std::string const& dimension, std::map<std::string, long> const& locals) const {
    long const nq = static_cast<long>(nq_), nu = static_cast<long>(nu_), nc = static_cast<long>(nc_);
    std::map<std::string, long> names = {
        {"nq", nq}, {"nu", nu}, {"nc", nc}, {"nh", static_cast<long>(nh_)}, {"m", 2 * nq + nu}};
    for (auto const& [k, v] : locals) names[k] = v;
    dimension_parser p{dimension, names};
    return static_cast<std::size_t>(std::max(0L, p.conditional()));
}

// The arrays a body declares (its locals: `float w[120]`, `float a1[nq], a2[nq]`).
std::vector<std::string> stack_bounds::local_arrays(std::string const& body) const {
    std::vector<std::string> names;
    for (std::string_view list : stack_scan::array_declarations(body))
        for (auto const& [name, dims] : stack_scan::declarators(list.substr(0, list.find('='))))
            names.emplace_back(name);
    return names;
}

// The temporaries with the inputs each read line reads (p.m, q[3], L[6]; not those a line
// writes), each input live from its first read to its last: a register file holds what
// GCC keeps of both (the unrolled solve's L[i] it loads once). Where the frame's stores may
// alias its inputs (`aliased`: its array arguments are not LAGC_RESTRICT, as in the parts),
// a store to an argument's array X[k] ends the range of every input but X's own and the
// local arrays': GCC loads p.m or Y[j] again after a store that may overwrite it; an input
// read on one line only is then not counted (a part's long sums: GCC loads each where the
// sum needs it, dynamics_terms_part7's 50 reads held in 16 registers).
void stack_bounds::input_pressure(std::string const& body, std::vector<long> change, frame& f) const {
    std::vector<std::string> const locals = local_arrays(body);
    auto local = [&](std::string const& array) { return std::find(locals.begin(), locals.end(), array) != locals.end(); };
    std::map<std::string, std::pair<std::size_t, std::size_t>> reads;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::size_t line = 0, at = 0;
    while (at < body.size()) {
        std::size_t const end = std::min(body.find('\n', at), body.size());
        std::string_view const text = std::string_view(body).substr(at, end - at);
        for (std::string_view read : stack_scan::line_reads(text)) {
            auto [it, fresh] = reads.try_emplace(std::string(read), line, line);
            if (!fresh) it->second.second = line;
        }
        std::string const stored = f.aliased ? std::string(stack_scan::stored_array(text)) : std::string();
        if (!stored.empty() && !local(stored))
            for (auto r = reads.begin(); r != reads.end();) {
                std::string const array = r->first.substr(0, r->first.find('['));
                if (r->first.compare(0, 2, "p.") == 0 || (array != stored && !local(array)))
                    spans.push_back(r->second), r = reads.erase(r);
                else ++r;
            }
        at = end + 1;
        ++line;
    }
    for (auto const& [name, span] : reads) spans.push_back(span);
    change.resize(std::max(change.size(), line + 2), 0);
    for (auto const& span : spans) {
        if (f.aliased && span.first == span.second) continue;
        change[span.first] += 1;
        change[span.second + 1] -= 1;
    }
    long live = 0;
    for (long c : change) f.pressure = std::max(f.pressure, static_cast<std::size_t>(live += c));
}

// The most scalar temporaries live at once: each `const T name = …` from its line to the
// last line that reads it, in the order written (the compiler may reorder, which the spill
// margin covers).
void stack_bounds::live_temporaries(std::string const& body, frame& f) const {
    std::map<std::string, std::size_t> defined_at, last_read;
    std::size_t line = 0;
    for (std::size_t at = 0; at < body.size();) {
        if (body[at] == '\n') ++line, ++at;
        else if (!word_char(body[at])) ++at;
        else {
            std::size_t const start = at;
            while (at < body.size() && word_char(body[at])) ++at;
            std::string const word = body.substr(start, at - start);
            if (auto d = defined_at.find(word); d != defined_at.end()) last_read[word] = line;
            else if (body.compare(at, 3, " = ") == 0 && start >= 6) {
                std::size_t const type_start = body.rfind("const ", start);
                if (type_start != std::string::npos && body.find('\n', type_start) > start &&
                    body.find_first_not_of(' ', body.rfind('\n', type_start) + 1) == type_start)
                    defined_at[word] = line;
            }
            if (body.compare(at, 3, " = ") == 0 || body.compare(at, 4, "] = ") == 0 || body.compare(at, 4, " += ") == 0 ||
                body.compare(at, 4, " -= ") == 0 || body.compare(at, 5, "] += ") == 0 || body.compare(at, 5, "] -= ") == 0)
                ++f.assignments;
        }
    }
    std::vector<long> change(line + 2, 0);
    for (auto const& [name, first] : defined_at) {
        auto const r = last_read.find(name);
        change[first] += 1;
        change[(r == last_read.end() ? first : r->second) + 1] -= 1;
    }
    long live = 0;
    for (long c : change) f.live = std::max(f.live, static_cast<std::size_t>(live += c));
    f.across = live_across_calls(body, defined_at, last_read);
    input_pressure(body, change, f);
    // The inputs it reads (p.m, q[3]): the compiler loads each once and may keep it for the
    // whole function (ur5_like's coriolis_matrix written whole, double: 42 values).
    std::vector<std::string_view> inputs = stack_scan::state_reads(body);
    std::sort(inputs.begin(), inputs.end());
    f.inputs = static_cast<std::size_t>(std::unique(inputs.begin(), inputs.end()) - inputs.begin());
}

bool stack_bounds::add(std::string const& name, std::string const& body, bool inlinable, std::size_t arguments,
                       bool restrict_outputs) {
    frame f;
    f.aliased = !restrict_outputs;
    f.inlinable = inlinable;
    f.arguments = arguments;
    f.loops = body.find("for (") != std::string::npos || body.find("while (") != std::string::npos;
    std::map<std::string, long> const locals = local_constants(body);
    for (std::string_view list : stack_scan::array_declarations(body)) {
        for (auto const& [name, dims] : stack_scan::declarators(list.substr(0, list.find('=')))) { // not an initializer's reads
            std::size_t values = 1;
            for (std::string_view dimension : stack_scan::dimensions(dims)) values *= size_of(std::string(dimension), locals);
            f.arrays += values * bytes_;
        }
    }
    for (std::string_view call : stack_scan::calls(body)) {
        std::string const callee(call);
        if (is_libm(callee)) f.calls_libm = true;
        else if (std::find(f.callees.begin(), f.callees.end(), callee) == f.callees.end()) f.callees.push_back(callee);
    }
    live_temporaries(body, f);
    bool const own_frame = f.arrays > 0 || f.live + f.inputs > spill_scalars;
    f.inlinable = inlinable && !own_frame;
    frames_[name] = std::move(f);
    return own_frame;
}

void stack_bounds::add_functions(std::string const& text) {
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t const end = std::min(text.find('\n', at), text.size());
        std::string const line = text.substr(at, end - at);
        std::size_t const paren = line.find('(');
        bool const head = !line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) && line[0] != '/' &&
                          line[0] != '#' && line.back() == '{' && paren != std::string::npos;
        at = end + 1;
        if (!head) continue;
        std::size_t start = paren;
        while (start > 0 && word_char(line[start - 1])) --start;
        std::size_t const close = text.find("\n}\n", end);
        std::size_t const stop = close == std::string::npos ? text.size() : close;
        std::string const name = line.substr(start, paren - start);
        if (start < paren && !defines(name)) {
            std::size_t const close_paren = line.rfind(')');
            std::string const list = line.substr(paren + 1, close_paren == std::string::npos ? 0 : close_paren - paren - 1);
            std::size_t const arguments =
                list.find_first_not_of(' ') == std::string::npos ? 0 : 1 + static_cast<std::size_t>(std::count(list.begin(), list.end(), ','));
            add(name, text.substr(end, stop - end), true, arguments);
            frames_[name].inlinable = line.find("noinline") == std::string::npos; // as the template wrote it
        }
        at = std::min(stop + 1, text.size());
    }
}

std::size_t stack_bounds::bound(std::string const& name) const {
    auto it = frames_.find(name);
    if (it == frames_.end()) return 0;
    std::size_t deepest = 0;
    for (auto const& callee : it->second.callees)
        if (callee != name) deepest = std::max(deepest, bound(callee));
    return it->second.arrays + deepest;
}

// The frame's own bytes, then the callee whose path is deepest; whether any path below
// calls the math library.
// A frame's own arrays and temporaries, with those of every callee that may be inlined into
// it (the compiler need not share their slots).
stack_figure stack_bounds::inlined(std::string const& name, std::vector<std::string>& visiting) const {
    auto it = frames_.find(name);
    if (it == frames_.end() || std::find(visiting.begin(), visiting.end(), name) != visiting.end()) return {};
    frame const& f = it->second;
    visiting.push_back(name);
    stack_figure own;
    for (auto const& callee : f.callees)
        if (auto c = frames_.find(callee); c != frames_.end() && c->second.inlinable) {
            stack_figure const in = inlined(callee, visiting);
            own.arrays += in.arrays;
            own.temporaries += in.temporaries;
        }
    visiting.pop_back();
    own.arrays += f.arrays;
    own.temporaries += bytes_ * scalars(f);
    return own;
}

// The scalars a frame may hold on its stack: its temporaries (and inputs, where they are
// counted), at least the spill margin where it computes; with a register file's figures
// (stack_margins::register_file), a frame without loops by what its live values need
// beyond the registers, a frame with loops one spill every two assignments, or its
// temporaries and inputs less 16 (the unrolled Cholesky of forward_dynamics_factored).
std::size_t stack_bounds::scalars(frame const& f) const {
    auto less = [](std::size_t a, std::size_t b) { return a > b ? a - b : 0; };
    if (margins_.register_file && !f.loops && ranking_)
        return std::max(less((11 * f.live + 9) / 10, 16), less(f.pressure, f.aliased ? 16 : 23));
    if (margins_.register_file && !f.loops)
        return std::max({less((119 * f.live + 99) / 100, 32), less(f.live, 21), less(f.pressure, f.aliased ? 16 : 35),
                         less(f.across, 10)}) +
               (f.assignments > 0 ? margins_.folded : 0);
    std::size_t const live = f.live + (margins_.inputs_live ? f.inputs : 0);
    if (margins_.register_file)
        return std::max({std::min(margins_.spill, (f.assignments + 1) / 2), live, less(f.pressure, 16)});
    return std::max(std::min(margins_.spill, f.assignments), live);
}

// Saved registers and the return address: a frame that only calls, call_frame; with a
// register file's figures, a frame without loops pushes lr, a register an argument and one
// more, and s16-s31 (64 B), 8-aligned; else the frame margin.
std::size_t stack_bounds::frame_bytes(frame const& f) const {
    if (f.assignments == 0) return margins_.call_frame;
    if (!margins_.register_file || f.loops) return margins_.frame;
    return std::min(margins_.frame, (64 + 4 * (f.arguments + 2) + 7) / 8 * 8);
}

// The frame (with its largest inlinable callee's arrays and temporaries), then the callee
// whose path is deepest; whether any path below calls the math library.
std::pair<stack_figure, bool> stack_bounds::path(std::string const& name, std::vector<std::string>& visiting) const {
    auto it = frames_.find(name);
    if (it == frames_.end() || std::find(visiting.begin(), visiting.end(), name) != visiting.end()) return {{}, false};
    frame const& f = it->second;
    stack_figure const own = inlined(name, visiting);
    visiting.push_back(name);
    stack_figure deepest;
    bool libm = f.calls_libm;
    for (auto const& callee : f.callees) {
        auto [below, calls] = path(callee, visiting);
        libm = libm || calls;
        if (below.total() > deepest.total()) deepest = below;
    }
    visiting.pop_back();
    deepest.arrays += own.arrays;
    deepest.temporaries += own.temporaries;
    deepest.frames += frame_bytes(f);
    ++deepest.depth;
    return {deepest, libm};
}

stack_figure stack_bounds::figure(std::string const& name) const {
    std::vector<std::string> visiting;
    auto [f, libm] = path(name, visiting);
    f.name = name;
    if (libm) f.libm = margins_.libm;
    ranking_ = true;
    f.ranking = path(name, visiting).first.total() + f.libm;
    ranking_ = false;
    return f;
}

} // namespace lagc
