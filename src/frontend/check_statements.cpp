// Stage 2: the rules of each statement (what it may depend on, its shape, what it adds to
// the model).
#include "frontend/checker.hpp"
#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "common/cxx_names.hpp"
#include "symbolic/simplify.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

namespace lagc::checking {

namespace {
// e expanded is zero; by its values where it is too large to expand (simplify.hpp).
bool expands_to_zero(GiNaC::ex const& e) {
    return tree_size(e) <= max_expanded_tree ? e.expand().is_zero() : numerically_zero(e);
}
} // namespace

void checker::statement(ast::model_stmt const& s, span where) {
    if (have_model_) {
        diags_.error(where, "a model has one 'model' statement; this is a second one");
        return;
    }
    have_model_ = true;
    m_.model_span = where;
    if (!check_spelling(s.name, "a model")) return;
    if (std::string why = cxx_name_problem(s.name.name, cxx_name_use::namespace_); !why.empty()) {
        diags_.error(span_of(s.name), "'" + s.name.name + "' cannot be a model name: it is " + why +
                                          ", and the model's name is the generated namespace; choose another name");
        return;
    }
    m_.name = s.name.name;
}

void checker::statement(ast::declaration_stmt const& s, span) {
    bool coordinate = s.keyword == "coordinate";
    for (auto const& id : s.names) {
        auto& list = coordinate ? m_.coordinates : m_.inputs;
        if (list.size() >= limits_.max_coordinates) {
            diags_.error(span_of(id), std::string("a model may have at most ") + std::to_string(limits_.max_coordinates) +
                                          (coordinate ? " coordinates" : " inputs") +
                                          " (derivation grows with the cube of their number; --max-coordinates raises it)");
            return;
        }
        if (!declare(id, coordinate ? name_kind::coordinate : name_kind::input, list.size())) continue;
        list.push_back(id.name);
        if (coordinate) {
            m_.coordinate_spans.push_back(span_of(id));
            std::string const index = std::to_string(m_.q.size());
            m_.q.emplace_back(std::string("q").append(index));
            m_.qd.emplace_back(std::string("qd").append(index));
        } else {
            m_.u.emplace_back(std::string("u").append(std::to_string(m_.u.size())));
        }
    }
}

namespace {
// The double nearest to an exact constant: evaluated to 40 digits, then read as a decimal
// (what strtod does with the literal when the default is a plain number).
double nearest_double(ex const& exact) {
    digits_scope const digits(40);
    ex v = exact.evalf();
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(v)) return std::nan("");
    std::ostringstream text;
    text << v;
    std::string s = text.str();
    for (char& c : s)
        if (c == 'L' || c == 'l' || c == 'd' || c == 'D') c = 'e'; // CLN's exponent markers
    return std::strtod(s.c_str(), nullptr);
}
} // namespace

void checker::statement(ast::parameter_stmt const& s, span) {
    for (auto const& d : s.decls) {
        // The default first, before the name is declared: it may read earlier parameters only.
        std::optional<ex> exact;
        if (d.value) exact = parameter_default(*d.value, d.name.name);
        if (!declare(d.name, name_kind::parameter, m_.parameters.size())) continue;
        // Registered whatever its default: the name is declared, so uses of it must find a
        // symbol (an error below already stops the compilation).
        parameter_def p{d.name.name, 0.0, 0, span_of(d.name), d.value.has_value()};
        m_.p.emplace_back("p_" + d.name.name);
        if (exact) {
            p.exact_value = *exact;
            p.default_value = nearest_double(*exact);
            if (!std::isfinite(p.default_value))
                diags_.error(span_of(*d.value), "the default value of '" + d.name.name + "' does not fit in a double");
        }
        m_.parameters.push_back(p);
    }
}

