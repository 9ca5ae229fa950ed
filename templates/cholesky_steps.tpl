@@ largest
    {scalar} largest = {zero};
@@ largest_update
    if ({m} > largest) largest = {m};
@@ threshold
    const {scalar} threshold = {tolerance} * largest;
@@ pivot
    const {scalar} {d} = {value};
    if (!{detail}is_finite({d}) || !({d} > threshold)) return 1;
    {set}{r} = {one} / {math}sqrt{mf}({d});
@@ factor_entry
    {set}{l} = {value}*{r};
@@ solve_step
    const {scalar} {name} = {value}*{r};
@@ store
    {target} = {value};
@@ finite_check
    // NaN or Inf in the state, inputs or parameters: not a solution.
    if ({conditions}) return 3;
