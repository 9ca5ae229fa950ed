// Iterator and context types shared by the grammar's declaration and its one instantiation.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/error_reporting.hpp>

#include <functional>
#include <string>

namespace lagc::parser {

namespace x3 = boost::spirit::x3;

using iterator_type = std::string::const_iterator;

// Writes byte offsets straight into each position_tagged node (annotate_on_success
// calls tag() with the node's first and last iterator, whitespace already skipped).
struct position_tagger {
    iterator_type base;

    template <class Node>
    void tag(Node& node, iterator_type first, iterator_type last) const {
        if constexpr (std::is_base_of_v<x3::position_tagged, Node>) {
            node.id_first = static_cast<int>(first - base);
            node.id_last = static_cast<int>(last - base);
        }
    }
    template <class Node>
    void tag(x3::forward_ast<Node>& node, iterator_type first, iterator_type last) const {
        tag(node.get(), first, last);
    }
};

using skipper_type = x3::ascii::space_type;
using phrase_context_type = x3::phrase_parse_context<skipper_type>::type;
using context_type =
    x3::context<x3::error_handler_tag, std::reference_wrapper<position_tagger const>, phrase_context_type>;

} // namespace lagc::parser
