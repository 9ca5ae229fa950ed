@@ block

// Math functions for double; a scalar type T brings its own, found by argument-dependent lookup.
{declarations}
@@ declaration
using std::{function};
