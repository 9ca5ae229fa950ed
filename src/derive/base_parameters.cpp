// Stage 3, the base parameters of the regressor (issue 50, --regressor base): the combinations
// π_b of π that the torques determine, Y π = Y_b π_b, with Y_b a subset of Y's columns.
//
// Y is stacked over random states (Y's column j is τ with π = e_j: τ is linear in π with no
// remainder, regressor.cpp) at random values of the other parameters θ. The columns are taken
// greedily in an order of preference, each kept where it is independent of those kept before
// (Gram–Schmidt twice, on columns scaled to unit norm): the set kept is the first basis in
// that order. For robot files in linear parameters (body by body, base to tip; in a body the
// inertias, then Kyy, first moments and the mass last) that is the choice of Khalil and
// Gautier's grouping rules: a revolute joint's YY, MZ and M (about its z) group into the body
// before it. Each other column is a combination of the kept ones, Y_d = Y_B β; π_b = π_B + β π_d.
// β is found in double precision; where it does not change with θ its entries are numbers
// (±1 and short decimals exact, others to about 1e-12); where it does, each entry that changes
// is fitted as a polynomial of degree ≤ 2 in the few θ it reads (l1² m2 for a planar arm).
// Every grouping is checked at fresh states and fresh θ before it is used.
#include "derive/derive.hpp"
#include "derive/random_states.hpp"
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

namespace lagc {

namespace {

using column = std::vector<double>;

struct lcg {
    std::uint64_t state;
    double operator()(double lo, double hi) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return lo + (hi - lo) * static_cast<double>(state >> 11) / 9007199254740992.0;
    }
};

// Y's columns stacked over states: τ with π = e_j, the inputs at zero, θ as given.
class y_sampler {
public:
    y_sampler(model const& m, derived const& d) : m_(m), d_(d) {
        auto symbols = graph_spellings(m, order_);
        for (std::size_t i = 0; i < d.nq; ++i) {
            std::string const spelled = "qdd[" + std::to_string(i) + "]";
            symbols[d.qdd[i].get_name()] = {spelled, "x"};
            order_.push_back(spelled);
        }
        graph_ = std::make_unique<expression_graph>(symbols, codegen_options{});
        for (auto const& row : d.inverse_dynamics) {
            GiNaC::ex sum = 0;
            for (auto const& part : row) sum += part;
            rows_.push_back(graph_->add(sum));
        }
        first_ = m.q.size() + m.qd.size() + m.u.size();
    }

    double nodes() const { return static_cast<double>(*std::max_element(rows_.begin(), rows_.end()) + 1); }

