@@ state_derivative
    // x = [q; qd]: xdot = [qd; qdd], written only when forward_dynamics succeeds (and after
    // x is read, so xdot may be x).
    {scalar}* const no_lambda = {null};
    {scalar} qdd[nq];
    const int status = forward_dynamics({t}x, x + nq, u, p, qdd, no_lambda);
    if (status != 0) return status;
    // qdd can be finite where qd is not (no velocity terms): xdot's first half is qd itself.
    for (int i = 0; i < nq; ++i)
        if (!{detail}is_finite(x[nq + i])) return 3;
    for (int i = 0; i < nq; ++i) {{
        xdot[i] = x[nq + i];
        xdot[nq + i] = qdd[i];
    }}
    return 0;
@@ linearization
    // qdd from forward_dynamics, then M dqdd/dx = J with J = -dR/dx, R = M qdd + h - Q
    // (qdd held fixed), for x = [q; qd; u]: M formed and factored again, 2 nq + nu solves.
    {constants}m = 2 * nq + nu{end_constants}
    {scalar} qdd[nq];
    {scalar} lambda[1];
    const int status = forward_dynamics({args}qdd, lambda);
    if (status != 0) return status;
    {scalar} J[nq * m];
    {detail}linearization_terms({args}qdd, J);
    {scalar} M[nq * nq];
    mass_matrix({args_q_p}M);
    if ({factor}(M) != 0) return 1;
@@ linearization_factored
    // qdd and the factor of M from forward_dynamics' own code, then M dqdd/dx = J with
    // J = -dR/dx, R = M qdd + h - Q (qdd held fixed), for x = [q; qd; u]: one
    // factorisation, 2 nq + nu solves.
    {constants}m = 2 * nq + nu{end_constants}
    {scalar} qdd[nq];
    {scalar} M[nq * nq];
    const int status = {detail}forward_dynamics_factored({args}qdd, M);
    if (status != 0) return status;
    {scalar} J[nq * m];
    {detail}linearization_terms({args}qdd, J);
@@ linearization_columns
{coriolis}    {scalar} z[nq];
    for (int c = 0; c < m; ++c) {{
        for (int i = 0; i < nq; ++i) z[i] = J[i * m + c];
        {solve}(M, z);
        {detail}store_linearization_column(c, z, A, B);
    }}
    return {detail}linearization_status(A, B);
@@ linearization_constrained
    // qdd and lambda from forward_dynamics; then, with J = -[dR/dx; dS/dx], R = M qdd + h - Q
    // + Ac^T lambda and S = Ac qdd - r (qdd, lambda held fixed), x = [q; qd; u]:
    // [[M, Ac^T], [Ac, 0]] [dqdd/dx; dlambda/dx] = J, solved as forward_dynamics solves
    // (M = L L^T, the Schur complement Ac M^-1 Ac^T), column by column.
    {constants}m = 2 * nq + nu{end_constants}
    {scalar} qdd[nq];
    {scalar} lambda[nc];
    const int status = forward_dynamics({args}qdd, lambda);
    if (status != 0) return status;
    {scalar} J[(nq + nc) * m];
    {detail}linearization_terms({args}qdd, lambda, J);
{coriolis}    {scalar} M[nq * nq];
    {scalar} Ac[nc * nq];
    mass_matrix({args_q_p}M);
    constraint_jacobian({args_q_p}Ac);
@@ linearization_constrained_factor
{augment}    if ({factor}(M) != 0) {singular}
@@ linearization_constrained_tail
    {scalar} Y[nc * nq];
    for (int k = 0; k < nc * nq; ++k) Y[k] = Ac[k];
    for (int k = 0; k < nc; ++k) {solve}(M, Y + k * nq);
    {scalar} S[nc * nc];
    for (int k = 0; k < nc; ++k)
        for (int j = 0; j < nc; ++j) {{
            {scalar} s = 0;
            for (int i = 0; i < nq; ++i) s += Ac[k * nq + i] * Y[j * nq + i];
            S[k * nc + j] = s;
        }}
    if ({factor_nc}(S) != 0) return 2;
    {scalar} z[nq];
    {scalar} l[nc];
    for (int c = 0; c < m; ++c) {{
        for (int i = 0; i < nq; ++i) z[i] = J[i * m + c];
{augment_column}        {solve}(M, z);
        for (int k = 0; k < nc; ++k) {{
            {scalar} s = -J[(nq + k) * m + c];
            for (int i = 0; i < nq; ++i) s += Ac[k * nq + i] * z[i];
            l[k] = s;
        }}
        {solve_nc}(S, l);
        for (int i = 0; i < nq; ++i)
            for (int k = 0; k < nc; ++k) z[i] -= Y[k * nq + i] * l[k];
        {detail}store_linearization_column(c, z, A, B);
    }}
    return {detail}linearization_status(A, B);
