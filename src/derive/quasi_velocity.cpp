// Stage 3: forward dynamics with constraints in quasi-velocities, where M alone is singular.
//
// Where the kinetic energy is ½ ρᵀ D ρ in k rates ρ = G q̇ (the rate form) and A holds the
// nc constraint rows, the index-1 system is
//   M q̈ + Aᵀ λ = b (= Q − h),   A q̈ = r,   M = Gᵀ D G.
// lagc looks for quasi-velocities a = K q̇ with K block-diagonal (blocks of at most 4: the
// elements of a value the model named, as W = transpose(R)*der(R) gives Rᵀ three times for a
// rotation matrix's nine entries; else the rates' and rows' own coefficients, as a
// quaternion's 2 G(q) and 2 qᵀ; else der(q_i) itself), in which G = E K and A = Ã K with E
// rational and Ã rational but on der(q_i)'s blocks. With b̃ = K⁻ᵀ b the system becomes
//   M̃ a + Ãᵀ λ = b̃,  Ã a = r,   M̃ = Eᵀ D E,
// which falls into independent parts (quasi-velocities, rates and rows that share no
// coefficient), each solved alone and symbolically:
//   - as many rates and rows as quasi-velocities (a rotation), through T = [E; Ã], rational:
//     [D v; λ] = T⁻ᵀ b̃ (v = E a),   a = T⁻¹ [v; r];
//   - rates that determine the quasi-velocities (E square: a position under a tether), by the
//     Schur complement: λ = (Ã M̃⁻¹ Ãᵀ)⁻¹ (Ã M̃⁻¹ b̃ − r),   a = M̃⁻¹ (b̃ − Ãᵀ λ);
// then q̈ = K⁻¹ a, block by block as adjugate over determinant, D⁻¹ by its LDLᵀ. No M, A, or
// system of n + nc unknowns is formed. The result is checked in the residual rows at random
// states; where anything does not apply, nothing is derived and the dense path stays.
#include "derive/derive_support.hpp"
#include "derive/random_states.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/small_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

namespace {

constexpr std::size_t largest_block = 4;

// A block of K: the quasi-velocities a_f = Σ_c K[f s + c] q̇_{coords[c]}, f, c < s.
struct block {
    std::vector<std::size_t> coords;
    exvector K; // s × s, row-major
};

// ∂e/∂q̇ for each e linear and homogeneous in q̇ (the rows of its coefficients, free of q̇);
// nothing where one is not.
std::optional<std::vector<exvector>> linear_rows(model const& m, exvector const& es) {
    std::size_t const n = m.q.size();
    std::vector<exvector> rows;
    for (ex const& e : es) {
        if (has_any(e, m.u) || !has_any(e, m.qd)) return std::nullopt;
        exvector row(n);
        ex rest = e;
        for (std::size_t i = 0; i < n; ++i) {
            row[i] = partial(e, m.qd[i]);
            if (has_any(row[i], m.qd)) return std::nullopt;
            rest -= row[i] * m.qd[i];
        }
        if (!is_identically_zero(rest, m)) return std::nullopt;
        rows.push_back(std::move(row));
    }
    return rows;
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

// The rows of the named values linear in q̇, largest value first: the first 64 values of at
// most 16 elements (a 3 × 3 or 4 × 4 matrix of rates; a model's hundreds of named vectors
// are not searched).
std::vector<std::vector<exvector>> named_rows(model const& m) {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < m.named_rates.size() && order.size() < 64; ++k)
        if (m.named_rates[k].size() <= 16) order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return m.named_rates[a].size() > m.named_rates[b].size(); });
    std::vector<std::vector<exvector>> out;
    for (std::size_t k : order)
        if (auto rows = linear_rows(m, m.named_rates[k])) out.push_back(std::move(*rows));
    return out;
}

