
// M = L L^T in place (lower triangle), unrolled for this model's M, whose structural zeros
// are skipped; the diagonal receives 1/L_jj. Non-zero when a pivot is not greater than
// 1e-12 times the largest diagonal entry, or is not finite.
{linkage}int factor_mass_matrix({scalar}* M) {{
{factor}    return 0;
}}

// Solves M x = b in place with the factor from factor_mass_matrix.
{linkage}void solve_mass_matrix(const {scalar}* L, {scalar}* b) {{
{solve}}}