    // Y over `states` states from `seed`, θ the parameters' values (π's entries ignored);
    // one column per regressor column, nq·states rows.
    std::vector<column> stacked(std::vector<double> const& theta, std::uint64_t seed, std::size_t states) const {
        std::size_t const nr = d_.regressor.size(), nq = d_.nq;
        std::vector<column> W(nr, column(nq * states));
        lcg r{seed};
        std::uint64_t point_state = seed ^ 0x5851f42d4c957f2dull;
        for (std::size_t s = 0; s < states; ++s) {
            std::vector<double> x = random_point(m_, point_state, parameter_values::random);
            for (std::size_t i = 0; i < m_.q.size(); ++i) x[i] = r(-3.0, 3.0);
            for (std::size_t i = 0; i < m_.qd.size(); ++i) x[m_.q.size() + i] = r(-1.5, 1.5);
            for (std::size_t i = 0; i < m_.u.size(); ++i) x[m_.q.size() + m_.qd.size() + i] = 0;
            for (std::size_t k = 0; k < theta.size(); ++k) x[first_ + k] = theta[k];
            for (std::size_t j : d_.regressor) x[first_ + j] = 0;
            for (std::size_t i = 0; i < nq; ++i) x.push_back(r(-1.5, 1.5));
            for (std::size_t c = 0; c < nr; ++c) {
                x[first_ + d_.regressor[c]] = 1;
                auto const tau = graph_->evaluate_all(rows_, order_, x);
                x[first_ + d_.regressor[c]] = 0;
                for (std::size_t i = 0; i < nq; ++i) W[c][s * nq + i] = tau[i];
            }
        }
        return W;
    }

private:
    model const& m_;
    derived const& d_;
    std::vector<std::string> order_;
    std::unique_ptr<expression_graph> graph_;
    std::vector<int> rows_;
    std::size_t first_ = 0;
};

double dot(column const& a, column const& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

double norm(column const& a) { return std::sqrt(dot(a, a)); }

// The order columns are offered in: imported robot files' names (Kxx_body, mx_body, m_body)
// body by body in the order the bodies first appear, and in a body the inertias, Kyy, the
// first moments and the mass; other names in the regressor's order.
std::vector<std::size_t> preference(model const& m, std::vector<std::size_t> const& regressor, bool& by_body) {
    static std::vector<std::string> const kinds = {"Kxx", "Kxy", "Kxz", "Kyz", "Kzz", "Kyy", "mx", "my", "mz", "m"};
    std::map<std::string, std::size_t> first_of_body;
    std::vector<std::pair<std::size_t, std::size_t>> key(regressor.size());
    for (std::size_t c = 0; c < regressor.size(); ++c) {
        std::string const& name = m.parameters[regressor[c]].name;
        std::size_t const cut = name.find('_');
        auto kind = cut == std::string::npos ? kinds.end() : std::find(kinds.begin(), kinds.end(), name.substr(0, cut));
        if (kind == kinds.end()) {
            key[c] = {c, 0};
            continue;
        }
        auto const body = first_of_body.emplace(name.substr(cut + 1), c).first->second;
        by_body = true;
        key[c] = {body, static_cast<std::size_t>(kind - kinds.begin())};
    }
    std::vector<std::size_t> order(regressor.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    return order;
}

// The greedy basis: Q orthonormal, R (kept × kept, upper triangular) with W_B = Q R on the
// scaled columns.
struct basis {
    std::vector<std::size_t> kept, zero;
    std::vector<column> Q;
    std::vector<std::vector<double>> R; // R[k] the coefficients of kept column k on Q_0..Q_k
    std::vector<double> scale;          // each column's norm
};

column project_out(basis const& b, column v, std::vector<double>& coefficients) {
    coefficients.assign(b.Q.size(), 0.0);
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t k = 0; k < b.Q.size(); ++k) {
            double const c = dot(b.Q[k], v);
            coefficients[k] += c;
            for (std::size_t i = 0; i < v.size(); ++i) v[i] -= c * b.Q[k][i];
        }
    return v;
}

basis greedy_basis(std::vector<column> const& W, std::vector<std::size_t> const& order) {
    basis b;
    b.scale.resize(W.size());
    double largest = 0;
    for (std::size_t c = 0; c < W.size(); ++c) largest = std::max(largest, b.scale[c] = norm(W[c]));
    for (std::size_t c : order) {
        if (!(b.scale[c] > 1e-13 * largest)) {
            b.zero.push_back(c);
            continue;
        }
        column v = W[c];
        for (double& x : v) x /= b.scale[c];
        std::vector<double> coefficients;
        column const rest = project_out(b, v, coefficients);
        double const left = norm(rest);
        if (left < 1e-8) continue;
        b.kept.push_back(c);
        coefficients.push_back(left);
        b.R.push_back(coefficients);
        column q = rest;
        for (double& x : q) x /= left;
        b.Q.push_back(std::move(q));
    }
    return b;
}

// β for column c (unscaled): W_c = Σ_k β_k W_kept[k], by back substitution in R.
std::vector<double> combination(basis const& b, std::vector<column> const& W, std::size_t c) {
    column v = W[c];
    for (double& x : v) x /= b.scale[c];
    std::vector<double> y;
    project_out(b, v, y);
    std::size_t const n = b.kept.size();
    std::vector<double> beta(n, 0.0);
    for (std::size_t k = n; k-- > 0;) {
        double s = y[k];
        for (std::size_t l = k + 1; l < n; ++l) s -= b.R[l][k] * beta[l];
        beta[k] = s / b.R[k][k];
    }
    for (std::size_t k = 0; k < n; ++k) beta[k] *= b.scale[c] / b.scale[b.kept[k]];
    return beta;
}


// The kept columns again at other states or θ: their basis, or empty where one of them is no
// longer independent.
std::optional<basis> same_basis(std::vector<column> const& W, std::vector<std::size_t> const& kept) {
    basis b = greedy_basis(W, kept);
    if (b.kept != kept) return std::nullopt;
    return b;
}

// β at one θ: for each column not kept (in `others`), its coefficients on the kept ones.
std::optional<std::vector<std::vector<double>>> betas(std::vector<column> const& W, std::vector<std::size_t> const& kept,
                                                      std::vector<std::size_t> const& others) {
    auto const b = same_basis(W, kept);
    if (!b) return std::nullopt;
    std::vector<std::vector<double>> out;
    for (std::size_t c : others) out.push_back(combination(*b, W, c));
    return out;
}

// A coefficient as an exact number where it is one to within the arithmetic: an integer or
// a decimal of at most `digits` significant digits within `tolerance` of v relatively (the
// products of a robot file's decimals: 0.39225² = 0.1538600625, found to ~1e-16), else the
// double itself.
GiNaC::ex as_number(double v, double tolerance = 1e-13, int most_digits = 10) {
    if (std::abs(v - std::round(v)) <= tolerance * std::max(1.0, std::abs(v)))
        return GiNaC::numeric(static_cast<long>(std::round(v)));
    int const exponent = static_cast<int>(std::floor(std::log10(std::abs(v))));
    for (int digits = 1; digits <= most_digits; ++digits) {
        int const shift = digits - 1 - exponent;
        double const scaled = std::round(v * std::pow(10.0, shift));
        double const back = scaled / std::pow(10.0, shift);
        if (std::abs(back - v) <= tolerance * std::abs(v)) {
            GiNaC::numeric const n(static_cast<long>(scaled));
            return shift >= 0 ? n / GiNaC::pow(GiNaC::numeric(10), shift) : n * GiNaC::pow(GiNaC::numeric(10), -shift);
        }
    }
    // The double itself, as the exact rational it is (the code graph takes exact numbers).
    int exponent2 = 0;
    double const mantissa = std::frexp(v, &exponent2);
    auto const integer = static_cast<long long>(std::ldexp(mantissa, 53));
    return GiNaC::numeric(integer) * GiNaC::pow(GiNaC::numeric(2), exponent2 - 53);
}

struct grouping {
    std::vector<std::size_t> kept, others, zero; // columns
    std::vector<std::vector<GiNaC::ex>> beta;    // beta[o][k]: other column o's coefficient on kept k
    std::string method;
    bool at_defaults = false; // the coefficients are numbers at the parameters' defaults
};

std::vector<double> random_theta(model const& m, std::uint64_t seed) {
    lcg r{seed};
    std::vector<double> theta;
    for (auto const& p : m.parameters) {
        double const v = p.default_value;
        theta.push_back(v == 0 ? r(0.3, 1.2) * (r(0, 1) < 0.5 ? -1 : 1) : v * r(0.7, 1.3));
    }
    return theta;
}

// Monomials of degree ≤ 2 in `vars` (indices among the parameters): 1, x, x y, x².
std::vector<std::vector<std::size_t>> monomials(std::vector<std::size_t> const& vars) {
    std::vector<std::vector<std::size_t>> out = {{}};
    for (std::size_t a = 0; a < vars.size(); ++a) {
        out.push_back({vars[a]});
        for (std::size_t b = a; b < vars.size(); ++b) out.push_back({vars[a], vars[b]});
    }
    return out;
}

// Least squares of values ≈ Σ c_k monomial_k(θ_s) (normal equations on a few unknowns, by
// Gaussian elimination with pivoting); the fitted expression, or nullopt where it misses.
std::optional<GiNaC::ex> fit(model const& m, std::vector<std::vector<double>> const& thetas, std::vector<double> const& values,
                             std::vector<std::size_t> const& vars) {
    auto const terms = monomials(vars);
    std::size_t const n = terms.size(), s = values.size();
    if (s < n + 2) return std::nullopt;
    std::vector<std::vector<double>> A(n, std::vector<double>(n + 1, 0.0));
    auto row = [&](std::size_t k) {
        std::vector<double> x(n, 1.0);
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t v : terms[t]) x[t] *= thetas[k][v];
        return x;
    };
    for (std::size_t k = 0; k < s; ++k) {
        auto const x = row(k);
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t b = 0; b < n; ++b) A[a][b] += x[a] * x[b];
            A[a][n] += x[a] * values[k];
        }
    }
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t p = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(A[r][c]) > std::abs(A[p][c])) p = r;
        std::swap(A[c], A[p]);
        if (A[c][c] == 0) return std::nullopt;
        for (std::size_t r = 0; r < n; ++r)
            if (r != c) {
                double const f = A[r][c] / A[c][c];
                for (std::size_t k = c; k <= n; ++k) A[r][k] -= f * A[c][k];
            }
    }
    GiNaC::ex e = 0;
    double largest = 0;
    for (double v : values) largest = std::max(largest, std::abs(v));
    for (std::size_t t = 0; t < n; ++t) {
        double const c = A[t][n] / A[t][t];
        if (std::abs(c) <= 1e-10 * largest) continue;
        GiNaC::ex term = as_number(c, 1e-9, 6); // fitted: fewer digits trusted
        for (std::size_t v : terms[t]) term *= m.p[v];
        e += term;
    }
    return e;
}


