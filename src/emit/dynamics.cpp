// Stage 4: forward_dynamics. M's lower triangle and Q − h are computed together with one
// CSE (sines, cosines and shared products once). Without constraints and when small
// enough, everything is one function on local values: the terms, then M = L Lᵀ unrolled
// over M's structure (structural zeros and their fill-in skipped, 1/L_jj computed once),
// then the two triangular solves. Otherwise detail::dynamics_terms writes arrays for the
// factorisation (unrolled up to nq = 32, a loop beyond) and, with constraints, the Schur
// complement A M⁻¹ Aᵀ (forward_dynamics_constrained.tpl); without constraints that work is
// detail::forward_dynamics_factored, which leaves M's factor to its caller (linearization
// solves with it), and forward_dynamics a wrapper. Every line from templates/.
#include "emit/emitter.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lagc::emitting {

// Where M alone is singular the code factors M + rho A^T A: the entries A^T A reaches, of
// the lower triangle (row-major; none where M is regular).
std::vector<char> emitter::augmented_entries() const {
    std::size_t const n = d_.nq;
    std::vector<char> nz(n * n, 0);
    if (!d_.mass_singular) return nz;
    for (std::size_t k = 0; k < d_.nc; ++k)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                if (!d_.constraint_jacobian[k * n + i].is_zero() && !d_.constraint_jacobian[k * n + j].is_zero())
                    nz[i * n + j] = 1;
    return nz;
}

// The products the unrolled factorisation of a structure makes (L_ik L_jk for each entry).
static std::size_t factor_products(std::vector<char> const& nz, std::size_t n) {
    std::size_t products = 0;
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = j; i < n; ++i)
            if (nz[i * n + j])
                for (std::size_t k = 0; k < j; ++k) products += nz[i * n + k] && nz[j * n + k];
    return products;
}

// L's non-zeros (row-major, lower triangle) when M's rows and columns are eliminated in
// `order`: M's structure plus the fill-in.
static std::vector<char> filled_structure(std::vector<char> const& stored, std::vector<std::size_t> const& order) {
    std::size_t const n = order.size();
    std::vector<char> nz(n * n, 0);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b <= a; ++b) {
            std::size_t const i = std::max(order[a], order[b]), j = std::min(order[a], order[b]);
            nz[a * n + b] = stored[i * n + j];
        }
    for (std::size_t b = 0; b < n; ++b)
        for (std::size_t a = b + 1; a < n; ++a)
            for (std::size_t k = 0; k < b; ++k)
                if (nz[a * n + k] && nz[b * n + k]) nz[a * n + b] = 1;
    return nz;
}