// The blocks one named value gives: its distinct non-zero rows, grouped by the coordinates
// they share; a group is a block where it has as many rows as coordinates (at most 4), all
// of them not yet `covered`.
void add_blocks(std::vector<exvector> const& rows, std::vector<char>& covered, std::vector<block>& out) {
    std::size_t const n = covered.size();
    std::vector<exvector> distinct;
    for (auto const& row : rows) {
        bool const zero = std::all_of(row.begin(), row.end(), [](ex const& e) { return e.is_zero(); });
        bool const seen = std::any_of(distinct.begin(), distinct.end(), [&](exvector const& d) {
            for (std::size_t i = 0; i < n; ++i)
                if (!d[i].is_equal(row[i])) return false;
            return true;
        });
        if (!zero && !seen) distinct.push_back(row);
    }
    std::size_t const f = distinct.size();
    std::vector<std::size_t> parent(f + n);
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    for (std::size_t r = 0; r < f; ++r)
        for (std::size_t i = 0; i < n; ++i)
            if (!distinct[r][i].is_zero()) parent[find_root(parent, r)] = find_root(parent, f + i);
    std::map<std::size_t, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> groups;
    for (std::size_t r = 0; r < f; ++r) groups[find_root(parent, r)].first.push_back(r);
    for (std::size_t i = 0; i < n; ++i) {
        auto it = groups.find(find_root(parent, f + i));
        if (it != groups.end()) it->second.second.push_back(i);
    }
    for (auto const& [root, group] : groups) {
        auto const& [forms, coords] = group;
        if (forms.size() != coords.size() || coords.size() > largest_block) continue;
        if (std::any_of(coords.begin(), coords.end(), [&](std::size_t i) { return covered[i]; })) continue;
        block b{coords, {}};
        for (std::size_t r : forms)
            for (std::size_t i : coords) b.K.push_back(distinct[r][i]);
        for (std::size_t i : coords) covered[i] = 1;
        out.push_back(std::move(b));
    }
}

// K's blocks: from the named values (`named`: their rows, largest value first), then from
// `rows` (the rates' and the constraints' own coefficients: a quaternion's 2 G(q) and 2 qᵀ
// make one 4 × 4 block), then der(q_i) for the rest.
std::vector<block> quasi_blocks(std::size_t n, std::vector<std::vector<exvector>> const& named,
                                std::vector<exvector> const& rows) {
    std::vector<char> covered(n, 0);
    std::vector<block> out;
    for (auto const& value : named) add_blocks(value, covered, out);
    add_blocks(rows, covered, out);
    for (std::size_t i = 0; i < n; ++i)
        if (!covered[i]) out.push_back({{i}, {ex(1)}});
    return out;
}

// Each row (n coefficients of q̇) as coefficients of the blocks' quasi-velocities: those of a
// block der(q_i) are the row's own, any other block's are constants, read at two random
// states, taken as small rationals, then proved (row − c K identically zero, coordinate by
// coordinate). Nothing where a row is not such a combination.
std::optional<std::vector<exvector>> constant_coefficients(model const& m, std::vector<block> const& blocks,
                                                           std::vector<exvector> const& rows) {
    std::size_t const n = m.q.size();
    samples s(m);
    std::vector<std::vector<std::size_t>> k_at(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (ex const& e : blocks[b].K) k_at[b].push_back(s.add(e));
    std::vector<std::size_t> row_at;
    for (auto const& row : rows)
        for (ex const& e : row) row_at.push_back(s.add(e));
    if (!s.evaluate(m, 0x71756173ull, 2)) return std::nullopt;
    std::vector<exvector> out(rows.size(), exvector(n, 0));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::size_t form = 0;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            auto const& coords = blocks[b].coords;
            std::size_t const size = coords.size();
            bool const zero = std::all_of(coords.begin(), coords.end(), [&](std::size_t i) { return rows[r][i].is_zero(); });
            if (zero) {
                form += size;
                continue;
            }
            if (size == 1 && blocks[b].K[0].is_equal(1)) { // der(q_i) itself: any coefficient
                out[r][form++] = rows[r][coords[0]];
                continue;
            }
            std::vector<GiNaC::numeric> c;
            for (std::size_t x = 0; x < s.count(); ++x) {
                std::vector<double> K, y;
                for (std::size_t k : k_at[b]) K.push_back(s(x, k));
                for (std::size_t i : coords) y.push_back(s(x, row_at[r * n + i]));
                std::vector<double> const v = solve_transposed(K, y, size);
                if (v.empty()) return std::nullopt;
                for (std::size_t f = 0; f < size; ++f) {
                    auto const q = small_rational(v[f]);
                    if (!q) return std::nullopt;
                    if (x == 0) c.push_back(*q);
                    else if (*q != c[f]) return std::nullopt;
                }
            }
            for (std::size_t j = 0; j < size; ++j) {
                ex rest = rows[r][coords[j]];
                for (std::size_t f = 0; f < size; ++f) rest -= c[f] * blocks[b].K[f * size + j];
                if (!is_identically_zero(rest, m)) return std::nullopt;
            }
            for (std::size_t f = 0; f < size; ++f) out[r][form + f] = c[f];
            form += size;
        }
    }
    return out;
}

