// --equations: the pipeline up to derive, then the document (equations_run.hpp).
#include "driver/equations_run.hpp"

#include "derive/derive.hpp"
#include "frontend/check.hpp"
#include "frontend/parse.hpp"
#include "symbolic/dag.hpp"

namespace lagc {

equations_result compile_equations(std::string const& raw_text, compile_options const& options, equations_format format,
                                   std::string const& preface) {
    equations_result r;
    std::string const text = normalized_source(raw_text);
    source_file file(options.emit.source_name, text);
    r.diags.set_controls(options.warnings);
    if (text.size() > max_source_bytes) {
        r.diags.error({0, 0}, "the model is larger than " + std::to_string(max_source_bytes >> 20) + " MiB");
        return r;
    }
    std::vector<failed_statement> failed;
    auto statements = parse(file, r.diags, &failed);
    if (options.progress) options.progress("checking");
    auto m = check(statements, file, r.diags, options.limits, failed);
    if (!m || r.diags.has_errors()) return r;
    if (options.progress) options.progress("deriving the equations of motion");
    std::vector<std::string> const none;
    auto d = derive(*m, r.diags, static_cast<double>(options.max_derivation), &none);
    if (!d) return r;
    if (options.progress) options.progress("writing the equations");
    try {
        r.text = write_equations(*m, *d, format, options.emit.source_name, preface);
    } catch (std::bad_alloc const&) {
        r.diags.error(m->model_span, "out of memory while writing the equations");
    } catch (std::exception const& e) {
        r.diags.error(m->model_span, std::string("cannot write the equations: ") + e.what());
    }
    return r;
}

} // namespace lagc

namespace lagc {
std::optional<equations_format> equations_format_for(std::string const& output) {
    auto ends = [&](std::string const& s) { return output.size() > s.size() && output.compare(output.size() - s.size(), s.size(), s) == 0; };
    if (output == "-" || ends(".md")) return equations_format::markdown;
    if (ends(".tex")) return equations_format::latex;
    return std::nullopt;
}
} // namespace lagc