// The order in which the factorisation eliminates M's rows: the coordinates' own, or the
// reverse where that makes fewer products. A tree whose coordinates come parents first (a
// floating base, then its limbs) fills in completely in its own order — every limb's rows
// meet in the base's columns — and not at all in the reverse, leaves first (M = L^T L, as
// Featherstone factors a tree's M).
std::vector<std::size_t> const& emitter::elimination_order() const {
    if (order_.empty()) {
        std::size_t const n = d_.nq;
        // M's entries as the factorisation reads them: M's own, and those the augmentation adds to.
        std::vector<char> const augmented = augmented_entries();
        std::vector<char>& stored = stored_;
        stored.assign(n * n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                stored[i * n + j] = !d_.mass_matrix[i * n + j].is_zero() || augmented[i * n + j];
        std::vector<std::size_t> own(n), reversed(n);
        for (std::size_t i = 0; i < n; ++i) own[i] = i, reversed[i] = n - 1 - i;
        bool const reverse = factor_products(filled_structure(stored, reversed), n) < factor_products(filled_structure(stored, own), n);
        order_ = reverse ? reversed : own;
        // The same with the coordinates the constraints touch last, where that fills L no
        // more: W = L⁻¹ Aᵀ then fills only from them on (a quaternion's four rows, not the
        // whole base).
        std::vector<char> touched(n, 0);
        for (std::size_t k = 0; k < d_.nc; ++k)
            for (std::size_t i = 0; i < n; ++i) touched[i] = touched[i] || !d_.constraint_jacobian[k * n + i].is_zero();
        auto rows_of_w = [&](std::vector<std::size_t> const& order) {
            std::size_t a = 0;
            while (a < n && !touched[order[a]]) ++a;
            return n - a;
        };
        std::vector<std::size_t> last = order_;
        std::stable_partition(last.begin(), last.end(), [&](std::size_t i) { return !touched[i]; });
        if (rows_of_w(last) < rows_of_w(order_) &&
            factor_products(filled_structure(stored, last), n) <= factor_products(filled_structure(stored, order_), n))
            order_ = std::move(last);
        structure_ = filled_structure(stored, order_);
    }
    return order_;
}

std::vector<char> const& emitter::factor_structure() const {
    elimination_order();
    return structure_;
}

bool emitter::unrolls_mass_matrix() const {
    if (!unrolls_) {
        if (d_.nq <= unroll_limit) {
            unrolls_ = true;
        } else {
            std::vector<char> dense(unroll_limit * unroll_limit, 1);
            unrolls_ = factor_products(factor_structure(), d_.nq) <= factor_products(dense, unroll_limit);
        }
    }
    return *unrolls_;
}

// In the elimination order (a, b, k index it; P maps them to coordinates): d_b = M_bb −
// Σ_k L_bk², checked against 1e-12 of M's largest diagonal entry, r_b = 1/√d_b, L_ab =
// (M_ab − Σ_k L_ak L_bk) r_b; terms whose factors are structural zeros are left out. Every
// entry is named by its coordinates, in M's lower triangle (L_ab in place of M_ab).
std::string emitter::factor_statements(factor_names const& n) const {
    std::size_t const nq = d_.nq;
    std::vector<std::pair<std::string, std::string>> values = {{"scalar", scalar()},
                                                               {"math", math()},
                                                               {"one", single() ? "1.0f" : "1.0"},
                                                               {"zero", single() ? "0.0f" : "0.0"},
                                                               {"tolerance", single() ? "1e-12f" : "1e-12"},
                                                               {"set", n.set}};
    auto with = [&](std::vector<std::pair<std::string, std::string>> more) {
        more.insert(more.end(), values.begin(), values.end());
        return more;
    };
    std::vector<std::size_t> const& P = elimination_order();
    std::vector<char> const& nz = factor_structure();
    auto m = [&](std::size_t a, std::size_t b) { return n.m(std::max(P[a], P[b]), std::min(P[a], P[b])); };
    auto l = [&](std::size_t a, std::size_t b) { return n.l(std::max(P[a], P[b]), std::min(P[a], P[b])); };
    std::string f = text("cholesky_steps.tpl#largest", values);
    for (std::size_t i = 0; i < nq; ++i) f += text("cholesky_steps.tpl#largest_update", with({{"m", n.m(i, i)}}));
    f += text("cholesky_steps.tpl#threshold", values);
    for (std::size_t b = 0; b < nq; ++b) {
        std::string pivot = m(b, b);
        for (std::size_t k = 0; k < b; ++k)
            if (nz[b * nq + k]) pivot += " - " + l(b, k) + "*" + l(b, k);
        f += text("cholesky_steps.tpl#pivot", with({{"d", "d" + std::to_string(P[b])}, {"value", pivot}, {"r", n.r(P[b])}}));
        for (std::size_t a = b + 1; a < nq; ++a) {
            if (!nz[a * nq + b]) continue;
            bool const stored = stored_[std::max(P[a], P[b]) * nq + std::min(P[a], P[b])];
            std::string s = stored ? m(a, b) : ""; // "": a structural zero under fill-in
            for (std::size_t k = 0; k < b; ++k)
                if (nz[a * nq + k] && nz[b * nq + k]) {
                    s += s.empty() ? "-" : " - ";
                    s += l(a, k) + "*" + l(b, k);
                }
            bool const compound = s.find(' ') != std::string::npos || s[0] == '-';
            f += text("cholesky_steps.tpl#factor_entry",
                      with({{"l", l(a, b)}, {"value", compound ? "(" + s + ")" : s}, {"r", n.r(P[b])}}));
        }
    }
    return f;
}

// `const T name(i) = value*r_i;`, the value in parentheses where it is a sum or negated.
std::string emitter::scaled_step(std::string const& name, std::string const& value, std::string const& r) const {
    bool const compound = value.find(' ') != std::string::npos || value[0] == '-';
    return text("cholesky_steps.tpl#solve_step",
                {{"scalar", scalar()}, {"name", name}, {"value", compound ? "(" + value + ")" : value}, {"r", r}});
}

std::vector<char> emitter::forward_substitution(factor_names const& n, std::function<std::string(std::size_t)> const& v,
                                                std::function<std::string(std::size_t)> const& name,
                                                std::string& out) const {
    std::size_t const nq = d_.nq;
    std::vector<std::size_t> const& P = elimination_order();
    std::vector<char> const& nz = factor_structure();
    std::vector<char> written(nq, 0);
    for (std::size_t a = 0; a < nq; ++a) {
        std::string s = v(P[a]);
        for (std::size_t k = 0; k < a; ++k)
            if (nz[a * nq + k] && written[P[k]])
                s += (s.empty() ? "-" : " - ") + n.l(std::max(P[a], P[k]), std::min(P[a], P[k])) + "*" + name(P[k]);
        if (s.empty()) continue;
        written[P[a]] = 1;
        out += scaled_step(name(P[a]), s, n.r(P[a]));
    }
    return written;
}

void emitter::backward_substitution(factor_names const& n, std::function<std::string(std::size_t)> const& start,
                                    std::function<std::string(std::size_t)> const& name, std::string& out) const {
    std::size_t const nq = d_.nq;
    std::vector<std::size_t> const& P = elimination_order();
    std::vector<char> const& nz = factor_structure();
    for (std::size_t a = nq; a-- > 0;) {
        std::string s = start(P[a]);
        for (std::size_t k = a + 1; k < nq; ++k)
            if (nz[k * nq + a]) s += " - " + n.l(std::max(P[a], P[k]), std::min(P[a], P[k])) + "*" + name(P[k]);
        out += scaled_step(name(P[a]), s, n.r(P[a]));
    }
}

// L y = b (forward), Lᵀ x = y (backward), over L's structure in the elimination order;
// then out_i = x_i. y and x are named by their coordinates.
std::string emitter::solve_statements(factor_names const& n, std::function<std::string(std::size_t)> const& b,
                                      std::function<std::string(std::size_t)> const& out) const {
    auto y = [](std::size_t i) { return fmt::format("y{}", i); };
    auto x = [](std::size_t i) { return fmt::format("x{}", i); };
    std::string f;
    forward_substitution(n, b, y, f);
    backward_substitution(n, y, x, f);
    for (std::size_t i = 0; i < d_.nq; ++i) f += text("cholesky_steps.tpl#store", {{"target", out(i)}, {"value", x(i)}});
    return f;
}

// The same for `width` right-hand sides at once (b(i, r), out(i, r), r < width), their
// steps interleaved row by row, every read of b before the first write of out.
std::string emitter::block_solve_statements(factor_names const& n, std::size_t width,
                                            std::function<std::string(std::size_t, std::size_t)> const& b,
                                            std::function<std::string(std::size_t, std::size_t)> const& out) const {
    std::vector<std::vector<std::string>> lines(width);
    for (std::size_t r = 0; r < width; ++r) {
        auto y = [r](std::size_t i) { return fmt::format("y{}_{}", i, r); };
        auto x = [r](std::size_t i) { return fmt::format("x{}_{}", i, r); };
        std::string f;
        forward_substitution(n, [&](std::size_t i) { return b(i, r); }, y, f);
        backward_substitution(n, y, x, f);
        for (std::size_t begin = 0, end; begin < f.size(); begin = end + 1) {
            end = f.find('\n', begin);
            lines[r].push_back(f.substr(begin, end - begin + 1));
        }
    }
    std::string f;
    for (std::size_t k = 0; k < lines[0].size(); ++k)
        for (std::size_t r = 0; r < width; ++r) f += lines[r][k];
    for (std::size_t i = 0; i < d_.nq; ++i)
        for (std::size_t r = 0; r < width; ++r)
            f += text("cholesky_steps.tpl#store", {{"target", out(i, r)}, {"value", fmt::format("x{}_{}", i, r)}});
    return f;
}

std::string emitter::finite_check(std::size_t count, std::function<std::string(std::size_t)> const& value) const {
    std::string conditions;
    for (std::size_t i = 0; i < count; ++i) conditions += (i ? " || !" : "!") + dialect_.detail + "is_finite(" + value(i) + ")";
    return text("cholesky_steps.tpl#finite_check", {{"conditions", conditions}});
}

// The pivots D[begin..end) each against the largest of them, unrolled (as loops the checks
// were 2% of forward_dynamics at 12 joints); `status` where one is not safely positive.
std::string emitter::pivot_check(std::size_t begin, std::size_t end, int status) const {
    std::string largest, pivots;
    for (std::size_t i = begin; i < end; ++i) {
        largest += fmt::format("        if (D[{0}] > largest) largest = D[{0}];\n", i);
        pivots += fmt::format("{0}!{2}is_finite(D[{1}]) || !(D[{1}] > threshold)", i > begin ? " || " : "", i, dialect_.detail);
    }
    return text("forward_dynamics.tpl#pivot_check", {{"scalar", scalar()},
                                                      {"tolerance", single() ? "1e-12f" : "1e-12"},
                                                      {"begin", std::to_string(begin)},
                                                      {"last", std::to_string(end - 1)},
                                                      {"largest", largest},
                                                      {"pivots", pivots},
                                                      {"status", std::to_string(status)}});
}

std::function<std::string(std::size_t, std::size_t)> emitter::in_array(char const* array) const {
    return [nq = d_.nq, array](std::size_t i, std::size_t j) { return fmt::format("{}[{}]", array, i * nq + j); };
}

std::function<std::string(std::size_t)> emitter::diagonal_of(char const* array) const {
    return [nq = d_.nq, array](std::size_t j) { return fmt::format("{}[{}]", array, j * nq + j); };
}

std::function<std::string(std::size_t)> emitter::element_of(char const* array) {
    return [array](std::size_t i) { return fmt::format("{}[{}]", array, i); };
}

emitter::factorisation emitter::mass_factorisation() {
    if (!unrolls_mass_matrix()) return {false, dialect_.factor_nq, dialect_.solve_nq};
    if (!unrolled_helpers_added_) out_.add_helpers(unrolled_cholesky());
    unrolled_helpers_added_ = true;
    return {true, dialect_.detail + "factor_mass_matrix", dialect_.detail + "solve_mass_matrix"};
}

// detail::factor_mass_matrix on arrays, for the two-step form.
std::string emitter::unrolled_cholesky() const {
    return text("unrolled_cholesky.tpl#factor",
                {{"linkage", helper_linkage()},
                 {"scalar", scalar()},
                 {"factor", factor_statements({in_array("M"), in_array("M"), diagonal_of("M"), ""})}});
}

// mf's solve, for a caller that writes a call of it: unrolled, detail::solve_mass_matrix,
// written once and only where called (a static function nothing calls is a warning).
std::string emitter::mass_solve(factorisation const& mf) {
    if (mf.unrolled && !unrolled_solve_added_)
        out_.add_helpers(text("unrolled_cholesky.tpl#solve",
                              {{"linkage", helper_linkage()},
                               {"scalar", scalar()},
                               {"solve", solve_statements({in_array("L"), in_array("L"), diagonal_of("L"), ""}, element_of("b"),
                                                          element_of("b"))}}));
    unrolled_solve_added_ = unrolled_solve_added_ || mf.unrolled;
    return mf.solve;
}

// detail::solve_mass_matrix_x2, _x4 or _x8 (unrolled_cholesky.tpl#block): linearization's
// columns two, four or eight at a time.
std::string emitter::unrolled_block_solve(std::size_t width) const {
    auto row = [](char const* array, char const* stride) {
        return [array, stride](std::size_t i, std::size_t r) { return fmt::format("{}[{} * {} + {}]", array, i, stride, r); };
    };
    return text("unrolled_cholesky.tpl#block",
                {{"linkage", helper_linkage()},
                 {"scalar", scalar()},
                 {"name", block_solve_name(width)},
                 {"count", width == 2 ? "two" : width == 4 ? "four" : "eight"},
                 {"solve", block_solve_statements({in_array("L"), in_array("L"), diagonal_of("L"), ""}, width,
                                                  row("b", "sb"), row("out", "so"))}});
}

std::string emitter::block_solve_name(std::size_t width) {
    return fmt::format("solve_mass_matrix_x{}", width);
}

std::string emitter::augmented(char const* section) {
    if (!d_.mass_singular) return "";
    return augmentation(section, "augment.tpl#why_everywhere");
}

std::string emitter::augmentation(char const* section, char const* why) {
    if (!augment_helpers_added_) {
        std::vector<std::pair<std::string, std::string>> values = {{"linkage", helper_linkage()},
                                                                   {"scalar", scalar()},
                                                                   {"one", single() ? "1.0f" : "1.0"},
                                                                   {"zero", single() ? "0.0f" : "0.0"}};
        // M singular everywhere and factorised unrolled: the augmentation over A's non-zeros too.
        if (d_.mass_singular && unrolls_mass_matrix()) {
            auto [augment, right_hand_side] = unrolled_augmentation();
            values.push_back({"augment", augment});
            values.push_back({"right_hand_side", right_hand_side});
            out_.add_helpers(text("augment.tpl#unrolled_helpers", values));
        } else {
            out_.add_helpers(text("augment.tpl#helpers", values));
        }
        augment_helpers_added_ = true;
    }
    return text(std::string("augment.tpl#") + section, {{"scalar", scalar()}, {"why", one_line(text(why))}});
}

// The statements of augment_mass_matrix and augment_right_hand_side over A's structural
// non-zeros: rho from M's diagonal and A^T A's, then rho A^T A added to M's lower triangle
// where A^T A reaches (the unrolled factorisation reads only that triangle), and b += rho A^T r.
std::pair<std::string, std::string> emitter::unrolled_augmentation() const {
    std::size_t const n = d_.nq, nc = d_.nc;
    auto a = [&](std::size_t k, std::size_t i) { return !d_.constraint_jacobian[k * n + i].is_zero(); };
    std::vector<std::pair<std::string, std::string>> values = {
        {"scalar", scalar()}, {"zero", single() ? "0.0f" : "0.0"}, {"one", single() ? "1.0f" : "1.0"}};
    auto with = [&](std::string const& key, std::string const& value) {
        auto v = values;
        v.push_back({key, value});
        return v;
    };
    std::string augment, rhs;
    for (std::size_t i = 0; i < n; ++i)
        if (!d_.mass_matrix[i * n + i].is_zero()) augment += text("augment.tpl#largest_m", with("m", fmt::format("M[{}]", i * n + i)));
    for (std::size_t i = 0; i < n; ++i) {
        std::string sum, product;
        for (std::size_t k = 0; k < nc; ++k)
            if (a(k, i)) {
                sum += (sum.empty() ? "" : " + ") + fmt::format("A[{0}]*A[{0}]", k * n + i);
                product += (product.empty() ? "" : " + ") + fmt::format("A[{}]*r[{} * stride]", k * n + i, k);
            }
        if (sum.empty()) continue;
        augment += text("augment.tpl#largest_a", with("sum", sum));
        rhs += text("augment.tpl#right_hand_side_entry", with("entry", fmt::format("b[{}] += rho*({});", i, product)));
    }
    if (rhs.empty()) rhs = text("augment.tpl#right_hand_side_unused");
    augment += text("augment.tpl#rho", values);
    std::vector<char> const entries = augmented_entries();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            if (!entries[i * n + j]) continue;
            std::string sum;
            for (std::size_t k = 0; k < nc; ++k)
                if (a(k, i) && a(k, j)) sum += (sum.empty() ? "" : " + ") + fmt::format("A[{}]*A[{}]", k * n + i, k * n + j);
            augment += text("augment.tpl#add", with("entry", fmt::format("M[{}] += rho*({});", i * n + j, sum)));
        }
    return {augment, rhs};
}

