// Stage 3: composite inertias of the rotating bodies along the velocity transports the model
// wrote (composite_inertia.hpp).
#include "derive/composite_inertia.hpp"
#include "derive/random_states.hpp"
#include "symbolic/dag.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

composite_inertia::composite_inertia(model const& m, bilinear_form const& f) : m_(m), f_(f), n_(m.q.size()) {
    if (f.angular.empty() || m.transports.empty()) return;
    nodes();
    inertias();
    if (!tree() || !coordinates()) return;
    composite();
    usable_ = true;
}

bool composite_inertia::add_to(exvector& M, exvector const& term_by_term) const {
    if (!usable_) return false;
    // Two ways to the same sums: α(B)_i of the far coordinate in B's axes, or J^c_B α(B)_j
    // carried up to where i enters (α(W)_i = X_W α(P)_i, so α(B)_iᵀ y = α(P)_iᵀ X_Bᵀ y), as
    // the CRBA carries a joint's composite force up the tree: the shorter is kept.
    exvector C = mass_sums(false), carried = mass_sums(true);
    if (operations_of(m_, carried) < operations_of(m_, C)) C = std::move(carried);
    if (!agree_at_random_states(m_, C, term_by_term, 0xc0405173ull)) return false;
    for (std::size_t k = 0; k < n_ * n_; ++k) M[k] += C[k];
    return true;
}

exvector composite_inertia::mass_sums(bool carry) const {
    exvector C(n_ * n_, 0);
    std::map<std::pair<std::size_t, std::size_t>, std::array<ex, 3>> Y; // J^c_B α(B)_j, carried to a node above
    auto y_at = [&](std::size_t node, std::size_t near, std::size_t at) {
        std::vector<std::size_t> path; // from `node` up to `at`
        for (std::size_t w = node; w != at; w = static_cast<std::size_t>(parent_[w])) path.push_back(w);
        path.push_back(at);
        auto it = Y.find({node, near});
        if (it == Y.end()) {
            std::array<ex, 3> y;
            for (std::size_t c = 0; c < 3; ++c) {
                y[c] = 0;
                for (std::size_t d = 0; d < 3; ++d) y[c] += Jc_[node][c * 3 + d] * alpha(node, d, near);
            }
            it = Y.emplace(std::make_pair(node, near), y).first;
        }
        for (std::size_t k = 0; k + 1 < path.size(); ++k) {
            auto up = Y.find({path[k + 1], near});
            if (up == Y.end()) {
                exvector const& X = X_[path[k]];
                std::array<ex, 3> z;
                for (std::size_t f = 0; f < 3; ++f) {
                    z[f] = 0;
                    for (std::size_t e = 0; e < 3; ++e) z[f] += X[e * 3 + f] * it->second[e];
                }
                up = Y.emplace(std::make_pair(path[k + 1], near), z).first;
            }
            it = up;
        }
        return it->second;
    };
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            int const a = intro_[i], b = intro_[j];
            if (a < 0 || b < 0) continue;
            int node;
            std::size_t far = i, near = j; // near enters at `node`, far at it or above
            if (ancestor(a, b)) node = b, far = i, near = j;
            else if (ancestor(b, a)) node = a, far = j, near = i;
            else continue;
            auto const at = static_cast<std::size_t>(carry ? intro_[far] : node);
            std::array<ex, 3> const y = y_at(static_cast<std::size_t>(node), near, at);
            for (std::size_t c = 0; c < 3; ++c) C[i * n_ + j] += alpha(at, c, far) * y[c];
        }
    return C;
}

ex const& composite_inertia::alpha(std::size_t node, std::size_t c, std::size_t i) const {
    return f_.rates[f_.angular[node].rate[c]].a[i];
}

