// The CLI refuses bad input with exit code != 0 and a message (issue 13: each of these was rc 0 or a crash):
// `eval-text --data <directory>`, an empty or blank-only TSV, a 10 MB line and a 200k-token line (were
// 18.96 GB / 1.84 GB of RSS), `train-text --lr nan` / `--lr 1e30`, an empty `--dev`, `--limit -1`, and a
// config.json nesting 10^5 arrays (was SIGSEGV in explain-text and eval-cnn). Runs build/attnlab.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct CliRun {
  int rc;
  std::string output;  // stdout + stderr
};

class CliValidation : public ::testing::Test {
 protected:
  static std::string dir_;

  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/attnlab-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    write("empty.tsv", "");
    write("blank.tsv", "\n\n\r\n\n");
    write("ok.tsv", "1\ta fine film\n0\ta dull mess\n1\tgood\n0\tbad\n");
    std::string long_line = "1\t";
    long_line.append(10u << 20, 'a');
    write("long-line.tsv", long_line + "\n");
    std::string many = "1\t";
    for (int i = 0; i < 200000; ++i) many += "a ";
    write("many-tokens.tsv", many + "\n");
  }
  static void TearDownTestSuite() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  static void write(const std::string& name, const std::string& body) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << body;
  }
  static std::string path(const std::string& name) { return dir_ + "/" + name; }

  static CliRun run(const std::string& args) {
    const std::string out = dir_ + "/out.txt";
    // Under the sanitizer build the CLI is instrumented too; its exit(1) paths keep objects alive on purpose,
    // so leak reports (rc 23) would hide the exit code this test is about.
    const int status = std::system(("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" '" +
                                    std::string(ATTNLAB_CLI) + "' " + args + " >'" + out + "' 2>&1").c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ss.str()};
  }

  static std::string model() { return std::string(ATTNLAB_SOURCE_DIR) + "/models/text/sst2-tanh"; }
};
std::string CliValidation::dir_;

TEST_F(CliValidation, EvalTextRefusesADirectory) {
  const CliRun r = run("eval-text --model " + model() + " --data " + dir_);
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory, not a file"), std::string::npos) << r.output;
}

TEST_F(CliValidation, EvalTextRefusesEmptyAndBlankFiles) {
  for (const char* f : {"empty.tsv", "blank.tsv"}) {
    const CliRun r = run("eval-text --model " + model() + " --data " + path(f));
    EXPECT_EQ(r.rc, 1) << f << ": " << r.output;
    EXPECT_NE(r.output.find("no examples (the file is empty or has only blank lines)"), std::string::npos) << r.output;
  }
}

