// --functions: which API functions a file holds. The calls between them are fixed by the
// templates (control.tpl, task.tpl, forward_dynamics_constrained.tpl); each row below lists
// the API functions one body calls directly (a superset where the form chosen decides).
// tests/functions_subset.cmake compiles every function alone, with -Werror, on models of
// every form, so that a row that falls behind a template fails there.
#include "emit/function_set.hpp"

#include <algorithm>
#include <map>

namespace lagc {

std::vector<std::string_view> const& api_function_names() {
    static std::vector<std::string_view> const names = {
        "mass_matrix", "coriolis_matrix", "potential_gradient", "bias_forces", "generalized_forces",
        "kinetic_energy", "potential_energy", "constraint_residuals", "constraint_jacobian",
        "semi_implicit_system", "forward_dynamics", "state_derivative", "linearization", "inverse_dynamics",
        "inverse_dynamics_regressor", "inverse_dynamics_regressor_base", "base_parameters", "input_matrix", "rk4_step", "symplectic_euler_step", "radau_step",
        "rk4_step_jacobian", "symplectic_euler_step_jacobian", "radau_step_jacobian", "zoh_discretization",
        "constraint_velocity", "project_state"};
    return names;
}

bool may_name_function(std::string const& name) {
    auto const& names = api_function_names();
    return std::find(names.begin(), names.end(), name) != names.end() ||
           (name.size() > 7 && name.compare(0, 7, "output_") == 0);
}

namespace {
// The API functions each body calls (linearization calls coriolis_matrix only where the
// file has it: --reuse-above).
std::vector<std::string> callees(std::string const& name, bool constrained) {
    static std::map<std::string, std::vector<std::string>> const rows = {
        {"state_derivative", {"forward_dynamics"}},
        {"linearization", {"forward_dynamics", "mass_matrix", "constraint_jacobian"}},
        {"rk4_step", {"forward_dynamics"}},
        {"symplectic_euler_step", {"forward_dynamics"}},
        {"radau_step", {"forward_dynamics", "state_derivative", "linearization"}},
        {"rk4_step_jacobian", {"forward_dynamics", "state_derivative", "linearization"}},
        {"symplectic_euler_step_jacobian", {"forward_dynamics", "state_derivative", "linearization"}},
        {"radau_step_jacobian", {"forward_dynamics", "state_derivative", "linearization"}},
        {"project_state", {"constraint_residuals", "constraint_jacobian", "constraint_velocity", "mass_matrix"}}};
    if (name == "forward_dynamics")
        return constrained ? std::vector<std::string>{"mass_matrix", "bias_forces", "generalized_forces"}
                           : std::vector<std::string>{};
    auto const row = rows.find(name);
    return row == rows.end() ? std::vector<std::string>{} : row->second;
}
} // namespace

std::set<std::string> functions_needed(std::vector<std::string> const& asked, bool constrained) {
    std::set<std::string> needed;
    std::vector<std::string> open(asked.begin(), asked.end());
    while (!open.empty()) {
        std::string name = open.back();
        open.pop_back();
        if (!needed.insert(name).second) continue;
        for (auto& callee : callees(name, constrained)) open.push_back(callee);
    }
    return needed;
}

} // namespace lagc
