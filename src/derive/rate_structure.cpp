// Stage 3: angular velocities among the rate form's rates, and composite inertias along
// the transports of velocity vectors the model wrote (rate_structure.hpp).
#include "graph/expression_graph.hpp"
#include "derive/rate_structure.hpp"
#include "derive/random_states.hpp"
#include "symbolic/dag.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

namespace {

// Rates that are an angular velocity (bilinear_form::angular_velocity), found by testing the
// structure equation α̇_i − ∂_i w = s w × α_i for every i at three pseudo-random states
// (q, q̇ and the parameters all at random, so that the test is of the expressions, not
// of the parameters' values) on the code generator's DAG. The equation is linear in q̇
// with coefficients that are analytic in q and the parameters: one that holds at three
// random points to 1e-10 of its terms' size is an identity, unless the model's own
// numbers are of that size. Each rate joins one triple at most.
class angular_search {
public:
    angular_search(model const& m, bilinear_form const& f);

    std::vector<bilinear_form::angular_velocity> triples() const;

private:
    std::size_t n_;
    bilinear_form const& f_;
    std::vector<std::vector<double>> values_; // per sample: each rate's r, α (n), α̇ − ∂r (n)
    bool finite_ = true;

    double r(int s, std::size_t k) const { return values_[s][k * (1 + 2 * n_)]; }
    double a(int s, std::size_t k, std::size_t i) const { return values_[s][k * (1 + 2 * n_) + 1 + i]; }
    double curl(int s, std::size_t k, std::size_t i) const { return values_[s][k * (1 + 2 * n_) + 1 + n_ + i]; }