std::string emitter::on_singular_mass(std::string const& name, std::string const& call, char const* fail) const {
    if (!regularizes_at_run_time()) return one_line(text("augment.tpl#fail", {{"status", fail}}));
    return one_line(text("augment.tpl#twin_call", {{"name", name}, {"call", call}}));
}

std::vector<std::pair<std::string, std::string>>
emitter::twin_values(std::vector<std::pair<std::string, std::string>> values,
                     std::vector<std::pair<std::string, std::string>> const& augment_sections, char const* fail) {
    auto set = [&](std::string const& key, std::string const& value) {
        for (auto& v : values)
            if (v.first == key) v.second = value;
    };
    set("factor", dialect_.factor_nq);
    set("solve", dialect_.solve_nq);
    set("singular", one_line(text("augment.tpl#fail", {{"status", fail}})));
    for (auto const& [key, augment_section] : augment_sections)
        set(key, augmentation(augment_section.c_str(), "augment.tpl#why_here"));
    return values;
}

void emitter::define_augmented_twin(std::string const& name, std::string const& result,
                                    std::vector<cxx_argument> const& args, std::vector<std::string> const& used,
                                    std::string const& body) {
    out_.define(result, name + "_augmented", args, used, body, text("augment.tpl#twin_comment", {{"name", name}}),
                cxx_printer::place::cold_helper);
}

