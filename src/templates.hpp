// The text templates of templates/, embedded into the binary at build time.
#pragma once

#include <string_view>
#include <vector>

namespace lagc {

struct template_file {
    std::string_view name;
    std::string_view text;
};

std::vector<template_file> const& template_files();

// The template called `name` (e.g. "function.tpl"); throws std::out_of_range if absent.
std::string_view template_text(std::string_view name);

} // namespace lagc
