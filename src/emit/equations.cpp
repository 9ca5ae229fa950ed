// --equations: the document (equations.hpp). The expressions are derive's (M, h, ∂V/∂q, Q, A,
// the right-hand side of A q̈ = r), made readable (equations_latex.hpp) and printed with the
// parts several of them share named once.
#include "emit/equations.hpp"

#include "emit/equations_latex.hpp"
#include "symbolic/simplify.hpp"

#include <charconv>
#include <sstream>

namespace lagc {

using namespace GiNaC;

namespace {

// A part of the document: a heading, a paragraph (with inline math) or a displayed equation.
struct block {
    enum class kind { heading, text, math } type;
    std::string text; // math: the equation, placeholders of shared parts until resolved
};

// The largest expression (tree_size) the Euler–Lagrange rows and C q̇ are written out for;
// a larger model gets them in terms of M_ij, h_i and Q_i.
constexpr std::size_t max_written_row = 3000;

// What the document prints, each expression in its readable form (kept together so that the
// shared parts are found among exactly the expressions printed).
struct readable_parts {
    ex T, V, L, D;
    exvector M, h, dV, Cqd, Q, c, A, r, rows;
    bool rows_written = true;
    exvector all() const {
        exvector out{T, V, L, D};
        for (auto const* v : {&M, &h, &dV, &Cqd, &Q, &c, &A, &r, &rows}) out.insert(out.end(), v->begin(), v->end());
        return out;
    }
};

readable_parts make_readable(model const& m, derived const& d) {
    readable_parts r;
    auto rd = [&](ex const& e) { return readable(e, m.p); };
    auto all = [&](exvector const& from, exvector& to) {
        for (auto const& e : from) to.push_back(rd(e));
    };
    r.T = rd(m.kinetic);
    r.V = rd(m.potential);
    r.L = rd(m.lagrangian);
    r.D = rd(m.dissipation);
    all(d.mass_matrix, r.M);
    all(d.bias, r.h);
    all(d.potential_gradient, r.dV);
    all(d.generalized_forces, r.Q);
    all(d.constraint_residuals, r.c);
    all(d.constraint_jacobian, r.A);
    all(d.constraint_rhs, r.r);
    std::size_t const n = d.nq;
    for (std::size_t i = 0; i < n && r.rows_written && d.qdd.size() == n; ++i) {
        ex row = d.bias[i];
        for (std::size_t j = 0; j < n; ++j) row += d.mass_matrix[i * n + j] * d.qdd[j];
        for (std::size_t k = 0; k < d.nc && k < d.lambda.size(); ++k) row += d.constraint_jacobian[k * n + i] * d.lambda[k];
        ex const cqd = d.bias[i] - d.potential_gradient[i];
        r.rows_written = tree_size(row) <= max_written_row && tree_size(cqd) <= max_written_row;
        r.rows.push_back(rd(row));
        r.Cqd.push_back(rd(cqd));
    }
    if (!r.rows_written || d.qdd.size() != n) r.rows.clear(), r.Cqd.clear(), r.rows_written = false;
    return r;
}

// The shortest decimal that reads back as v (10, not 1e+01).
std::string decimal(double v) {
    char buffer[40];
    auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
}

std::string index_of(std::size_t i, std::size_t j, std::size_t n) {
    return n < 10 ? std::to_string(i + 1) + std::to_string(j + 1) : std::to_string(i + 1) + "," + std::to_string(j + 1);
}

class writer {
public:
    writer(model const& m, derived const& d) : m_(m), d_(d), tex_(m, &d), r_(make_readable(m, d)) {
        tex_.share_parts(r_.all());
    }
    std::vector<block> blocks;

    void heading(std::string t) { blocks.push_back({block::kind::heading, std::move(t)}); }
    void text(std::string t) { blocks.push_back({block::kind::text, std::move(t)}); }
    void math(std::string t) { blocks.push_back({block::kind::math, std::move(t)}); }
    std::string p(ex const& e) { return tex_.print(e); }
    std::string list(std::vector<symbol> const& s) {
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + p(s[i]);
        return out;
    }

