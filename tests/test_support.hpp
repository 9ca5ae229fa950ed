// Helpers the in-process tests share (test_frontend, test_derive, test_forward_dynamics,
// test_codegen, test_symbolic): a model checked or derived from its text, a bundled model.
#pragma once

#include "derive/derive.hpp"
#include "driver/compiler.hpp"
#include "frontend/check.hpp"
#include "frontend/parse.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace test_support {

using GiNaC::ex;

struct checked {
    std::optional<lagc::model> m;
    std::string diagnostics;
};

inline checked check_text(std::string const& text) {
    lagc::source_file file("test.lag", text);
    lagc::diagnostics d;
    auto statements = lagc::parse(file, d);
    auto m = lagc::check(statements, file, d);
    return {std::move(m), d.format(file)};
}

inline std::string errors_of(std::string const& text) {
    lagc::compile_options o;
    o.emit.source_name = "test.lag";
    o.emit.header_name = "test.hpp";
    auto r = lagc::compile(text, o);
    return r.diags.format(lagc::source_file("test.lag", text));
}

// The value of `output v = EXPR` in a one-coordinate model, as GiNaC sees it.
inline ex value_of(std::string const& expr, lagc::model* out = nullptr) {
    auto c = check_text("model e\nparameter a = 2\ncoordinate x\nkinetic der(x)^2\noutput v = " + expr + "\n");
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    if (!c.m) return 0;
    if (out) *out = *c.m;
    return c.m->outputs.at(0).val.elems.at(0);
}

inline bool equal(ex const& a, ex const& b) { return (a - b).expand().is_zero(); }

// A bundled model compiled in-process with these options (file names set as lagc sets them).
inline lagc::compile_result compile_bundled(std::string const& name, lagc::compile_options o) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/" + name + ".lag");
    std::stringstream text;
    text << in.rdbuf();
    o.emit.source_name = name + ".lag";
    o.emit.header_name = name + ".hpp";
    if (o.emit.c_api) o.emit.c_header_name = name + ".h";
    auto r = lagc::compile(text.str(), o);
    EXPECT_TRUE(r.files.has_value()) << r.diags.format(lagc::source_file(name + ".lag", text.str()));
    return r;
}


inline lagc::derived derived_of(std::string const& text) {
    auto c = check_text(text);
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    lagc::diagnostics d;
    auto r = c.m ? lagc::derive(*c.m, d) : std::nullopt;
    EXPECT_TRUE(r.has_value());
    return r ? *r : lagc::derived{};
}

inline std::string bundled_model(std::string const& name) {
    std::ifstream in(std::string(LAGC_SOURCE_DIR) + "/models/" + name + ".lag");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::pair<lagc::model, lagc::derived> model_and_derived(std::string const& text) {
    auto c = check_text(text);
    EXPECT_TRUE(c.m.has_value()) << c.diagnostics;
    if (!c.m) return {};
    lagc::diagnostics diags;
    auto d = lagc::derive(*c.m, diags);
    EXPECT_TRUE(d.has_value());
    return {*c.m, d ? *d : lagc::derived{}};
}

} // namespace test_support
