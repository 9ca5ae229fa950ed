// Looking templates up by name, sections of files included (templates.hpp).
#include "emit/templates.hpp"

#include <deque>
#include <stdexcept>
#include <string>

namespace lagc {

namespace {

std::vector<template_file> split_sections(template_file const& f) {
    std::vector<template_file> out;
    std::size_t at = 0;
    while (at < f.text.size()) {
        std::size_t const name_end = f.text.find('\n', at);
        if (f.text.compare(at, 3, "@@ ") != 0 || name_end == std::string_view::npos)
            throw std::logic_error("template " + std::string(f.name) + ": expected '@@ NAME' at offset " + std::to_string(at));
        std::size_t const body = name_end + 1;
        std::size_t next = f.text.find("\n@@ ", name_end);
        next = next == std::string_view::npos ? f.text.size() : next + 1;
        // Names live as long as the program: the embedded text never moves.
        static std::deque<std::string> names; // a deque: elements never move
        names.push_back(std::string(f.name) + "#" + std::string(f.text.substr(at + 3, name_end - at - 3)));
        out.push_back({names.back(), f.text.substr(body, next - body)});
        at = next;
    }
    return out;
}

} // namespace

std::vector<template_file> const& named_templates() {
    static std::vector<template_file> const all = [] {
        std::vector<template_file> t;
        for (auto const& f : template_files()) {
            if (f.text.substr(0, 3) != "@@ ") {
                t.push_back(f);
                continue;
            }
            for (auto const& s : split_sections(f)) t.push_back(s);
        }
        return t;
    }();
    return all;
}

std::string_view template_text(std::string_view name) {
    for (auto const& f : named_templates())
        if (f.name == name) return f.text;
    throw std::out_of_range("no template named " + std::string(name));
}

} // namespace lagc