// The rate form's rates in an order that does not depend on GiNaC's (which follows its
// symbols' creation, and so may give a rate another sign or factor): by the coordinates each
// moves, then by its coefficients at a random state, scaled to a largest of +1.
std::vector<std::size_t> canonical_order(model const& m, bilinear_form const& f) {
    std::size_t const k = f.rates.size(), n = m.q.size();
    samples s(m);
    for (auto const& r : f.rates)
        for (ex const& e : r.a) s.add(e);
    bool const valued = s.evaluate(m, 0x6f726465ull, 1);
    std::vector<std::pair<std::vector<std::size_t>, std::vector<double>>> key(k);
    for (std::size_t a = 0; a < k; ++a) {
        double largest = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!f.rates[a].a[i].is_zero()) key[a].first.push_back(i);
            double const v = valued ? s(0, a * n + i) : 0.0;
            if (std::abs(v) > std::abs(largest) * (1 + 1e-12)) largest = v;
            key[a].second.push_back(v);
        }
        for (double& v : key[a].second) v = largest != 0 ? std::round(v / largest * 1e9) : 0.0; // ties in the last digits
    }
    std::vector<std::size_t> order(k);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    return order;
}

// D of T = ½ ρᵀ D ρ from the rate form's terms c ρ_a ρ_b, its rates in `order`.
exvector rate_inertia(bilinear_form const& f, std::vector<std::size_t> const& order) {
    std::size_t const k = f.rates.size();
    std::vector<std::size_t> at(k);
    for (std::size_t i = 0; i < k; ++i) at[order[i]] = i;
    exvector D(k * k, 0);
    for (auto const& t : f.terms) {
        std::size_t const a = at[t.a], b = at[t.b];
        if (a == b) D[a * k + a] += 2 * t.c;
        else D[a * k + b] += t.c, D[b * k + a] += t.c;
    }
    return D;
}

// One independent part of the transformed system M̃ a + Ãᵀ λ = b̃, Ã a = r (M̃ = Eᵀ D E):
// its quasi-velocities (forms), rates and constraint rows, each list ascending.
struct subsystem {
    std::vector<std::size_t> forms, rates, rows;
};

std::vector<subsystem> subsystems(std::vector<exvector> const& coefficients, exvector const& D, std::size_t n,
                                  std::size_t k) {
    std::size_t const nc = coefficients.size() - k;
    std::vector<std::size_t> parent(n + k + nc);
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto join = [&](std::size_t a, std::size_t b) { parent[find_root(parent, a)] = find_root(parent, b); };
    for (std::size_t r = 0; r < k + nc; ++r)
        for (std::size_t j = 0; j < n; ++j)
            if (!coefficients[r][j].is_zero()) join(n + r, j);
    for (std::size_t a = 0; a < k; ++a)
        for (std::size_t b = 0; b < k; ++b)
            if (!D[a * k + b].is_zero()) join(n + a, n + b);
    std::map<std::size_t, subsystem> by_root;
    for (std::size_t x = 0; x < n + k + nc; ++x) {
        subsystem& s = by_root[find_root(parent, x)];
        if (x < n) s.forms.push_back(x);
        else if (x < n + k) s.rates.push_back(x - n);
        else s.rows.push_back(x - n - k);
    }
    std::vector<subsystem> out;
    for (auto& [root, s] : by_root) out.push_back(std::move(s));
    return out;
}

