// Looking templates up by name.
#include "templates.hpp"

#include <stdexcept>
#include <string>

namespace lagc {

std::string_view template_text(std::string_view name) {
    for (auto const& f : template_files())
        if (f.name == name) return f.text;
    throw std::out_of_range("no template named " + std::string(name));
}

} // namespace lagc
