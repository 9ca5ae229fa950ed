// Every model in models/ regenerated in-process must equal generated/ byte for byte.
#include "driver/compiler.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string read(fs::path const& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> model_names() {
    std::vector<std::string> names;
    for (auto const& e : fs::directory_iterator(fs::path(LAGC_SOURCE_DIR) / "models"))
        if (e.path().extension() == ".lag") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesCheckedInOutput) {
    std::string const name = GetParam();
    fs::path const root(LAGC_SOURCE_DIR);
    lagc::compile_options o;
    o.emit.source_name = "models/" + name + ".lag";
    o.emit.header_name = name + ".hpp";
    auto r = lagc::compile(read(root / o.emit.source_name), o);
    ASSERT_TRUE(r.files.has_value()) << "lagc reports errors for " << o.emit.source_name;
    bool update = std::getenv("LAGC_UPDATE_GOLDEN") != nullptr;
    for (auto const& [file, text] : {std::pair{name + ".hpp", r.files->header}, std::pair{name + ".cpp", r.files->source}}) {
        fs::path golden = root / "generated" / file;
        if (update) {
            std::ofstream(golden, std::ios::binary) << text;
            continue;
        }
        ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run: cmake --build build --target update_goldens";
        EXPECT_TRUE(read(golden) == text)
            << "generated/" << file << " needs to be regenerated; run: cmake --build build --target update_goldens "
            << "(then review the diff)";
    }
}

// The C output (-o NAME.c) of every model equals generated/c/ byte for byte; its header is
// the --c-api header but for the comment that says where the functions are defined.
TEST_P(Golden, COutputMatchesCheckedInOutput) {
    std::string const name = GetParam();
    fs::path const root(LAGC_SOURCE_DIR);
    lagc::compile_options o;
    o.emit.source_name = "models/" + name + ".lag";
    o.emit.header_name = name + ".h";
    o.emit.c_output = true;
    auto r = lagc::compile(read(root / o.emit.source_name), o);
    ASSERT_TRUE(r.files.has_value()) << "lagc reports errors for " << o.emit.source_name;
    bool update = std::getenv("LAGC_UPDATE_GOLDEN") != nullptr;
    for (auto const& [file, text] : {std::pair{name + ".h", r.files->header}, std::pair{name + ".c", r.files->source}}) {
        fs::path golden = root / "generated" / "c" / file;
        if (update) {
            fs::create_directories(golden.parent_path());
            std::ofstream(golden, std::ios::binary) << text;
            continue;
        }
        ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run: cmake --build build --target update_goldens";
        EXPECT_TRUE(read(golden) == text)
            << "generated/c/" << file << " needs to be regenerated; run: cmake --build build --target update_goldens "
            << "(then review the diff)";
    }
    lagc::compile_options api;
    api.emit.source_name = o.emit.source_name;
    api.emit.header_name = name + ".hpp";
    api.emit.c_api = true;
    api.emit.c_header_name = name + ".h";
    auto with_api = lagc::compile(read(root / o.emit.source_name), api);
    ASSERT_TRUE(with_api.files.has_value());
    // The comment after the banner, up to its "*/", and the stack figures (of the C functions,
    // and of the C++ functions the --c-api wrappers call) are the only differences.
    auto without_about = [&](std::string text) {
        std::size_t const start = text.find("\n/* ") + 1, end = text.find("*/\n", start) + 3;
        text.erase(start, end - start);
        std::string const stack = "enum { " + name + "_stack_bytes_";
        for (std::size_t at = text.find(stack); at != std::string::npos; at = text.find(stack, at))
            text.erase(at, text.find('\n', at) + 1 - at);
        return text;
    };
    EXPECT_EQ(without_about(r.files->header), without_about(with_api.files->c_header))
        << name << ": the C output's header and --c-api's differ";
}

// The header declares each function of the API once, with its comment.
TEST_P(Golden, HeaderDeclaresEachFunctionOnce) {
    std::string const header = read(fs::path(LAGC_SOURCE_DIR) / "generated" / (GetParam() + ".hpp"));
    std::istringstream lines(header);
    std::map<std::string, int> declared;
    std::string line, previous;
    while (std::getline(lines, line)) {
        for (char const* result : {"void ", "int ", "double "}) {
            if (line.rfind(result, 0) != 0) continue;
            std::string name = line.substr(std::string(result).size(), line.find('(') - std::string(result).size());
            ++declared[name];
            EXPECT_EQ(previous.rfind("//", 0), 0u) << name << " is declared without a comment";
        }
        previous = line;
    }
    ASSERT_FALSE(declared.empty());
    for (auto const& [name, count] : declared) EXPECT_EQ(count, 1) << name << " is declared " << count << " times";
}