std::optional<std::tuple<std::size_t, std::size_t, ex>> composite_inertia::find(ex const& e) const {
    ex const key = without_numeric_factor(e);
    for (int sign : {1, -1}) {
        auto it = by_key_.find(sign * key);
        if (it == by_key_.end()) continue;
        auto const [w, c] = it->second;
        ex const& o = f_.rates[f_.angular[w].rate[c]].original;
        return std::make_tuple(w, c, sign * ex(o.integer_content()) / e.integer_content());
    }
    return std::nullopt;
}

void composite_inertia::nodes() {
    std::size_t const count = f_.angular.size();
    for (std::size_t w = 0; w < count; ++w)
        for (std::size_t c = 0; c < 3; ++c) {
            rate_node_[f_.angular[w].rate[c]] = w;
            by_key_.emplace(without_numeric_factor(f_.rates[f_.angular[w].rate[c]].original), std::make_pair(w, c));
        }
    parent_.assign(count, -1);
    X_.assign(count, exvector(9, 0));
    for (auto const& t : m_.transports) {
        std::array<std::size_t, 3> rc{}, oc{};
        std::array<ex, 3> kappa, mu;
        std::size_t W = count, P = count;
        bool ok = true;
        for (std::size_t e = 0; e < 3 && ok; ++e) {
            auto r = find(t.result[e]);
            auto o = find(t.operand[e]);
            if (!r || !o) { ok = false; break; }
            auto [w, c, k] = *r;
            auto [pw, pc, pk] = *o;
            if ((W != count && w != W) || (P != count && pw != P)) ok = false;
            W = w, P = pw;
            rc[e] = c, kappa[e] = k, oc[e] = pc, mu[e] = pk;
        }
        if (!ok || W == P || parent_[W] >= 0) continue;
        if (rc[0] == rc[1] || rc[1] == rc[2] || rc[0] == rc[2] || oc[0] == oc[1] || oc[1] == oc[2] || oc[0] == oc[2])
            continue;
        // r_W[rc[e]] = κ_e result[e] = κ_e Σ_f X[e][f] operand[f], operand[f] = r_P[oc[f]] / μ_f.
        for (std::size_t e = 0; e < 3; ++e)
            for (std::size_t fi = 0; fi < 3; ++fi) X_[W][rc[e] * 3 + oc[fi]] = kappa[e] * t.matrix[e * 3 + fi] / mu[fi];
        parent_[W] = static_cast<int>(P);
    }
}

void composite_inertia::inertias() {
    std::size_t const count = f_.angular.size();
    eligible_.assign(count, 1);
    J_.assign(count, exvector(9, 0));
    for (auto const& t : f_.terms) {
        auto a = rate_node_.find(t.a), b = rate_node_.find(t.b);
        if (a == rate_node_.end() && b == rate_node_.end()) continue;
        if (a == rate_node_.end() || b == rate_node_.end() || a->second != b->second || !t.dc.empty()) {
            if (a != rate_node_.end()) eligible_[a->second] = 0;
            if (b != rate_node_.end()) eligible_[b->second] = 0;
            continue;
        }
        auto const& w = f_.angular[a->second].rate;
        std::size_t const ca = std::find(w.begin(), w.end(), t.a) - w.begin();
        std::size_t const cb = std::find(w.begin(), w.end(), t.b) - w.begin();
        J_[a->second][ca * 3 + cb] += t.c;
        J_[a->second][cb * 3 + ca] += t.c;
    }
    // A node is used only with its whole subtree (a composite includes every descendant).
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t w = 0; w < count; ++w)
            if (!eligible_[w] && parent_[w] >= 0 && eligible_[parent_[w]]) eligible_[parent_[w]] = 0, changed = true;
    }
}

bool composite_inertia::coordinates() {
    intro_.assign(n_, -1);
    for (std::size_t w = 0; w < parent_.size(); ++w) {
        if (!eligible_[w]) continue;
        for (std::size_t i = 0; i < n_; ++i) {
            bool here = false, above = false;
            for (std::size_t c = 0; c < 3; ++c) here = here || !alpha(w, c, i).is_zero();
            if (parent_[w] >= 0)
                for (std::size_t c = 0; c < 3; ++c) above = above || !alpha(parent_[w], c, i).is_zero();
            if (!here || above) continue;
            if (intro_[i] >= 0) return false;
            intro_[i] = static_cast<int>(w);
        }
    }
    for (std::size_t w = 0; w < parent_.size(); ++w) {
        if (!eligible_[w]) continue;
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t c = 0; c < 3; ++c)
                if (!alpha(w, c, i).is_zero() && (intro_[i] < 0 || !ancestor(intro_[i], static_cast<int>(w)))) return false;
    }
    return true;
}