std::string emitter::inline_forward_dynamics(built_function& f, std::vector<std::string>& read) {
    std::size_t const n = d_.nq;
    factor_names names{[](std::size_t i, std::size_t j) { return fmt::format("M{}_{}", i, j); },
                       [](std::size_t i, std::size_t j) { return fmt::format("L{}_{}", i, j); },
                       [](std::size_t j) { return fmt::format("r{}", j); }, "const " + scalar() + " "};
    auto rhs = [](std::size_t i) { return fmt::format("b{}", i); };
    // f's roots are M's lower triangle row by row, then b; M's structural zeros are not stored.
    std::vector<std::pair<std::string, int>> locals;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j, ++k)
            if (!d_.mass_matrix[i * n + j].is_zero()) locals.push_back({names.set + names.m(i, j), f.roots[k].second});
    for (std::size_t i = 0; i < n; ++i, ++k) locals.push_back({names.set + rhs(i), f.roots[k].second});
    emitted_body terms = f.graph->emit(locals, "    ");
    f.stats.temporaries = terms.temporaries;
    stats_.push_back(f.stats);
    read = terms.used_arguments;
    read.push_back("qdd");
    return text("forward_dynamics_unrolled.tpl",
                {{"terms", terms.text},
                 {"factor", factor_statements(names)},
                 {"solve", solve_statements(names, rhs, element_of("qdd"))},
                 {"finite_check", finite_check(n, [](std::size_t i) { return fmt::format("x{}", i); })}});
}

