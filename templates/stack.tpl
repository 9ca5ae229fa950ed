@@ block

// The stack each function needs, in bytes, with the functions it calls ({scalar}): lagc's
// count of its arrays and of the temporaries live at once, plus stated margins: {frame} B a
// frame for saved registers and the return address, {spill} values in a frame that computes
// for what the compiler spills, and {libm} B where the math library is called (sin's range
// reduction). --stats prints the same figures; docs/embedded.md compares them with GCC's.
{target_note}namespace stack_bytes {{
{entries}}}  // namespace stack_bytes
@@ entry
inline constexpr unsigned long {name} = {total};  // arrays {arrays}, temporaries {temporaries}, frames {frames}, libm {libm}