// The nodes, deepest first: every child before its parent.
std::vector<std::size_t> composite_inertia::children_first() const {
    std::size_t const count = parent_.size();
    std::vector<std::size_t> depth(count, 0);
    for (std::size_t w = 0; w < count; ++w)
        for (int b = parent_[w]; b >= 0; b = parent_[b]) ++depth[w];
    std::vector<std::size_t> order(count);
    for (std::size_t w = 0; w < count; ++w) order[w] = w;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return depth[x] > depth[y]; });
    return order;
}

exvector composite_inertia::forces(exvector const& F) const {
    exvector C(n_, 0);
    if (!usable_) return C;
    std::size_t const count = parent_.size();
    std::vector<std::array<ex, 3>> Fc(count, {ex(0), ex(0), ex(0)});
    for (std::size_t w : children_first()) {
        if (!eligible_[w]) continue;
        for (std::size_t c = 0; c < 3; ++c) Fc[w][c] += F[f_.angular[w].rate[c]];
        int const p = parent_[w];
        if (p < 0) continue;
        for (std::size_t a = 0; a < 3; ++a)
            for (std::size_t c = 0; c < 3; ++c)
                if (!X_[w][c * 3 + a].is_zero()) Fc[p][a] += X_[w][c * 3 + a] * Fc[w][c];
    }
    for (std::size_t i = 0; i < n_; ++i) {
        if (intro_[i] < 0) continue;
        for (std::size_t c = 0; c < 3; ++c) C[i] += alpha(intro_[i], c, i) * Fc[intro_[i]][c];
    }
    return C;
}

bool composite_inertia::add_force(exvector& h, exvector const& F, exvector const& term_by_term, exvector& added) const {
    if (!usable_) return false;
    exvector const C = forces(F);
    if (!agree_at_random_states(m_, C, term_by_term, 0xc0405173ull)) return false;
    for (std::size_t i = 0; i < n_; ++i) h[i] += C[i];
    added = C;
    return true;
}

std::vector<composite_inertia::body> composite_inertia::bodies() const {
    std::vector<body> out;
    if (!usable_) return out;
    for (std::size_t w = 0; w < parent_.size(); ++w) {
        if (!eligible_[w]) continue;
        body b;
        for (std::size_t c = 0; c < 3; ++c) b.rate[c] = f_.rates[f_.angular[w].rate[c]].original;
        b.J = J_[w];
        out.push_back(std::move(b));
    }
    return out;
}

void composite_inertia::composite() {
    std::size_t const count = parent_.size();
    Jc_.assign(count, exvector(9, 0));
    for (std::size_t w : children_first()) {
        if (!eligible_[w]) continue;
        for (std::size_t k = 0; k < 9; ++k) Jc_[w][k] += J_[w][k];
        int const p = parent_[w];
        if (p < 0) continue;
        // J^c_P += Xᵀ J^c_W X
        exvector const& X = X_[w];
        for (std::size_t a = 0; a < 3; ++a)
            for (std::size_t b = 0; b < 3; ++b) {
                ex s = 0;
                for (std::size_t c = 0; c < 3; ++c) {
                    if (X[c * 3 + a].is_zero()) continue;
                    ex inner = 0;
                    for (std::size_t d = 0; d < 3; ++d) inner += Jc_[w][c * 3 + d] * X[d * 3 + b];
                    s += X[c * 3 + a] * inner;
                }
                Jc_[p][a * 3 + b] += s;
            }
    }
}

} // namespace lagc
