@@ errno_guard
// --target mcu: sqrt and the other <cmath> calls must not set errno (which pulls newlib's
// __errno, _impure_ptr and its .data into firmware): compile with -fno-math-errno (or
// -ffast-math). GCC and Clang define __NO_MATH_ERRNO__ then; other compilers are not asked.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__NO_MATH_ERRNO__)
#error "lagc --target mcu: compile with -fno-math-errno (docs/embedded.md)"
#endif
@@ reduce_angle

/* --target mcu: the angle each sin and cos is given (docs/embedded.md#angles). Within
   +-{short_text} rad, x itself: the math library reduces those the short way (newlib), and the
   results are those without --target mcu, bit for bit. Beyond, x - k 2pi with k the nearest
   integer to x / 2pi, 2pi in three parts (Cody-Waite: k c1 and k c2 are exact below
   {exact}), so that sin and cos never take the long reduction (newlib's sinf: Payne-Hanek,
   444 B of stack and over 1,000 instructions a call on a Cortex-M4). Beyond +-{big_text}, where k
   would not fit {int_type}, steps of 2pi in {scalar}'s precision first (the angle's own step
   is several radians there). NaN and Inf come back as they are. No rounding by adding a large
   constant: -ffast-math may fold that away; it may merge the three parts, which costs at
   most k ulp(2pi) / 2. */
{linkage}{scalar} reduce_angle({scalar} x) {{
    if (!(x > {short} || x < -{short})) return x;
    for (int i = 0; i < 12 && (x > {big} || x < -{big}); ++i) x -= x * {inv_two_pi} * {two_pi};
    if (!(x < {big} && x > -{big})) return x; // NaN, Inf
    const {scalar} k = {to_scalar}({to_int}(x * {inv_two_pi} + (x > {zero} ? {half} : -{half})));
    return ((x - k * {c1}) - k * {c2}) - k * {c3};
}}
@@ reduce_angle_generic

// Any other scalar type (dual numbers, say): the angle as it is.
template <class T>
inline T reduce_angle(const T& x) {{
    return x;
}}
