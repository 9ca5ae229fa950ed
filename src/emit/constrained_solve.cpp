// Stage 4: forward_dynamics with constraints, solved unrolled over the structure of M's
// factor and of A (forward_dynamics_constrained.tpl#unrolled). With M = L Lᵀ (factorised by
// detail::factor_mass_matrix, in place) and W = L⁻¹ Aᵀ, y = L⁻¹ (Q − h):
//   (Wᵀ W) λ = Wᵀ y − r,   q̈ = L⁻ᵀ (y − W λ),
// the Schur complement A M⁻¹ Aᵀ = Wᵀ W factorised unrolled too. Every forward substitution
// skips the structural zeros of L and of its right-hand side (A's rows are sparse: a
// quaternion's norm touches 4 coordinates of a robot's 36, a rotation matrix's columns 3 of
// 9 each), which the loop form (the template's tail, kept for the run-time twins) cannot.
#include "emit/emitter.hpp"

#include <fmt/format.h>

namespace lagc::emitting {

namespace {

// The statements, written part by part into `f`; names: y_i, w{k}_i (W's column k), s{k}_{l}
// and g_k (S and Wᵀ y − r), ls/rs (S's factor), z_k and l_k (λ), x_i (q̈), i a coordinate.
class constrained_writer {
public:
    using values_t = std::vector<std::pair<std::string, std::string>>;
    constrained_writer(derived const& d, std::vector<std::size_t> const& order, std::vector<char> const& structure,
                       values_t values, std::string zero)
        : d_(d), nq_(d.nq), nc_(d.nc), P_(order), nz_(structure), values_(std::move(values)), zero_(std::move(zero)),
          w_(d.nc, std::vector<char>(d.nq, 0)) {}

    std::string write() {
        forward();
        columns();
        schur();
        multipliers();
        accelerations();
        return f_;
    }

private:
    derived const& d_;
    std::size_t nq_, nc_;
    std::vector<std::size_t> const& P_;
    std::vector<char> const& nz_;
    values_t values_;
    std::string zero_, f_;
    std::vector<std::vector<char>> w_; // W's structural non-zeros, by column k and place a

    std::string L(std::size_t a, std::size_t c) const {
        return fmt::format("M[{}]", std::max(P_[a], P_[c]) * nq_ + std::min(P_[a], P_[c]));
    }
    std::string R(std::size_t a) const { return fmt::format("M[{}]", P_[a] * nq_ + P_[a]); }
    std::string w(std::size_t k, std::size_t a) const { return fmt::format("w{}_{}", k, P_[a]); }
    static std::string s(std::size_t k, std::size_t l) { return fmt::format("s{}_{}", k, l); }
    static std::string ls(std::size_t i, std::size_t j) { return fmt::format("ls{}_{}", i, j); }
    static std::string rs(std::size_t j) { return fmt::format("rs{}", j); }

    values_t with(values_t more) const {
        more.insert(more.end(), values_.begin(), values_.end());
        return more;
    }
    void section(char const* name, values_t more = {}) {
        f_ += text(std::string("forward_dynamics_constrained.tpl#") + name, with(std::move(more)));
    }
    void scaled(std::string const& name, std::string const& value, std::string const& r) {
        bool const compound = value.find(' ') != std::string::npos || value[0] == '-';
        f_ += text("cholesky_steps.tpl#solve_step", with({{"name", name}, {"value", compound ? "(" + value + ")" : value}, {"r", r}}));
    }

    // y = L⁻¹ b, in the elimination order.
    void forward() {
        section("unrolled_y");
        for (std::size_t a = 0; a < nq_; ++a) {
            std::string v = fmt::format("b[{}]", P_[a]);
            for (std::size_t k = 0; k < a; ++k)
                if (nz_[a * nq_ + k]) v += " - " + L(a, k) + "*" + fmt::format("y{}", P_[k]);
            scaled(fmt::format("y{}", P_[a]), v, R(a));
        }
    }

    // W's columns: L⁻¹ times A's rows, over their non-zeros and those they fill in.
    void columns() {
        section("unrolled_w");
        for (std::size_t k = 0; k < nc_; ++k)
            for (std::size_t a = 0; a < nq_; ++a) {
                bool const in_a = !d_.constraint_jacobian[k * nq_ + P_[a]].is_zero();
                std::string v = in_a ? fmt::format("A[{}]", k * nq_ + P_[a]) : "";
                for (std::size_t c = 0; c < a; ++c)
                    if (nz_[a * nq_ + c] && w_[k][c]) v += (v.empty() ? "-" : " - ") + L(a, c) + "*" + w(k, c);
                if (v.empty()) continue;
                w_[k][a] = 1;
                scaled(w(k, a), v, R(a));
            }
    }

