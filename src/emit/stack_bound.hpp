// The stack a generated function needs, with the functions it calls, from lagc's own count
// of what it wrote: the arrays (M is nq², linearization's J (nq + nc)(2nq + nu) values),
// the scalar temporaries live at once, and stated margins for what the compiler adds —
// saved registers and the return address (frame_margin a frame), values it keeps in
// registers and spills (spill_scalars scalars, at least, in a frame that computes), and the
// math library where a path calls one (libm_margin). Read off the bodies lagc writes; the
// suite checks the figures against GCC's -fstack-usage (tests/stack_figures.cmake).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace lagc {

// Saved registers and the return address of one frame that computes: Cortex-M4F's push
// {r4-r11, lr} and vpush {s16-s31} (100 B), x86-64's six pushes and the return address
// (56 B), aligned; of a frame that only calls (a wrapper), call_frame_margin.
inline constexpr std::size_t frame_margin = 112, call_frame_margin = 64;
// Scalars a frame that computes may keep on its stack beyond its named temporaries (the
// values the compiler holds in registers, spilled): a register file's worth, or one a
// statement where it has fewer.
inline constexpr std::size_t spill_scalars = 32;
// The math library's deepest call (sin's range reduction for large angles): newlib's sinf
// takes 444 B on Cortex-M4, its sin 870 B.
inline std::size_t libm_margin(std::size_t scalar_bytes) { return scalar_bytes == 4 ? 512 : 1024; }

// The margins a figure adds, by the target the figures are for. The host's (any compiler,
// x86-64 the largest: the constants above) hold everywhere. --target mcu's are a
// Cortex-M's, measured on the M4 with newlib (docs/embedded.md#stack): a frame's push
// {r4-r11, lr} and vpush {s16-s31} (100 B, 8-aligned), a wrapper's push of a few registers,
// and the math library's short path only, since detail::reduce_angle keeps sin, cos and
// tan off the long one (sinf, cosf, tanf 56 B, atan2f 32, asinf 48; in double, emulated,
// sin 136 B, asin 128) — reduce_angle's own frame included, which precedes the call.
struct stack_margins {
    std::size_t frame = frame_margin, call_frame = call_frame_margin, spill = spill_scalars;
    std::size_t libm = 512;
    // The inputs a frame reads counted among its temporaries (the compiler may keep them in
    // registers, and spill them, for the whole function: x86-64); not on a Cortex-M, where
    // GCC loads them again from memory rather than spill them.
    bool inputs_live = true;
    // A Cortex-M4F's register file in the figures (--target mcu, float). A frame without
    // loops holds what its temporaries need beyond the registers, the most of: a fifth (0.19)
    // more than live at once in the written order less 32 (GCC's order holds more in the
    // largest frames: 192 spilled where 190 are live as written, the iiwa-like arm's
    // inverse_dynamics at -Os), those live less 21, those and its inputs (each from its first
    // read to its last) less 35 (less 16 where its stores may overwrite its inputs and end
    // their ranges: the parts), and those live across a call of the math library less 10 (the call keeps
    // only s16-s31); its frame margin is vpush {s16-s31} (64 B) and a push of lr, one register
    // an argument and one more, 8-aligned. A frame with loops spills one scalar every two
    // assignments, at most the spill margin, or its live temporaries, or those and its inputs
    // less 16, whichever is more (rk4_step: 22 assignments, 5 spilled).
    // Fitted and checked over every bundled model at -Os and -O2 (docs/embedded.md#stack).
    bool register_file = false;
    // With --fold-parameters, the scalars a register-file frame without loops holds beyond
    // that count: GCC keeps folded constants in registers too (chain10_rel's
    // coriolis_matrix at -O2: 18 more than counted; docs/embedded.md#stack).
    std::size_t folded = 0;
    static stack_margins host(std::size_t scalar_bytes) {
        return {frame_margin, call_frame_margin, spill_scalars, libm_margin(scalar_bytes), true, false, 0};
    }
    // Double on a single-precision FPU is emulated: the values live in core registers in
    // pairs (inputs counted again) and every operation calls a helper (__aeabi_dmul, 40 B
    // deep), so the short-path libm margin (sin 136 B) grows to 256 B.
    static stack_margins mcu(std::size_t scalar_bytes, bool folded = false) {
        if (scalar_bytes == 4) return {104, 40, spill_scalars, 64, false, true, folded ? 24u : 0u};
        return {104, 40, spill_scalars, 256, true, false, 0};
    }
};

