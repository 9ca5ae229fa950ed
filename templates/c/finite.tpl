@@ concrete

/* x is neither NaN nor Inf: its exponent bits are not all ones. Read from the bits, since
   -ffast-math (-ffinite-math-only) lets GCC and Clang fold isfinite to true; other
   compilers keep isfinite, which their fast modes do not fold. */
static inline int is_finite({scalar} x) {{
#if (defined(__GNUC__) || defined(__clang__)) && __SIZEOF_{size_name}__ == {bytes}
    __UINT{bits}_TYPE__ bits;
    __builtin_memcpy(&bits, &x, {bytes});
    return (bits & {mask}) != {mask};
#else
    return isfinite(x);
#endif
}}
@@ all_finite

/* Every entry of v[0..n) is finite (is_finite). */
static inline int all_finite(const {scalar}* v, int n) {{
    for (int i = 0; i < n; ++i)
        if (!is_finite(v[i])) return 0;
    return 1;
}}
