@@ scratch
    {scalar} w[{size}];
@@ result
    {scalar} result[1];
@@ return
    return result[0];
@@ call
    {detail}{part}({arguments});
@@ noinline_begin

// A long function's parts stay functions of their own: GCC would inline a static
// function called once, and compile one function as long as the whole again.
#if defined(__GNUC__)
#define LAGC_PART_NOINLINE __attribute__((__noinline__))
#elif defined(_MSC_VER)
#define LAGC_PART_NOINLINE __declspec(noinline)
#else
#define LAGC_PART_NOINLINE
#endif
@@ noinline_end
#undef LAGC_PART_NOINLINE
