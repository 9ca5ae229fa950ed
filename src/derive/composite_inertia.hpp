// Stage 3: composite inertias of the rotating bodies along the velocity transports the model
// wrote (composite_inertia.cpp): M's and h's shares of the rates that are angular velocities.
#pragma once

#include "derive/derive_support.hpp"
#include "derive/kinematic_tree.hpp"

#include <map>
#include <optional>
#include <tuple>

namespace lagc {

// The CRBA's composite inertias, for angular velocities the model transports
// (model::transport: w_k = X_k w_p + s_k, X_k free of q̇). When every term with w's rates
// is ½ wᵀ J w with a constant J, and each coordinate first enters one w (its s), then
// with Φ the products of the X along the tree:
//   Σ_W α(W)_iᵀ J_W α(W)_j = α(B)_iᵀ J^c_B α(B)_j,  J^c_B = J_B + Σ_children X_Cᵀ J^c_C X_C,
// for i entering at an ancestor of B (or at B) and j at B: O(n²) products instead of a sum
// over every body beyond both joints. The result is compared with the term-by-term sum at
// two random states before it is used (a structure misread falls back, it is not trusted).
class composite_inertia {
public:
    composite_inertia(model const& m, bilinear_form const& f);

    bool covers(std::size_t rate) const { return usable_ && rate_node_.count(rate) && eligible_[rate_node_.at(rate)]; }
    bool usable() const { return usable_; }

    // M's lower triangle from the covered rates, if it agrees with `term_by_term` (the same
    // rates' part of M as the gathered sums build it); false (nothing added) otherwise.
    bool add_to(GiNaC::exvector& M, GiNaC::exvector const& term_by_term) const;

    // h_i += α(B)_i·F^c_B (B: where i enters), F^c_B = F_B + Σ_children X_Cᵀ F^c_C, with F each
    // rate's force (indexed by rate), if it agrees with `term_by_term` (Σ α_ai F_a over the
    // covered rates); false (nothing added) otherwise.
    bool add_force(GiNaC::exvector& h, GiNaC::exvector const& F, GiNaC::exvector const& term_by_term,
                   GiNaC::exvector& added) const;
    // The covered triples as bodies: their rates (components of ω, as the model wrote them)
    // and J with ½ rᵀ J r their kinetic energy.
    using body = rotational_body;
    std::vector<body> bodies() const;
    // The same sums unchecked (zero when not usable), for a caller that checks the whole
    // they are part of (M q̈, whose q̈ the random states lack).
    GiNaC::exvector forces(GiNaC::exvector const& F) const;

private:
    model const& m_;
    bilinear_form const& f_;
    std::size_t n_;
    bool usable_ = false;
    std::map<std::size_t, std::size_t> rate_node_;     // rate → its angular triple
    // A triple's rate without its numeric factor → (triple, component).
    std::map<GiNaC::ex, std::pair<std::size_t, std::size_t>, GiNaC::ex_is_less> by_key_;
    std::vector<char> eligible_;
    std::vector<int> parent_;
    std::vector<GiNaC::exvector> X_, J_, Jc_;                  // 3×3, in the triples' own order
    std::vector<int> intro_;                            // coordinate → the node it enters at

    GiNaC::ex const& alpha(std::size_t node, std::size_t c, std::size_t i) const;

    // The covered rates' part of M (add_to), with each far coordinate's α at the near
    // coordinate's node, or (`carry`) with J^c α of the near one carried up to the far one's.
    GiNaC::exvector mass_sums(bool carry) const;

    // Which node and component an expression is, and the number κ with rate = κ expression.
    std::optional<std::tuple<std::size_t, std::size_t, GiNaC::ex>> find(GiNaC::ex const& e) const;

    void nodes();

    // J_W of ½ wᵀ J w: only constant terms within one triple.
    void inertias();

    bool ancestor(int a, int b) const { // a is b or above it
        for (std::size_t steps = 0; b >= 0 && steps <= parent_.size(); ++steps, b = parent_[b])
            if (a == b) return true;
        return false;
    }

    bool tree() { // no cycles; parents of eligible nodes are eligible or absent
        for (std::size_t w = 0; w < parent_.size(); ++w) {
            int b = static_cast<int>(w);
            std::size_t steps = 0;
            while (b >= 0 && steps++ <= parent_.size()) b = parent_[b];
            if (b >= 0) return false;
            if (eligible_[w] && parent_[w] >= 0 && !eligible_[parent_[w]]) parent_[w] = -1;
        }
        return true;
    }

    // Each coordinate enters one eligible node, and every eligible node it moves is below it.
    bool coordinates();

    void composite();

    std::vector<std::size_t> children_first() const;
};

} // namespace lagc