// The rational matrix of the given rows' coefficients on `forms`; false where one is not a number.
bool rational_matrix(std::vector<exvector> const& coefficients, std::vector<std::size_t> const& rows,
                     std::vector<std::size_t> const& forms, GiNaC::matrix& out) {
    out = GiNaC::matrix(rows.size(), forms.size());
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t j = 0; j < forms.size(); ++j) {
            ex const& c = coefficients[rows[r]][forms[j]];
            if (!GiNaC::is_a<GiNaC::numeric>(c)) return false;
            out(r, j) = c;
        }
    return true;
}

// The solution so far: a (by form), λ (by row) and the pivots, D's and the Schur
// complements', each kind one group as the dense path has M's and A M⁻¹ Aᵀ's.
struct transformed_solution {
    exvector a, lambda;
    exvector inertia, schur; // pivots: status 1 and 2 where one is not safely positive
    void pivots(exvector& all, std::vector<fd_pivot_group>& groups) const {
        for (auto const& [g, status] : {std::pair{&inertia, 1}, std::pair{&schur, 2}}) {
            if (g->empty()) continue;
            groups.push_back({all.size(), all.size() + g->size(), status});
            all.insert(all.end(), g->begin(), g->end());
        }
    }
};

// D's rows and columns of `rates` (D is k × k).
exvector restricted(exvector const& D, std::size_t k, std::vector<std::size_t> const& rates) {
    exvector out;
    for (std::size_t a : rates)
        for (std::size_t b : rates) out.push_back(D[a * k + b]);
    return out;
}

// A part with as many rates and rows as forms, all coefficients rational and T = [E; Ã]
// invertible: [D v; λ] = T⁻ᵀ b̃, a = T⁻¹ [v; r].
bool square_part(subsystem const& s, std::vector<exvector> const& coefficients, std::size_t k, exvector const& D,
                 exvector const& bt, exvector const& r, transformed_solution& out) {
    std::vector<std::size_t> rows = s.rates;
    for (std::size_t c : s.rows) rows.push_back(k + c);
    GiNaC::matrix T;
    if (!rational_matrix(coefficients, rows, s.forms, T) || T.determinant().is_zero()) return false;
    GiNaC::matrix const Ti = T.inverse();
    exvector b;
    for (std::size_t j : s.forms) b.push_back(bt[j]);
    exvector const z = times(Ti, b, true);
    ldlt const inertia(restricted(D, k, s.rates));
    exvector va = inertia.solve(exvector(z.begin(), z.begin() + s.rates.size()));
    for (std::size_t c : s.rows) va.push_back(r[c]);
    exvector const a = times(Ti, va, false);
    for (std::size_t j = 0; j < s.forms.size(); ++j) out.a[s.forms[j]] = a[j];
    for (std::size_t c = 0; c < s.rows.size(); ++c) out.lambda[s.rows[c]] = z[s.rates.size() + c];
    out.inertia.insert(out.inertia.end(), inertia.pivots.begin(), inertia.pivots.end());
    return true;
}

