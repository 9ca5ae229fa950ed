@@ factor

// M = L L^T in place (lower triangle), unrolled for this model's M, whose structural zeros
// are skipped; the diagonal receives 1/L_jj. Non-zero when a pivot is not greater than
// 1e-12 times the largest diagonal entry, or is not finite.
{linkage}int factor_mass_matrix({scalar}* M) {{
{factor}    return 0;
}}
@@ solve

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
@@ inverse

// B's lower rows where each input's column of J is a unit vector: those columns of M^-1,
// from W = L^-1 (the factor from factor_mass_matrix) and M^-1 = W^T W, each entry once;
// out[i * nu + c].
{linkage}void mass_matrix_inverse_columns(const {scalar}* L, {scalar}* out) {{
{statements}}}
