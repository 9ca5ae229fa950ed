@@ names

// Indices into q, qd and qdd (coordinate::NAME), u (input::NAME) and the parameters in
// declaration order (parameter::NAME); output::NAME is the size of output_NAME's out.
struct coordinate {{
    enum : int {{ {coordinates} }};
}};
inline constexpr const char* coordinate_names[nq] = {{{coordinate_names}}};
{inputs}{parameters}{outputs}{regressor}
@@ regressor_names
// The parameters inverse_dynamics_regressor's columns stand for (tau = Y pi): their indices
// among the parameters (parameter::NAME) and their names.
inline constexpr int nr = {count};
inline constexpr int regressor_parameters[nr] = {{{indices}}};
inline constexpr const char* regressor_parameter_names[nr] = {{{names}}};
@@ base_names
// The base parameters (--regressor base): inverse_dynamics_regressor_base's columns, the
// values base_parameters writes (their groupings are in its comment).
inline constexpr int nb = {count};
inline constexpr const char* base_parameter_names[nb] = {{{names}}};
@@ input_names
struct input {{
    enum : int {{ {inputs} }};
}};
inline constexpr const char* input_names[nu] = {{{input_names}}};
@@ parameter_names
struct parameter {{
    enum : int {{ {parameters} }};
}};
inline constexpr const char* parameter_names[{count}] = {{{parameter_names}}};
@@ output_names
struct output {{
    enum : int {{ {outputs} }};
}};
inline constexpr const char* output_names[{count}] = {{{output_names}}};
@@ project_state
    // Holonomic rows c(q, t) = 0 first: Gauss-Newton steps in the metric of M,
    // dq = -M^-1 Ah^T (Ah M^-1 Ah^T)^-1 c; then every row's velocity residual (cdot = A qd +
    // dc/dt, or g) removed the same way in one step (it is linear in qd).
    constexpr int nh = {holonomic};
    {scalar} M[nq * nq], A[nc * nq], c[nc], Y[nc * nq], S[nc * nc], l[nc];
    for (int iteration = 0; iteration < {iterations} && nh > 0; ++iteration) {{
        constraint_residuals({t}q, qd, p, c);
        {scalar} size = 0;
        for (int k = 0; k < nh; ++k) size += c[k] * c[k];
        if (!(size > 0)) break;
        mass_matrix({t}q, p, M);
        constraint_jacobian({t}q, p, A);
{augment}        if ({factor}(M) != 0) {singular}
        if (detail::{project}<nh>(M, A, c, Y, S, l, q) != 0) return -1;
    }}
    constraint_velocity({t}q, qd, p, c);
    mass_matrix({t}q, p, M);
    constraint_jacobian({t}q, p, A);
{augment_velocity}    if ({factor}(M) != 0) {singular}
    if (detail::{project}<nc>(M, A, c, Y, S, l, qd) != 0) return -1;
    // What is left: |[c; cdot, g]|.
    {scalar} v[nc];
    constraint_residuals({t}q, qd, p, c);
    constraint_velocity({t}q, qd, p, v);
    {scalar} left = 0;
    for (int k = 0; k < nh; ++k) left += c[k] * c[k];
    for (int k = 0; k < nc; ++k) left += v[k] * v[k];
    return {math}sqrt(left);
@@ project_state_copy
    // The work on copies: q and qd are written only when it succeeds with finite values.
    {scalar} q1[nq], qd1[nq];
    for (int i = 0; i < nq; ++i) {{
        q1[i] = q[i];
        qd1[i] = qd[i];
    }}
    const {scalar} left = {detail}project_state_in_place({t}q1, qd1, p);
    if (!{detail}is_finite(left) || !(left >= 0)) return -1;
    for (int i = 0; i < nq; ++i)
        if (!{detail}is_finite(q1[i]) || !{detail}is_finite(qd1[i])) return -1;
    for (int i = 0; i < nq; ++i) {{
        q[i] = q1[i];
        qd[i] = qd1[i];
    }}
    return left;
@@ project_state_in_place_comment
// project_state's work, in place (q, qd partly moved when it fails).
@@ project_onto_rows

// x -= M^-1 A_r^T (A_r M^-1 A_r^T)^-1 r over the first `rows` rows of A (nc x nq) and r,
// with M already factorised ({factorised}); the scratch arrays come
// from the caller.
// Non-zero when A_r M^-1 A_r^T is singular.
{template_head}
int {project}(const {scalar}* M, const {scalar}* A, const {scalar}* r, {scalar}* Y, {scalar}* S, {scalar}* l,
                      {scalar}* x) {{
    for (int k = 0; k < rows * nq; ++k) Y[k] = A[k];
    for (int k = 0; k < rows; ++k) {solve}(M, Y + k * nq);
    for (int k = 0; k < rows; ++k) {{
        l[k] = r[k];
        for (int j = 0; j < rows; ++j) {{
            {scalar} s = 0;
            for (int i = 0; i < nq; ++i) s += A[k * nq + i] * Y[j * nq + i];
            S[k * rows + j] = s;
        }}
    }}
    if (cholesky_factor<rows>(S) != 0) return 1;
    cholesky_solve<rows>(S, l);
    for (int i = 0; i < nq; ++i)
        for (int k = 0; k < rows; ++k) x[i] -= Y[k * nq + i] * l[k];
    return 0;
}}
