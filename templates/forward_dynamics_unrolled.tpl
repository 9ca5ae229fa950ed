    // M's lower triangle and b = Q - h.
{terms}    // M = L L^T (unrolled for this model's M; structural zeros skipped), r_j = 1/L_jj.
{factor}    // L y = b, L^T x = y.
{solve}{finite_check}    return 0;