@@ linearization_constrained_twin_head
    // linearization's J and Ac (its own code computed them, and its factorisation changed
    // only M); M again, from mass_matrix.
    {constants}m = 2 * nq + nu{end_constants}
    {scalar} M[nq * nq];
    mass_matrix({args_q_p}M);
@@ linearization_coriolis
    // The qd columns of rows 0..nq-1: -dR/dqd = dQ/dqd - 2 C (C: coriolis_matrix).
    {{
        {scalar} C[nq * nq];
        coriolis_matrix({args_q_qd_p}C);
        for (int i = 0; i < nq; ++i)
            for (int j = 0; j < nq; ++j) J[i * m + nq + j] -= 2 * C[i * nq + j];
    }}
@@ store_column

// Column c of dqdd/dx (x = [q; qd; u]) into A = [[0, I], [dqdd/dq, dqdd/dqd]] (2nq x 2nq)
// and B = [[0], [dqdd/du]] (2nq x nu), both row-major; the constant rows with column 0.
{linkage}void store_linearization_column(int c, const {scalar}* column, {scalar}* A, {scalar}* B) {{
    if (c < 2 * nq) {{
        for (int i = 0; i < nq; ++i) {{
            A[i * 2 * nq + c] = c == nq + i ? {one} : {zero};
            A[(nq + i) * 2 * nq + c] = column[i];
        }}
        return;
    }}
    for (int i = 0; i < nq; ++i) {{
        B[i * nu + (c - 2 * nq)] = {zero};
        B[(nq + i) * nu + (c - 2 * nq)] = column[i];
    }}
}}
@@ linearization_blocks
{coriolis}    // A = [[0, I], [dqdd/dq, dqdd/dqd]], B = [[0], [dqdd/du]]: the constant rows, then the
    // solved columns eight, four or two at a time (the last of an odd nu alone), or B's as
    // columns of M^-1 where each input's column of J is a unit vector.
    for (int i = 0; i < nq; ++i) {{
        for (int c = 0; c < 2 * nq; ++c) A[i * 2 * nq + c] = c == nq + i ? {one} : {zero};
        for (int c = 0; c < nu; ++c) B[i * nu + c] = {zero};
    }}
{solve_a}{solve_b}    return {detail}linearization_status(A, B);
@@ linearization_last_input
    {{
        {scalar} z[nq];
        for (int i = 0; i < nq; ++i) z[i] = J[i * m + m - 1];
        {solve}(M, z);
        for (int i = 0; i < nq; ++i) B[(nq + i) * nu + nu - 1] = z[i];
    }}
@@ linearization_status