// The closed form's score: M's and h's terms with what the factorisation and the solves add,
// in the terms' operations. Without constraints 8n² (both forms take about 1.7 instructions per
// operation, the factorisation and solves about 14 n²: bench's generic arms, callgrind, both
// forms of each arm: 8 joints 6,573 against 6,936 instructions, closed form first; 9 joints
// 8,152 against 8,328; 10 joints 9,608 against 9,411, the algorithm's 4,809 operations against
// 4,103 + 8n²). With them 4 per product of the factorisation, 8 per non-zero of L (the solves
// for q̈ and W = L⁻¹ Aᵀ, the augmentation, the checks) and 4 per coordinate, calibrated on the
// floating-base robot files (callgrind, instructions per call of the closed form less 1.9 per
// operation of its terms: the floating body 405 such operations where the formula gives 388,
// the quadruped 2,630 for 3,132, the humanoid 7,580 for 10,800).
std::size_t emitter::closed_form_score(std::size_t terms_operations) const {
    std::size_t const n = d_.nq;
    if (d_.nc == 0) return terms_operations + 8 * n * n;
    std::vector<char> const& L = factor_structure();
    std::size_t const nonzeros = static_cast<std::size_t>(std::count(L.begin(), L.end(), 1));
    return terms_operations + 4 * factor_products(L, n) + 8 * nonzeros + 4 * n;
}