double value_at(GiNaC::ex const& e, model const& m, std::vector<double> const& theta) {
    GiNaC::exmap at;
    for (std::size_t k = 0; k < m.p.size(); ++k) at[m.p[k]] = theta[k];
    GiNaC::ex const v = GiNaC::evalf(e.subs(at, GiNaC::subs_options::no_pattern));
    return GiNaC::is_a<GiNaC::numeric>(v) ? GiNaC::ex_to<GiNaC::numeric>(v).to_double() : NAN;
}

// Each column not kept is the combination g.beta of the kept ones at fresh states and θ.
bool verified(model const& m, y_sampler const& y, grouping const& g, std::vector<double> const& theta, std::size_t states) {
    auto const W = y.stacked(theta, 0x76657269667931ull, states);
    if (!same_basis(W, g.kept)) return false;
    for (std::size_t o = 0; o < g.others.size(); ++o) {
        column rest = W[g.others[o]];
        double size = norm(rest);
        for (std::size_t k = 0; k < g.kept.size(); ++k) {
            double const b = value_at(g.beta[o][k], m, theta);
            if (!std::isfinite(b)) return false;
            size += std::abs(b) * norm(W[g.kept[k]]);
            for (std::size_t i = 0; i < rest.size(); ++i) rest[i] -= b * W[g.kept[k]][i];
        }
        if (!(norm(rest) <= 1e-8 * size)) return false;
    }
    return true;
}