// 0 when every derivative in A and B (their lower halves: the upper ones are 0 and I) is
// finite, else 3: a derivative that is 0/0 here (as that of |x|^1.5 or of r^3 at the
// origin) or that overflows, even where forward_dynamics is finite. Tested entry by entry
// on the bits (detail::is_finite): a sum of x * 0 would tell in one test, but -ffast-math
// folds x * 0 to 0.
{linkage}int linearization_status(const {scalar}* A, const {scalar}* B) {{
    return {detail}all_finite(A + 2 * nq * nq, 2 * nq * nq) && {detail}all_finite(B + nq * nu, nq * nu) ? 0 : 3;
}}
@@ rk4_step
    // k1..k4 at t, t + dt/2, t + dt/2, t + dt; u held over the step. A stage's k is [v; a]:
    // v the qd of its state (x's own qd for k1), a its qdd from forward_dynamics, so no k is
    // copied. x is written only when every entry of the new state is finite.
    if (!{detail}is_finite(dt)) return 3;
    {scalar}* const no_lambda = {null};
    {scalar} a1[nq], a2[nq], a3[nq], a4[nq], v2[nq], v3[nq], y[2 * nq], next[2 * nq];
    int status = forward_dynamics({t}x, x + nq, u, p, a1, no_lambda);
    if (status != 0) return status;
    for (int i = 0; i < nq; ++i) {{
        y[i] = x[i] + dt / 2 * x[nq + i];
        y[nq + i] = x[nq + i] + dt / 2 * a1[i];
    }}
    status = forward_dynamics({t_half}y, y + nq, u, p, a2, no_lambda);
    if (status != 0) return status;
    for (int i = 0; i < nq; ++i) {{
        v2[i] = y[nq + i];
        y[i] = x[i] + dt / 2 * v2[i];
        y[nq + i] = x[nq + i] + dt / 2 * a2[i];
    }}
    status = forward_dynamics({t_half}y, y + nq, u, p, a3, no_lambda);
    if (status != 0) return status;
    for (int i = 0; i < nq; ++i) {{
        v3[i] = y[nq + i];
        y[i] = x[i] + dt * v3[i];
        y[nq + i] = x[nq + i] + dt * a3[i];
    }}
    status = forward_dynamics({t_full}y, y + nq, u, p, a4, no_lambda);
    if (status != 0) return status;
    for (int i = 0; i < nq; ++i) {{
        next[i] = x[i] + dt / 6 * (x[nq + i] + 2 * v2[i] + 2 * v3[i] + y[nq + i]);
        next[nq + i] = x[nq + i] + dt / 6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
    }}
    for (int i = 0; i < 2 * nq; ++i)
        if (!{detail}is_finite(next[i])) return 3;
    for (int i = 0; i < 2 * nq; ++i) x[i] = next[i];
    return 0;
@@ rk4_step_jacobian
    // rk4_step's four stages, each with linearization's exact A_s and B_s at its state y_s:
    // dk_s/dx = A_s (I + c_s dt dk_(s-1)/dx), dk_s/du = A_s c_s dt dk_(s-1)/du + B_s
    // (c = 0, 1/2, 1/2, 1), and dx+/dx = I + dt/6 sum w_s dk_s/dx (w = 1, 2, 2, 1). A_s's
    // upper half is [0, I], so its product takes the lower rows of the factor as they are.
    // x, Ad and Bd are written only when every entry is finite.
    if (!{detail}is_finite(dt)) return 3;
    {constants}n = 2 * nq, m = nu > 0 ? nu : 1{end_constants}
    {scalar} k[4][n], y[n], xnext[n];
    {scalar} A[n * n], B[n * m], Kx[n * n], Ku[n * m], Ax[n * n], Au[n * m];
    for (int i = 0; i < n * n; ++i) Kx[i] = {zero}, Ax[i] = {zero};
    for (int i = 0; i < n * m; ++i) Ku[i] = {zero}, Au[i] = {zero};

    const {scalar} c[4] = {{{zero}, dt / 2, dt / 2, dt}};
    const {scalar} w[4] = {{dt / 6, dt / 3, dt / 3, dt / 6}};
    for (int s = 0; s < 4; ++s) {{
        for (int i = 0; i < n; ++i) y[i] = s == 0 ? x[i] : x[i] + c[s] * k[s - 1][i];
        int status = state_derivative({t_stage}y, u, p, k[s]);
        if (status == 0) status = linearization({t_stage}y, y + nq, u, p, A, B);
        if (status != 0) return status;
        // D = I + c dt Kx (and c dt Ku), then Kx = A D, Ku = A (c dt Ku) + B.
        for (int i = 0; i < n * n; ++i) Kx[i] *= c[s];
        for (int i = 0; i < n; ++i) Kx[i * n + i] += {one};
        for (int i = 0; i < n * m; ++i) Ku[i] *= c[s];
        {scalar} Kx_next[n * n], Ku_next[n * m];
        for (int i = 0; i < nq; ++i) {{
            for (int j = 0; j < n; ++j) Kx_next[i * n + j] = Kx[(nq + i) * n + j];
            for (int j = 0; j < m; ++j) Ku_next[i * m + j] = Ku[(nq + i) * m + j];
        }}
        for (int i = nq; i < n; ++i) {{
            for (int j = 0; j < n; ++j) {{
                {scalar} sum = {zero};
                for (int l = 0; l < n; ++l) sum += A[i * n + l] * Kx[l * n + j];
                Kx_next[i * n + j] = sum;
            }}
            for (int j = 0; j < nu; ++j) {{
                {scalar} sum = B[i * nu + j];
                for (int l = 0; l < n; ++l) sum += A[i * n + l] * Ku[l * m + j];
                Ku_next[i * m + j] = sum;
            }}
        }}
        for (int i = 0; i < n * n; ++i) Kx[i] = Kx_next[i], Ax[i] += w[s] * Kx_next[i];
        for (int i = 0; i < n * m; ++i) Ku[i] = Ku_next[i], Au[i] += w[s] * Ku_next[i];
    }}
    // The new state exactly as rk4_step computes it.
    for (int i = 0; i < n; ++i) xnext[i] = x[i] + dt / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    for (int i = 0; i < n; ++i) Ax[i * n + i] += {one};
    if (!{detail}all_finite(xnext, n) || !{detail}all_finite(Ax, n * n) || (nu > 0 && !{detail}all_finite(Au, n * nu))) return 3;
    for (int i = 0; i < n; ++i) x[i] = xnext[i];
    for (int i = 0; i < n * n; ++i) Ad[i] = Ax[i];
    for (int i = 0; i < n * nu; ++i) Bd[i] = Au[i];
    return 0;