// A parameter's default: an expression of numbers and earlier parameters, evaluated
// exactly with their defaults; nullopt (with an error) otherwise.
std::optional<ex> checker::parameter_default(ast::expression const& e, std::string const& name) {
    opt_value v = eval(e);
    if (!v) return std::nullopt;
    span const at = span_of(e);
    if (v->shape != value::kind::scalar) {
        diags_.error(at, "a parameter's default is a scalar, not " + v->describe());
        return std::nullopt;
    }
    ex value = v->elems[0];
    if (depends_on(value, m_.q) || depends_on(value, m_.qd) || depends_on(value, m_.u) || has_any(value, {m_.t})) {
        diags_.error(at, "a parameter's default may use numbers and earlier parameters only, not coordinates, "
                         "velocities, inputs or t");
        return std::nullopt;
    }
    GiNaC::exmap earlier;
    for (std::size_t i = 0; i < m_.parameters.size(); ++i) earlier[m_.p[i]] = m_.parameters[i].exact_value;
    try {
        value = value.subs(earlier, GiNaC::subs_options::no_pattern);
    } catch (std::exception const&) {
        diags_.error(at, "default value of '" + name + "' is undefined with the defaults of the parameters it uses");
        return std::nullopt;
    }
    if (!real_constant(value, at, "default value of '" + name + "'")) return std::nullopt;
    return value;
}

void checker::statement(ast::definition_stmt const& s, span where) {
    opt_value v = eval(s.value);
    if (s.keyword == "let") {
        // Declare even when the value failed, so later uses do not cascade into "unknown name".
        if (!declare(s.name, name_kind::let, lets_.size())) return;
        // A named 3-vector of velocities: a candidate angular velocity (model::velocity_vectors).
        if (v && v->shape == value::kind::vector && v->rows == 3 && depends_on(*v, m_.qd) && !depends_on(*v, m_.u) &&
            m_.velocity_vectors.size() < 4096)
            m_.velocity_vectors.push_back(v->elems);
        // Any named value of velocities: a candidate set of quasi-velocities (model::named_rates).
        if (v && v->elems.size() <= 64 && depends_on(*v, m_.qd) && !depends_on(*v, m_.u) && m_.named_rates.size() < 1024)
            m_.named_rates.push_back(v->elems);
        lets_.push_back(v);
        return;
    }
    if (!declare(s.name, name_kind::output, m_.outputs.size())) return;
    if (!v) return;
    // An output may read anything: its function takes u only when it uses an input.
    output_def o{s.name.name, *v, where, depends_on(*v, m_.u), depends_on(*v, m_.qd)};
    if (!output_names_are_free(o, span_of(s.name))) return;
    m_.outputs.push_back(std::move(o));
}

namespace {
// The C++ names an output's functions take: output_NAME, and for an output of q (and t)
// alone its Jacobian's and drift's, with what each is.
std::vector<std::pair<std::string, std::string>> generated_names(output_def const& o) {
    std::vector<std::pair<std::string, std::string>> names = {{"output_" + o.name, "its value"}};
    if (!o.reads_inputs && !o.reads_velocities) {
        names.push_back({"output_" + o.name + "_jacobian", "its Jacobian"});
        names.push_back({"output_" + o.name + "_drift", "its drift"});
    }
    return names;
}
} // namespace

// Two outputs whose functions would have one name (tip and tip_drift: output_tip_drift),
// or an output whose function is the header's array of output names (names): an error at
// the later declaration, naming the other.
bool checker::output_names_are_free(output_def const& o, span where) {
    for (auto const& [name, what] : generated_names(o)) {
        if (name == "output_names") {
            diags_.error(where, "output '" + o.name + "' would be written as output_names, the generated header's "
                                "array of the outputs' names; rename it");
            return false;
        }
        for (auto const& earlier : m_.outputs)
            for (auto const& [other, other_what] : generated_names(earlier))
                if (other == name) {
                    auto const at = file_.locate(earlier.where.begin);
                    diags_.error(where, "output '" + o.name + "' would give " + name + " (" + what +
                                            "), which output '" + earlier.name + "' on line " + std::to_string(at.line) +
                                            " already gives (" + other_what + "); rename one of them");
                    return false;
                }
    }
    return true;
}