// A part whose rates alone determine its forms (E square, rational, invertible: M̃ regular
// where D is) and any rows: the Schur complement S = Ã M̃⁻¹ Ãᵀ, λ = S⁻¹ (Ã M̃⁻¹ b̃ − r),
// a = M̃⁻¹ (b̃ − Ãᵀ λ), with M̃⁻¹ = E⁻¹ D⁻¹ E⁻ᵀ.
bool regular_part(subsystem const& s, std::vector<exvector> const& coefficients, std::size_t k, exvector const& D,
                  exvector const& bt, exvector const& r, transformed_solution& out) {
    GiNaC::matrix E;
    if (!rational_matrix(coefficients, s.rates, s.forms, E) || E.determinant().is_zero()) return false;
    GiNaC::matrix const Ei = E.inverse();
    ldlt const inertia(restricted(D, k, s.rates));
    auto m_inverse = [&](exvector const& x) { return times(Ei, inertia.solve(times(Ei, x, true)), false); };
    std::size_t const ns = s.forms.size(), ms = s.rows.size();
    exvector b;
    for (std::size_t j : s.forms) b.push_back(bt[j]);
    exvector const y = m_inverse(b);
    std::vector<exvector> Y;
    for (std::size_t c : s.rows) {
        exvector column;
        for (std::size_t j : s.forms) column.push_back(coefficients[k + c][j]);
        Y.push_back(m_inverse(column));
    }
    auto row_times = [&](std::size_t c, exvector const& x) {
        exvector terms;
        for (std::size_t j = 0; j < ns; ++j) terms.push_back(coefficients[k + s.rows[c]][s.forms[j]] * x[j]);
        return sum_of(terms);
    };
    exvector S(ms * ms), g(ms);
    for (std::size_t c = 0; c < ms; ++c) {
        for (std::size_t d = 0; d <= c; ++d) S[c * ms + d] = S[d * ms + c] = row_times(c, Y[d]);
        g[c] = row_times(c, y) - r[s.rows[c]];
    }
    ldlt const schur(S);
    exvector const lambda = schur.solve(g);
    for (std::size_t j = 0; j < ns; ++j) {
        exvector terms = {y[j]};
        for (std::size_t c = 0; c < ms; ++c) terms.push_back(-Y[c][j] * lambda[c]);
        out.a[s.forms[j]] = sum_of(terms);
    }
    for (std::size_t c = 0; c < ms; ++c) out.lambda[s.rows[c]] = lambda[c];
    out.inertia.insert(out.inertia.end(), inertia.pivots.begin(), inertia.pivots.end());
    out.schur.insert(out.schur.end(), schur.pivots.begin(), schur.pivots.end());
    return true;
}

// K⁻ᵀ b block by block, each block's adjugate with 1/det for q̈ = K⁻¹ a, and for each distinct
// determinant that is not a number det² with the product of its rows' squared norms (the
// run-time test that the block is regular). Nothing where a block is singular everywhere.
struct inverted_blocks {
    exvector bt;
    std::vector<std::pair<exvector, ex>> inverses;
    exvector checks;
};
std::optional<inverted_blocks> invert_blocks(std::vector<block> const& blocks, exvector const& b) {
    inverted_blocks out{exvector(b.size()), {}, {}};
    std::size_t form = 0;
    for (auto const& bl : blocks) {
        std::size_t const s = bl.coords.size();
        auto [adj, det] = adjugate(bl.K, s);
        if (GiNaC::is_a<GiNaC::numeric>(det) && det.is_zero()) return std::nullopt;
        ex const inv = GiNaC::pow(det, -1);
        for (std::size_t fi = 0; fi < s; ++fi) {
            exvector terms;
            for (std::size_t c = 0; c < s; ++c) terms.push_back(adj[c * s + fi] * b[bl.coords[c]]);
            out.bt[form + fi] = sum_of(terms) * inv;
        }
        form += s;
        ex const square = GiNaC::pow(det, 2);
        bool const seen = std::any_of(out.checks.begin(), out.checks.end(), [&](ex const& e) { return e.is_equal(square); });
        if (!GiNaC::is_a<GiNaC::numeric>(det) && !seen) {
            exvector norms;
            for (std::size_t r = 0; r < s; ++r) {
                exvector squares;
                for (std::size_t c = 0; c < s; ++c) squares.push_back(GiNaC::pow(bl.K[r * s + c], 2));
                norms.push_back(sum_of(squares));
            }
            out.checks.push_back(square);
            out.checks.push_back(GiNaC::mul(norms));
        }
        out.inverses.push_back({std::move(adj), inv});
    }
    return out;
}

} // namespace