// The composites are taken about the point the positions share (point_composite::
// common_origin): the Panda-like arm's base height, 0.333 in every link's z, is in none of
// forward dynamics' terms, while the model's positions (its potential energy) still hold it.
// Their values are the same (MuJoCo.PandaLikeAgreesToRoundOff checks M, h and q̈).
TEST(Golden, PandaCompositesAreAboutTheBaseHeight) {
    std::string const text = read(fs::path(LAGC_SOURCE_DIR) / "generated" / "panda_like.cpp");
    std::size_t parts = 0;
    for (std::size_t at = text.find("void dynamics_terms_part"); at != std::string::npos;
         at = text.find("void dynamics_terms_part", at + 1)) {
        std::string const body = text.substr(at, text.find("\n}\n", at) - at);
        EXPECT_EQ(body.find("0.333"), std::string::npos) << body.substr(0, body.find('\n'));
        ++parts;
    }
    EXPECT_GE(parts, 2u);
    std::size_t const energy = text.find("void potential_energy_part0(");
    ASSERT_NE(energy, std::string::npos);
    EXPECT_NE(text.substr(energy, text.find("\n}\n", energy) - energy).find("0.333"), std::string::npos);
}

// The composites work in the first link's axes (point_frame.cpp): an arm whose first joint
// turns about the vertical has M, h and its weights' torques free of that joint's angle
// there, so no part of forward dynamics' terms reads q[0] (each did before, for sin q1 and
// cos q1 in every link's position), a fixed turn before the joint (the arm on a ceiling)
// included. The linearization still reads it (its derivatives are in world axes).
TEST(Golden, ArmsForwardDynamicsReadNoFirstJointAngle) {
    for (std::string const arm : {"panda_like", "iiwa_like", "iiwa_ceiling", "ur5_like"}) {
        std::string const text = read(fs::path(LAGC_SOURCE_DIR) / "generated" / (arm + ".cpp"));
        std::size_t parts = 0;
        for (std::size_t at = text.find("void dynamics_terms_part"); at != std::string::npos;
             at = text.find("void dynamics_terms_part", at + 1)) {
            std::string const body = text.substr(at, text.find("\n}\n", at) - at);
            EXPECT_EQ(body.find("q[0]"), std::string::npos) << arm << ": " << body.substr(0, body.find('\n'));
            ++parts;
        }
        EXPECT_GE(parts, 2u) << arm;
        EXPECT_NE(text.find("q[0]"), std::string::npos) << arm;
    }
}

// The same with the base's height a parameter h0: the part of the positions free of q is
// taken off whether it is a number or not.
TEST(Golden, PandaCompositesAreAboutAParameterBaseHeight) {
    std::string model = read(fs::path(LAGC_SOURCE_DIR) / "models" / "panda_like.lag");
    for (auto const& [from, to] : {std::pair<std::string, std::string>{"let o1 = [0.0, 0.0, 0.333]", "let o1 = [0.0, 0.0, h0]"},
                                   {"coordinate q1", "parameter h0 = 0.333\ncoordinate q1"}}) {
        std::size_t const at = model.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        model.replace(at, from.size(), to);
    }
    lagc::compile_options o;
    o.emit.source_name = "panda_h0.lag";
    o.emit.header_name = "panda_h0.hpp";
    auto const r = lagc::compile(model, o);
    ASSERT_TRUE(r.files.has_value());
    std::string const& text = r.files->source;
    std::size_t parts = 0;
    for (std::size_t at = text.find("void dynamics_terms_part"); at != std::string::npos;
         at = text.find("void dynamics_terms_part", at + 1)) {
        std::string const body = text.substr(at, text.find("\n}\n", at) - at);
        EXPECT_EQ(body.find("p.h0"), std::string::npos) << body.substr(0, body.find('\n'));
        ++parts;
    }
    EXPECT_GE(parts, 2u);
    EXPECT_NE(text.find("p.h0"), std::string::npos); // in the potential energy
}

INSTANTIATE_TEST_SUITE_P(Models, Golden, ::testing::ValuesIn(model_names()),
                         [](auto const& info) { return info.param; });

TEST(Golden, EveryGeneratedFileHasAModel) {
    auto names = model_names();
    for (auto const& e : fs::recursive_directory_iterator(fs::path(LAGC_SOURCE_DIR) / "generated")) {
        if (e.is_directory()) continue; // generated/c: the C output
        std::string stem = e.path().stem().string();
        EXPECT_TRUE(std::find(names.begin(), names.end(), stem) != names.end())
            << e.path() << " has no model in models/";
    }
}

} // namespace