void checker::statement(ast::energy_stmt const& s, span) {
    opt_value v = eval(s.value);
    if (!v) return;
    span at = span_of(s.value);
    if (v->shape != value::kind::scalar) {
        diags_.error(at, s.keyword + " takes a scalar, not " + v->describe());
        return;
    }
    if (depends_on(*v, m_.u)) {
        diags_.error(at, "the " + s.keyword + " term depends on an input; inputs enter through 'force ... on'");
        return;
    }
    ex e = v->elems[0];
    if (s.keyword == "kinetic" || s.keyword == "lagrangian") m_.energy_terms.push_back({s.keyword, e, at});
    if (s.keyword == "kinetic") {
        if (!depends_on(e, m_.qd) && !e.is_zero())
            diags_.warning(at,
                           "this kinetic term contains no velocity, so it acts as a potential of the opposite "
                           "sign: a forgotten der()? (the velocity of a point p is der(p))",
                           warning_kind::kinetic_without_velocity);
        m_.kinetic += e;
    } else if (s.keyword == "potential") {
        if (depends_on(e, m_.qd)) {
            diags_.error(at, "a potential may not depend on velocities; write velocity-dependent potentials "
                             "with 'lagrangian'");
            return;
        }
        m_.potential += e;
    } else if (s.keyword == "lagrangian") {
        m_.lagrangian += e;
        m_.has_lagrangian_terms = true;
    } else {
        m_.dissipation += e;
    }
}

void checker::statement(ast::force_stmt const& s, span where) {
    opt_value v = eval(s.value);
    force_def f;
    f.where = where;
    if (s.mode == "on") {
        if (s.keyword == "torque") {
            diags_.error(span_of(s.target), "a torque acts 'at' an angular velocity: torque VEC at OMEGA");
            return;
        }
        // The target must be a bare coordinate name.
        ast::identifier const* id = bare_identifier(s.target);
        auto it = id ? names_.find(id->name) : names_.end();
        if (!id || it == names_.end() || it->second.kind != name_kind::coordinate) {
            diags_.error(span_of(s.target), "'force ... on' needs a coordinate name after 'on'" +
                                                (id ? std::string(", and '") + id->name + "' is not a coordinate" : ""));
            return;
        }
        if (!v) return;
        if (v->shape != value::kind::scalar) {
            diags_.error(span_of(s.value), "a force on a coordinate is a scalar, not " + v->describe() +
                                               " (use 'force VEC at POINT' for a force vector)");
            return;
        }
        f.type = force_def::kind::on_coordinate;
        f.coordinate = it->second.index;
        f.vec = *v;
        m_.forces.push_back(std::move(f));
        return;
    }
    opt_value target = eval(s.target);
    if (!v || !target) return;
    bool torque = s.keyword == "torque";
    if (v->shape == value::kind::matrix || v->shape != target->shape || v->rows != target->rows) {
        diags_.error(span_of(s.value), "the " + s.keyword + " is " + v->describe() + " but the " +
                                           (torque ? "angular velocity" : "point") + " is " + target->describe() +
                                           "; they must have the same size");
        return;
    }
    if (!torque && depends_on(*target, m_.qd)) {
        diags_.error(span_of(s.target), "the point a force acts at is a position; it may not depend on velocities");
        return;
    }
    if (depends_on(*target, m_.u)) {
        diags_.error(span_of(s.target), std::string("the ") + (torque ? "angular velocity" : "point") +
                                            " may not depend on inputs");
        return;
    }
    f.type = torque ? force_def::kind::torque : force_def::kind::at_point;
    f.vec = *v;
    f.target = *target;
    m_.forces.push_back(std::move(f));
}

