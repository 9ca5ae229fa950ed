// The text templates of templates/, embedded into the binary at build time.
#pragma once

#include <string_view>
#include <vector>

namespace lagc {

struct template_file {
    std::string_view name;
    std::string_view text;
};

// The files of templates/, as embedded.
std::vector<template_file> const& template_files();

// Every template by name: a whole file ("function.tpl"), or one section of a file that
// holds several small ones ("cholesky_steps.tpl#pivot"). A section starts at a line
// "@@ NAME" and runs to the next such line or the end of the file.
std::vector<template_file> const& named_templates();

// The template called `name`; throws std::out_of_range if absent.
std::string_view template_text(std::string_view name);

} // namespace lagc
