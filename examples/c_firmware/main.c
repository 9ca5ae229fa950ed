/* A fixed-step control loop in C99, as firmware would run it, on the C interface of the
   generated cart-pendulum (lagc --c-api): a PD force on the cart, RK4 steps of 1 ms.
   Build: gcc -std=c99 -Wall -Wextra -Werror -c main.c, link with cart_pendulum.cpp
   compiled as C++ (see tests/CMakeLists.txt). */
#include "cart_pendulum.h"

#include <math.h>
#include <stdio.h>

int main(void) {
    cart_pendulum_parameters p;
    double x[2 * cart_pendulum_nq] = {0.0, 0.2, 0.0, 0.0}; /* cart at 0, pendulum tilted 0.2 rad */
    double const dt = 1e-3, target = 0.5;                  /* move the cart to x = 0.5 m */
    double energy = 0.0;
    int k;
    cart_pendulum_default_parameters(&p);
    for (k = 0; k < 10000; ++k) {
        double u[cart_pendulum_nu];
        u[0] = 20.0 * (target - x[0]) - 10.0 * x[2];
        if (cart_pendulum_rk4_step(x, u, &p, dt) != 0) {
            printf("step %d failed\n", k);
            return 1;
        }
    }
    energy = cart_pendulum_kinetic_energy(x, x + cart_pendulum_nq, &p);
    printf("after 10 s: cart at %.4f m, pendulum at %.4f rad, kinetic energy %.3e J\n", x[0], x[1], energy);
    return fabs(x[0] - target) < 0.05 ? 0 : 1;
}
