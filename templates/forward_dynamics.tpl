    // M qdd = Q - h, solved with a Cholesky factorisation of M.
    {scalar} M[nq * nq];
    {scalar} b[nq];
    {scalar} Q[nq];
    mass_matrix({args_q_p}M);
    bias_forces({args_q_qd_p}b);
    generalized_forces({args_q_qd_u_p}Q);
    for (int i = 0; i < nq; ++i) b[i] = Q[i] - b[i];
    if (detail::cholesky_factor<nq>(M) != 0) return 1;
    detail::cholesky_solve<nq>(M, b);
    for (int i = 0; i < nq; ++i) qdd[i] = b[i];
    return 0;
