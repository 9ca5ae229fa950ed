// The closed list of ways lagc gets forward dynamics (q̈, and λ where there are constraints).
// Each way is a value of fd_method. Every one but the closed form is a `try_…` function in a
// file of its own, reading the model and the rate form only (never another strategy's
// result), that returns its candidate or the reason it does not apply. derive() runs them all
// (forward_dynamics.cpp); the emitter scores the closed form against the candidates in one
// place (emit/choose.cpp) and its choice travels with the files to the driver, `--explain`
// and the generated helper's name (docs/architecture.md, "A new strategy").
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lagc {

struct model;
struct derived;
struct rate_structures;
struct bilinear_form;

enum class fd_method {
    closed_form,                // M and h formed, M factorised, solved (always applies)
    articulated_body,           // the articulated-body algorithm over the composites' tree, world axes
    articulated_body_root_axes, // the same in the root body's axes
    articulated_body_local_axes, // the same in each body's own axes (constant joint axes)
    floating_articulated_body,  // the same over a floating root, its constraints solved at the root
    quasi_velocities,           // a singular M's constrained system in quasi-velocities, part by part
};
inline constexpr std::array<fd_method, 6> fd_methods = {fd_method::closed_form, fd_method::articulated_body,
                                                        fd_method::articulated_body_root_axes,
                                                        fd_method::articulated_body_local_axes,
                                                        fd_method::floating_articulated_body, fd_method::quasi_velocities};
// "closed_form", "articulated_body", …: as `--explain` prints it and the table test pins it.
std::string_view name_of(fd_method method);
// The generated helper that writes a candidate's values (detail::NAME): says which method.
std::string helper_name(fd_method method);

// Pivots [begin, end) checked against their own largest, the status returned where one is not
// positive (1: M or a root system not positive definite, 2: constraints dependent).
struct fd_pivot_group {
    std::size_t begin, end;
    int status;
};

// A strategy's expressions, in q, q̇, u, p and t.
struct fd_candidate {
    GiNaC::exvector qdd;                // nq
    GiNaC::exvector lambda;             // nc (empty without constraints)
    GiNaC::exvector pivots;             // all positive exactly where the system is regular
    GiNaC::exvector blocks;             // quasi-velocities: per block of K not constant, det(K_b)² and
                                        // the product of its rows' squared norms (Hadamard: ≤)
    std::vector<fd_pivot_group> groups; // the pivots, in groups
};

// One strategy's outcome: a candidate, or why it does not apply.
struct fd_attempt {
    fd_method method;
    std::optional<fd_candidate> candidate;
    std::string reason;
};
inline fd_attempt not_applicable(fd_method method, std::string reason) { return {method, std::nullopt, std::move(reason)}; }

// The strategies (each checks its q̈ at random states: the residuals M q̈ + h − Q (+ Aᵀλ)
// vanish there).
fd_attempt try_articulated_body(model const& m, rate_structures const& rs, derived const& d);           // articulated_body.cpp
fd_attempt try_articulated_body_root_axes(model const& m, rate_structures const& rs, derived const& d); // articulated_body.cpp
fd_attempt try_articulated_body_local_axes(model const& m, rate_structures const& rs, derived const& d); // local_articulated_body.cpp
fd_attempt try_floating_articulated_body(model const& m, rate_structures const& rs, derived const& d);  // floating_articulated_body.cpp
fd_attempt try_quasi_velocities(model const& m, bilinear_form const& f, derived const& d);              // quasi_velocity.cpp

// Every strategy but the closed form, in fd_methods' order: derived::forward_dynamics. Where
// the kinetic energy has no rate form (`rs` null), each gives `no_rate_form` as its reason.
std::vector<fd_attempt> forward_dynamics_attempts(model const& m, rate_structures const* rs, derived const& d,
                                                  std::string const& no_rate_form);

} // namespace lagc