// A matrix constraint's rows: its upper triangle (diagonal included) where it is symmetric —
// transpose(R)*R = I for a 3x3 R gives six rows, not nine of which three repeat — else every
// entry, row by row.
value checker::constraint_rows_of_matrix(value const& r) const {
    bool symmetric = r.rows == r.cols;
    for (std::size_t i = 0; symmetric && i < r.rows; ++i)
        for (std::size_t j = i + 1; symmetric && j < r.cols; ++j)
            symmetric = expands_to_zero(r.elems[i * r.cols + j] - r.elems[j * r.cols + i]);
    std::vector<ex> rows;
    for (std::size_t i = 0; i < r.rows; ++i)
        for (std::size_t j = symmetric ? i : 0; j < r.cols; ++j) rows.push_back(r.elems[i * r.cols + j]);
    std::size_t const n = rows.size();
    return {value::kind::vector, n, 1, std::move(rows)};
}

void checker::statement(ast::constraint_stmt const& s, span where) {
    opt_value lhs = eval(s.lhs);
    opt_value rhs = s.rhs ? eval(*s.rhs) : opt_value(value::scalar(0));
    if (!lhs || !rhs) return;
    value r = *lhs;
    if (s.rhs) {
        if (lhs->shape != rhs->shape || lhs->rows != rhs->rows || lhs->cols != rhs->cols) {
            diags_.error(where, "the two sides of the constraint differ in shape: " + lhs->describe() + " and " +
                                    rhs->describe());
            return;
        }
        for (std::size_t i = 0; i < r.size(); ++i) r.elems[i] = lhs->elems[i] - rhs->elems[i];
    }
    if (r.shape == value::kind::matrix) r = constraint_rows_of_matrix(r);
    if (depends_on(r, m_.u)) {
        diags_.error(where, "a constraint may not depend on inputs");
        return;
    }
    for (ex const& e : r.elems) {
        constraint_def c{e, true, where, file_.locate(where.begin).line};
        if (depends_on(e, m_.qd)) {
            c.holonomic = false;
            // Affine in q̇: every second derivative with respect to velocities vanishes.
            bool affine = true;
            for (auto const& a : m_.qd)
                for (auto const& b : m_.qd)
                    if (!expands_to_zero(partial(partial(e, a), b))) affine = false;
            if (!affine) {
                diags_.error(where, "this velocity constraint is not affine in the velocities (A(q,t) q' + a0(q,t) = 0); "
                                    "lagc handles holonomic and Pfaffian constraints only");
                return;
            }
        }
        m_.constraints.push_back(std::move(c));
    }
}

void checker::statement(ast::baumgarte_stmt const& s, span where) {
    if (have_baumgarte_) {
        diags_.error(where, "a second 'baumgarte' statement; give both gains in one");
        return;
    }
    have_baumgarte_ = true;
    std::set<std::string> seen;
    for (auto const& a : s.arguments) {
        std::string const& n = a.name.name;
        if (n != "alpha" && n != "beta") {
            diags_.error(span_of(a.name), "unknown gain '" + n + "'; baumgarte takes alpha and beta");
            continue;
        }
        if (!seen.insert(n).second) {
            diags_.error(span_of(a.name), "'" + n + "' is given twice");
            continue;
        }
        opt_value v = eval(a.value);
        if (!v) continue;
        if (v->shape != value::kind::scalar) {
            diags_.error(span_of(a.value), "a gain is a scalar, not " + v->describe());
            continue;
        }
        ex e = v->elems[0];
        if (depends_on(e, m_.q) || depends_on(e, m_.qd) || depends_on(e, m_.u) || has_any(e, {m_.t})) {
            diags_.error(span_of(a.value), "Baumgarte gains are expressions of parameters only; this one depends on "
                                           "the state, the inputs or t");
            continue;
        }
        (n == "alpha" ? m_.alpha : m_.beta) = e;
    }
}

} // namespace lagc::checking