    bool holds(std::size_t x, std::size_t y, std::size_t z, int sign) const;
    std::optional<std::array<GiNaC::ex, 3>> holds_scaled(std::size_t x, std::size_t y, std::size_t z) const;

public:
    // Triples among the rates left that are an angular velocity up to a number in each
    // element (w_c = r_c / κ_c: the rate form keeps a rate without its numeric factor, so
    // a quaternion's ω = 2 G q̇ has rates G q̇): curl r_a = λ_a (r_b × α_d − r_d × α_b), one
    // λ_a per element at every state and coordinate.
    std::vector<bilinear_form::angular_velocity> scaled_triples(std::vector<bilinear_form::angular_velocity> const& found) const;
};

angular_search::angular_search(model const& m, bilinear_form const& f) : n_(m.q.size()), f_(f) {
    std::vector<std::string> order;
    auto const symbols = graph_spellings(m, order);
    expression_graph g(symbols, codegen_options::for_values());
    std::vector<int> roots;
    for (auto const& r : f.rates) {
        roots.push_back(g.add(r.r));
        for (std::size_t i = 0; i < n_; ++i) roots.push_back(g.add(r.a[i]));
        for (std::size_t i = 0; i < n_; ++i) roots.push_back(g.add(r.gradient ? ex(0) : r.adot[i] - r.dr[i]));
    }
    std::uint64_t state = 0x1a9c5eedull;
    for (int s = 0; s < 3; ++s) {
        values_.push_back(g.evaluate_all(roots, order, random_point(m, state, parameter_values::random)));
        for (double v : values_.back())
            if (!std::isfinite(v)) finite_ = false;
    }
}

std::vector<bilinear_form::angular_velocity> angular_search::triples() const {
    std::size_t const nr = f_.rates.size();
    std::vector<bilinear_form::angular_velocity> out;
    // A cubic search, with a bound: a model with this many rates is not a chain of bodies.
    if (!finite_ || nr < 3 || nr > 400) return out;
    // A rate known to be a gradient (der(q)) has no curl, and joins no triple (as in the scaled
    // search): where a body's ω_z = k q̇₁ + q̇₂ and its ω_x, ω_y are both ∝ q̇₁ (a hinge below a
    // fixed turn below an oblique hinge), an armature's bare q̇₂ satisfied the structure
    // equations in ω_z's place, and h came out wrong (28.6 against −0.115;
    // tests/random/regressions/armature_below_oblique_hinge.lag).
    std::vector<char> used(nr, 0);
    for (std::size_t k = 0; k < nr; ++k) used[k] = f_.rates[k].gradient;
    for (std::size_t x = 0; x < nr; ++x)
        for (std::size_t y = x + 1; y < nr && !used[x]; ++y)
            for (std::size_t z = x + 1; z < nr && !used[x] && !used[y]; ++z) {
                if (z == y || used[z]) continue;
                for (int sign : {1, -1})
                    if (holds(x, y, z, sign)) {
                        out.push_back({{x, y, z}, sign});
                        used[x] = used[y] = used[z] = 1;
                        break;
                    }
            }
    return out;
}

std::vector<bilinear_form::angular_velocity> angular_search::scaled_triples(
    std::vector<bilinear_form::angular_velocity> const& found) const {
    std::size_t const nr = f_.rates.size();
    std::vector<bilinear_form::angular_velocity> out;
    if (!finite_ || nr < 3 || nr > 400) return out;
    // Only rates with a curl somewhere (a gradient's is zero) can be in one.
    std::vector<char> used(nr, 0);
    for (auto const& w : found)
        for (std::size_t k : w.rate) used[k] = 1;
    for (std::size_t k = 0; k < nr; ++k) {
        bool curls = false;
        for (int s = 0; s < 3 && !curls; ++s)
            for (std::size_t i = 0; i < n_ && !curls; ++i) curls = curl(s, k, i) != 0;
        if (!curls) used[k] = 1;
    }
    for (std::size_t x = 0; x < nr; ++x)
        for (std::size_t y = x + 1; y < nr && !used[x]; ++y)
            for (std::size_t z = y + 1; z < nr && !used[x] && !used[y]; ++z) {
                if (used[z]) continue;
                for (auto const& k : {std::array<std::size_t, 3>{x, y, z}, std::array<std::size_t, 3>{x, z, y}})
                    if (auto const scale = holds_scaled(k[0], k[1], k[2])) {
                        out.push_back({k, 1, *scale});
                        used[x] = used[y] = used[z] = 1;
                        break;
                    }
            }
    return out;
}

// λ as a fraction p/q, q ≤ 4096, where one is within 1e-9 of it (the ratio of the rates'
// numeric factors); nothing otherwise.
std::optional<GiNaC::ex> fraction(double lambda) {
    for (long q = 1; q <= 4096; ++q) {
        double const p = std::round(lambda * static_cast<double>(q));
        if (p != 0 && std::abs(p / static_cast<double>(q) - lambda) <= 1e-9 * std::abs(lambda))
            return GiNaC::ex(GiNaC::numeric(static_cast<long>(p), q));
    }
    return std::nullopt;
}

std::optional<std::array<ex, 3>> angular_search::holds_scaled(std::size_t x, std::size_t y, std::size_t z) const {
    std::array<std::size_t, 3> const k = {x, y, z};
    std::array<ex, 3> scale;
    for (std::size_t c = 0; c < 3; ++c) {
        std::size_t const b = k[(c + 1) % 3], d = k[(c + 2) % 3];
        double lambda = 0;
        for (int s = 0; s < 3; ++s)
            for (std::size_t i = 0; i < n_; ++i) {
                double const cross = r(s, b) * a(s, d, i) - r(s, d) * a(s, b, i), lhs = curl(s, k[c], i);
                double const size = std::abs(lhs) + std::abs(r(s, b) * a(s, d, i)) + std::abs(r(s, d) * a(s, b, i));
                if (size == 0) continue;
                if (lambda == 0) {
                    if (std::abs(cross) <= 1e-6 * size) {
                        if (std::abs(lhs) > 1e-10 * size) return std::nullopt;
                        continue;
                    }
                    lambda = lhs / cross;
                    if (lambda == 0) return std::nullopt;
                }
                if (std::abs(lhs - lambda * cross) > 1e-10 * size * (1 + std::abs(lambda))) return std::nullopt;
            }
        auto const exact = fraction(lambda);
        if (lambda == 0 || !exact) return std::nullopt;
        scale[c] = *exact;
    }
    return scale;
}

bool angular_search::holds(std::size_t x, std::size_t y, std::size_t z, int sign) const {
    std::array<std::size_t, 3> const k = {x, y, z};
    bool some_curl = false;
    for (int s = 0; s < 3; ++s)
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t c = 0; c < 3; ++c) {
                std::size_t const b = k[(c + 1) % 3], d = k[(c + 2) % 3];
                double const p = r(s, b) * a(s, d, i), q = r(s, d) * a(s, b, i), lhs = curl(s, k[c], i);
                double const size = std::abs(lhs) + std::abs(p) + std::abs(q);
                if (std::abs(lhs - sign * (p - q)) > 1e-10 * size) return false;
                some_curl = some_curl || lhs != 0;
            }
    return some_curl;
}

} // namespace

std::vector<bilinear_form::angular_velocity> angular_velocities(model const& m, bilinear_form const& f) {
    angular_search const search(m, f);
    auto out = search.triples();
    for (auto& w : search.scaled_triples(out)) out.push_back(std::move(w));
    return out;
}

} // namespace lagc
