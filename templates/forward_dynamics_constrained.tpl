@@ head
    // M qdd + A^T lambda = Q - h and A qdd = r: with M = L L^T and Y = M^-1 A^T,
    // (A Y) lambda = A M^-1 (Q - h) - r, then qdd = M^-1 (Q - h) - Y lambda.
    {scalar} M[nq * nq];
    {scalar} b[nq];
    {scalar} A[nc * nq];
    {scalar} r[nc];
    {detail}dynamics_terms({args_q_qd_u_p}M, b);
    {detail}constraint_terms({args_q_qd_p}A, r);
@@ factor
{augment}    if ({factor}(M) != 0) {singular}
@@ tail
    {solve}(M, b);
    {scalar} Y[nc * nq];
    for (int k = 0; k < nc * nq; ++k) Y[k] = A[k];
    for (int k = 0; k < nc; ++k) {solve}(M, Y + k * nq);
    {scalar} S[nc * nc];
    {scalar} l[nc];
    for (int k = 0; k < nc; ++k) {{
        {scalar} s = -r[k];
        for (int i = 0; i < nq; ++i) s += A[k * nq + i] * b[i];
        l[k] = s;
        for (int j = 0; j < nc; ++j) {{
            {scalar} a = 0;
            for (int i = 0; i < nq; ++i) a += A[k * nq + i] * Y[j * nq + i];
            S[k * nc + j] = a;
        }}
    }}
    if ({factor_nc}(S) != 0) return 2;
    {solve_nc}(S, l);
    for (int i = 0; i < nq; ++i) {{
        {scalar} s = b[i];
        for (int k = 0; k < nc; ++k) s -= Y[k * nq + i] * l[k];
        qdd[i] = s;
    }}
    // lambda may be null when the multipliers are not wanted.
    if (lambda)
        for (int k = 0; k < nc; ++k) lambda[k] = l[k];
    // NaN or Inf in the state, inputs or parameters: not a solution.
    for (int i = 0; i < nq; ++i)
        if (!{detail}is_finite(qdd[i])) return 3;
    for (int k = 0; k < nc; ++k)
        if (!{detail}is_finite(l[k])) return 3;
    return 0;
@@ twin_head
    // forward_dynamics' A and r (its own code computed them, and its factorisation changed
    // only M); M and b = Q - h again, from the API functions, so that forward_dynamics'
    // helpers stay called once (and inlined) there.
    {scalar} M[nq * nq];
    {scalar} b[nq];
    {scalar} h[nq];
    mass_matrix({args_q_p}M);
    generalized_forces({args_q_qd_u_p}b);
    bias_forces({args_q_qd_p}h);
    for (int i = 0; i < nq; ++i) b[i] -= h[i];
@@ unrolled
    // M qdd + A^T lambda = Q - h and A qdd = r: with M = L L^T, W = L^-1 A^T and
    // y = L^-1 (Q - h), (W^T W) lambda = W^T y - r and qdd = L^-T (y - W lambda), unrolled
    // over the structure of L and of A.
    {scalar} M[nq * nq];
    {scalar} b[nq];
    {scalar} A[nc * nq];
    {scalar} r[nc];
    {detail}dynamics_terms({args_q_qd_u_p}M, b);
    {detail}constraint_terms({args_q_qd_p}A, r);
@@ unrolled_y
    // y = L^-1 (Q - h), in the order M was factorised in.
@@ unrolled_value
    const {scalar} {name} = {value};
@@ unrolled_w
    // W = L^-1 A^T, column by column over A's non-zeros and their fill-in.
@@ unrolled_schur
    // S = W^T W = A M^-1 A^T (lower triangle) and g = W^T y - r.
@@ unrolled_largest_start
    {scalar} largest_s = {zero};
@@ unrolled_largest
    if ({s} > largest_s) largest_s = {s};
@@ unrolled_threshold
    const {scalar} threshold_s = {tolerance} * largest_s;
@@ unrolled_pivot
    const {scalar} {d} = {value};
    if (!{detail}is_finite({d}) || !({d} > threshold_s)) return 2;
    const {scalar} {r} = {one} / {math}sqrt{mf}({d});
@@ unrolled_lambda
    // lambda = S^-1 g.
@@ unrolled_x
    // qdd = L^-T (y - W lambda).
@@ unrolled_end
    // NaN or Inf in the state, inputs or parameters: not a solution.
    if ({conditions}) return 3;
{stores}    // lambda may be null when the multipliers are not wanted.
    if (lambda) {{
{lambdas}    }}
    return 0;
@@ quasi
{comment}    {scalar} D[{nd}], x[nq], l[nc];
{blocks_declaration}    {detail}{helper}({args_q_qd_u_p}D, {blocks_argument}x, l);
{pivot_checks}{blocks_check}{finite_check}    for (int i = 0; i < nq; ++i) qdd[i] = x[i];
    // lambda may be null when the multipliers are not wanted.
    if (lambda)
        for (int k = 0; k < nc; ++k) lambda[k] = l[k];
    return 0;
@@ quasi_velocities_comment
    // In quasi-velocities a = K qdd (K block-diagonal), the system's independent parts each
    // solved alone: pivots D (all positive where the system is regular), qdd and lambda,
    // with no M, A or system of nq + nc unknowns formed.
@@ floating_articulated_body_comment
    // By the articulated-body algorithm: the joints beyond the root eliminated one by one
    // (pivots D, all positive where the system is regular), then the root's coordinates with
    // the constraints, then qdd down the tree; no M, A or system of nq + nc unknowns formed.
@@ quasi_blocks_declaration
    {scalar} H[{nh}];
@@ quasi_blocks_check
    // Each block of K regular: det(K_b)^2 against the product of its rows' squared norms,
    // which bounds it (Hadamard).
    for (int b = 0; b < {nh}; b += 2)
        if (!{detail}is_finite(H[b]) || !(H[b] > {tolerance} * {tolerance} * H[b + 1])) return 1;
