// The embedded job's program (tests/embedded/), and docs/embedded.md's worked example: a
// generated model on a Cortex-M4F (QEMU's mps2-an386) or M7 (mps2-an500), no C library.
// It evaluates forward_dynamics at the states the host's reference evaluates
// (tests/embedded/states.hpp), prints the bits of each q̈ over semihosting, then the
// SysTick ticks of each function (with qemu -icount shift=0 an instruction is 1 ns and a
// tick 40 ns: ticks × 40 / calls = instructions per call).
//
// arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os
//   -fno-math-errno -fno-exceptions -fno-rtti -DMODEL=ur5_like -DMODEL_HEADER='"ur5_like.hpp"'
//   -nostartfiles -T link.ld target_main.cpp ur5_like.cpp -lm -o ur5_like.elf
// qemu-system-arm -M mps2-an386 -nographic -semihosting -icount shift=0 -kernel ur5_like.elf
#include MODEL_HEADER

#include "states.hpp"

#include <stdint.h>

#ifndef SCALAR
#define SCALAR float // the model's --scalar
#endif

namespace {

using scalar = SCALAR;

int semihost(int operation, void const* argument) {
    register int r0 __asm__("r0") = operation;
    register void const* r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void write(char const* text) { semihost(0x04, text); } // SYS_WRITE0

void write_hex(uint32_t v) {
    char s[10];
    for (int i = 0; i < 8; ++i) s[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
    s[8] = ' ', s[9] = 0;
    write(s);
}

// A value's bits: a float's 8 hex digits, a double's 16 (a double build: -DSCALAR=double).
void write_float(scalar value) {
    if constexpr (sizeof(scalar) == 8) {
        uint32_t words[2]; // little-endian: the low word first
        __builtin_memcpy(words, &value, 8);
        char s[18];
        for (int w = 0; w < 2; ++w)
            for (int i = 0; i < 8; ++i) s[8 * w + i] = "0123456789abcdef"[(words[1 - w] >> (28 - 4 * i)) & 15];
        s[16] = ' ', s[17] = 0;
        write(s);
    } else {
        float const x = static_cast<float>(value);
        uint32_t bits;
        __builtin_memcpy(&bits, &x, 4);
        write_hex(bits);
    }
}

volatile uint32_t* const syst = reinterpret_cast<volatile uint32_t*>(0xE000E010); // CSR, RVR, CVR

uint32_t now() { return 0xFFFFFFu - syst[2]; }

// Ticks of `calls` calls of f (SysTick counts down, 24 bits, on the processor clock).
template <class F>
uint32_t ticks(int calls, F f) {
    uint32_t const start = now();
    for (int i = 0; i < calls; ++i) f();
    return (now() - start) & 0xFFFFFFu;
}

// The bytes of stack f() takes at its deepest, read from a painted region below the
// caller's frame (what the generated function writes there, libm included).
template <class F>
[[gnu::noinline]] uint32_t stack_used(F f) {
    constexpr int words = 8192; // 32 KB below: more than the run models' largest figure
    uint32_t* sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    uint32_t* const low = sp - words;
    for (uint32_t* w = low; w < sp - 16; ++w) *w = 0xA5A5A5A5u; // not the 64 B just below sp
    __asm__ volatile("" ::: "memory");
    f();
    __asm__ volatile("" ::: "memory");
    uint32_t const* w = low;
    while (w < sp && *w == 0xA5A5A5A5u) ++w;
    return static_cast<uint32_t>(sp - w) * 4u;
}

} // namespace

int semihost_write(char const* text) { return semihost(0x04, text); }

#ifdef LAGC_OWN_ERRNO
// newlib's double sqrt (w_sqrt.c, what soft-float double calls) sets errno whatever
// -fno-math-errno says; errno defined here stays in .bss, without newlib's reentrancy
// structure (1 KB of .data) that its own __errno brings (docs/embedded.md#errno).
extern "C" int* __errno() {
    static int e;
    return &e;
}
#endif
#ifdef TARGET_NAN
int nan_main(); // target_nan.cpp: the fast-math program
int main() { return nan_main(); }
#else
int main() {
    using namespace MODEL;
    Parameters p;
    scalar q[nq], qd[nq], u[nu > 0 ? nu : 1], qdd[nq], lambda[nc > 0 ? nc : 1];
    write("states\n");
    for (int s = 0; s < lagc_states; ++s) {
        lagc_state(s, nq, nu, q, qd, u);
        int const status = forward_dynamics(q, qd, u, p, qdd, lambda);
        write(status == 0 ? "ok " : "failed ");
        for (int i = 0; i < nq; ++i) write_float(qdd[i]);
        write("\n");
    }
    syst[1] = 0xFFFFFFu, syst[2] = 0, syst[0] = 5; // the processor clock, no interrupt
    lagc_state(1, nq, nu, q, qd, u);
    static scalar M[nq * nq], A[4 * nq * nq], B[2 * nq * (nu > 0 ? nu : 1)], tau[nq], x[2 * nq];
    int const calls = 20;
    write("calls ");
    write_hex(static_cast<uint32_t>(calls));
    // 20 × 1,000 instructions: the ticks of an instruction.
    write("\ncalibration_1000 ");
    write_hex(ticks(calls, [] { __asm__ volatile(".rept 1000\n nop\n .endr"); }));
    write("\nforward_dynamics ");
    write_hex(ticks(calls, [&] { forward_dynamics(q, qd, u, p, qdd, lambda); }));
    write("\nmass_matrix ");
    write_hex(ticks(calls, [&] { mass_matrix(q, p, M); }));
    write("\nbias_forces ");
    write_hex(ticks(calls, [&] { bias_forces(q, qd, p, tau); }));
    write("\ninverse_dynamics ");
    write_hex(ticks(calls, [&] { inverse_dynamics(q, qd, qdd, u, p, tau); }));
    write("\nlinearization ");
    write_hex(ticks(calls, [&] { linearization(q, qd, u, p, A, B); }));
    write("\nrk4_step ");
    write_hex(ticks(calls, [&] {
        for (int i = 0; i < nq; ++i) x[i] = q[i], x[nq + i] = qd[i];
        rk4_step(x, u, p, scalar(0.001f));
    }));
    // Angles near 1000 rad: newlib's sinf and cosf reduce them the long way.
    for (int i = 0; i < nq; ++i) q[i] += scalar(1000.0f);
    write("\nforward_dynamics_at_1000_rad ");
    write_hex(ticks(calls, [&] { forward_dynamics(q, qd, u, p, qdd, lambda); }));
    write("\nmass_matrix_at_1000_rad ");
    write_hex(ticks(calls, [&] { mass_matrix(q, p, M); }));
    write("\nbias_forces_at_1000_rad ");
    write_hex(ticks(calls, [&] { bias_forces(q, qd, p, tau); }));
    write("\ninverse_dynamics_at_1000_rad ");
    write_hex(ticks(calls, [&] { inverse_dynamics(q, qd, qdd, u, p, tau); }));
    write("\nlinearization_at_1000_rad ");
    write_hex(ticks(calls, [&] { linearization(q, qd, u, p, A, B); }));
    write("\nrk4_step_at_1000_rad ");
    write_hex(ticks(calls, [&] {
        for (int i = 0; i < nq; ++i) x[i] = q[i], x[nq + i] = qd[i];
        rk4_step(x, u, p, scalar(0.001f));
    }));
    // The stack each takes there (bytes, by painting): sin's long reduction is the deepest.
    write("\nstack forward_dynamics ");
    write_hex(stack_used([&] { forward_dynamics(q, qd, u, p, qdd, lambda); }));
    write("\nstack mass_matrix ");
    write_hex(stack_used([&] { mass_matrix(q, p, M); }));
    write("\nstack linearization ");
    write_hex(stack_used([&] { linearization(q, qd, u, p, A, B); }));
    write("\n");
    return 0;
}
#endif

extern "C" {
extern uint32_t __bss_start__[], __bss_end__[], __stack_top[];
[[noreturn]] void reset_handler() {
    *reinterpret_cast<volatile uint32_t*>(0xE000ED88) |= 0xFu << 20; // CPACR: the FPU on
    __asm__ volatile("dsb\n isb");
    for (uint32_t* b = __bss_start__; b < __bss_end__; ++b) *b = 0;
    int const status = main();
    // ADP_Stopped_ApplicationExit, else ADP_Stopped_RunTimeErrorUnknown (QEMU exits 1).
    semihost(0x18, reinterpret_cast<void const*>(status == 0 ? 0x20026 : 0x20024));
    for (;;) {
    }
}
void fault_handler() {
    write("fault\n");
    semihost(0x18, reinterpret_cast<void const*>(0x20024)); // ADP_Stopped_RunTimeErrorUnknown
    for (;;) {
    }
}
[[gnu::section(".vectors"), gnu::used]] void (*const vectors[16])() = {
    reinterpret_cast<void (*)()>(__stack_top), reset_handler, fault_handler, fault_handler, fault_handler,
    fault_handler, fault_handler};
}