@@ zoh_discretization
    // exp([[A, B], [0, 0]] dt) = [[Ad, Bd], [0, I]]. Its lower rows stay [0, I], so only the
    // upper n rows are kept (E below). Scaling and squaring: X = [A, B] dt / 2^s with the
    // 1-norm of [[A, B], [0, 0]] dt / 2^s at most 1/2, the Taylor series of degree 18 in
    // Horner's form (its truncation below 1e-22 relative), then squared s times.
    // Ad and Bd are written only when every entry is finite.
    if (!{detail}is_finite(dt)) return 3;
    {constants}n = 2 * nq, N = n + nu{end_constants}
    {scalar} X[n * N], E[n * N], F[n * N];
    {scalar} norm = {zero};
    for (int j = 0; j < N; ++j) {{
        {scalar} column = {zero};
        for (int i = 0; i < n; ++i) column += {math}fabs{mf}(j < n ? A[i * n + j] : B[i * nu + (j - n)]);
        if (column > norm) norm = column;
    }}
    norm *= {math}fabs{mf}(dt);
    if (!{detail}is_finite(norm)) return 3;
    {scalar} scale = dt;
    int squarings = 0;
    while (norm > {half} && squarings < 2000) {{
        norm /= 2;
        scale /= 2;
        ++squarings;
    }}
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < N; ++j) X[i * N + j] = (j < n ? A[i * n + j] : B[i * nu + (j - n)]) * scale;
    // E = I + X (I + X/2 (I + ... (I + X/18))), the lower rows [0, I] implied: (X E)_ij =
    // sum_(l<n) X_il E_lj + X_ij for j >= n.
    for (int i = 0; i < n * N; ++i) E[i] = {zero};
    for (int i = 0; i < n; ++i) E[i * N + i] = {one};
    for (int k = 18; k >= 1; --k) {{
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < N; ++j) {{
                {scalar} sum = j < n ? {zero} : X[i * N + j];
                for (int l = 0; l < n; ++l) sum += X[i * N + l] * E[l * N + j];
                F[i * N + j] = sum / {to_scalar}(k);
            }}
        for (int i = 0; i < n * N; ++i) E[i] = F[i];
        for (int i = 0; i < n; ++i) E[i * N + i] += {one};
    }}
    // E = E E, s times: (E E)_ij = sum_(l<n) E_il E_lj + E_ij for j >= n.
    for (int q = 0; q < squarings; ++q) {{
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < N; ++j) {{
                {scalar} sum = j < n ? {zero} : E[i * N + j];
                for (int l = 0; l < n; ++l) sum += E[i * N + l] * E[l * N + j];
                F[i * N + j] = sum;
            }}
        for (int i = 0; i < n * N; ++i) E[i] = F[i];
    }}
    if (!{detail}all_finite(E, n * N)) return 3;
    for (int i = 0; i < n; ++i) {{
        for (int j = 0; j < n; ++j) Ad[i * n + j] = E[i * N + j];
        for (int j = 0; j < nu; ++j) Bd[i * nu + j] = E[i * N + n + j];
    }}
    return 0;
