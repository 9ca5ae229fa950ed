// The pieces of a generated body that the stack figures read (stack_bound.cpp), found by a
// hand scanner in one pass each: what std::regex found before (its patterns beside each
// function, matched as ECMAScript's regex_iterator matches them), in a fraction of the
// time (std::regex was a sixth of lagc's whole run on a 6-link arm).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lagc::stack_scan {

// `constexpr int ([^;]*);`, then in each list `\s*(\w+)\s*=\s*([^,]+)`: (name, value) of
// each constant, in the order written ("n = 2 * nq, m = nu > 0 ? nu : 1").
std::vector<std::pair<std::string, std::string>> constants(std::string_view body);

// `(?:^|\n)\s*(?:const\s+)?(?:double|float|T)\s+([^;=(]*\[[^;]*);`: the declarator list
// (group 1) of each declaration of arrays ("M[nq * nq], A[2][nc * nq]").
std::vector<std::string_view> array_declarations(std::string_view body);

// `(\w+)((?:\[[^\]]+\])+)` in a declarator list cut at its first '=': (name, its
// dimensions "[2][nc * nq]"); dimensions() splits those by `\[([^\]]+)\]`.
std::vector<std::pair<std::string_view, std::string_view>> declarators(std::string_view list);
std::vector<std::string_view> dimensions(std::string_view dims);

// `\b(?:p\.\w+|\w+\[\d+\])(?! = | \+= | -= )` in one line: the inputs it reads.
std::vector<std::string_view> line_reads(std::string_view line);
// `^\s*(\w+)\[[^\]]*\] (?:=|\+=|-=) `: the array a line stores to, empty if none.
std::string_view stored_array(std::string_view line);
// `\b(?:p\.\w+|(?:q|qd|u|x)\[\d+\])`: the parameters and state values a body reads.
std::vector<std::string_view> state_reads(std::string_view body);
// `(?:detail::)?(\w+)\(`: the names a body calls, each time, in order.
std::vector<std::string_view> calls(std::string_view body);

} // namespace lagc::stack_scan