fd_attempt try_quasi_velocities(model const& m, bilinear_form const& f, derived const& d) {
    fd_method const method = fd_method::quasi_velocities;
    std::size_t const n = d.nq, nc = d.nc, k = f.rates.size();
    if (nc == 0) return not_applicable(method, "the model has no constraints (this form solves a singular M with them)");
    if (!d.mass_singular) return not_applicable(method, "M alone is regular (this form serves a singular M)");
    if (n > 64) return not_applicable(method, "more than 64 coordinates");
    std::vector<std::size_t> const rate_order = canonical_order(m, f);
    std::vector<exvector> rows;
    for (std::size_t a : rate_order) rows.push_back(f.rates[a].a);
    for (std::size_t c = 0; c < nc; ++c) rows.emplace_back(d.constraint_jacobian.begin() + c * n,
                                                          d.constraint_jacobian.begin() + (c + 1) * n);
    // The named values' quasi-velocities first; where some rate or row is not a combination of
    // them, the rates' and rows' own blocks alone.
    std::vector<block> blocks;
    std::optional<std::vector<exvector>> coefficients;
    for (auto const& named : {named_rows(m), std::vector<std::vector<exvector>>{}}) {
        blocks = quasi_blocks(n, named, rows);
        if (std::all_of(blocks.begin(), blocks.end(), [](block const& b) { return b.coords.size() == 1; })) continue;
        if ((coefficients = constant_coefficients(m, blocks, rows))) break;
    }
    if (!coefficients)
        return not_applicable(method, "no blocks of at most 4 rates with rational, constant coefficients (K, E)");
    exvector const D = rate_inertia(f, rate_order);

    // b̃ = K⁻ᵀ b and, for q̈ = K⁻¹ a, each block's adjugate over its determinant.
    exvector b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = d.generalized_forces[i] - sum_of(bias_parts(d, i, true));
    auto const inverted = invert_blocks(blocks, b);
    if (!inverted) return not_applicable(method, "a block of K could not be inverted in closed form");
    auto const& [bt, inverses, checks] = *inverted;

    // The transformed system part by part: square ones, then those with a regular M̃.
    transformed_solution solution{exvector(n, 0), exvector(nc, 0), {}, {}};
    for (auto const& s : subsystems(*coefficients, D, n, k)) {
        if (s.forms.empty()) return not_applicable(method, "a rate or a constraint row of no quasi-velocity");
        bool const square = s.rates.size() + s.rows.size() == s.forms.size() &&
                            square_part(s, *coefficients, k, D, bt, d.constraint_rhs, solution);
        if (!square && !(s.rates.size() == s.forms.size() &&
                         regular_part(s, *coefficients, k, D, bt, d.constraint_rhs, solution)))
            return not_applicable(method, "a part of the transformed system is neither square nor of regular M");
    }
    exvector qdd(n);
    std::size_t form = 0;
    for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
        auto const& bl = blocks[bi];
        std::size_t const s = bl.coords.size();
        for (std::size_t c = 0; c < s; ++c) {
            exvector terms;
            for (std::size_t fi = 0; fi < s; ++fi) terms.push_back(inverses[bi].first[c * s + fi] * solution.a[form + fi]);
            qdd[bl.coords[c]] = sum_of(terms) * inverses[bi].second;
        }
        form += s;
    }
    GiNaC::exmap at;
    for (std::size_t i = 0; i < n; ++i) at[d.qdd[i]] = qdd[i];
    for (std::size_t c = 0; c < nc; ++c) at[d.lambda[c]] = solution.lambda[c];
    if (solution.inertia.empty() || !rows_vanish_at_random_states(m, d.residual_rows, at, 0x71647121ull))
        return not_applicable(method, "its q̈ and λ leave the residuals non-zero at random states");
    fd_candidate c{std::move(qdd), std::move(solution.lambda), {}, checks, {}};
    solution.pivots(c.pivots, c.groups);
    return {method, std::move(c), {}};
}

} // namespace lagc
