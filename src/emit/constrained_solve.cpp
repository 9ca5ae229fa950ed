// Stage 4: forward_dynamics with constraints, solved unrolled over the structure of M's
// factor and of A (forward_dynamics_constrained.tpl#unrolled). With M = L Lᵀ (factorised by
// detail::factor_mass_matrix, in place) and W = L⁻¹ Aᵀ, y = L⁻¹ (Q − h):
//   (Wᵀ W) λ = Wᵀ y − r,   q̈ = L⁻ᵀ (y − W λ),
// the Schur complement A M⁻¹ Aᵀ = Wᵀ W factorised unrolled too. The substitutions with L
// are the emitter's (forward_substitution, backward_substitution: the same code as the
// solve without constraints); the forward ones skip the structural zeros of L and of their
// right-hand side (A's rows are sparse: a
// quaternion's norm touches 4 coordinates of a robot's 36, a rotation matrix's columns 3 of
// 9 each), which the loop form (the template's tail, kept for the run-time twins) cannot.
#include "emit/emitter.hpp"

#include <fmt/format.h>

namespace lagc::emitting {

namespace {

// The emitter's substitutions with M's factor L (in place in the array M) and its step
// `const T name = value*r;`, for the writer below.
struct substitutions {
    std::function<std::vector<char>(std::function<std::string(std::size_t)> const&,
                                    std::function<std::string(std::size_t)> const&, std::string&)>
        forward;
    std::function<void(std::function<std::string(std::size_t)> const&, std::function<std::string(std::size_t)> const&,
                       std::string&)>
        backward;
    std::function<std::string(std::string const&, std::string const&, std::string const&)> step;
};

// The statements, written part by part into `f`; names: y_i, w{k}_i (W's column k), s{k}_{l}
// and g_k (S and Wᵀ y − r), ls/rs (S's factor), z_k and l_k (λ), x_i (q̈), i a coordinate.
class constrained_writer {
public:
    using values_t = std::vector<std::pair<std::string, std::string>>;
    constrained_writer(derived const& d, std::vector<std::size_t> const& order, substitutions with_l, values_t values,
                       std::string zero)
        : d_(d), nq_(d.nq), nc_(d.nc), P_(order), l_(std::move(with_l)), values_(std::move(values)),
          zero_(std::move(zero)) {}

    std::string write() {
        section("unrolled_y");
        l_.forward([](std::size_t i) { return fmt::format("b[{}]", i); }, y, f_);
        columns();
        schur();
        multipliers();
        accelerations();
        return f_;
    }

private:
    derived const& d_;
    std::size_t nq_, nc_;
    std::vector<std::size_t> const& P_; // M's elimination order: the sums below run in it
    substitutions l_;
    values_t values_;
    std::string zero_, f_;
    std::vector<std::vector<char>> w_; // W's structural non-zeros, by column k and coordinate i

    static std::string y(std::size_t i) { return fmt::format("y{}", i); }
    static std::string w(std::size_t k, std::size_t i) { return fmt::format("w{}_{}", k, i); }
    static std::string s(std::size_t k, std::size_t l) { return fmt::format("s{}_{}", k, l); }
    static std::string ls(std::size_t i, std::size_t j) { return fmt::format("ls{}_{}", i, j); }
    static std::string rs(std::size_t j) { return fmt::format("rs{}", j); }

    void section(char const* name, values_t more = {}) {
        more.insert(more.end(), values_.begin(), values_.end());
        f_ += text(std::string("forward_dynamics_constrained.tpl#") + name, more);
    }

    // W's columns: L⁻¹ times A's rows, over their non-zeros and those they fill in.
    void columns() {
        section("unrolled_w");
        for (std::size_t k = 0; k < nc_; ++k)
            w_.push_back(l_.forward(
                [&](std::size_t i) {
                    return d_.constraint_jacobian[k * nq_ + i].is_zero() ? std::string() : fmt::format("A[{}]", k * nq_ + i);
                },
                [k](std::size_t i) { return w(k, i); }, f_));
    }

