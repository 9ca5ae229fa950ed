
/* In-place Cholesky factorisation A = L L^T of a symmetric n x n matrix (row-major; the
   lower triangle is read and overwritten). Non-zero when a pivot is not greater than
   1e-12 times the largest diagonal entry, or is not finite. */
static inline int cholesky_factor(int n, {scalar}* A) {{
    {scalar} largest = 0;
    for (int i = 0; i < n; ++i) {{
        if (!is_finite(A[i * n + i])) return 1;
        if (A[i * n + i] > largest) largest = A[i * n + i];
    }}
    for (int j = 0; j < n; ++j) {{
        {scalar} d = A[j * n + j];
        for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
        if (!is_finite(d) || !(d > {tolerance} * largest)) return 1;
        const {scalar} l = sqrt{mf}(d);
        A[j * n + j] = l;
        for (int i = j + 1; i < n; ++i) {{
            {scalar} s = A[i * n + j];
            for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / l;
        }}
    }}
    return 0;
}}

/* Solves L L^T x = b in place, L from cholesky_factor. */
static inline void cholesky_solve(int n, const {scalar}* L, {scalar}* b) {{
    for (int i = 0; i < n; ++i) {{
        {scalar} s = b[i];
        for (int k = 0; k < i; ++k) s -= L[i * n + k] * b[k];
        b[i] = s / L[i * n + i];
    }}
    for (int i = n - 1; i >= 0; --i) {{
        {scalar} s = b[i];
        for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * b[k];
        b[i] = s / L[i * n + i];
    }}
}}

/* The sizes the C++ instantiates its template for: M (nq) and A M^-1 A^T (nc). */
static inline int cholesky_factor_nq({scalar}* A) {{ return cholesky_factor(nq, A); }}
static inline void cholesky_solve_nq(const {scalar}* L, {scalar}* b) {{ cholesky_solve(nq, L, b); }}
static inline int cholesky_factor_nc({scalar}* A) {{ return cholesky_factor(nc, A); }}
static inline void cholesky_solve_nc(const {scalar}* L, {scalar}* b) {{ cholesky_solve(nc, L, b); }}
