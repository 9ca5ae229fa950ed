// Stage 2: calls of built-in functions (the table is builtins.cpp). Scalar functions are
// built from the table; der, dot, cross, norm, transpose and the rotations act on shapes.
#include "symbolic/chain_rule.hpp"
#include "symbolic/simplify.hpp"
#include "frontend/checker.hpp"
#include "frontend/spelling.hpp"

#include <map>

namespace lagc::checking {

namespace {
// Whether the function's expression holds |x| or sign(x), whose derivatives need the
// generated code's detail::sign (abs, sign, and min and max, which are written with abs).
// Worked out once per row: the checker meets the same few functions thousands of times.
bool brings_sign(builtin const& b) {
    static std::map<builtin const*, bool> known;
    auto [it, inserted] = known.try_emplace(&b, false);
    if (inserted) {
        GiNaC::symbol x("x"), y("y");
        GiNaC::ex const e = b.make(x, y);
        it->second = e.has(lagc_abs(GiNaC::wild())) || e.has(lagc_sign(GiNaC::wild()));
    }
    return it->second;
}
} // namespace

opt_value checker::eval_call(ast::call const& c) {
    std::string const& fn = c.function.name;
    builtin const* info = builtin_named(fn);
    if (!info) {
        auto it = names_.find(fn);
        if (it != names_.end() || fn == "t" || fn == "pi")
            diags_.error(span_of(c.function), "'" + fn + "' is not a function");
        else {
            std::vector<std::string_view> functions;
            for (auto const& b : builtins())
                if (!b.name.empty()) functions.push_back(b.name);
            diags_.error(span_of(c.function), "unknown function '" + fn + "'" + did_you_mean(fn, functions));
        }
        return std::nullopt;
    }
    if (fn == "rot" && c.arguments.size() == 2) {
        auto evaluated = eval_all(c.arguments);
        if (!evaluated) return std::nullopt;
        return axis_rotation((*evaluated)[0], (*evaluated)[1], span_of(c.arguments[0]), span_of(c.arguments[1]));
    }
    if (fn == "rot" && c.arguments.size() != 1) {
        diags_.error(span_of(c.function), "rot() takes 1 argument (an angle: a 2-D rotation) or 2 (an axis and an "
                                          "angle: a 3-D rotation), not " + std::to_string(c.arguments.size()));
        return std::nullopt;
    }
    if (static_cast<int>(c.arguments.size()) != info->arity) {
        diags_.error(span_of(c.function), fn + "() takes " + std::to_string(info->arity) + " argument" +
                                               (info->arity == 1 ? "" : "s") + ", not " +
                                               std::to_string(c.arguments.size()));
        return std::nullopt;
    }
    auto evaluated = eval_all(c.arguments);
    if (!evaluated) return std::nullopt;
    std::vector<value> const& args = *evaluated;
    span const where = span_of(c), arg0 = span_of(c.arguments[0]);
    if (info->scalar() && brings_sign(*info)) m_.uses_sign = true;
    if (info->scalar()) return scalar_call(*info, args, c);
    if (fn == "der") return time_derivative(args[0], arg0);
    if (fn == "dot" || fn == "cross") return dot_or_cross(fn, args[0], args[1], where);
    if (fn == "norm") return norm_of(args[0], arg0);
    if (fn == "transpose") return transpose_of(args[0], arg0);
    return rotation(fn, args[0], arg0);
}

opt_value checker::scalar_call(builtin const& b, std::vector<value> const& args, ast::call const& c) {
    std::string const fn(b.name);
    for (std::size_t k = 0; k < args.size(); ++k)
        if (args[k].shape != value::kind::scalar) {
            diags_.error(span_of(c.arguments[k]), fn + "() takes a scalar, not " + args[k].describe());
            return std::nullopt;
        }
    try {
        ex r = b.make(args[0].elems[0], args.size() > 1 ? args[1].elems[0] : ex(0));
        if (!real_constant(r, span_of(c), fn + "()")) return std::nullopt;
        return value::scalar(r);
    } catch (GiNaC::pole_error const&) {
        diags_.error(span_of(c), fn + "() is undefined here (a pole, such as log(0) or a division by zero)");
        return std::nullopt;
    }
}

// d/dt of an expression of q, t and parameters, by the chain rule on its structure
// (chain_rule.hpp): Σ ∂e/∂q_i q̇_i + ∂e/∂t.
opt_value checker::time_derivative(value v, span where) {
    if (depends_on(v, m_.qd)) {
        diags_.error(where, "der() of an expression that already contains velocities would be an "
                            "acceleration; accelerations have no place in a model");
        return std::nullopt;
    }
    if (depends_on(v, m_.u)) {
        diags_.error(where, "der() of an input is not defined (inputs have no time derivative)");
        return std::nullopt;
    }
    // t among the variables, at rate 1: one walk over e's parts (GiNaC's diff by t walks
    // every path through them).
    std::vector<GiNaC::symbol> variables(m_.q);
    variables.push_back(m_.t);
    std::vector<ex> rates(m_.qd.begin(), m_.qd.end());
    rates.push_back(1);
    model::point point{v.elems, {}};
    bool const is_point = v.shape == value::kind::vector && v.rows == 3 && depends_on(v, m_.q);
    for (auto& e : v.elems) {
        e = directional_derivative(e, variables, rates);
        // GiNaC pulls numbers out of sums ((x/25 + y/25)² = (x + y)²/625): kept without
        // them, and with either sign, to be found in the kinetic energy again.
        ex const key = without_numeric_factor(e);
        m_.time_derivatives.insert(key);
        m_.time_derivatives.insert(-key);
    }
    if (is_point && m_.points.size() < 4096) {
        point.velocity = v.elems;
        m_.points.push_back(std::move(point));
    }
    return v;
}

opt_value checker::dot_or_cross(std::string const& fn, value const& a, value const& b, span where) {
    if (a.shape != value::kind::vector || b.shape != value::kind::vector || a.rows != b.rows ||
        (fn == "cross" && a.rows != 3)) {
        diags_.error(where, fn + "() takes two " + (fn == "cross" ? std::string("3-vectors") : "vectors of one length") +
                                ", not " + a.describe() + " and " + b.describe());
        return std::nullopt;
    }
    if (fn == "dot") {
        ex s = 0;
        for (std::size_t i = 0; i < a.rows; ++i) s += a.elems[i] * b.elems[i];
        record_quadratic_form(a, b);
        return value::scalar(s);
    }
    auto const &x = a.elems, &y = b.elems;
    return value{value::kind::vector, 3, 1,
                 {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]}};
}

