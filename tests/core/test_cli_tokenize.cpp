// `attnlab tokenize`: the last stdout line is one JSON object (ids, tokens, offsets, special) for a Hugging Face
// tokenizer.json and for llama2.c's tok512.bin; --no-special leaves the template out; an unsupported or broken
// tokenizer file is refused with exit code 1 and a message. Runs the built CLI (ATTNLAB_CLI).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

struct TokCliRun {
  int rc;
  std::string out;  // stdout
  std::string err;  // stderr
  nlohmann::json last() const {
    std::string s = out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    const size_t nl = s.rfind('\n');
    return nlohmann::json::parse(nl == std::string::npos ? s : s.substr(nl + 1), nullptr, false);
  }
};

class CliTokenize : public ::testing::Test {
 protected:
  static std::string dir_;
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/attnlab-tokcli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/unigram.json") << R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})";
    std::ofstream(dir_ + "/broken.json") << R"({"model": {"type": "WordPiece", )";
  }
  static void TearDownTestSuite() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // args are passed through the shell: quote them.
  static TokCliRun run(const std::string& args) {
    const std::string out = dir_ + "/out.txt", err = dir_ + "/err.txt";
    const int status = std::system(("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" '" +
                                    std::string(ATTNLAB_CLI) + "' " + args + " >'" + out + "' 2>'" + err + "'")
                                       .c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
  }
  static std::string data(const std::string& rel) { return std::string(ATTNLAB_DATA_DIR) + "/" + rel; }
};
std::string CliTokenize::dir_;

TEST_F(CliTokenize, BertTokenizerJson) {
  const std::string tok = data("tokenizers/bert-wordpiece-uncased/tokenizer.json");
  if (slurp(tok).empty()) GTEST_SKIP() << "no " << tok;
  TokCliRun r = run("tokenize --tokenizer '" + tok + "' --text 'Hello, world!'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = r.last();
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["ids"], nlohmann::json({101, 7592, 1010, 2088, 999, 102}));
  EXPECT_EQ(j["tokens"], nlohmann::json({"[CLS]", "hello", ",", "world", "!", "[SEP]"}));
  EXPECT_EQ(j["offsets"], nlohmann::json::parse("[[0,0],[0,5],[5,6],[7,12],[12,13],[13,13]]"));
  EXPECT_EQ(j["special"], nlohmann::json({1, 0, 0, 0, 0, 1}));
  r = run("tokenize --tokenizer '" + tok + "' --text 'Hello, world!' --no-special");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.last()["ids"], nlohmann::json({7592, 1010, 2088, 999}));
}

TEST_F(CliTokenize, RobertaTokenizerJsonAndLlama2cTok512) {
  const std::string rob = data("tokenizers/roberta-bytelevel-bpe/tokenizer.json");
  const std::string l2c = data("stories260K/tok512.bin");
  if (slurp(rob).empty() || slurp(l2c).empty()) GTEST_SKIP() << "no ../shared/data tokenizers";
  TokCliRun r = run("tokenize --tokenizer '" + rob + "' --text ' Hello world'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.last()["ids"], nlohmann::json({0, 20920, 232, 2}));
  EXPECT_EQ(r.last()["special"], nlohmann::json({1, 0, 0, 1}));
  r = run("tokenize --tokenizer '" + l2c + "' --text 'Once upon a time'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = r.last();
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["ids"][0], 1);
  EXPECT_EQ(j["special"][0], 1);
  EXPECT_EQ(j["kind"], "llama2c-bpe");
  EXPECT_EQ(j["offsets"].back()[1], 16);
}

TEST_F(CliTokenize, RefusesUnsupportedAndBrokenFiles) {
  TokCliRun r = run("tokenize --tokenizer '" + dir_ + "/unigram.json' --text x");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("model type 'Unigram' is not supported"), std::string::npos) << r.err;
  r = run("tokenize --tokenizer '" + dir_ + "/broken.json' --text x");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  r = run("tokenize --tokenizer '" + dir_ + "' --text x");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = run("tokenize --tokenizer '" + dir_ + "/missing.json' --text x");
  EXPECT_EQ(r.rc, 1);
}

}  // namespace