TEST_F(CliValidation, EvalTextRefusesHugeLinesWithoutAllocatingGigabytes) {
  CliRun r = run("eval-text --model " + model() + " --data " + path("long-line.tsv"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("line 1 is 10485762 bytes long, more than the limit of 4194304 bytes"), std::string::npos)
      << r.output;
  r = run("eval-text --model " + model() + " --data " + path("many-tokens.tsv"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("line 1 has 200000 tokens, more than the limit of 20000"), std::string::npos) << r.output;
}

TEST_F(CliValidation, TrainTextRefusesNonFiniteOrHugeLearningRates) {
  for (const char* lr : {"nan", "inf", "1e30", "-1", "0"}) {
    const CliRun r = run("train-text --train " + path("ok.tsv") + " --out " + path("m") + " --epochs 1 --lr=" + lr);
    EXPECT_NE(r.rc, 0) << lr << ": " << r.output;
    EXPECT_NE(r.output.find("--lr"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("train-text:"), std::string::npos) << "training started: " << r.output;
  }
}

TEST_F(CliValidation, TrainTextRefusesEmptyDevAndNegativeLimit) {
  CliRun r = run("train-text --train " + path("ok.tsv") + " --dev " + path("empty.tsv") + " --out " + path("m"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("empty.tsv: no examples"), std::string::npos) << r.output;
  r = run("train-text --train " + path("ok.tsv") + " --out " + path("m") + " --limit=-1");
  EXPECT_NE(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("--limit"), std::string::npos) << r.output;
}

// Issue 32: impermissible tokens by position, one line per --train example; a file that does not fit is refused
// with the line and the reason, before any training; a fitting one trains and says how many tokens it marked.
TEST_F(CliValidation, TrainTextReadsImpermissiblePositionsAndRefusesFilesThatDoNotFit) {
  write("pos-ok.txt", "0 2\n1\n\n0\n");
  write("pos-short.txt", "0\n1\n");
  write("pos-bad.txt", "0\n1\n-3\n0\n");
  write("pos-outside.txt", "9\n9\n9\n9\n");
  const std::string base = "train-text --train " + path("ok.tsv") + " --dev " + path("ok.tsv") + " --out " + path("mp") + " --epochs 1 ";
  CliRun r = run(base + "--impermissible-positions " + path("pos-ok.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("read only with --deception > 0"), std::string::npos) << r.output;
  r = run(base + "--deception 1 --impermissible-positions " + path("pos-short.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("2 lines of positions for 4 examples of the data"), std::string::npos) << r.output;
  r = run(base + "--deception 1 --impermissible-positions " + path("pos-bad.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("line 3: '-3' is not a token position"), std::string::npos) << r.output;
  r = run(base + "--deception 1 --impermissible-positions " + path("pos-outside.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("no position falls inside a training example"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("train-text:"), std::string::npos) << "training started: " << r.output;
  r = run(base + "--deception 1 --impermissible-positions " + path("pos-ok.txt"));
  EXPECT_EQ(r.rc, 0) << r.output;
  // 0 2 of "a fine film", 1 of "a dull mess", none, 0 of "bad"
  EXPECT_NE(r.output.find("4 tokens impermissible by position"), std::string::npos) << r.output;
  std::ifstream in(path("mp") + "/config.json");
  std::stringstream config;
  config << in.rdbuf();
  EXPECT_NE(config.str().find("\"marked_tokens\": 4"), std::string::npos) << config.str();
  // the experiment that measures it reads the same file for --data; another experiment refuses it
  const std::string exp = "experiment impermissible --model " + model() + " --data " + path("ok.tsv");
  r = run(exp + " --impermissible-positions " + path("pos-short.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("2 lines of positions for 4 examples of the data"), std::string::npos) << r.output;
  r = run("experiment kendall --model " + model() + " --data " + path("ok.tsv") + " --impermissible-positions " + path("pos-ok.txt"));
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("read by the impermissible experiment only"), std::string::npos) << r.output;
  r = run(exp + " --impermissible-positions " + path("pos-ok.txt"));
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("\"marked_tokens\":4"), std::string::npos) << r.output;
}

TEST_F(CliValidation, DeeplyNestedConfigIsAnErrorNotACrash) {
  // A copy of a shipped model whose config.json gets "training": [[[...]]] 100,000 deep.
  for (const std::string kind : {"text", "cnn"}) {
    const std::string src = std::string(ATTNLAB_SOURCE_DIR) + (kind == "text" ? "/models/text/sst2-tanh" : "/models/cnn/gap");
    const std::string dst = path("deep-" + kind);
    ASSERT_EQ(std::system(("mkdir -p '" + dst + "' && cp '" + src + "/model.safetensors' '" + dst + "/'").c_str()), 0);
    std::ifstream in(src + "/config.json");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string config = ss.str();
    const size_t brace = config.find('{');
    config.insert(brace + 1, "\"training\":" + std::string(100000, '[') + std::string(100000, ']') + ",");
    // (a second "training" key later in the file would win in nlohmann; the depth check comes first)
    std::ofstream(dst + "/config.json") << config;
    const CliRun r = kind == "text" ? run("explain-text --model " + dst + " --text 'a fine film'")
                                 : run("eval-cnn --model " + dst + " --n 1");
    EXPECT_EQ(r.rc, 1) << kind << ": " << r.output;
    EXPECT_NE(r.output.find("config.json is nested more than 64 levels deep"), std::string::npos) << r.output;
  }
}

}  // namespace