    // S = Wᵀ W (lower triangle) and g = Wᵀ y − r; then S = Ls Lsᵀ, dense (nc is small), its
    // pivots checked against S's largest diagonal entry.
    void schur() {
        section("unrolled_schur");
        for (std::size_t k = 0; k < nc_; ++k) {
            for (std::size_t l = 0; l <= k; ++l) {
                std::string v;
                for (std::size_t a = 0; a < nq_; ++a)
                    if (w_[k][a] && w_[l][a]) v += (v.empty() ? "" : " + ") + w(k, a) + "*" + w(l, a);
                section("unrolled_value", {{"name", s(k, l)}, {"value", v.empty() ? zero_ : v}});
            }
            std::string g;
            for (std::size_t a = 0; a < nq_; ++a)
                if (w_[k][a]) g += (g.empty() ? "" : " + ") + w(k, a) + "*" + fmt::format("y{}", P_[a]);
            g = g.empty() ? fmt::format("-r[{}]", k) : g + fmt::format(" - r[{}]", k);
            section("unrolled_value", {{"name", fmt::format("g{}", k)}, {"value", g}});
        }
        section("unrolled_largest_start");
        for (std::size_t k = 0; k < nc_; ++k) section("unrolled_largest", {{"s", s(k, k)}});
        section("unrolled_threshold");
        for (std::size_t j = 0; j < nc_; ++j) {
            std::string d = s(j, j);
            for (std::size_t k = 0; k < j; ++k) d += " - " + ls(j, k) + "*" + ls(j, k);
            section("unrolled_pivot", {{"d", fmt::format("ds{}", j)}, {"value", d}, {"r", rs(j)}});
            for (std::size_t i = j + 1; i < nc_; ++i) {
                std::string v = s(i, j);
                for (std::size_t k = 0; k < j; ++k) v += " - " + ls(i, k) + "*" + ls(j, k);
                scaled(ls(i, j), v, rs(j));
            }
        }
    }

    // λ = S⁻¹ g: Ls z = g, Lsᵀ λ = z.
    void multipliers() {
        section("unrolled_lambda");
        for (std::size_t k = 0; k < nc_; ++k) {
            std::string v = fmt::format("g{}", k);
            for (std::size_t j = 0; j < k; ++j) v += " - " + ls(k, j) + "*" + fmt::format("z{}", j);
            scaled(fmt::format("z{}", k), v, rs(k));
        }
        for (std::size_t k = nc_; k-- > 0;) {
            std::string v = fmt::format("z{}", k);
            for (std::size_t j = k + 1; j < nc_; ++j) v += " - " + ls(j, k) + "*" + fmt::format("l{}", j);
            scaled(fmt::format("l{}", k), v, rs(k));
        }
    }

    // q̈ = L⁻ᵀ (y − W λ), in the elimination order, backwards; then the checks and stores.
    void accelerations() {
        section("unrolled_x");
        for (std::size_t a = nq_; a-- > 0;) {
            std::string v = fmt::format("y{}", P_[a]);
            for (std::size_t k = 0; k < nc_; ++k)
                if (w_[k][a]) v += " - " + w(k, a) + "*" + fmt::format("l{}", k);
            for (std::size_t c = a + 1; c < nq_; ++c)
                if (nz_[c * nq_ + a]) v += " - " + L(c, a) + "*" + fmt::format("x{}", P_[c]);
            scaled(fmt::format("x{}", P_[a]), v, R(a));
        }
        std::string stores, lambdas, conditions;
        std::string math;
        for (auto const& [key, value] : values_)
            if (key == "math") math = value;
        for (std::size_t i = 0; i < nq_; ++i) {
            stores += text("cholesky_steps.tpl#store", {{"target", fmt::format("qdd[{}]", i)}, {"value", fmt::format("x{}", i)}});
            conditions += fmt::format("{}!{}isfinite(x{})", i ? " || " : "", math, i);
        }
        for (std::size_t k = 0; k < nc_; ++k) {
            lambdas += text("cholesky_steps.tpl#store", {{"target", fmt::format("    lambda[{}]", k)}, {"value", fmt::format("l{}", k)}});
            conditions += fmt::format(" || !{}isfinite(l{})", math, k);
        }
        section("unrolled_end", {{"stores", stores}, {"lambdas", lambdas}, {"conditions", conditions}});
    }
};

} // namespace

std::string emitter::unrolled_constrained_solve() const {
    constrained_writer::values_t values = {{"scalar", scalar()},
                                           {"math", math()},
                                           {"one", single() ? "1.0f" : "1.0"},
                                           {"zero", single() ? "0.0f" : "0.0"},
                                           {"tolerance", single() ? "1e-12f" : "1e-12"}};
    return constrained_writer(d_, elimination_order(), factor_structure(), std::move(values), single() ? "0.0f" : "0.0").write();
}

} // namespace lagc::emitting
