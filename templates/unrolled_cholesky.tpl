@@ factor_solve

// M = L L^T in place (lower triangle), unrolled for this model's M, whose structural zeros
// are skipped; the diagonal receives 1/L_jj. Non-zero when a pivot is not greater than
// 1e-12 times the largest diagonal entry, or is not finite.
{linkage}int factor_mass_matrix({scalar}* M) {{
{factor}    return 0;
}}

// Solves M x = b in place with the factor from factor_mass_matrix.
{linkage}void solve_mass_matrix(const {scalar}* L, {scalar}* b) {{
{solve}}}
@@ pair

// Solves M X = B for two columns at once with the factor from factor_mass_matrix: B's rows
// b[i * sb], b[i * sb + 1], X's out[i * so], out[i * so + 1]; the two columns' steps side by
// side, which GCC and Clang at -O2 compute in one vector register each. X and B may be the
// same; X may not overlap B otherwise.
{linkage}void solve_mass_matrix_pair(const {scalar}* L, const {scalar}* b, int sb, {scalar}* out, int so) {{
{solve}}}
