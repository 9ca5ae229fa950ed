// The frame of a generated file (cxx_printer.hpp), and rendering templates with fmt.
#include "emit/cxx_printer.hpp"

#include "emit/dialect.hpp"
#include "emit/emit.hpp"
#include "emit/templates.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>

namespace lagc {

std::string render(std::string_view template_name, std::vector<std::pair<std::string, std::string>> const& values) {
    fmt::dynamic_format_arg_store<fmt::format_context> store;
    for (auto const& [k, v] : values) store.push_back(fmt::arg(k.c_str(), v));
    std::string_view const text = template_text(template_name);
    return fmt::vformat(fmt::string_view(text.data(), text.size()), store);
}

void cxx_printer::declare(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                          std::string const& comment) {
    api_.push_back({result, name, args});
    declarations_ += render_in_dialect("declaration.tpl",
                            {{"comment", comment}, {"result", result}, {"name", name}, {"parameters", parameter_list(args, nullptr, true)}});
}

std::string cxx_printer::definition(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                                    std::vector<std::string> const& used, std::string const& body, std::string const& comment,
                                    place where) {
    // Helpers of a .cpp file have internal linkage: no declaration elsewhere is missing
    // (-Wmissing-declarations, -Wmissing-prototypes) and no symbol leaves the file.
    dialect const& d = current_dialect();
    bool const api = where == place::api;
    // A function that holds arrays, or more temporaries than registers, is never inlined (as
    // parts are not): they stay in its own frame, off the stack of its caller's other
    // calls, as the header's stack figures count them (stack_bound.hpp). Spelled
    // __noinline__: a user's `#define noinline ...` must not reach it.
    bool const holds_arrays = bounds_ && bounds_->add(name, body, where != place::part && where != place::cold_helper, args.size());
    // C: an API function is a static function under its C++ name, which the others call,
    // and NAME_function, which checks the parameters pointer and calls it (c_wrapper).
    std::string linkage = (!api || d.c) && linkage_.empty() ? "static " : linkage_;
    if (where == place::part) linkage += "LAGC_PART_NOINLINE ", parts_ = true;
    if (where == place::cold_helper || (holds_arrays && where != place::part)) {
        // after "template <class T>\n", where there is one
        std::size_t const line = linkage.rfind('\n');
        // C99 has no attributes: the C source's macros (templates/c/source.c.tpl).
        std::string const attribute = where == place::cold_helper ? (d.c ? "LAGC_COLD " : "[[gnu::noinline, gnu::cold]] ")
                                                                 : (d.c ? "LAGC_NOINLINE " : "[[gnu::__noinline__]] ");
        linkage.insert(line == std::string::npos ? 0 : line + 1, attribute);
    }
    std::string const parameters = parameter_list(args, d.c ? nullptr : &used, api);
    std::string const c_body = d.c ? c_unused(args, used) + body : body;
    std::string const text = render_in_dialect("function.tpl", {{"comment", comment},
                                                                {"linkage", linkage},
                                                                {"result", result},
                                                                {"name", name},
                                                                {"parameters", parameters},
                                                                {"body", c_body}});
    return d.c && api ? text + c_wrapper(result, name, args) : text;
}

void cxx_printer::define(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                         std::vector<std::string> const& used, std::string const& body, std::string const& comment,
                         place where) {
    if (where == place::late_helper || where == place::cold_helper) {
        definitions_ += render_in_dialect("detail_block.tpl",
                                          {{"helpers", definition(result, name, args, used, body, comment, where)}});
        return;
    }
    (where == place::api ? definitions_ : helpers_) += definition(result, name, args, used, body, comment, where);
}

void cxx_printer::fill(std::string const& marker, std::string const& text) {
    for (std::string* s : {&helpers_, &definitions_})
        if (std::size_t const at = s->find(marker); at != std::string::npos) {
            s->replace(at, marker.size(), text);
            return;
        }
}

std::string cxx_printer::detail_block() const {
    if (helpers_.empty()) return "";
    if (!parts_) return render_in_dialect("detail_block.tpl", {{"helpers", helpers_}});
    return render_in_dialect("detail_block.tpl", {{"helpers", render("split_function.tpl#noinline_begin", {}) + helpers_ +
                                                                  render("split_function.tpl#noinline_end", {})}});
}

// C names every parameter (C99 has no unnamed ones): those a body does not read are cast to
// void.
std::string cxx_printer::c_unused(std::vector<cxx_argument> const& args, std::vector<std::string> const& used) {
    std::string s;
    for (auto const& a : args)
        if (std::find(used.begin(), used.end(), a.name) == used.end()) s += "    (void)" + a.name + ";\n";
    return s;
}

// Called from outside only, the parameters checked once: the functions' calls of each other
// go to the static ones, which GCC then sees write their outputs on every path (a check in
// each would leave paths that write nothing: -Wmaybe-uninitialized at -O2).
std::string cxx_printer::c_wrapper(std::string const& result, std::string const& name,
                                   std::vector<cxx_argument> const& args) {
    dialect const& d = current_dialect();
    bool const reads_parameters =
        std::any_of(args.begin(), args.end(), [](cxx_argument const& a) { return a.name == "p"; });
    return render("c/c_api.tpl#wrapper", {{"result", result},
                                          {"ns", d.ns},
                                          {"name", name},
                                          {"parameters", parameter_list(args, nullptr, true)},
                                          {"null_check", reads_parameters ? d.null_parameters_check(result, name) : ""},
                                          {"return", result == "void" ? "" : "return "},
                                          {"arguments", all_arguments(args)}});
}

std::string cxx_printer::parameter_list(std::vector<cxx_argument> const& args, std::vector<std::string> const* used,
                                        bool restrict_outputs) {
    std::string s;
    for (auto const& a : args) {
        bool named = !used || std::find(used->begin(), used->end(), a.name) != used->end();
        std::string const type = restrict_outputs && a.output && !a.may_alias ? a.type + " LAGC_RESTRICT" : a.type;
        s += (s.empty() ? "" : ", ") + type + " " + (named ? a.name : "/*" + a.name + "*/");
    }
    return s;
}

std::string cxx_printer::input_arguments(std::vector<cxx_argument> const& args) {
    std::string s;
    for (auto const& a : args)
        if (!a.output) s += a.name + ", ";
    return s;
}

std::string cxx_printer::all_arguments(std::vector<cxx_argument> const& args) {
    std::string s;
    for (auto const& a : args) s += (s.empty() ? "" : ", ") + a.name;
    return s;
}

} // namespace lagc
