// Stage 4: the C output (-o NAME.c): the C interface's header (c_api.cpp) and a C99 source
// that defines it, from the same functions the C++ output holds, written in the C dialect
// (dialect.hpp: no namespaces, no templates, static helpers, the parameters by pointer).
#include "emit/emitter.hpp"

#include <cctype>
#include <set>
#include <stdexcept>

namespace lagc::emitting {

void emitter::c_output(emitted_files& files) const {
    std::string name_definitions;
    files.header = c_header(name_definitions);
    files.source = text("source.c.tpl", {{"source", o_.source_name},
                                         {"header", o_.header_name},
                                         {"ns", m_.name},
                                         {"defaults", parameter_fields()},
                                         {"names", name_definitions},
                                         {"detail", out_.detail_block()},
                                         {"definitions", out_.definitions()}});
    // C has one scope for functions: NAME_function must not be one of the file's static
    // functions (a model named "factor" would make factor_mass_matrix both).
    std::set<std::string> statics;
    for (std::size_t at = files.source.find("static "); at != std::string::npos; at = files.source.find("static ", at + 1)) {
        std::size_t const open = files.source.find('(', at), line_end = files.source.find('\n', at);
        if (open > line_end) continue;
        std::size_t start = open;
        while (start > at && (std::isalnum(static_cast<unsigned char>(files.source[start - 1])) || files.source[start - 1] == '_'))
            --start;
        statics.insert(files.source.substr(start, open - start));
    }
    for (auto const& f : out_.api())
        if (statics.count(m_.name + "_" + f.name))
            throw std::runtime_error("the C function " + m_.name + "_" + f.name + " would have the name of one of the " +
                                     "file's own helpers; give the model another name (or --namespace)");
}

} // namespace lagc::emitting
