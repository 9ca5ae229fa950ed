// Declaration of the statement grammar; the rules live in grammar_def.hpp.
#pragma once

#include "ast.hpp"

#include <boost/spirit/home/x3.hpp>

namespace lagc::parser {

namespace x3 = boost::spirit::x3;

struct statement_class;
using statement_type = x3::rule<statement_class, ast::statement>;
BOOST_SPIRIT_DECLARE(statement_type)

} // namespace lagc::parser

namespace lagc {
// The rule for one logical statement (one line after continuations are joined).
parser::statement_type const& statement_rule();
} // namespace lagc
