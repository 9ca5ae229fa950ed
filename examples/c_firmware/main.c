/* A fixed-step control loop in C99, as firmware would run it, on the C interface of the
   generated cart-pendulum (lagc --c-api): a PD force on the cart, RK4 steps of 1 ms.
   Indices, sizes and status codes come from the header (cart_pendulum_coordinate_x, …):
   nothing is hard-coded. Build: gcc -std=c99 -Wall -Wextra -Werror -c main.c, link with
   cart_pendulum.cpp compiled as C++ (see tests/CMakeLists.txt). */
#include "cart_pendulum.h"

#include <math.h>
#include <stdio.h>

enum { nq = cart_pendulum_nq, x_index = cart_pendulum_coordinate_x, theta_index = cart_pendulum_coordinate_theta };

int main(void) {
    cart_pendulum_parameters p;
    double x[2 * nq] = {0.0};
    double bob[cart_pendulum_output_bob_position_size];
    double const dt = 1e-3, target = 0.5; /* move the cart to x = 0.5 m */
    double energy = 0.0;
    int k, status;
    cart_pendulum_default_parameters(&p);
    x[theta_index] = 0.2; /* pendulum tilted 0.2 rad */
    for (k = 0; k < 10000; ++k) {
        double u[cart_pendulum_nu];
        u[cart_pendulum_input_F] = 20.0 * (target - x[x_index]) - 10.0 * x[nq + x_index];
        status = cart_pendulum_rk4_step(x, u, &p, dt);
        if (status != cart_pendulum_ok) {
            printf("step %d failed with status %d\n", k, status);
            return 1;
        }
    }
    /* A NULL parameters pointer is an error status, not a crash. */
    if (cart_pendulum_rk4_step(x, x, NULL, dt) != cart_pendulum_null_parameters) return 1;
    if (!isnan(cart_pendulum_kinetic_energy(x, x + nq, NULL))) return 1;
    energy = cart_pendulum_kinetic_energy(x, x + nq, &p);
    cart_pendulum_output_bob_position(x, x + nq, &p, bob);
    printf("after 10 s: cart at %.4f m, %s at %.4f rad, bob at (%.3f, %.3f), kinetic energy %.3e J\n", x[x_index],
           cart_pendulum_coordinate_names[theta_index], x[theta_index], bob[0], bob[1], energy);
    return fabs(x[x_index] - target) < 0.05 ? 0 : 1;
}
