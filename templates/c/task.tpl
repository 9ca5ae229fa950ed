@@ project_state
    // Holonomic rows c(q, t) = 0 first: Gauss-Newton steps in the metric of M,
    // dq = -M^-1 Ah^T (Ah M^-1 Ah^T)^-1 c; then every row's velocity residual (cdot = A qd +
    // dc/dt, or g) removed the same way in one step (it is linear in qd).
    enum {{ nh = {holonomic} }};
    {scalar} M[nq * nq], A[nc * nq], c[nc], Y[nc * nq], S[nc * nc], l[nc];
    for (int iteration = 0; iteration < {iterations} && nh > 0; ++iteration) {{
        constraint_residuals({t}q, qd, p, c);
        {scalar} size = 0;
        for (int k = 0; k < nh; ++k) size += c[k] * c[k];
        if (!(size > 0)) break;
        mass_matrix({t}q, p, M);
        constraint_jacobian({t}q, p, A);
{augment}        if ({factor}(M) != 0) {singular}
        if ({project}(nh, M, A, c, Y, S, l, q) != 0) return -1;
    }}
    constraint_velocity({t}q, qd, p, c);
    mass_matrix({t}q, p, M);
    constraint_jacobian({t}q, p, A);
{augment_velocity}    if ({factor}(M) != 0) {singular}
    if ({project}(nc, M, A, c, Y, S, l, qd) != 0) return -1;
    // What is left: |[c; cdot, g]|.
    {scalar} v[nc];
    constraint_residuals({t}q, qd, p, c);
    constraint_velocity({t}q, qd, p, v);
    {scalar} left = 0;
    for (int k = 0; k < nh; ++k) left += c[k] * c[k];
    for (int k = 0; k < nc; ++k) left += v[k] * v[k];
    return sqrt{mf}(left);
@@ project_onto_rows

/* x -= M^-1 A_r^T (A_r M^-1 A_r^T)^-1 r over the first `rows` rows of A (nc x nq) and r,
   with M already factorised ({factorised}); the scratch arrays come
   from the caller. Non-zero when A_r M^-1 A_r^T is singular. */
static int {project}(int rows, const {scalar}* M, const {scalar}* A, const {scalar}* r, {scalar}* Y, {scalar}* S, {scalar}* l,
                      {scalar}* x) {{
    for (int k = 0; k < rows * nq; ++k) Y[k] = A[k];
    for (int k = 0; k < rows; ++k) {solve}(M, Y + k * nq);
    for (int k = 0; k < rows; ++k) {{
        l[k] = r[k];
        for (int j = 0; j < rows; ++j) {{
            {scalar} s = 0;
            for (int i = 0; i < nq; ++i) s += A[k * nq + i] * Y[j * nq + i];
            S[k * rows + j] = s;
        }}
    }}
    if (cholesky_factor(rows, S) != 0) return 1;
    cholesky_solve(rows, S, l);
    for (int i = 0; i < nq; ++i)
        for (int k = 0; k < rows; ++k) x[i] -= Y[k * nq + i] * l[k];
    return 0;
}}