void emitter::forward_dynamics() {
    auto args = with_output(with_output(inputs({"q", "qd", "u", "p"}), "qdd"), "lambda");
    if (o_.templated) {
        // Not deduced from lambda, so that a bare nullptr is accepted there.
        args.back().type = "typename detail::non_deduced<T>::type*";
        out_.add_helpers(text("control.tpl#non_deduced"));
    }
    out_.declare("int", "forward_dynamics", args, text("comments.tpl#forward_dynamics"));
    if (candidate_solves_constraints()) return constrained_candidate_forward_dynamics(args);
    closed_form_dynamics(args);
}

// The closed form's helpers, and forward_dynamics itself unless a candidate writes it: without
// constraints the factored helper stays (linearization takes q̈ and M's factor from it).
void emitter::closed_form_dynamics(std::vector<cxx_argument> const& args) {
    std::size_t const nc = d_.nc;
    built_function f = std::move(*closed_built_);
    closed_built_.reset();
    if (closed_inline_) {
        std::vector<std::string> read;
        std::string body = inline_forward_dynamics(f, read);
        out_.define("int", "forward_dynamics", args, read, body, "", cxx_printer::place::api);
        return;
    }
    write_function(std::move(f), with_output(with_output(inputs({"q", "qd", "u", "p"}), "M"), "b"),
                   text("comments.tpl#dynamics_terms"), cxx_printer::place::helper);
    factorisation const mf = mass_factorisation();
    std::vector<std::pair<std::string, std::string>> values = {
        {"scalar", scalar()},
        {"args_q_qd_u_p", cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"}))},
        {"factor", mf.factor},
        {"math", math()}};
    if (nc > 0) {
        values.push_back({"solve", mass_solve(mf)});
        values.push_back({"args_q_qd_p", cxx_printer::input_arguments(inputs({"q", "qd", "p"}))});
        values.push_back({"augment", augmented("forward_dynamics")});
        values.push_back({"args_q_p", cxx_printer::input_arguments(inputs({"q", "p"}))});
        // The twin takes A and r as forward_dynamics computed them (its factorisation changes
        // only M), and forms M and b again from the API functions: the helpers that compute
        // them stay called once, so the compiler still inlines them into forward_dynamics.
        std::string const call = cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"})) + "A, r, qdd, lambda";
        values.push_back({"singular", on_singular_mass("forward_dynamics", call, "1")});
        std::vector<std::string> const used = {"t", "q", "qd", "u", "p", "qdd", "lambda"};
        std::string const section = "forward_dynamics_constrained.tpl#";
        if (regularizes_at_run_time()) {
            auto twin_args = inputs({"q", "qd", "u", "p"});
            twin_args.push_back({"A", "const " + scalar() + "*"});
            twin_args.push_back({"r", "const " + scalar() + "*"});
            twin_args.push_back(args[args.size() - 2]); // qdd
            twin_args.push_back(args.back());           // lambda
            auto const twin = twin_values(values, {{"augment", "forward_dynamics"}}, "1");
            define_augmented_twin("forward_dynamics", "int", twin_args, {"t", "q", "qd", "u", "p", "A", "r", "qdd", "lambda"},
                                  text(section + "twin_head", twin) + text(section + "factor", twin) +
                                      text(section + "tail", twin));
        }
        // Unrolled where M's factorisation is: the solve over the structure of L and of A.
        std::string const body = mf.unrolled ? text(section + "unrolled", values) + text(section + "factor", values) +
                                                   unrolled_constrained_solve()
                                             : text(section + "head", values) + text(section + "factor", values) +
                                                   text(section + "tail", values);
        out_.define("int", "forward_dynamics", args, used, body, "", cxx_printer::place::api);
        return;
    }
    // The work in a helper that leaves M's factor to its caller: linearization takes q̈ from
    // the same code and solves with the same factor, instead of forming and factoring M again.
    // The solve for q̈ is written out in it (unrolled): a call of solve_mass_matrix, which
    // linearization calls too, would not be inlined (1% more instructions at 12 joints).
    values.push_back({"solve", mf.unrolled ? solve_statements({in_array("M"), in_array("M"), diagonal_of("M"), ""},
                                                              element_of("b"), element_of("qdd"))
                                           : text("forward_dynamics.tpl#loop_solve", {{"solve", mass_solve(mf)}})});
    out_.define("int", "forward_dynamics_factored", with_output(with_output(inputs({"q", "qd", "u", "p"}), "qdd"), "M"),
                {"t", "q", "qd", "u", "p", "qdd", "M"}, text("forward_dynamics.tpl#factored", values),
                text("comments.tpl#forward_dynamics_factored"), cxx_printer::place::helper);
    forward_dynamics_factored_ = true;
    if (chosen_) return candidate_forward_dynamics(args, values);
    out_.define("int", "forward_dynamics", args, {"t", "q", "qd", "u", "p", "qdd"},
                text("forward_dynamics.tpl#call", values), "", cxx_printer::place::api);
}

// forward_dynamics without constraints from the chosen candidate's helper (D's pivots and q̈).
void emitter::candidate_forward_dynamics(std::vector<cxx_argument> const& args,
                                         std::vector<std::pair<std::string, std::string>> values) {
    std::size_t const n = d_.nq;
    std::string const helper = helper_name(fd_);
    values.push_back({"tolerance", single() ? "1e-12f" : "1e-12"});
    values.push_back({"helper", helper});
    write_function(std::move(*chosen_built_), with_output(with_output(inputs({"q", "qd", "u", "p"}), "D"), "x"),
                   text("comments.tpl#" + helper), cxx_printer::place::helper);
    chosen_built_.reset();
    std::string pivots;
    for (auto const& g : chosen_->groups) pivots += pivot_check(g.begin, g.end, g.status);
    values.push_back({"pivot_checks", pivots});
    values.push_back({"finite_check", finite_check(n, [](std::size_t i) { return fmt::format("x[{}]", i); })});
    out_.define("int", "forward_dynamics", args, {"t", "q", "qd", "u", "p", "qdd"},
                text("forward_dynamics.tpl#recursive", values), "", cxx_printer::place::api);
}

// forward_dynamics with constraints from the chosen candidate's helper: it computes D's
// pivots, each block's det(K_b)² with the product of its rows' squared norms (H, in pairs),
// q̈ and λ; the function checks them and stores on success, with the statuses of the dense path.
void emitter::constrained_candidate_forward_dynamics(std::vector<cxx_argument> const& args) {
    std::size_t const n = d_.nq, nc = d_.nc, nh = chosen_->blocks.size();
    std::string const section = "forward_dynamics_constrained.tpl#";
    std::string const helper = helper_name(fd_);
    auto helper_args = with_output(inputs({"q", "qd", "u", "p"}), "D");
    if (nh > 0) helper_args = with_output(helper_args, "H");
    helper_args = with_output(with_output(helper_args, "x"), "l");
    write_function(std::move(*chosen_built_), helper_args, text("comments.tpl#" + helper), cxx_printer::place::helper);
    chosen_built_.reset();
    std::vector<std::pair<std::string, std::string>> values = {
        {"scalar", scalar()},
        {"args_q_qd_u_p", cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"}))},
        {"math", math()},
        {"tolerance", single() ? "1e-12f" : "1e-12"},
        {"nd", std::to_string(chosen_->pivots.size())},
        {"nh", std::to_string(nh)},
        {"helper", helper}};
    std::string pivots; // each group against its own largest pivot
    for (auto const& g : chosen_->groups) pivots += pivot_check(g.begin, g.end, g.status);
    values.push_back({"pivot_checks", pivots});
    values.push_back({"finite_check", finite_check(n + nc, [n](std::size_t i) {
                          return i < n ? fmt::format("x[{}]", i) : fmt::format("l[{}]", i - n);
                      })});
    values.push_back({"comment", text(section + std::string(name_of(fd_)) + "_comment")});
    values.push_back({"blocks_declaration", nh > 0 ? text(section + "quasi_blocks_declaration", values) : ""});
    values.push_back({"blocks_argument", nh > 0 ? "H, " : ""});
    values.push_back({"blocks_check", nh > 0 ? text(section + "quasi_blocks_check", values) : ""});
    out_.define("int", "forward_dynamics", args, {"t", "q", "qd", "u", "p", "qdd", "lambda"},
                text(section + "quasi", values), "", cxx_printer::place::api);
}

} // namespace lagc::emitting
