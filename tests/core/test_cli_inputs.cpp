// Files the CLI is given (issues 27 and 29), through build/attnlab: a device as a data, model or checkpoint file
// (/dev/zero, /dev/urandom were read without bound) is refused before reading; a FIFO is read (up to the limit);
// a TSV saved by a spreadsheet with a UTF-8 byte-order mark is read (was "label '﻿0' is not a non-negative
// integer", the BOM invisible), and invisible characters in a bad label are shown escaped.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCliInputsAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCliInputsAsan = true;
#else
constexpr bool kCliInputsAsan = false;
#endif
#else
constexpr bool kCliInputsAsan = false;
#endif

class CliInputs : public ::testing::Test {
 protected:
  static std::string dir_;

  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/attnlab-cli-inputs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  static void TearDownTestSuite() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  static void write(const std::string& name, const std::string& body) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << body;
  }
  static std::string path(const std::string& name) { return dir_ + "/" + name; }

  // rc and stdout + stderr of the CLI. A run that reads without bound is stopped by the time limit (and, outside
  // ASan, a 4 GB address-space limit) instead of filling the machine: rc 124 / 137 or a crash, never a pass.
  static std::pair<int, std::string> run(const std::string& args, const std::string& before = "") {
    const std::string out = dir_ + "/out.txt";
    const std::string limit = kCliInputsAsan ? "" : "ulimit -v 4000000; ";
    const std::string cmd = "sh -c '" + limit + before + "ASAN_OPTIONS=detect_leaks=0 timeout 60 \"" +
                            std::string(ATTNLAB_CLI) + "\" " + args + "' >'" + out + "' 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ss.str()};
  }

  static std::string text_model() { return std::string(ATTNLAB_SOURCE_DIR) + "/models/text/sst2-tanh"; }
  static std::string han_model() { return std::string(ATTNLAB_SOURCE_DIR) + "/models/text/imdb-han"; }
};
std::string CliInputs::dir_;

TEST_F(CliInputs, DevicesAreRefusedBeforeReading) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    auto [rc, out] = run(std::string("eval-text --model ") + text_model() + " --data " + dev);
    EXPECT_EQ(rc, 1) << dev << ": " << out;
    EXPECT_NE(out.find(std::string("cannot read '") + dev + "': it is a character device, not a regular file"),
              std::string::npos)
        << out;
    std::tie(rc, out) = run(std::string("onnx-info --model ") + dev);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("it is a character device, not a regular file"), std::string::npos) << out;
  }
  // A model folder whose checkpoint is a device (a link to /dev/zero).
  ASSERT_EQ(std::system(("mkdir -p '" + path("model") + "' && cp '" + text_model() + "/config.json' '" + path("model") +
                         "/' && ln -sf /dev/zero '" + path("model") + "/model.safetensors'")
                            .c_str()),
            0);
  auto [rc, out] = run("explain-text --model " + path("model") + " --text \"a fine film\"");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("model.safetensors': it is a character device, not a regular file"), std::string::npos) << out;
  // An image.
  std::tie(rc, out) = run(std::string("explain-onnx --model ") + ATTNLAB_SOURCE_DIR +
                          "/tests/fixtures/onnx/squeezenet1_1/model.onnx --image /dev/urandom");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("it is a character device"), std::string::npos) << out;
}

TEST_F(CliInputs, AFifoIsRead) {
  ASSERT_EQ(std::system(("mkfifo '" + path("pipe.tsv") + "'").c_str()), 0);
  auto [rc, out] = run("eval-text --model " + text_model() + " --data " + path("pipe.tsv"),
                       "printf \"1\\tgood\\n0\\tbad\\n\" > " + path("pipe.tsv") + " & ");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"n\":2"), std::string::npos) << out;
}

TEST_F(CliInputs, SpreadsheetTsvWithAByteOrderMark) {
  write("bom.tsv", "\xEF\xBB\xBF" "1\ta fine film\r\n0\ta dull mess\r\n");
  auto [rc, out] = run("eval-text --model " + text_model() + " --data " + path("bom.tsv"));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"n\":2"), std::string::npos) << out;
  std::tie(rc, out) = run("eval-text --model " + han_model() + " --data " + path("bom.tsv"));  // HAN: raw texts
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"n\":2"), std::string::npos) << out;
  // Invisible characters in a bad label are shown.
  write("zwsp.tsv", "1\tgood\n\xE2\x80\x8B" "0\tbad\n");
  std::tie(rc, out) = run("eval-text --model " + text_model() + " --data " + path("zwsp.tsv"));
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("line 2: label '<U+200B>0' is not a non-negative integer"), std::string::npos) << out;
}

}  // namespace
