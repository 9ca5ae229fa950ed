// The list of forward-dynamics strategies run in one place (forward_dynamics.hpp).
#include "derive/forward_dynamics.hpp"

#include "derive/derive.hpp"
#include "derive/random_states.hpp"
#include "derive/rate_structure.hpp"

namespace lagc {

std::string_view name_of(fd_method method) {
    switch (method) {
    case fd_method::closed_form: return "closed_form";
    case fd_method::articulated_body: return "articulated_body";
    case fd_method::articulated_body_root_axes: return "articulated_body_root_axes";
    case fd_method::articulated_body_local_axes: return "articulated_body_local_axes";
    case fd_method::floating_articulated_body: return "floating_articulated_body";
    case fd_method::quasi_velocities: return "quasi_velocities";
    }
    return "closed_form";
}

std::string helper_name(fd_method method) {
    return "forward_dynamics_" + std::string(name_of(method));
}

std::vector<fd_attempt> forward_dynamics_attempts(model const& m, rate_structures const* rs, derived const& d,
                                                  std::string const& no_rate_form) {
    std::vector<fd_attempt> attempts;
    for (fd_method method : fd_methods) {
        if (method == fd_method::closed_form) continue;
        if (!rs) {
            attempts.push_back(not_applicable(method, no_rate_form));
            continue;
        }
        switch (method) {
        case fd_method::articulated_body: attempts.push_back(try_articulated_body(m, *rs, d)); break;
        case fd_method::articulated_body_root_axes: attempts.push_back(try_articulated_body_root_axes(m, *rs, d)); break;
        case fd_method::articulated_body_local_axes: attempts.push_back(try_articulated_body_local_axes(m, *rs, d)); break;
        case fd_method::floating_articulated_body: attempts.push_back(try_floating_articulated_body(m, *rs, d)); break;
        case fd_method::quasi_velocities: attempts.push_back(try_quasi_velocities(m, rs->form, d)); break;
        case fd_method::closed_form: break;
        }
    }
    forget_residual_graph();
    return attempts;
}

fd_candidate const* candidate_of(derived const& d, fd_method method) {
    for (auto const& a : d.forward_dynamics)
        if (a.method == method && a.candidate) return &*a.candidate;
    return nullptr;
}

} // namespace lagc
