// The one translation unit that instantiates the grammar, so its templates compile once.
#include "grammar_def.hpp"
#include "config.hpp"

namespace lagc::parser {
BOOST_SPIRIT_INSTANTIATE(statement_type, iterator_type, context_type)
} // namespace lagc::parser

namespace lagc {
parser::statement_type const& statement_rule() { return parser::statement; }
} // namespace lagc
