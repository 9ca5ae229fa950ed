// The frame of a generated file: declarations, definitions and the `detail` helpers,
// collected in order, every line from templates/ (declaration.tpl, function.tpl,
// detail_block.tpl). One `namespace detail` block of helpers at the top of the definitions, and one
// around each late helper among them (place::late_helper).
#pragma once

#include "emit/stack_bound.hpp"

#include <string>
#include <vector>

namespace lagc {

struct cxx_argument {
    std::string name; // "t", "q", "qd", "u", "p" or an output array
    std::string type;
    bool output = false;
    // An output the function may be given one of its inputs for (it reads them first);
    // every other output of an API function is LAGC_RESTRICT: it overlaps no other array.
    bool may_alias = false;
};

class cxx_printer {
public:
    enum class place {
        api,   // part of the generated API: definitions (and the caller declares it)
        helper, // in namespace detail, for the API functions only
        part,   // a helper that is one part of a split function, never inlined
        // in a namespace detail of its own among the API definitions, after those defined so
        // far: a helper that calls API functions (header-only files declare nothing before)
        late_helper,
        // a late helper only a failure calls (the run-time twins): never inlined, and laid
        // out cold, so that the function that calls it compiles as it would without it
        cold_helper
    };

    // `linkage` goes before every function: "inline ", "template <class T>\ninline ", "".
    // `bounds` (if any) hears every definition's body (--stats' stack bounds).
    explicit cxx_printer(std::string linkage, stack_bounds* bounds = nullptr)
        : linkage_(std::move(linkage)), bounds_(bounds) {}

    void declare(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                 std::string const& comment);
    // `used` names the arguments the body reads; the others are commented out (no warning).
    void define(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                std::vector<std::string> const& used, std::string const& body, std::string const& comment, place where);
    // define's text without adding it (for fill).
    std::string definition(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args,
                           std::vector<std::string> const& used, std::string const& body, std::string const& comment,
                           place where);
    // Helper text that is not one function (a set of helpers from one template).
    void add_helpers(std::string const& text) {
        if (bounds_) bounds_->add_functions(text);
        helpers_ += text;
    }
    // Helper text the stack figures do not count as frames of their own (reduce_angle).
    void add_unbounded_helpers(std::string const& text) { helpers_ += text; }
    // A place for text known later: `marker` where a definition at `where` would go, then
    // replaced by `text` (fill), so that functions written last keep the order they were
    // asked for in.
    void mark(place where, std::string const& marker) { (where == place::api ? definitions_ : helpers_) += marker; }
    void fill(std::string const& marker, std::string const& text);

    // Every declared API function, in order (for the C interface).
    struct declared {
        std::string result, name;
        std::vector<cxx_argument> args;
    };
    std::vector<declared> const& api() const { return api_; }

    std::string const& declarations() const { return declarations_; }
    std::string const& definitions() const { return definitions_; }
    std::string detail_block() const; // "" when there are no helpers

    // "const double* q, const Parameters& p, double* M"; unused arguments as /*name*/.
    // `restrict_outputs`: outputs (but those that may alias) marked LAGC_RESTRICT (API functions).
    static std::string parameter_list(std::vector<cxx_argument> const& args, std::vector<std::string> const* used,
                                      bool restrict_outputs);
    // "t, q, qd, u, p, " (the inputs, each followed by ", "), for a call that adds outputs.
    static std::string input_arguments(std::vector<cxx_argument> const& args);
    // "q, qd, p, C, w" (every argument).
    static std::string all_arguments(std::vector<cxx_argument> const& args);
    // C output: the parameters a body does not read cast to void (C99 names every one), and
    // an API function's NAME_function, which returns at a NULL parameters pointer.
    static std::string c_unused(std::vector<cxx_argument> const& args, std::vector<std::string> const& used);
    static std::string c_wrapper(std::string const& result, std::string const& name, std::vector<cxx_argument> const& args);

private:
    std::string linkage_;
    stack_bounds* bounds_ = nullptr;
    std::string declarations_, definitions_, helpers_;
    bool parts_ = false;
    std::vector<declared> api_;
};

} // namespace lagc
