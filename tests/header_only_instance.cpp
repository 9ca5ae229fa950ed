// Compiles the header-only form of a generated model in a translation unit of its own.
#include "double_pendulum.hpp"

namespace header_only_check {
int step(const double* q, const double* qd, double* qdd) {
    return double_pendulum::forward_dynamics(q, qd, nullptr, double_pendulum::Parameters{}, qdd, nullptr);
}
} // namespace header_only_check

namespace header_only_check {
bool all_finite(const double* v, int n) { return double_pendulum::detail::all_finite(v, n); }
} // namespace header_only_check
