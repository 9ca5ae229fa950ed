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
@@ block

// Solves M X = B for {count} columns at once with the factor from factor_mass_matrix: B's
// rows b[i * sb + r], X's out[i * so + r]; the columns' steps side by side, which GCC and
// Clang at -O2 compute two to a vector register. X and B may be the same; X may not overlap
// B otherwise.
{linkage}void {name}(const {scalar}* L, const {scalar}* b, int sb, {scalar}* out, int so) {{
{solve}}}
