// Stage 3's last step: can the equations be solved? M, A and each kinetic term are
// evaluated (on the code generator's DAG, linear in their size) at a few pseudo-random
// configurations with the parameters' defaults; rank and definiteness come from the
// eigenvalues of symmetric matrices (Jacobi), dependence of constraint rows from
// Gram-Schmidt in file order. A defect counts only when it shows at every configuration
// tried (a singular pose of a mechanism is not a defect of the model).
#include "graph/expression_graph.hpp"
#include "derive/derive_support.hpp"
#include "derive/well_posed.hpp"
#include "derive/random_states.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace lagc {


namespace {

constexpr int sample_count = 3;
constexpr double rank_tolerance = 1e-10; // relative to the largest eigenvalue or row norm

// Eigenvalues (ascending) and eigenvectors (columns of `vectors`, row-major n × n) of a
// symmetric matrix, by cyclic Jacobi rotations.
void symmetric_eigen(std::vector<double> a, std::size_t n, std::vector<double>& values, std::vector<double>& vectors) {
    // Scaled to a largest entry of 1 (squares of 1e200 would overflow), scaled back at the end.
    double big = 0;
    for (double x : a) big = std::max(big, std::abs(x));
    double const scale = big > 0 ? big : 1.0;
    for (double& x : a) x /= scale;
    std::vector<double> v(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
    double norm = 0;
    for (double x : a) norm += x * x;
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
        if (!(off > 1e-32 * norm)) break;
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t q = p + 1; q < n; ++q) {
                double const apq = a[p * n + q];
                if (apq == 0) continue;
                double const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double const t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                double const c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (std::size_t k = 0; k < n; ++k) {
                    double const akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    double const apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    double const vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x * n + x] < a[y * n + y]; });
    values.assign(n, 0.0);
    vectors.assign(n * n, 0.0);
    for (std::size_t c = 0; c < n; ++c) {
        values[c] = a[order[c] * n + order[c]] * scale;
        for (std::size_t k = 0; k < n; ++k) vectors[k * n + c] = v[k * n + order[c]];
    }
}

struct eigen {
    std::vector<double> values, vectors;
    std::size_t n = 0;
    double scale = 0;
    std::vector<double> column(std::size_t c) const {
        std::vector<double> x(n);
        for (std::size_t k = 0; k < n; ++k) x[k] = vectors[k * n + c];
        return x;
    }
    std::size_t nullity() const {
        std::size_t k = 0;
        for (double v : values) k += std::abs(v) <= rank_tolerance * scale;
        return k;
    }
    bool negative() const { return n > 0 && values[0] < -rank_tolerance * scale; }
};

eigen decompose(std::vector<double> const& a, std::size_t n) {
    eigen e;
    e.n = n;
    symmetric_eigen(a, n, e.values, e.vectors);
    for (double v : e.values) e.scale = std::max(e.scale, std::abs(v));
    return e;
}

// "der(x) - 0.5*der(y)": the velocity combination a vector of q̇ stands for, scaled so that
// its largest component is 1; components below 1e-6 of it left out.
std::string combination(model const& m, std::vector<double> v) {
    double big = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (std::abs(v[i]) > big) big = std::abs(v[i]), at = i;
    if (big == 0) return "0";
    double const sign = v[at] < 0 ? -1 : 1;
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        double const c = v[i] * sign / big;
        if (std::abs(c) < 1e-6) continue;
        std::string const term = "der(" + m.coordinates[i] + ")";
        std::string const mag = std::abs(std::abs(c) - 1) < 1e-9 ? "" : fmt::format("{:.4g}*", std::abs(c));
        s += s.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        s += mag + term;
    }
    return s;
}

bool parallel(std::vector<double> const& a, std::vector<double> const& b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
    return std::abs(std::abs(ab) - std::sqrt(aa * bb)) <= 1e-9 * std::sqrt(aa * bb);
}

// The one coordinate a vector points along, or nq when it mixes several.
std::size_t single_coordinate(std::vector<double> const& v) {
    std::size_t found = v.size();
    double big = 0;
    for (double x : v) big = std::max(big, std::abs(x));
    for (std::size_t i = 0; i < v.size(); ++i)
        if (std::abs(v[i]) > 1e-6 * big) {
            if (found != v.size()) return v.size();
            found = i;
        }
    return found;
}

class checker {
public:
    // The graph reads its symbols' spellings when it is made: they come first.
    checker(model const& m, derived& d, diagnostics& diags)
        : m_(m), d_(d), diags_(diags), symbols_(graph_spellings(m, variables_)), graph_(symbols_, codegen_options::for_values()) {}