// The coefficients that change with θ, each fitted in the θ it reads (found one at a time);
// false where one reads more than three or no fit holds.
bool fit_changing(model const& m, derived const& d, y_sampler const& y, grouping& g, std::vector<std::vector<double>> const& beta1,
                  std::vector<double> const& theta1, std::vector<std::vector<bool>> const& changes, std::size_t states) {
    std::vector<std::size_t> thetas;
    for (std::size_t k = 0; k < m.p.size(); ++k)
        if (std::find(d.regressor.begin(), d.regressor.end(), k) == d.regressor.end()) thetas.push_back(k);
    if (thetas.size() > 16) return false;
    std::vector<std::vector<std::vector<std::size_t>>> reads(beta1.size(), std::vector<std::vector<std::size_t>>(g.kept.size()));
    for (std::size_t k : thetas) {
        std::vector<double> theta = theta1;
        theta[k] = theta[k] * 1.37 + 0.11;
        auto const b = betas(y.stacked(theta, 0x7468657461ull, states), g.kept, g.others);
        if (!b) return false;
        for (std::size_t o = 0; o < beta1.size(); ++o)
            for (std::size_t c = 0; c < g.kept.size(); ++c)
                if (changes[o][c] && std::abs((*b)[o][c] - beta1[o][c]) > 1e-8 * (std::abs(beta1[o][c]) + std::abs((*b)[o][c])))
                    reads[o][c].push_back(k);
    }
    std::size_t most = 0;
    for (auto const& r : reads)
        for (auto const& vars : r) most = std::max(most, monomials(vars).size());
    if (most > monomials({0, 1, 2}).size()) return false;
    std::vector<std::vector<double>> samples_theta;
    std::vector<std::vector<std::vector<double>>> samples_beta;
    for (std::size_t s = 0; s < most + 3; ++s) {
        samples_theta.push_back(random_theta(m, 0x73616d706c65ull + s));
        auto const b = betas(y.stacked(samples_theta.back(), 0x7374617465ull + s, states), g.kept, g.others);
        if (!b) return false;
        samples_beta.push_back(*b);
    }
    for (std::size_t o = 0; o < beta1.size(); ++o)
        for (std::size_t c = 0; c < g.kept.size(); ++c) {
            if (!changes[o][c]) continue;
            std::vector<double> values;
            for (auto const& b : samples_beta) values.push_back(b[o][c]);
            auto const e = fit(m, samples_theta, values, reads[o][c]);
            if (!e) return false;
            g.beta[o][c] = *e;
        }
    return true;
}


