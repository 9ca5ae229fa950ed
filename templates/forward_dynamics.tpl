@@ factored
    // M qdd = Q - h, solved with a Cholesky factorisation of M (lower triangle only), which
    // is left in M for the caller (linearization solves its columns with it).
    {scalar} b[nq];
    {detail}dynamics_terms({args_q_qd_u_p}M, b);
    if ({factor}(M) != 0) return 1;
{solve}    // NaN or Inf in the state, inputs or parameters: not a solution.
    for (int i = 0; i < nq; ++i)
        if (!{detail}is_finite(qdd[i])) return 3;
    return 0;
@@ call
    {scalar} M[nq * nq];
    return {detail}forward_dynamics_factored({args_q_qd_u_p}qdd, M);
@@ loop_solve
    {solve}(M, b);
    for (int i = 0; i < nq; ++i) qdd[i] = b[i];
@@ recursive
    // The articulated-body algorithm: each joint's pivot D = S^T I^A S (all positive exactly
    // when M is positive definite) and qdd, with no M formed or factored.
    {scalar} D[nq], x[nq];
    {detail}{helper}({args_q_qd_u_p}D, x);
{pivot_checks}{finite_check}    for (int i = 0; i < nq; ++i) qdd[i] = x[i];
    return 0;
@@ pivot_check
    // Pivots D[{begin}..{last}] each against their largest (NaN and Inf fail {detail}is_finite,
    // which -ffast-math keeps; an Inf among them makes the threshold Inf).
    {{
        {scalar} largest = 0;
{largest}        const {scalar} threshold = {tolerance} * largest;
        if ({pivots}) return {status};
    }}