    // S = Wᵀ W (lower triangle) and g = Wᵀ y − r; then S = Ls Lsᵀ, dense (nc is small), its
    // pivots checked against S's largest diagonal entry.
    void schur() {
        section("unrolled_schur");
        for (std::size_t k = 0; k < nc_; ++k) {
            for (std::size_t l = 0; l <= k; ++l) {
                std::string v;
                for (std::size_t i : P_)
                    if (w_[k][i] && w_[l][i]) v += (v.empty() ? "" : " + ") + w(k, i) + "*" + w(l, i);
                section("unrolled_value", {{"name", s(k, l)}, {"value", v.empty() ? zero_ : v}});
            }
            std::string g;
            for (std::size_t i : P_)
                if (w_[k][i]) g += (g.empty() ? "" : " + ") + w(k, i) + "*" + y(i);
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
                f_ += l_.step(ls(i, j), v, rs(j));
            }
        }
    }

    // λ = S⁻¹ g: Ls z = g, Lsᵀ λ = z.
    void multipliers() {
        section("unrolled_lambda");
        for (std::size_t k = 0; k < nc_; ++k) {
            std::string v = fmt::format("g{}", k);
            for (std::size_t j = 0; j < k; ++j) v += " - " + ls(k, j) + "*" + fmt::format("z{}", j);
            f_ += l_.step(fmt::format("z{}", k), v, rs(k));
        }
        for (std::size_t k = nc_; k-- > 0;) {
            std::string v = fmt::format("z{}", k);
            for (std::size_t j = k + 1; j < nc_; ++j) v += " - " + ls(j, k) + "*" + fmt::format("l{}", j);
            f_ += l_.step(fmt::format("l{}", k), v, rs(k));
        }
    }

    // q̈ = L⁻ᵀ (y − W λ); then the checks and stores.
    void accelerations() {
        section("unrolled_x");
        l_.backward(
            [&](std::size_t i) {
                std::string v = y(i);
                for (std::size_t k = 0; k < nc_; ++k)
                    if (w_[k][i]) v += " - " + w(k, i) + "*" + fmt::format("l{}", k);
                return v;
            },
            [](std::size_t i) { return fmt::format("x{}", i); }, f_);
        std::string stores, lambdas, conditions;
        for (std::size_t i = 0; i < nq_; ++i) {
            stores += text("cholesky_steps.tpl#store", {{"target", fmt::format("qdd[{}]", i)}, {"value", fmt::format("x{}", i)}});
            conditions += fmt::format("{}!{}is_finite(x{})", i ? " || " : "", current_dialect().detail, i);
        }
        for (std::size_t k = 0; k < nc_; ++k) {
            lambdas += text("cholesky_steps.tpl#store", {{"target", fmt::format("    lambda[{}]", k)}, {"value", fmt::format("l{}", k)}});
            conditions += fmt::format(" || !{}is_finite(l{})", current_dialect().detail, k);
        }
        section("unrolled_end", {{"stores", stores}, {"lambdas", lambdas}, {"conditions", conditions}});
    }
};

} // namespace

std::string emitter::unrolled_constrained_solve() const {
    factor_names const in_m{in_array("M"), in_array("M"), diagonal_of("M"), ""};
    substitutions with_l{
        [&](auto const& v, auto const& name, std::string& out) { return forward_substitution(in_m, v, name, out); },
        [&](auto const& start, auto const& name, std::string& out) { backward_substitution(in_m, start, name, out); },
        [&](std::string const& name, std::string const& value, std::string const& r) { return scaled_step(name, value, r); }};
    constrained_writer::values_t values = {{"scalar", scalar()},
                                           {"math", math()},
                                           {"one", single() ? "1.0f" : "1.0"},
                                           {"zero", single() ? "0.0f" : "0.0"},
                                           {"tolerance", single() ? "1e-12f" : "1e-12"}};
    return constrained_writer(d_, elimination_order(), std::move(with_l), std::move(values), single() ? "0.0f" : "0.0")
        .write();
}

} // namespace lagc::emitting