// One function's figure: the deepest path of calls below it, in parts (bytes). Where the
// compiler may inline a callee (every function lagc writes but the parts and the cold
// twins, those that hold arrays or many temporaries: cxx_printer makes them noinline), its
// temporaries may join the caller's frame, beneath the caller's other calls: each such
// callee is counted in the caller's frame as well.
struct stack_figure {
    std::string name;
    std::size_t arrays = 0;      // the arrays on the path
    std::size_t temporaries = 0; // temporaries and spills on the path
    std::size_t frames = 0;      // frame_margin for each frame on the path
    std::size_t libm = 0;        // libm_margin where the path calls the math library
    std::size_t total() const { return arrays + temporaries + frames + libm; }
    std::size_t depth = 0;       // frames on the path
    // The total with --target mcu's float frames counted as the written order has them live
    // (a tenth more than live at once less 16, or those and the inputs less 23): what the
    // smallest form is chosen by (driver/stack_budget.cpp), the count the forms lagc writes
    // were checked with; the fitted count (stack_margins::register_file) states the figure.
    std::size_t ranking = 0;
};

class stack_bounds {
public:
    // The model's sizes, and the bytes of one scalar.
    // `mcu`: the figures are for --target mcu (stack_margins::mcu), else the host's;
    // `folded`: the output has --fold-parameters (stack_margins::folded).
    stack_bounds(std::size_t nq, std::size_t nu, std::size_t nc, std::size_t holonomic, std::size_t scalar_bytes,
                 bool mcu = false, bool folded = false)
        : nq_(nq), nu_(nu), nc_(nc), nh_(holonomic), bytes_(scalar_bytes),
          margins_(mcu ? stack_margins::mcu(scalar_bytes, folded) : stack_margins::host(scalar_bytes)) {}
    stack_margins const& margins() const { return margins_; }
    // A function's body as written: its arrays, its temporaries and the functions it calls;
    // `inlinable` unless it is never inlined (the parts, the cold twins). True where the
    // function should keep a frame of its own, never inlined: it holds arrays, or more
    // temporaries than spill_scalars (it is then not counted as inlinable).
    // `arguments`: how many the function takes (the register_file frame margin);
    // `restrict_outputs`: its array arguments are LAGC_RESTRICT (an API function's), so its
    // stores overwrite none of its inputs.
    bool add(std::string const& name, std::string const& body, bool inlinable = true, std::size_t arguments = 8,
             bool restrict_outputs = false);
    // The functions in a text of several (helpers from templates: the unrolled solve),
    // each from its head line (at the line's start, ending in '{') to its "}" line.
    void add_functions(std::string const& text);
    bool defines(std::string const& name) const { return frames_.count(name) > 0; }
    // Bytes of arrays in `name`'s frame and in the deepest chain of calls below it.
    std::size_t bound(std::string const& name) const;
    // The stack `name` needs, the deepest chain of calls below it included.
    stack_figure figure(std::string const& name) const;

private:
    struct frame {
        std::size_t arrays = 0;
        std::size_t live = 0;    // the most scalar temporaries live at once
        std::size_t inputs = 0;  // the inputs it reads (p.m, q[3])
        std::size_t assignments = 0; // statements that assign a value (0: the frame only calls)
        std::size_t pressure = 0; // temporaries and inputs (p.m, L[6]) live at once, each input from its first read to its last
        std::size_t arguments = 8;
        std::size_t across = 0;  // temporaries live across a call of the math library
        bool loops = false;
        bool calls_libm = false; // calls a function of the math library
        bool aliased = true;     // its stores may overwrite its inputs (no LAGC_RESTRICT)
        bool inlinable = true;
        std::vector<std::string> callees;
    };
    std::size_t nq_, nu_, nc_, nh_, bytes_;
    stack_margins margins_;
    std::map<std::string, frame> frames_;
    std::size_t size_of(std::string const& dimension, std::map<std::string, long> const& locals) const;
    std::map<std::string, long> local_constants(std::string const& body) const;
    void live_temporaries(std::string const& body, frame& f) const;
    void input_pressure(std::string const& body, std::vector<long> change, frame& f) const;
    std::vector<std::string> local_arrays(std::string const& body) const;
    std::pair<stack_figure, bool> path(std::string const& name, std::vector<std::string>& visiting) const;
    stack_figure inlined(std::string const& name, std::vector<std::string>& visiting) const;
    std::size_t scalars(frame const& f) const;
    mutable bool ranking_ = false; // scalars() by the written-order count (stack_figure::ranking)
    std::size_t frame_bytes(frame const& f) const;
};

} // namespace lagc
