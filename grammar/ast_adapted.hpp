// Fusion adaptation of the syntax tree, so X3 can fill the nodes from rule attributes.
#pragma once

#include "ast.hpp"

#include <boost/fusion/include/adapt_struct.hpp>

BOOST_FUSION_ADAPT_STRUCT(lagc::ast::unary, sign, operand_)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::operation, op, operand_)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::expression, first, rest)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::call, function, arguments)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::bracket_list, open, elements)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::subscript, base, indices)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::model_stmt, keyword, name)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::declaration_stmt, keyword, names)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::parameter_decl, name, value)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::parameter_stmt, keyword, decls)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::definition_stmt, keyword, name, value)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::energy_stmt, keyword, value)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::force_stmt, keyword, value, mode, target)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::constraint_stmt, keyword, lhs, rhs)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::named_argument, name, value)
BOOST_FUSION_ADAPT_STRUCT(lagc::ast::baumgarte_stmt, keyword, arguments)
