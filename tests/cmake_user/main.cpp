#include "model.hpp"

#include <cstdio>

int main() {
    pendulum::Parameters p;
    double q[1] = {0.4}, qd[1] = {0.0}, qdd[1];
    if (pendulum::forward_dynamics(q, qd, nullptr, p, qdd, nullptr) != 0) return 1;
    std::printf("qdd = %.6f\n", qdd[0]);
    return 0;
}
