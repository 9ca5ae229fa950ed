@@ factored
    // M qdd = Q - h, solved with a Cholesky factorisation of M (lower triangle only), which
    // is left in M for the caller (linearization solves its columns with it).
    {scalar} b[nq];
    detail::dynamics_terms({args_q_qd_u_p}M, b);
    if ({factor}(M) != 0) return 1;
{solve}    // NaN or Inf in the state, inputs or parameters: not a solution.
    for (int i = 0; i < nq; ++i)
        if (!{math}isfinite(qdd[i])) return 3;
    return 0;
@@ call
    {scalar} M[nq * nq];
    return detail::forward_dynamics_factored({args_q_qd_u_p}qdd, M);
@@ loop_solve
    {solve}(M, b);
    for (int i = 0; i < nq; ++i) qdd[i] = b[i];
