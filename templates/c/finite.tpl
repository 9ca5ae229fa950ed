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

/* Every entry of v[0..n) is finite (is_finite): their sum first, since a NaN or an infinity
   makes it one too (-ffast-math may reorder a sum, not drop it), and entry by entry only
   where the sum is not finite (finite entries whose sum overflows). */
static inline int all_finite(const {scalar}* v, int n) {{
    {scalar} s = 0;
    int i;
    for (i = 0; i < n; ++i) s += v[i];
    if (is_finite(s)) return 1;
    for (i = 0; i < n; ++i)
        if (!is_finite(v[i])) return 0;
    return 1;
}}