@@ symplectic_euler_step_jacobian
    // symplectic_euler_step with its exact Jacobians from linearization's A and B at x:
    // qd+ = qd + dt qdd(x, u), q+ = q + dt qd+, so d(qd+)/dx = [0, I] + dt A_lower,
    // d(q+)/dx = [I, 0] + dt d(qd+)/dx, and likewise for u. Written only when finite.
    if (!{detail}is_finite(dt)) return 3;
    {constants}n = 2 * nq, m = nu > 0 ? nu : 1{end_constants}
    {scalar}* const no_lambda = {null};
    {scalar} A[n * n], B[n * m], qdd[nq];
    int status = forward_dynamics({t}x, x + nq, u, p, qdd, no_lambda);
    if (status == 0) status = linearization({t}x, x + nq, u, p, A, B);
    if (status != 0) return status;
    {scalar} y[n], Ax[n * n], Au[n * m];
    for (int i = 0; i < nq; ++i) {{
        y[nq + i] = x[nq + i] + dt * qdd[i];
        y[i] = x[i] + dt * y[nq + i];
        for (int j = 0; j < n; ++j) {{
            Ax[(nq + i) * n + j] = (j == nq + i ? {one} : {zero}) + dt * A[(nq + i) * n + j];
            Ax[i * n + j] = (j == i ? {one} : {zero}) + dt * Ax[(nq + i) * n + j];
        }}
        for (int j = 0; j < nu; ++j) {{
            Au[(nq + i) * m + j] = dt * B[(nq + i) * nu + j];
            Au[i * m + j] = dt * Au[(nq + i) * m + j];
        }}
    }}
    // Au's rows are nu wide wherever nu > 0 (m = nu then).
    if (!{detail}all_finite(y, n) || !{detail}all_finite(Ax, n * n) || (nu > 0 && !{detail}all_finite(Au, n * nu))) return 3;
    for (int i = 0; i < n; ++i) x[i] = y[i];
    for (int i = 0; i < n * n; ++i) Ad[i] = Ax[i];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < nu; ++j) Bd[i * nu + j] = Au[i * m + j];
    return 0;