std::string number_text(GiNaC::numeric const& n) {
    std::ostringstream out;
    out.precision(n.is_rational() && n.denom() > 10000000000LL ? 17 : 12);
    out << n.to_double();
    return out.str();
}

// A coefficient as the text shows it: numbers as decimals (17 digits where not exact), a
// polynomial in the parameters term by term in a fixed order (never GiNaC's, which changes
// from process to process), each term's factors in the parameters' order, a sum in
// parentheses.
std::string coefficient_text(model const& m, GiNaC::ex const& c) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(c)) return number_text(GiNaC::ex_to<GiNaC::numeric>(c));
    GiNaC::ex const e = c.expand();
    std::vector<std::pair<std::vector<std::size_t>, std::string>> terms; // (factors, text)
    for (std::size_t t = 0; t < (GiNaC::is_exactly_a<GiNaC::add>(e) ? e.nops() : 1); ++t) {
        GiNaC::ex const term = GiNaC::is_exactly_a<GiNaC::add>(e) ? e.op(t) : e;
        std::vector<std::size_t> factors;
        GiNaC::ex rest = term;
        for (std::size_t k = 0; k < m.p.size(); ++k) {
            int const power = term.degree(m.p[k]);
            for (int i = 0; i < power; ++i) factors.push_back(k);
            rest = rest.coeff(m.p[k], power);
        }
        std::string text = GiNaC::is_exactly_a<GiNaC::numeric>(rest) ? number_text(GiNaC::ex_to<GiNaC::numeric>(rest)) : "?";
        if (text == "1" || text == "-1") text.pop_back();
        for (std::size_t i = 0; i < factors.size();) {
            std::size_t j = i;
            while (j < factors.size() && factors[j] == factors[i]) ++j;
            if (!text.empty() && text != "-") text += "*";
            text += m.parameters[factors[i]].name + (j - i > 1 ? "^" + std::to_string(j - i) : "");
            i = j;
        }
        terms.push_back({factors, text.empty() ? "1" : text == "-" ? "-1" : text});
    }
    std::sort(terms.begin(), terms.end());
    std::string out;
    for (auto const& [factors, text] : terms)
        out += out.empty() ? text : text[0] == '-' ? " - " + text.substr(1) : " + " + text;
    return terms.size() > 1 ? "(" + out + ")" : out;
}

// The kept, zero and other columns of a basis.
void split(grouping& g, basis const& b, std::size_t nr) {
    g.kept = b.kept;
    std::sort(g.kept.begin(), g.kept.end());
    g.zero = b.zero;
    std::sort(g.zero.begin(), g.zero.end());
    g.others.clear();
    for (std::size_t c = 0; c < nr; ++c)
        if (!std::binary_search(g.kept.begin(), g.kept.end(), c) && !std::binary_search(g.zero.begin(), g.zero.end(), c))
            g.others.push_back(c);
}