    bool run() {
        std::size_t const n = d_.nq, nc = d_.nc;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) roots_.push_back(graph_.add(d_.mass_matrix[i * n + j]));
        for (auto const& a : d_.constraint_jacobian) roots_.push_back(graph_.add(a));
        for (auto const& term : m_.energy_terms) roots_.push_back(graph_.add(term.value));
        invented_ = invented_parameters();
        std::vector<sample> samples;
        std::uint64_t state = 0x9E3779B97F4A7C15ull;
        for (int s = 0; s < sample_count; ++s) {
            sample x = evaluate(state);
            if (x.finite) samples.push_back(std::move(x));
        }
        if (samples.empty()) return true; // poles everywhere tried: nothing to conclude
        if (!mass_is_not_negative(samples)) return false;
        if (nc > 0 && !rows_independent(samples)) return false;
        return mass_or_system_regular(samples);
    }

private:
    struct sample {
        std::vector<double> point; // the variables' values, in variables_ order
        std::vector<double> M, A;  // n × n (both triangles), nc × n
        bool finite = true;
    };

    model const& m_;
    derived& d_;
    diagnostics& diags_;
    std::string invented_; // the parameters M, A or T read that have no default, or ""
    std::vector<std::string> variables_; // the spellings, in the order of a sample's point
    std::map<std::string, symbol_spelling> symbols_;
    expression_graph graph_;
    std::vector<int> roots_;

    // "a, b": the parameters without a written default that M, A or the kinetic terms read
    // (the samples give them invented values).
    std::string invented_parameters() const {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
            if (m_.parameters[i].written) continue;
            bool read = false;
            for (auto const& e : d_.mass_matrix) read = read || has_any(e, {m_.p[i]});
            for (auto const& e : d_.constraint_jacobian) read = read || has_any(e, {m_.p[i]});
            for (auto const& term : m_.energy_terms) read = read || has_any(term.value, {m_.p[i]});
            if (read) names.push_back(m_.parameters[i].name);
        }
        std::string s;
        for (std::size_t i = 0; i < names.size(); ++i)
            s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
        return s;
    }

    // A defect of M or of the constraints: an error, or, where it was found with invented
    // values (invented_), a warning that names them, since the values the model will be given
    // may have none. Returns whether the run goes on.
    bool defect(span at, std::string const& message) {
        if (invented_.empty()) {
            diags_.error(at, message);
            return false;
        }
        diags_.warning(at,
                       message + " (found with values lagc chose for " + invented_ +
                           ", which have no default: write their defaults to check the model as it will run)",
                       warning_kind::invented_values);
        return true;
    }

    // Coordinates, velocities and time at random; a parameter at its written default, or
    // (none written) at an invented positive value.
    sample evaluate(std::uint64_t& state) {
        std::size_t const n = d_.nq, nc = d_.nc;
        sample x;
        x.point = random_point(m_, state, parameter_values::defaults);
        std::vector<double> v = graph_.evaluate_all(roots_, variables_, x.point);
        for (double e : v) x.finite = x.finite && std::isfinite(e);
        x.M.assign(n * n, 0.0);
        std::size_t k = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j, ++k) x.M[i * n + j] = x.M[j * n + i] = v[k];
        x.A.assign(v.begin() + static_cast<std::ptrdiff_t>(k), v.begin() + static_cast<std::ptrdiff_t>(k + nc * n));
        return x;
    }

    // The quadratic part of each kinetic/lagrangian term along q̇ = v at sample x:
    // (T(v) + T(−v))/2 − T(0).
    std::vector<double> quadratic_parts(sample const& x, std::vector<double> const& v) {
        std::size_t const n = d_.nq, first = n * (n + 1) / 2 + d_.nc * n;
        std::vector<int> terms(roots_.begin() + static_cast<std::ptrdiff_t>(first), roots_.end());
        auto at = [&](double s) {
            std::vector<double> point = x.point;
            for (std::size_t i = 0; i < n; ++i) point[n + i] = s * v[i];
            return graph_.evaluate_all(terms, variables_, point);
        };
        std::vector<double> plus = at(1), minus = at(-1), zero = at(0), out;
        for (std::size_t k = 0; k < terms.size(); ++k) out.push_back((plus[k] + minus[k]) / 2 - zero[k]);
        return out;
    }

    // The first kinetic or lagrangian statement that reads one of these velocities.
    span statement_with(std::vector<double> const& v) const {
        double big = 0;
        for (double x : v) big = std::max(big, std::abs(x));
        for (auto const& term : m_.energy_terms)
            for (std::size_t i = 0; i < v.size(); ++i)
                if (std::abs(v[i]) > 1e-6 * big && has_any(term.value, {m_.qd[i]})) return term.where;
        return m_.energy_terms.empty() ? m_.model_span : m_.energy_terms.front().where;
    }

    bool mass_is_not_negative(std::vector<sample> const& samples) {
        std::size_t const n = d_.nq;
        std::size_t negative = 0;
        eigen first;
        sample const* where = nullptr;
        for (auto const& x : samples) {
            eigen e = decompose(x.M, n);
            if (!e.negative()) continue;
            if (negative++ == 0) first = e, where = &x;
        }
        if (negative == 0) return true;
        std::vector<double> v = first.column(0);
        std::vector<double> parts = quadratic_parts(*where, v);
        span at = m_.model_span;
        double worst = 0;
        for (std::size_t k = 0; k < parts.size(); ++k)
            if (parts[k] < worst) worst = parts[k], at = m_.energy_terms[k].where;
        std::string const along = combination(m_, v);
        if (negative < samples.size()) {
            diags_.warning(at,
                           "the kinetic energy is negative for the velocity " + along +
                               " at some configurations tried: the mass matrix is not positive definite there, "
                               "and forward_dynamics fails there",
                           warning_kind::indefinite_mass_matrix);
            return true;
        }
        return defect(at, "the kinetic energy is negative for the velocity " + along +
                              " (the mass matrix has a negative eigenvalue at every configuration tried): a kinetic "
                              "energy is positive for every motion; check this term's sign");
    }

    // For each row of A at sample x, its coefficients as a combination of the rows before it
    // (holonomic rows first, as in A) when it is one, else empty: Gram–Schmidt in row order,
    // each row orthogonalised twice. Zero rows (warned about in derive) count as independent.
    std::vector<std::vector<double>> dependencies(sample const& x) const {
        std::size_t const n = d_.nq, nc = d_.nc;
        auto length = [](std::vector<double> const& r) {
            double s = 0;
            for (double e : r) s += e * e;
            return std::sqrt(s);
        };
        std::vector<std::vector<double>> out(nc), basis, mix; // orthonormal rows, each as Σ mix_l a_l
        for (std::size_t k = 0; k < nc; ++k) {
            std::vector<double> r(x.A.begin() + static_cast<std::ptrdiff_t>(k * n),
                                  x.A.begin() + static_cast<std::ptrdiff_t>((k + 1) * n));
            double const norm0 = length(r);
            if (norm0 == 0) continue;
            std::vector<double> proj(basis.size(), 0.0);
            for (int pass = 0; pass < 2; ++pass)
                for (std::size_t b = 0; b < basis.size(); ++b) {
                    double s = 0;
                    for (std::size_t i = 0; i < n; ++i) s += r[i] * basis[b][i];
                    for (std::size_t i = 0; i < n; ++i) r[i] -= s * basis[b][i];
                    proj[b] += s;
                }
            // a_k = Σ proj_b e_b + r, with e_b = Σ mix_b a.
            std::vector<double> m(nc, 0.0);
            for (std::size_t b = 0; b < basis.size(); ++b)
                for (std::size_t l = 0; l < nc; ++l) m[l] += proj[b] * mix[b][l];
            double const norm = length(r);
            if (norm <= rank_tolerance * norm0) {
                out[k] = std::move(m);
                continue;
            }
            for (auto& e : m) e = -e / norm; // e_k = (a_k − Σ proj_b e_b) / norm
            m[k] += 1 / norm;
            for (auto& e : r) e /= norm;
            basis.push_back(std::move(r));
            mix.push_back(std::move(m));
        }
        return out;
    }

    // Rows that depend on the rows before them at every configuration tried: an error each.
    bool rows_independent(std::vector<sample> const& samples) {
        std::vector<std::vector<std::vector<double>>> at;
        for (auto const& x : samples) at.push_back(dependencies(x));
        bool ok = true;
        for (std::size_t k = 0; k < d_.nc; ++k) {
            std::vector<double> const& coef = at[0][k];
            if (coef.empty()) continue;
            double big = 0;
            for (double c : coef) big = std::max(big, std::abs(c));
            std::vector<std::size_t> uses;
            for (std::size_t l = 0; l < coef.size(); ++l)
                if (std::abs(coef[l]) > 1e-8 * big) uses.push_back(l);
            // One row it is proportional to: the factor, when it is the same everywhere.
            double factor = uses.size() == 1 ? coef[uses[0]] : 0.0;
            bool everywhere = !uses.empty();
            for (std::size_t s = 1; s < samples.size() && everywhere; ++s) {
                everywhere = !at[s][k].empty();
                if (everywhere && uses.size() == 1 &&
                    std::abs(proj_factor(samples[s], k, uses[0]) - factor) > 1e-8 * std::abs(factor))
                    factor = 0;
            }
            if (!everywhere) continue;
            ok = report_dependent(k, uses, factor) && ok;
        }
        return ok;
    }

    bool report_dependent(std::size_t k, std::vector<std::size_t> const& uses, double factor) {
        std::string lines;
        for (std::size_t i = 0; i < uses.size(); ++i)
            lines += (i == 0 ? "" : i + 1 == uses.size() ? " and " : ", ") + std::to_string(d_.constraint_lines[uses[i]]);
        std::string const times = std::abs(factor - 1) < 1e-12    ? "equal to"
                                  : std::abs(factor + 1) < 1e-12 ? "minus"
                                                                 : fmt::format("{:.6g} times", factor);
        std::string const how = uses.size() == 1 && factor != 0
                                    ? "its row of the Jacobian A is " + times + " that of the constraint on line " + lines
                                    : "its row of the Jacobian A is a combination of those of the constraint" +
                                          std::string(uses.size() == 1 ? "" : "s") + " on line" +
                                          (uses.size() == 1 ? " " : "s ") + lines;
        return defect(d_.constraint_spans[k],
                      "this constraint depends on the others: " + how +
                          " at every configuration tried, so [[M, A^T], [A, 0]] is singular and forward_dynamics "
                          "fails everywhere; remove it (or the one it repeats)");
    }

    // a_k·a_l / a_l·a_l at sample x: the factor between two proportional rows.
    double proj_factor(sample const& x, std::size_t k, std::size_t l) const {
        std::size_t const n = d_.nq;
        double kl = 0, ll = 0;
        for (std::size_t i = 0; i < n; ++i) {
            kl += x.A[k * n + i] * x.A[l * n + i];
            ll += x.A[l * n + i] * x.A[l * n + i];
        }
        return ll > 0 ? kl / ll : 0;
    }

    // M regular, or (with constraints) M + ρ AᵀA regular: then forward_dynamics solves the
    // whole system with the augmented matrix (d_.mass_singular).
    bool mass_or_system_regular(std::vector<sample> const& samples) {
        std::size_t const n = d_.nq, nc = d_.nc;
        std::size_t singular = 0, rank = n, augmented_singular = 0;
        std::vector<double> null_vector, undetermined;
        bool same_direction = true; // one null direction, the same at every configuration
        for (auto const& x : samples) {
            eigen e = decompose(x.M, n);
            std::size_t const k = e.nullity();
            if (k == 0) continue;
            ++singular;
            rank = std::min(rank, n - k);
            same_direction = same_direction && k == 1;
            if (null_vector.empty()) null_vector = e.column(0);
            else same_direction = same_direction && parallel(null_vector, e.column(0));
            if (nc == 0) continue;
            std::vector<double> aug = x.M;
            double largest_m = 0, largest_a = 0;
            for (std::size_t i = 0; i < n; ++i) {
                largest_m = std::max(largest_m, x.M[i * n + i]);
                double s = 0;
                for (std::size_t r = 0; r < nc; ++r) s += x.A[r * n + i] * x.A[r * n + i];
                largest_a = std::max(largest_a, s);
            }
            double const rho = largest_a > 0 ? (largest_m > 0 ? largest_m : 1.0) / largest_a : 0.0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t r = 0; r < nc; ++r) aug[i * n + j] += rho * x.A[r * n + i] * x.A[r * n + j];
            eigen a = decompose(aug, n);
            if (a.nullity() > 0) {
                ++augmented_singular;
                if (undetermined.empty()) undetermined = a.column(0);
            }
        }
        if (singular < samples.size()) return true;
        if (nc > 0 && augmented_singular < samples.size()) {
            d_.mass_singular = true;
            std::size_t const i = single_coordinate(null_vector);
            d_.singular_mass_note = {
                i < n ? m_.coordinate_spans[i] : statement_with(null_vector),
                fmt::format("the mass matrix alone is singular (rank {} of {}{}); the constraints "
                            "determine that motion, so forward_dynamics solves [[M, A^T], [A, 0]] as a whole",
                            rank, n, same_direction ? "; no inertia along " + combination(m_, null_vector) : "")};
            return true;
        }
        std::vector<double> const v = nc > 0 ? undetermined : null_vector;
        std::string const tail = nc > 0 ? ", and no constraint determines it" : "";
        std::size_t const i = single_coordinate(v);
        if (i < n) return defect(m_.coordinate_spans[i], no_inertia_message(m_, i) + tail);
        return defect(statement_with(v), "the mass matrix is singular: the velocity combination " + combination(m_, v) +
                                             " has no inertia (the kinetic energy does not change along it)" + tail);
    }
};

} // namespace

bool check_well_posed(model const& m, derived& d, diagnostics& diags) { return checker(m, d, diags).run(); }

} // namespace lagc