// dot(w, J*w) with J*w a transport of w (J 3×3 and free of velocities): a candidate body's
// rotational inertia, model::quadratic_forms.
void checker::record_quadratic_form(value const& a, value const& b) {
    if (a.rows != 3 || m_.quadratic_forms.size() >= 4096) return;
    auto same = [](GiNaC::exvector const& x, GiNaC::exvector const& y) {
        return x.size() == 3 && y.size() == 3 && x[0].is_equal(y[0]) && x[1].is_equal(y[1]) && x[2].is_equal(y[2]);
    };
    for (auto it = m_.transports.rbegin(); it != m_.transports.rend(); ++it)
        if (same(it->result, b.elems) && same(it->operand, a.elems) && !depends_on(value{value::kind::matrix, 3, 3, it->matrix}, m_.q)) {
            m_.quadratic_forms.push_back({a.elems, it->matrix});
            return;
        }
}

opt_value checker::norm_of(value const& v, span where) {
    if (v.shape != value::kind::vector) {
        diags_.error(where, "norm() takes a vector, not " + v.describe());
        return std::nullopt;
    }
    ex s = 0;
    for (auto const& e : v.elems) s += e * e;
    return value::scalar(GiNaC::sqrt(s));
}

opt_value checker::transpose_of(value const& a, span where) {
    if (a.shape != value::kind::matrix) {
        diags_.error(where, "transpose() takes a matrix, not " + a.describe());
        return std::nullopt;
    }
    value r{value::kind::matrix, a.cols, a.rows, std::vector<ex>(a.size())};
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t j = 0; j < a.cols; ++j) r.elems[j * a.rows + i] = a.elems[i * a.cols + j];
    return r;
}

// Active, right-handed rotations: rot (2×2) and rotx, roty, rotz (3×3).
opt_value checker::rotation(std::string const& fn, value const& angle, span where) {
    if (angle.shape != value::kind::scalar) {
        diags_.error(where, fn + "() takes a scalar, not " + angle.describe());
        return std::nullopt;
    }
    ex const cs = GiNaC::cos(angle.elems[0]), sn = GiNaC::sin(angle.elems[0]);
    if (fn == "rot") return value{value::kind::matrix, 2, 2, {cs, -sn, sn, cs}};
    std::vector<ex> r;
    if (fn == "rotx") r = {1, 0, 0, 0, cs, -sn, 0, sn, cs};
    else if (fn == "roty") r = {cs, 0, sn, 0, 1, 0, -sn, 0, cs};
    else r = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
    return value{value::kind::matrix, 3, 3, r};
}

// rot(axis, angle): the rotation by `angle` about the constant 3-vector `axis` (any length),
// by Rodrigues' formula R = cos a I + sin a [n]x + (1 - cos a) n n^T with n = axis/|axis|:
// what URDF's <axis> and MJCF's axis="..." of a hinge mean.
opt_value checker::axis_rotation(value const& axis, value const& angle, span axis_at, span angle_at) {
    if (axis.shape != value::kind::vector || axis.size() != 3) {
        diags_.error(axis_at, "the axis of rot(axis, angle) is a 3-vector, not " + axis.describe());
        return std::nullopt;
    }
    if (angle.shape != value::kind::scalar) {
        diags_.error(angle_at, "the angle of rot(axis, angle) is a scalar, not " + angle.describe());
        return std::nullopt;
    }
    for (auto const& e : axis.elems)
        if (depends_on(e, m_.q) || depends_on(e, m_.qd) || depends_on(e, m_.u) || has_any(e, {m_.t})) {
            diags_.error(axis_at, "the axis of rot(axis, angle) must be constant (numbers and parameters)");
            return std::nullopt;
        }
    ex length2 = 0;
    for (auto const& e : axis.elems) length2 += e * e;
    if (is_zero_constant(length2)) {
        diags_.error(axis_at, "the axis of rot(axis, angle) is the zero vector");
        return std::nullopt;
    }
    ex const length = GiNaC::sqrt(length2);
    ex const x = axis.elems[0] / length, y = axis.elems[1] / length, z = axis.elems[2] / length;
    ex const c = GiNaC::cos(angle.elems[0]), s = GiNaC::sin(angle.elems[0]), v = 1 - c;
    return value{value::kind::matrix, 3, 3,
                 {c + x * x * v, x * y * v - z * s, x * z * v + y * s,
                  y * x * v + z * s, c + y * y * v, y * z * v - x * s,
                  z * x * v - y * s, z * y * v + x * s, c + z * z * v}};
}

} // namespace lagc::checking
