@@ mass_matrix
// Mass matrix M(q) = d2L/dqd2, nq x nq, row-major.
@@ coriolis_matrix
// Coriolis matrix from Christoffel symbols: h = C qd + dV/dq, Mdot - 2C skew-symmetric.
@@ potential_gradient
// Gradient of the potential, dV/dq.
@@ bias_forces
// Bias forces h(q, qd): M qdd + h + A^T lambda = Q.
@@ generalized_forces
// Generalized forces Q(q, qd, u).
@@ kinetic_energy
// Kinetic energy (the kinetic terms).
@@ potential_energy
// Potential energy (the potential terms).
@@ constraint_residuals
// Constraint residuals: holonomic rows c(q, t), then velocity rows A q_dot + a0.
@@ constraint_jacobian
// Constraint Jacobian A, nc x nq, row-major.
@@ semi_implicit_system
// Index-1 system [[M, A^T], [A, 0]] [qdd; lambda] = [Q - h; r], Baumgarte-stabilised;
// K is (nq+nc) x (nq+nc) row-major, rhs has nq+nc entries.
@@ constraint_terms
// Constraint Jacobian and the right-hand side r of A qdd = r.
@@ dynamics_terms
// The lower triangle of M and b = Q - h, for forward_dynamics.
@@ forward_dynamics_articulated_body
// Each joint's pivot D and qdd by the articulated-body algorithm, for forward_dynamics.
@@ forward_dynamics_articulated_body_root_axes
// Each joint's pivot D and qdd by the articulated-body algorithm in the root body's axes,
// for forward_dynamics.
@@ forward_dynamics_articulated_body_local_axes
// Each joint's pivot D and qdd by the articulated-body algorithm in each body's own axes,
// for forward_dynamics.
@@ forward_dynamics_quasi_velocities
// D's pivots, each block of K's det^2 with its rows' squared norms (H), qdd and lambda in
// quasi-velocities, for forward_dynamics.
@@ forward_dynamics_floating_articulated_body
// The joints' and the root's pivots D, qdd (and lambda, with constraints) by the
// articulated-body algorithm over a floating root, for forward_dynamics.
@@ forward_dynamics_factored
// forward_dynamics' work, leaving the Cholesky factor of M in M (for linearization).
@@ forward_dynamics
// Forward dynamics: qdd (and lambda when nc > 0). Returns 0 on success, 1 when M (2 when
// A M^-1 A^T) is singular at this state, 3 when qdd or lambda is not finite.
@@ output
// Output '{name}': {shape}.
@@ parts
// {name} in parts (short compile times); w carries values between them.
@@ shared_parts
// Parts that several functions call: the values each of those functions needs, computed
// by one piece of code (the file holds each value once); w carries them on.
@@ runtime_parameters
// Runtime parameters, in declaration order.
@@ folded_parameters
// The parameters, in declaration order, as folded into the code (lagc --fold-parameters):
// the functions do not read them, and changing them has no effect.
@@ state_derivative
// State derivative for x = [q; qd] (2 nq): xdot = [qd; qdd] with qdd from forward_dynamics
// (whose status it returns; 3 where an entry of qd is not finite); xdot is written only on
// success, and may be x itself.
@@ linearization
// Exact linearization of xdot = f(x, u) at this state: A = df/dx (2nq x 2nq), B = df/du
// (2nq x nu; not written when nu = 0), row-major; derivatives of forward_dynamics' qdd (with
// constraints, of the Baumgarte-stabilised solution). Returns forward_dynamics' status, or 3
// when an entry of A or B is not finite (a derivative that is 0/0 at this state); A and B
// hold no meaningful values whenever it returns non-zero.
@@ inverse_dynamics
// Inverse dynamics: tau = M qdd + h - Q(q, qd, u) (no constraint term: at forward_dynamics'
// solution it equals -A^T lambda).
@@ inverse_dynamics_regressor
// Inverse dynamics' regressor: Y (nq x nr, row-major) with tau = Y pi, pi the parameters
// tau is linear in (regressor_parameters[] below: indices into the parameters, names in
// regressor_parameter_names); tau as inverse_dynamics gives it with the inputs at zero. Y
// does not depend on pi's values; it reads the other parameters from p. For identifying
// pi from measured torques by least squares.
@@ inverse_dynamics_regressor_base
// The base-parameter regressor: Yb (nq x nb, row-major), the columns of Y that the base
// parameters keep, with tau = Y pi = Yb pib for pib = base_parameters(p): the combinations of
// pi the torques determine (base_parameter_names below). Identify pib, not pi, by least
// squares: Yb stacked over states has full column rank.
{method}
@@ base_parameters
// The base parameters pib (nb) from the parameters p: each kept parameter with those that
// group into it (their columns of Y are combinations of the kept ones):
{groupings}
@@ input_matrix
// Input matrix dQ/du, nq x nu, row-major (not written when nu = 0).
@@ linearization_terms
// J = -[dR/dx; dS/dx] at (qdd, lambda) for x = [q; qd; u], R = M qdd + h - Q + A^T lambda,
// S = A qdd - r: (nq + nc) x (2 nq + nu), row-major.
@@ rk4_step
// One classic Runge-Kutta step of length dt on x = [q; qd] in place, inputs u held over the
// step. Returns the first non-zero forward_dynamics status, or 3 when dt or an entry of the
// new state is not finite; x is unchanged whenever it returns non-zero.
@@ rk4_step_jacobian
// rk4_step with its exact Jacobians: x = [q; qd] becomes x+ in place, Ad = dx+/dx
// (2nq x 2nq) and Bd = dx+/du (2nq x nu, not written when nu = 0), row-major, through the
// four stages with linearization's A and B (no differences). For multiple shooting and
// discrete-time LQR/MPC. Returns the first non-zero status of state_derivative or
// linearization, or 3 when dt or an entry is not finite; nothing is written then.
@@ zoh_discretization
// The exact zero-order-hold discretisation of x' = A x + B u (A: 2nq x 2nq, B: 2nq x nu, as
// linearization writes them) over dt: Ad = exp(A dt), Bd = int_0^dt exp(A s) ds B, from
// exp([[A, B], [0, 0]] dt) by scaling and squaring (to round-off). Needs no model function:
// for LQR on the continuous-time linearization. Returns 3 when dt or an entry is not
// finite; nothing is written then.
@@ symplectic_euler_step_jacobian
// symplectic_euler_step with its exact Jacobians: x+ in place, Ad = dx+/dx (2nq x 2nq),
// Bd = dx+/du (2nq x nu), row-major, from linearization's A and B at x. Statuses as
// rk4_step_jacobian's; nothing is written when it returns non-zero.
@@ radau_step
// One step of the 2-stage Radau IIA method (implicit, order 3, L-stable) of length dt on
// x = [q; qd] in place, inputs u held over the step: for stiff models (strong damping,
// stiff springs, large Baumgarte gains) at steps where rk4_step diverges. Newton's method
// on the exact Jacobian (linearization), at most 12 iterations, heap-free. Returns 5 when
// Newton does not converge (a smaller dt will), the first non-zero status of
// state_derivative or linearization, or 3 when dt or an entry is not finite; x is unchanged
// whenever it returns non-zero.
@@ radau_step_jacobian
// radau_step with its exact Jacobians: x = [q; qd] becomes x+ in place (the same x+ as
// radau_step's, to the last bit), Ad = dx+/dx (2nq x 2nq) and Bd = dx+/du (2nq x nu, not
// written when nu = 0), row-major: the implicit function theorem on the converged stage
// equations, with linearization's A and B at the stages (no differences). For multiple
// shooting and MPC on stiff models. Statuses as radau_step's (5: Newton did not converge,
// or the stage system is singular; halve dt); nothing is written when it returns non-zero.
@@ symplectic_euler_step
// One semi-implicit (symplectic) Euler step of length dt on x = [q; qd] in place:
// qd += dt qdd, then q += dt qd. Returns forward_dynamics' status, or 3 when dt or an entry
// of the new state is not finite; x is unchanged whenever it returns non-zero.
@@ output_jacobian
// Jacobian of output '{name}': d(out)/dq, {size} x nq, row-major.
@@ output_drift
// Drift of output '{name}': its second time derivative with qdd = 0, so that
// d2(out)/dt2 = J qdd + drift ({size} values; time-dependent terms included).
@@ constraint_velocity
// Constraint velocities: cdot = A qd + dc/dt for holonomic rows, g (= A qd + a0) for
// velocity rows; nc values, zero on the constraint manifold.
@@ project_state
// Projects q and qd in place onto the constraints: Gauss-Newton steps on the holonomic rows
// in the metric of M (at most {iterations}), then qd onto cdot = 0, g = 0 (one step). Returns
// |[c; cdot, g]| after it, or -1 when a factorisation fails or a value is not finite (NaN or
// Inf in q, qd, p or in what they give); q and qd are written only when it returns >= 0.
