    // M qdd = Q - h, solved with a Cholesky factorisation of M (lower triangle only).
    {scalar} M[nq * nq];
    {scalar} b[nq];
    detail::dynamics_terms({args_q_qd_u_p}M, b);
    if ({factor}(M) != 0) return 1;
    {solve}(M, b);
    for (int i = 0; i < nq; ++i) qdd[i] = b[i];
    // NaN or Inf in the state, inputs or parameters: not a solution.
    for (int i = 0; i < nq; ++i)
        if (!{math}isfinite(qdd[i])) return 3;
    return 0;
