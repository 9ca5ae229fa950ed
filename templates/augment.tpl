@@ helpers
// M + rho A^T A in place (both triangles from M's lower one), rho = (largest diagonal
// entry of M) / (largest diagonal entry of A^T A). Adding rho A^T times the second block row
// of [[M, A^T], [A, 0]] [x; l] = [b; r] to the first gives [[M + rho A^T A, A^T], [A, 0]]
// [x; l] = [b + rho A^T r; r]: the same solution, and M + rho A^T A is positive definite
// wherever the whole system is regular, also where M alone is singular. Returns rho.
{linkage}{scalar} augment_mass_matrix({scalar}* M, const {scalar}* A) {{
    {scalar} largest_m = {zero};
    {scalar} largest_a = {zero};
    for (int i = 0; i < nq; ++i) {{
        if (M[i * nq + i] > largest_m) largest_m = M[i * nq + i];
        {scalar} s = {zero};
        for (int k = 0; k < nc; ++k) s += A[k * nq + i] * A[k * nq + i];
        if (s > largest_a) largest_a = s;
    }}
    const {scalar} rho = largest_a > {zero} ? (largest_m > {zero} ? largest_m : {one}) / largest_a : {zero};
    for (int i = 0; i < nq; ++i)
        for (int j = 0; j <= i; ++j) {{
            {scalar} s = {zero};
            for (int k = 0; k < nc; ++k) s += A[k * nq + i] * A[k * nq + j];
            M[i * nq + j] += rho * s;
            M[j * nq + i] = M[i * nq + j];
        }}
    return rho;
}}

// b += rho A^T r, r read with a stride: the right-hand side that goes with augment_mass_matrix.
{linkage}void augment_right_hand_side({scalar} rho, const {scalar}* A, const {scalar}* r, int stride, {scalar}* b) {{
    for (int i = 0; i < nq; ++i) {{
        {scalar} s = {zero};
        for (int k = 0; k < nc; ++k) s += A[k * nq + i] * r[k * stride];
        b[i] += rho * s;
    }}
}}
@@ unrolled_helpers
// M + rho A^T A in place, rho = (largest diagonal entry of M) / (largest diagonal entry of
// A^T A), over this model's structure: only the entries of M's lower triangle that A^T A
// reaches change (the unrolled factorisation reads that triangle alone). Adding rho A^T
// times the second block row of [[M, A^T], [A, 0]] [x; l] = [b; r] to the first gives
// [[M + rho A^T A, A^T], [A, 0]] [x; l] = [b + rho A^T r; r]: the same solution, and
// M + rho A^T A is positive definite wherever the whole system is regular, also where M
// alone is singular. Returns rho.
{linkage}{scalar} augment_mass_matrix({scalar}* M, const {scalar}* A) {{
    {scalar} largest_m = {zero};
    {scalar} largest_a = {zero};
{augment}    return rho;
}}

// b += rho A^T r, r read with a stride: the right-hand side that goes with augment_mass_matrix.
{linkage}void augment_right_hand_side({scalar} rho, const {scalar}* A, const {scalar}* r, int stride, {scalar}* b) {{
{right_hand_side}}}
@@ largest_m
    if ({m} > largest_m) largest_m = {m};
@@ largest_a
    {{
        const {scalar} s = {sum};
        if (s > largest_a) largest_a = s;
    }}
@@ rho
    const {scalar} rho = largest_a > {zero} ? (largest_m > {zero} ? largest_m : {one}) / largest_a : {zero};
@@ add
    {entry}
@@ right_hand_side_entry
    {entry}
@@ right_hand_side_unused
    (void)rho, (void)A, (void)r, (void)stride, (void)b;
@@ forward_dynamics
    // M alone is singular here ({why}): M + rho A^T A.
    const {scalar} rho = {detail}augment_mass_matrix(M, A);
    {detail}augment_right_hand_side(rho, A, r, 1, b);
@@ linearization
    // M alone is singular here ({why}): M + rho A^T A.
    const {scalar} rho = {detail}augment_mass_matrix(M, Ac);
@@ linearization_column
        {detail}augment_right_hand_side(rho, Ac, J + nq * m + c, m, z);
@@ project_state
        {detail}augment_mass_matrix(M, A);
@@ project_state_velocity
    {detail}augment_mass_matrix(M, A);
@@ fail
return {status};
@@ twin_call
return {detail}{name}_augmented({call});
@@ twin_comment
// {name} where M alone is not positive definite at this state (a mass or an
// inertia that is 0 at run time) while [[M, A^T], [A, 0]] may still be regular: the
// same work with M + rho A^T A, factorised by the loop Cholesky.
@@ factorised
as forward_dynamics factorises it
@@ factorised_augmented
M + rho A^T A by the loop Cholesky
@@ why_everywhere
lagc found it so at every state it tried
@@ why_here
it is not positive definite at this state