@@ radau_step
    // The 2-stage Radau IIA method (order 3, L-stable: stiff modes are damped, not
    // amplified, at any dt). Stage increments Z = [Z1; Z2] (stages at c = 1/3, 1) solve
    //   G(Z) = Z - dt (a (x) I) [f(x + Z1); f(x + Z2)] = 0,  a = [[5/12, -1/12], [3/4, 1/4]],
    // from the explicit Euler guess Z_s = c_s dt f(x), by Newton's method with the matrix
    // I - dt (a (x) I) diag(J1, J2) factored once and kept while it converges fast: first
    // with J1 = J2 = linearization's A at x, then, wherever a correction is more than a
    // tenth of the one before, J_s = A at x + Z_s (the exact Newton matrix), factored again.
    // Then x+ = x + Z2 (the method is stiffly accurate). Converged when a correction is below
    // 1e-10 (1 + |x| + |Z|) (max norms) within 16 iterations, else 5; x is written only when
    // it converged and every entry is finite.
    if (!{detail}is_finite(dt)) return 3;
    {constants}n = 2 * nq, N = 2 * n, m = nu > 0 ? nu : 1{end_constants}
    const {scalar} a[2][2] = {{{{{five_twelfths} * dt, {minus_one_twelfth} * dt}}, {{{three_quarters} * dt, {one_quarter} * dt}}}};
    const {scalar} c[2] = {{dt / 3, dt}};
    {scalar} Z[N], F[N], G[N], J[N * N], A[2][n * n], B[n * m], y[n];
    int pivots[N];
    int status = state_derivative({t}x, u, p, F);
    if (status == 0) status = linearization({t}x, x + nq, u, p, A[0], B);
    if (status != 0) return status;
    {scalar} size_x = {zero}, last = {zero};
    for (int i = 0; i < n; ++i) {{
        Z[i] = c[0] * F[i], Z[n + i] = c[1] * F[i];
        size_x = {math}fmax{mf}(size_x, {math}fabs{mf}(x[i]));
    }}
    for (int i = 0; i < n * n; ++i) A[1][i] = A[0][i];
    int refactor = 1;
    for (int iteration = 0; iteration < 16; ++iteration) {{
        for (int s = 0; s < 2; ++s) {{
            for (int i = 0; i < n; ++i) y[i] = x[i] + Z[s * n + i];
            status = state_derivative({t_stage}y, u, p, F + s * n);
            if (status == 0 && refactor && iteration > 0) status = linearization({t_stage}y, y + nq, u, p, A[s], B);
            if (status != 0) return status;
        }}
        for (int s = 0; s < 2; ++s)
            for (int i = 0; i < n; ++i) G[s * n + i] = -(Z[s * n + i] - a[s][0] * F[i] - a[s][1] * F[n + i]);
        if (refactor) {{
            // J = L U with partial pivoting (pivots[k]: the row swapped with k), in place.
            for (int s = 0; s < 2; ++s)
                for (int i = 0; i < n; ++i)
                    for (int r = 0; r < 2; ++r)
                        for (int j = 0; j < n; ++j)
                            J[(s * n + i) * N + r * n + j] = (s == r && i == j ? {one} : {zero}) - a[s][r] * A[r][i * n + j];
            for (int k = 0; k < N; ++k) {{
                int pivot = k;
                for (int i = k + 1; i < N; ++i)
                    if ({math}fabs{mf}(J[i * N + k]) > {math}fabs{mf}(J[pivot * N + k])) pivot = i;
                if (!(J[pivot * N + k] != {zero})) return 5;
                pivots[k] = pivot;
                if (pivot != k)
                    for (int j = 0; j < N; ++j) {{
                        const {scalar} swap = J[k * N + j];
                        J[k * N + j] = J[pivot * N + j], J[pivot * N + j] = swap;
                    }}
                for (int i = k + 1; i < N; ++i) {{
                    const {scalar} f = J[i * N + k] / J[k * N + k];
                    J[i * N + k] = f;
                    if (f == {zero}) continue;
                    for (int j = k + 1; j < N; ++j) J[i * N + j] -= f * J[k * N + j];
                }}
            }}
        }}
        // J dZ = G: the row swaps, then L forward and U backward.
        for (int k = 0; k < N; ++k) {{
            const {scalar} swap = G[k];
            G[k] = G[pivots[k]], G[pivots[k]] = swap;
        }}
        for (int k = 0; k < N; ++k)
            for (int i = k + 1; i < N; ++i) G[i] -= J[i * N + k] * G[k];
        {scalar} correction = {zero}, size_z = {zero};
        for (int k = N - 1; k >= 0; --k) {{
            {scalar} v = G[k];
            for (int j = k + 1; j < N; ++j) v -= J[k * N + j] * G[j];
            G[k] = v / J[k * N + k];
        }}
        for (int i = 0; i < N; ++i) {{
            Z[i] += G[i];
            correction = {math}fmax{mf}(correction, {math}fabs{mf}(G[i]));
            size_z = {math}fmax{mf}(size_z, {math}fabs{mf}(Z[i]));
        }}
        if (!{detail}is_finite(correction)) return 3;
        if (correction <= {tolerance} * ({one} + size_x + size_z)) {{
{on_convergence}        }}
        refactor = iteration > 0 && correction > {one_tenth} * last;
        last = correction;
    }}
    return 5;
@@ radau_step_done
            for (int i = 0; i < n; ++i) {{
                y[i] = x[i] + Z[n + i];
                if (!{detail}is_finite(y[i])) return 3;
            }}
            for (int i = 0; i < n; ++i) x[i] = y[i];
            return 0;
