// GiNaC expressions as LaTeX for reading (--equations): the model's names (theta1 as
// \theta_{1}, der(x) as \dot{x}), operands in an order fixed by the text (never GiNaC's, which
// changes from process to process), products as written by hand (numbers, parameters,
// functions of q, velocities, accelerations) and parts that several expressions share named
// s_1, s_2, … once.
#pragma once

#include "model.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace lagc {

struct derived;

// A name of the model as LaTeX: a Greek letter's name as the letter (theta → \theta, Omega →
// \Omega), trailing digits or what follows the first '_' as a subscript (theta1 → \theta_{1},
// m_cart → m_{\mathrm{cart}}), a longer plain name upright-italic (Ex → \mathit{Ex}).
std::string tex_name(std::string const& name);

// e in the form a reader expects, where e is small enough to expand (else e itself):
// expanded, sin² + cos² = 1 where that shortens it, terms with the same state part (what is
// not a number or a parameter) collected with their coefficient factored ((m1 + m2) l²),
// and cos a cos b ± sin a sin b, sin a cos b ± cos a sin b written cos(a ∓ b), sin(a ± b).
// `p`: the parameters (what may stand in a coefficient).
GiNaC::ex readable(GiNaC::ex const& e, std::vector<GiNaC::symbol> const& p);

class latex_printer {
public:
    // The names of m's symbols, and of d's q̈ and λ where d is given.
    latex_printer(model const& m, derived const* d);

    // Marks the parts of these expressions that are used more than once (by content, as the
    // text would show them; never by address, which changes from process to process) and hold
    // at least `min_size` nodes: printed as a name s_k, defined once (resolve()).
    void share_parts(GiNaC::exvector const& roots, std::size_t min_size = 12);

    // e as LaTeX; a shared part appears as a placeholder until resolve().
    std::string print(GiNaC::ex const& e);

    // The text with every placeholder replaced by its name s_k, numbered in the order the
    // text first needs them (a part's own parts before it); `definitions` gets, in that
    // order, each name and its definition (as LaTeX, placeholders resolved).
    std::string resolve(std::string const& text, std::vector<std::pair<std::string, std::string>>& definitions);

    // How a symbol sorts in a product: 0 numbers, 1 parameters, 2 t, 3 coordinates, 4 inputs,
    // 5 velocities, 6 accelerations, 7 multipliers (and its index within the class).
    struct order {
        int kind = 0;
        std::size_t index = 0;
    };

private:
    struct piece {
        std::string text;
        int precedence = 3; // 0 a sum, 1 a product, 2 a power, 3 an atom
    };
    struct factor {
        GiNaC::ex base;
        GiNaC::numeric exponent;
    };
    std::map<std::string, std::pair<std::string, order>> names_; // GiNaC symbol name → (LaTeX, order)
    std::unordered_map<GiNaC::basic const*, piece> printed_;
    std::unordered_map<GiNaC::basic const*, std::pair<std::uint64_t, int>> hashes_;
    std::unordered_map<GiNaC::basic const*, int> kinds_;
    std::unordered_set<std::uint64_t> shared_; // by hash(): the same part however GiNaC stores it
    std::map<std::uint64_t, GiNaC::ex> definitions_; // placeholder hash → the part
    std::map<std::uint64_t, int> definition_signs_;  // and its value_hash sign
    std::vector<GiNaC::ex> kept_;                    // holds every part whose address is a key

    void name_symbols(std::vector<GiNaC::symbol> const& s, std::vector<std::string> const& names, int kind,
                      std::string const& accent);
    piece reference(GiNaC::ex const& e);
    piece body(GiNaC::ex const& e);
    piece sum(GiNaC::ex const& e);
    // Signs fixed by the text, not by GiNaC's order (which changes from process to process):
    // a sum among the factors, or in a sin or cos, has its first printed term positive, the
    // sign moved to the coefficient where the power is odd ((I_3 - I_1) → -(I_1 - I_3)).
    bool leads_negative(GiNaC::ex const& e);
    void canonical_signs(GiNaC::numeric& coefficient, std::vector<factor>& factors);
    std::string product(GiNaC::numeric coefficient, std::vector<factor> factors);
    std::string factor_text(factor const& f);
    piece function(GiNaC::ex const& e, std::string const& power = "");
    std::string number(GiNaC::numeric const& n);
    std::uint64_t hash(GiNaC::ex const& e);
    std::pair<std::uint64_t, int> value_hash(GiNaC::ex const& e);
    int kind_of(GiNaC::ex const& e); // the largest order::kind of the symbols in e
    void resolve_one(std::uint64_t h, std::map<std::uint64_t, std::string>& names,
                     std::vector<std::pair<std::string, std::string>>& definitions);
    std::string replace_placeholders(std::string const& text, std::map<std::uint64_t, std::string> const& names);
};

} // namespace lagc