// The grouping at θ1, its coefficients as numbers or fitted in θ, or at the defaults.
std::optional<grouping> find_grouping(model const& m, derived const& d, y_sampler const& y, std::size_t states) {
    grouping g;
    auto const theta1 = random_theta(m, 0x746865746131ull);
    auto const W1 = y.stacked(theta1, 0x737461746531ull, states);
    bool by_body = false;
    auto const order = preference(m, d.regressor, by_body);
    basis const b = greedy_basis(W1, order);
    split(g, b, d.regressor.size());
    auto const beta1 = betas(W1, g.kept, g.others);
    auto const beta2 = betas(y.stacked(random_theta(m, 0x746865746132ull), 0x737461746532ull, states), g.kept, g.others);
    if (!beta1 || !beta2) return std::nullopt;
    std::vector<std::vector<bool>> changes(g.others.size(), std::vector<bool>(g.kept.size(), false));
    bool any = false;
    g.beta.assign(g.others.size(), std::vector<GiNaC::ex>(g.kept.size(), 0));
    for (std::size_t o = 0; o < g.others.size(); ++o)
        for (std::size_t k = 0; k < g.kept.size(); ++k) {
            double const a = (*beta1)[o][k], c = (*beta2)[o][k];
            double const tiny = 1e-9 * b.scale[g.others[o]] / b.scale[g.kept[k]];
            if (std::abs(a) <= tiny && std::abs(c) <= tiny) continue;
            changes[o][k] = std::abs(a - c) > 1e-8 * (std::abs(a) + std::abs(c));
            any = any || changes[o][k];
            g.beta[o][k] = as_number(a);
        }
    g.method = "by Y stacked over " + std::to_string(states) + " random states (rank " + std::to_string(g.kept.size()) +
               " of " + std::to_string(d.regressor.size()) + "), columns kept " +
               (by_body ? "body by body (inertias, then Kyy, first moments, mass: Khalil and Gautier's choice)" : "in pi's order");
    if (!any) {
        g.method += "; coefficients constant (short decimals exact, others to ~1e-15), verified at other states";
        return g;
    }
    if (fit_changing(m, d, y, g, *beta1, theta1, changes, states)) {
        g.method += "; coefficients that change with other parameters fitted as polynomials of degree <= 2 in them, "
                    "verified at other states and values";
        return g;
    }
    // The coefficients depend on many parameters: numbers at the defaults.
    std::vector<double> defaults;
    for (auto const& p : m.parameters) defaults.push_back(p.default_value);
    auto const W = y.stacked(defaults, 0x646566ull, states);
    basis const at = greedy_basis(W, order);
    split(g, at, d.regressor.size());
    auto const at_defaults = betas(W, g.kept, g.others);
    if (!at_defaults) return std::nullopt;
    g.beta.assign(g.others.size(), std::vector<GiNaC::ex>(g.kept.size(), 0));
    for (std::size_t o = 0; o < g.others.size(); ++o)
        for (std::size_t k = 0; k < g.kept.size(); ++k)
            if (std::abs((*at_defaults)[o][k]) > 1e-9 * at.scale[g.others[o]] / at.scale[g.kept[k]])
                g.beta[o][k] = as_number((*at_defaults)[o][k]);
    g.method += "; coefficients depend on many other parameters: found at their defaults (rank " +
                std::to_string(g.kept.size()) + " there), where alone pib holds";
    g.at_defaults = true;
    return g;
}

derived::base_parameter_set assemble(model const& m, derived const& d, grouping const& g) {
    derived::base_parameter_set set;
    set.kept = g.kept;
    set.unidentifiable = g.zero;
    set.method = g.method;
    for (std::size_t k = 0; k < g.kept.size(); ++k) {
        std::size_t const j = d.regressor[g.kept[k]];
        GiNaC::ex e = m.p[j];
        std::string text = m.parameters[j].name;
        bool grouped = false;
        for (std::size_t o = 0; o < g.others.size(); ++o) {
            GiNaC::ex const& c = g.beta[o][k];
            if (c.is_zero()) continue;
            std::size_t const i = d.regressor[g.others[o]];
            grouped = true;
            e += c * m.p[i];
            std::string const ct = coefficient_text(m, c);
            if (ct == "1") text += " + " + m.parameters[i].name;
            else if (ct == "-1") text += " - " + m.parameters[i].name;
            else if (ct[0] == '-') text += " - " + ct.substr(1) + "*" + m.parameters[i].name;
            else text += " + " + ct + "*" + m.parameters[i].name;
        }
        set.names.push_back(m.parameters[j].name + (grouped ? "R" : ""));
        set.expressions.push_back(e);
        set.texts.push_back(text);
    }
    return set;
}

} // namespace

std::optional<derived::base_parameter_set> base_parameters(model const& m, derived const& d, std::string& why_not) {
    if (d.regressor.empty()) {
        why_not = "the model has no inverse_dynamics_regressor (no parameters inverse dynamics is linear in)";
        return std::nullopt;
    }
    y_sampler const y(m, d);
    std::size_t const nr = d.regressor.size(), nq = d.nq;
    std::size_t const states = (2 * nr + nq - 1) / nq + 8;
    // Evaluations: a stack is states · nr of them; about 25 stacks at most (θ one at a time).
    if (25.0 * static_cast<double>(states * nr) * y.nodes() > 4e9) {
        why_not = "the regressor is too large to stack within the budget";
        return std::nullopt;
    }
    auto g = find_grouping(m, d, y, states);
    std::vector<double> theta = random_theta(m, 0x667265736831ull);
    if (g && g->at_defaults)
        for (std::size_t k = 0; k < m.parameters.size(); ++k) theta[k] = m.parameters[k].default_value;
    if (!g || !verified(m, y, *g, theta, states)) {
        why_not = "the grouping found did not hold at fresh random states";
        return std::nullopt;
    }
    auto set = assemble(m, d, *g);
    set.rank_checked_states = states;
    return set;
}

} // namespace lagc