@@ radau_step_jacobian_done
            // The sensitivities at the converged stages, by the implicit function theorem on
            // G(Z; x, u) = 0: with A_s, B_s linearization's at x + Z_s (a holds dt),
            //   (I - (a (x) I) diag(A_1, A_2)) [dZ/dx, dZ/du] = (a (x) I) [A_1, B_1; A_2, B_2],
            // solved by the same elimination; x+ = x + Z_2, so Ad = I + dZ_2/dx, Bd = dZ_2/du.
            {constants}W = n + m{end_constants}
            {scalar} Bs[2][n * m], R[N * W];
            for (int s = 0; s < 2; ++s) {{
                for (int i = 0; i < n; ++i) y[i] = x[i] + Z[s * n + i];
                status = linearization({t_stage}y, y + nq, u, p, A[s], Bs[s]);
                if (status != 0) return status;
            }}
            for (int s = 0; s < 2; ++s)
                for (int i = 0; i < n; ++i) {{
                    const int row = s * n + i;
                    for (int r = 0; r < 2; ++r)
                        for (int j = 0; j < n; ++j)
                            J[row * N + r * n + j] = (s == r && i == j ? {one} : {zero}) - a[s][r] * A[r][i * n + j];
                    for (int j = 0; j < n; ++j) R[row * W + j] = a[s][0] * A[0][i * n + j] + a[s][1] * A[1][i * n + j];
                    for (int j = 0; j < m; ++j)
                        R[row * W + n + j] = j < nu ? a[s][0] * Bs[0][i * nu + j] + a[s][1] * Bs[1][i * nu + j] : {zero};
                }}
            for (int k = 0; k < N; ++k) {{
                int pivot = k;
                for (int i = k + 1; i < N; ++i)
                    if ({math}fabs{mf}(J[i * N + k]) > {math}fabs{mf}(J[pivot * N + k])) pivot = i;
                if (!(J[pivot * N + k] != {zero})) return 5;
                if (pivot != k) {{
                    for (int j = 0; j < N; ++j) {{
                        const {scalar} swap = J[k * N + j];
                        J[k * N + j] = J[pivot * N + j], J[pivot * N + j] = swap;
                    }}
                    for (int j = 0; j < W; ++j) {{
                        const {scalar} swap = R[k * W + j];
                        R[k * W + j] = R[pivot * W + j], R[pivot * W + j] = swap;
                    }}
                }}
                for (int i = k + 1; i < N; ++i) {{
                    const {scalar} f = J[i * N + k] / J[k * N + k];
                    if (f == {zero}) continue;
                    for (int j = k; j < N; ++j) J[i * N + j] -= f * J[k * N + j];
                    for (int j = 0; j < W; ++j) R[i * W + j] -= f * R[k * W + j];
                }}
            }}
            for (int k = N - 1; k >= 0; --k)
                for (int j = 0; j < W; ++j) {{
                    {scalar} v = R[k * W + j];
                    for (int l = k + 1; l < N; ++l) v -= J[k * N + l] * R[l * W + j];
                    R[k * W + j] = v / J[k * N + k];
                }}
            // Rows n..N-1 of R are dZ_2/d[x, u].
            for (int i = 0; i < n; ++i) {{
                y[i] = x[i] + Z[n + i];
                R[(n + i) * W + i] += {one};
            }}
            if (!{detail}all_finite(y, n) || !{detail}all_finite(R + n * W, n * W)) return 3;
            for (int i = 0; i < n; ++i) {{
                x[i] = y[i];
                for (int j = 0; j < n; ++j) Ad[i * n + j] = R[(n + i) * W + j];
                for (int j = 0; j < nu; ++j) Bd[i * nu + j] = R[(n + i) * W + n + j];
            }}
            return 0;
@@ symplectic_euler_step
    // qd += dt qdd(q, qd), then q += dt qd (the new qd); u held over the step. x is written
    // only when every entry of the new state is finite.
    if (!{detail}is_finite(dt)) return 3;
    {scalar}* const no_lambda = {null};
    {scalar} qdd[nq];
    const int status = forward_dynamics({t}x, x + nq, u, p, qdd, no_lambda);
    if (status != 0) return status;
    {scalar} y[2 * nq];
    for (int i = 0; i < nq; ++i) {{
        y[nq + i] = x[nq + i] + dt * qdd[i];
        y[i] = x[i] + dt * y[nq + i];
        if (!{detail}is_finite(y[i]) || !{detail}is_finite(y[nq + i])) return 3;
    }}
    for (int i = 0; i < 2 * nq; ++i) x[i] = y[i];
    return 0;
@@ non_deduced

// T itself, in a context where template arguments are not deduced (forward_dynamics'
// lambda, so that a bare nullptr can be passed).
template <class T>
struct non_deduced {{
    using type = T;
}};
