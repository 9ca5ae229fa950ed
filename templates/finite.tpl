@@ concrete

// x is neither NaN nor Inf: its exponent bits are not all ones. Read from the bits, since
// -ffast-math (-ffinite-math-only) lets GCC and Clang fold std::isfinite to true; other
// compilers keep std::isfinite, which their fast modes do not fold.
{linkage}bool is_finite({scalar} x) {{
#if (defined(__GNUC__) || defined(__clang__)) && __SIZEOF_{size_name}__ == {bytes}
    __UINT{bits}_TYPE__ bits;
    __builtin_memcpy(&bits, &x, {bytes});
    return (bits & {mask}) != {mask};
#else
    return std::isfinite(x);
#endif
}}
@@ generic

// Any other scalar type (dual numbers, say): its own isfinite, by argument-dependent lookup.
template <class T>
inline bool is_finite(const T& x) {{
    using std::isfinite;
    return isfinite(x);
}}
@@ all_finite

// Every entry of v[0..n) is finite (is_finite): their sum first, since a NaN or an infinity
// makes it one too (-ffast-math may reorder a sum, not drop it), and entry by entry only
// where the sum is not finite (finite entries whose sum overflows).
{head}bool all_finite(const {scalar}* v, int n) {{
    {scalar} s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    if (is_finite(s)) return true;
    for (int i = 0; i < n; ++i)
        if (!is_finite(v[i])) return false;
    return true;
}}
@@ all_finite_each

// Every entry of v[0..n) is finite (is_finite).
{head}bool all_finite(const {scalar}* v, int n) {{
    for (int i = 0; i < n; ++i)
        if (!is_finite(v[i])) return false;
    return true;
}}