    void coordinates();
    void energies();
    void mass_matrix();
    void forces();
    void constraints();
    void equations_of_motion();
    std::vector<std::pair<std::string, std::string>> resolve();
    latex_printer& printer() { return tex_; }

private:
    model const& m_;
    derived const& d_;
    latex_printer tex_;
    readable_parts r_;
};

void writer::coordinates() {
    heading("Coordinates, inputs and parameters");
    text("Generalized coordinates $q = (" + list(m_.q) + ")$, velocities $\\dot q = (" + list(m_.qd) + ")$" +
         (m_.u.empty() ? std::string(".") : ", inputs $u = (" + list(m_.u) + ")$."));
    if (m_.p.empty()) return;
    std::string s;
    for (std::size_t i = 0; i < m_.p.size(); ++i)
        s += (i ? ", " : "") + std::string("$") + p(m_.p[i]) + " = " + decimal(m_.parameters[i].default_value) + "$";
    text("Parameters (their defaults): " + s + ".");
}

void writer::energies() {
    heading("Energies and the Lagrangian");
    math("T = " + p(r_.T));
    math("V = " + p(r_.V));
    math(r_.L.is_zero() ? std::string("L = T - V") : "L = T - V + " + p(r_.L));
    if (!r_.D.is_zero()) math("D = " + p(r_.D));
    if (!r_.D.is_zero()) text("$D$ is the Rayleigh dissipation function: its force $-\\partial D/\\partial \\dot q$ is in $Q$.");
}

void writer::mass_matrix() {
    std::size_t const n = d_.nq;
    heading("Mass matrix");
    text("$M(q) = \\partial^2 T / \\partial \\dot q^2$, symmetric; the entries on and above the diagonal"
         " (every entry not listed is 0):");
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i; j < n; ++j) {
            ex const& e = r_.M[i * n + j];
            if (e.is_zero()) continue;
            std::string lhs = "M_{" + index_of(i, j, n) + "}";
            if (j != i) lhs += " = M_{" + index_of(j, i, n) + "}";
            math(lhs + " = " + p(e));
        }
}

void writer::forces() {
    std::size_t const n = d_.nq;
    heading("Bias forces, gravity and generalized forces");
    text("$h(q, \\dot q) = C(q, \\dot q)\\,\\dot q + \\partial V / \\partial q$ (with $\\partial L/\\partial t$ terms where"
         " the model has them), and $Q$ the generalized forces of the inputs, forces and dissipation:");
    for (std::size_t i = 0; i < n; ++i) math("h_{" + std::to_string(i + 1) + "} = " + p(r_.h[i]));
    for (std::size_t i = 0; i < n; ++i)
        if (!r_.Cqd.empty() && !r_.Cqd[i].is_zero()) math("(C\\dot q)_{" + std::to_string(i + 1) + "} = " + p(r_.Cqd[i]));
    for (std::size_t i = 0; i < n; ++i)
        if (!r_.dV[i].is_zero()) math("\\frac{\\partial V}{\\partial " + p(m_.q[i]) + "} = " + p(r_.dV[i]));
    for (std::size_t i = 0; i < n; ++i) math("Q_{" + std::to_string(i + 1) + "} = " + p(r_.Q[i]));
}

void writer::constraints() {
    if (d_.nc == 0) return;
    std::size_t const n = d_.nq;
    heading("Constraints");
    text("Holonomic rows $c_k(q, t) = 0$ first, then velocity rows $g_k(q, \\dot q, t) = 0$; $A = \\partial \\dot c/\\partial"
         " \\dot q$ their Jacobian (every entry not listed is 0), and $A\\,\\ddot q = r$ the rows differentiated"
         " (Baumgarte-stabilised where the model asks for it):");
    for (std::size_t k = 0; k < d_.nc; ++k)
        math((k < d_.holonomic_rows ? "c_{" : "g_{") + std::to_string(k + 1) + "} = " + p(r_.c[k]) + " = 0");
    for (std::size_t k = 0; k < d_.nc; ++k)
        for (std::size_t j = 0; j < n; ++j)
            if (!r_.A[k * n + j].is_zero()) math("A_{" + index_of(k, j, n) + "} = " + p(r_.A[k * n + j]));
    for (std::size_t k = 0; k < d_.nc; ++k) math("r_{" + std::to_string(k + 1) + "} = " + p(r_.r[k]));
}

void writer::equations_of_motion() {
    std::size_t const n = d_.nq;
    heading("Euler-Lagrange equations");
    bool const c = d_.nc > 0;
    math(std::string("\\frac{d}{dt}\\frac{\\partial L}{\\partial \\dot q} - \\frac{\\partial L}{\\partial q} ") +
         (c ? "+ A^{T}\\lambda " : "") + "= Q \\quad\\Longleftrightarrow\\quad M(q)\\,\\ddot q + h(q, \\dot q) " +
         (c ? "+ A^{T}\\lambda " : "") + "= Q");
    if (r_.rows_written) {
        text("Row by row:");
        for (std::size_t i = 0; i < n; ++i) math(p(r_.rows[i]) + " = " + p(r_.Q[i]));
    }
    if (!c) return;
    text("With the constraints, $\\ddot q$ and the multipliers $\\lambda = (" + list(d_.lambda) +
         ")$ solve the KKT system:");
    math("\\begin{bmatrix} M(q) & A(q)^{T} \\\\ A(q) & 0 \\end{bmatrix} \\begin{bmatrix} \\ddot q \\\\ \\lambda"
         " \\end{bmatrix} = \\begin{bmatrix} Q - h \\\\ r \\end{bmatrix}");
}

// The placeholders of shared parts named s_1, s_2, … in the order the document needs them.
std::vector<std::pair<std::string, std::string>> writer::resolve() {
    std::string all;
    for (auto const& b : blocks) all += b.text + '\x03';
    std::vector<std::pair<std::string, std::string>> definitions;
    std::string const done = tex_.resolve(all, definitions);
    std::size_t at = 0;
    for (auto& b : blocks) {
        std::size_t const end = done.find('\x03', at);
        b.text = done.substr(at, end - at);
        at = end + 1;
    }
    return definitions;
}

// Where an equation is long, one line per group of terms (at the top level's + and -).
std::string broken(std::string const& e) {
    constexpr std::size_t width = 160;
    if (e.size() <= width) return e;
    std::size_t const eq = e.find(" = ");
    std::string out = "\\begin{aligned}\n" + (eq == std::string::npos ? std::string("& ") : e.substr(0, eq) + " = {} & ");
    int depth = 0;
    std::size_t line = 0;
    for (std::size_t i = eq == std::string::npos ? 0 : eq + 3; i < e.size(); ++i) {
        char const ch = e[i];
        if (ch == '{') ++depth;
        if (ch == '}') --depth;
        if (e.compare(i, 5, "\\left") == 0) ++depth;
        if (e.compare(i, 6, "\\right") == 0) --depth;
        bool const split = depth == 0 && line > width && (e.compare(i, 3, " + ") == 0 || e.compare(i, 3, " - ") == 0);
        if (split) {
            out += " \\\\\n& {}" + std::string(1, e[i + 1]);
            i += 1;
            line = 0;
            continue;
        }
        out += ch;
        ++line;
    }
    return out + "\n\\end{aligned}";
}

std::string tex_escape(std::string const& s) {
    std::string out;
    for (char c : s) {
        if (c == '_' || c == '#' || c == '%' || c == '&' || c == '$' || c == '{' || c == '}') out += '\\';
        out += c;
    }
    return out;
}

std::string render(std::vector<block> const& blocks, equations_format format, std::string const& name,
                   std::string const& source, std::string const& preface) {
    bool const md = format == equations_format::markdown;
    std::string out = md ? "# Equations of motion of `" + name + "` (`" + source + "`)\n\n"
                         : "\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{longtable}\n\\usepackage[margin=2cm]{geometry}\n"
                           "\\allowdisplaybreaks\n\\begin{document}\n\\section*{Equations of motion of \\texttt{" +
                               tex_escape(name) + "} (\\texttt{" + tex_escape(source) + "})}\n\n";
    out += preface;
    for (auto const& b : blocks) {
        if (b.type == block::kind::heading) out += md ? "## " + b.text + "\n\n" : "\\subsection*{" + b.text + "}\n\n";
        else if (b.type == block::kind::text) out += b.text + "\n\n";
        else out += md ? "$$" + broken(b.text) + "$$\n\n" : "\\[\n" + broken(b.text) + "\n\\]\n\n";
    }
    return md ? out : out + "\\end{document}\n";
}

} // namespace

std::string write_equations(model const& m, derived const& d, equations_format format, std::string const& source,
                            std::string const& preface) {
    writer w(m, d);
    w.coordinates();
    w.energies();
    w.mass_matrix();
    w.forces();
    w.constraints();
    w.equations_of_motion();
    auto const definitions = w.resolve();
    if (!definitions.empty()) {
        w.heading("Shared subexpressions");
        w.text("Parts that several of the expressions above use, named once:");
        for (auto const& [name, value] : definitions) w.math(name + " = " + value);
    }
    return render(w.blocks, format, m.name, source, preface);
}

} // namespace lagc
