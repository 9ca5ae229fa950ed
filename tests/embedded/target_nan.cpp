// The embedded job's fast-math program (issue 52): a model generated with --scalar float
// --target mcu and compiled, with this file, at -O2 -ffast-math for the Cortex-M4F, where
// GCC folds std::isfinite to true. NaN, Inf and -Inf go into q, qd, u, the parameters and
// dt, one at a time and all at once; forward_dynamics, linearization and rk4_step must keep
// their contract: status 0 only with finite outputs (checked here on the bits), non-zero
// with every input NaN or Inf. Prints "fast_math CALLS REFUSED BROKEN" over semihosting and
// exits non-zero if any broke it. Linked with target_main.cpp's start-up (TARGET_NAN).
#include MODEL_HEADER

#include <stdint.h>

int semihost_write(char const* text);

namespace fallback {
// A model with time: its functions take t first (the model's own win where they exist).
constexpr int absent = -1000;
template <class... A>
int forward_dynamics(A...) { return absent; }
template <class... A>
int linearization(A...) { return absent; }
template <class... A>
int rk4_step(A...) { return absent; }
} // namespace fallback

namespace {

using namespace MODEL;
using namespace fallback;
using scalar = float;

bool finite(scalar x) {
    uint32_t bits;
    __builtin_memcpy(&bits, &x, 4);
    return (bits & 0x7f800000u) != 0x7f800000u;
}
bool all_finite(scalar const* v, int n) {
    for (int i = 0; i < n; ++i)
        if (!finite(v[i])) return false;
    return true;
}

constexpr int n = 2 * nq, m = nu > 0 ? nu : 1;
scalar q[nq], qd[nq], u[m], x[n], A[n * n], B[n * m], qdd[nq], lambda[nc > 0 ? nc : 1];
int calls = 0, refused = 0, broken = 0;

void check(int status, bool outputs_finite, bool must_refuse) {
    if (status == absent) return;
    ++calls;
    if (status != 0) ++refused;
    if ((status == 0 && !outputs_finite) || (must_refuse && status == 0)) ++broken;
}

// slot: 0 q, 1 qd, 2 u, 3 parameters, 4 dt, 5 all of them.
void run(int slot, scalar bad) {
    bool const all = slot == 5;
    for (int i = 0; i < nq; ++i) {
        q[i] = slot == 0 || all ? bad : 0.1f * static_cast<scalar>(i + 1);
        qd[i] = slot == 1 || all ? bad : 0.05f * static_cast<scalar>(i + 1);
    }
    for (int k = 0; k < m; ++k) u[k] = slot == 2 || all ? bad : 0.2f;
    Parameters p;
    if (slot == 3 || all)
        for (unsigned i = 0; i < sizeof(Parameters) / sizeof(scalar); ++i)
            __builtin_memcpy(reinterpret_cast<char*>(&p) + i * sizeof(scalar), &bad, sizeof(scalar));
    Parameters const& cp = p;
    scalar const t = all ? bad : 0.25f, dt = slot == 4 || all ? bad : 0.01f;
    auto timed = [&](auto f, auto... args) { int const v = f(t, args...); return v != absent ? v : f(args...); };
    scalar* const l = nc > 0 ? lambda : static_cast<scalar*>(nullptr);
    // The exact types of the model's parameters (else the fallback's template wins).
    scalar const *cq = q, *cqd = qd, *cu = u;
    scalar *out = qdd, *a = A, *b = B, *state = x;
    int status = timed([](auto... v) { return forward_dynamics(v...); }, cq, cqd, cu, cp, out, l);
    check(status, all_finite(qdd, nq) && all_finite(lambda, nc), all);
    status = timed([](auto... v) { return linearization(v...); }, cq, cqd, cu, cp, a, b);
    check(status, all_finite(A, n * n) && all_finite(B, n * nu), all);
    for (int i = 0; i < nq; ++i) x[i] = q[i], x[nq + i] = qd[i];
    status = timed([](auto... v) { return rk4_step(v...); }, state, cu, cp, dt);
    check(status, all_finite(x, n), all);
}

void write_count(char const* label, int v) {
    char s[16];
    int i = 15;
    s[i--] = 0;
    s[i--] = ' ';
    do s[i--] = static_cast<char>('0' + v % 10), v /= 10;
    while (v > 0 && i > 0);
    semihost_write(label);
    semihost_write(s + i + 1);
}

} // namespace

int nan_main() {
    scalar const nan = __builtin_nanf(""), inf = __builtin_inff();
    scalar const bad[] = {nan, inf, -inf};
    for (int slot = 0; slot < 6; ++slot)
        for (scalar b : bad) run(slot, b);
    write_count("fast_math ", calls);
    write_count("", refused);
    write_count("", broken);
    semihost_write("\n");
    return broken == 0 && calls > 0 ? 0 : 1;
}
