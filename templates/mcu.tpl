@@ errno_guard
// --target mcu: sqrt and the other <cmath> calls must not set errno (which pulls newlib's
// __errno, _impure_ptr and its .data into firmware): compile with -fno-math-errno (or
// -ffast-math). GCC and Clang define __NO_MATH_ERRNO__ then; other compilers are not asked.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__NO_MATH_ERRNO__)
#error "lagc --target mcu: compile with -fno-math-errno (docs/embedded.md)"
#endif
