// Crafted hostile ONNX models (issue 27; tests/fixtures/onnx-hostile/, made by make-cases.mjs): each must stop at
// the stage cases.json names (load, forward, backward) with a message matching its pattern, or ("ok") run through
// forward and backward — never crash, read out of bounds, throw, or exhaust memory. onnx_info (the CLI's and the
// page's summary) must answer every one and its JSON must serialise. The same cases run in the wasm core in
// tests/node/onnx_hostile_wasm.test.mjs. Negative control: a wrong expectation is reported as a mismatch.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx/onnx_explain.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

const std::string kHostileDir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx-hostile/";

// Runs one case; "" when it behaved as expected, else what went wrong.
std::string run_hostile_case(const std::vector<uint8_t>& bytes, const std::string& stage, const std::string& expect) {
  nlohmann::json info;
  std::string err;
  if (onnx_info(bytes.data(), bytes.size(), 0, &info, &err)) {
    const std::string text = info.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.empty()) return "onnx_info gave no JSON";
  } else if (err.empty()) {
    return "onnx_info failed without a message";
  }
  auto stopped = [&](const std::string& at, const std::string& message) -> std::string {
    if (message.empty()) return at + " failed without a message";
    if (stage != at) return "stopped at " + at + " (expected " + stage + "): " + message;
    if (!std::regex_search(message, std::regex(expect, std::regex::icase)))
      return "message at " + at + " does not match /" + expect + "/: " + message;
    return "";
  };
  OnnxClassifier clf;
  if (!clf.load(bytes.data(), bytes.size(), &err)) return stopped("load", err);
  const auto shape = clf.input_shape();
  std::vector<float> x(static_cast<size_t>(shape[1] * shape[2] * shape[3]), 0.5f);
  if (!clf.forward(x.data(), x.size(), &err)) return stopped("forward", err);
  std::vector<float> g;
  if (!clf.backward_class(0, &err) || !clf.input_gradient(&g, &err)) return stopped("backward", err);
  if (stage != "ok") return "ran through backward (expected to stop at " + stage + ")";
  if (g.size() != x.size()) return "input gradient of the wrong size";
  return "";
}

nlohmann::json hostile_cases() {
  std::ifstream f(kHostileDir + "cases.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

TEST(OnnxHostile, EveryCraftedCaseStopsWhereExpectedWithItsMessage) {
  const nlohmann::json cases = hostile_cases();
  ASSERT_TRUE(cases.is_array());
  ASSERT_GE(cases.size(), 30u);
  int ok = 0;
  for (const auto& c : cases) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(test::read_bytes(kHostileDir + c["file"].get<std::string>(), &bytes)) << c["file"];
    const std::string r = run_hostile_case(bytes, c["stage"], c["expect"]);
    EXPECT_EQ(r, "") << c["name"].get<std::string>() << " (" << c["class"].get<std::string>() << ")";
    ok += r.empty();
  }
  EXPECT_EQ(ok, static_cast<int>(cases.size()));
}

TEST(OnnxHostile, NegativeControlAWrongExpectationIsAMismatch) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(kHostileDir + "reshape-count-wraps.onnx", &bytes));
  EXPECT_EQ(run_hostile_case(bytes, "forward", "cannot reshape"), "");
  EXPECT_NE(run_hostile_case(bytes, "ok", ""), "");
  EXPECT_NE(run_hostile_case(bytes, "forward", "some other message"), "");
  ASSERT_TRUE(test::read_bytes(kHostileDir + "int-add-overflow.onnx", &bytes));
  EXPECT_NE(run_hostile_case(bytes, "load", "anything"), "");
}

// The budget is the executor's, not four caps: lowering it stops an ordinary model, with the node named.
TEST(OnnxHostile, LoweredBudgetStopsAGoodModelNamingTheNode) {
  onnx::Model m;
  std::string err;
  ASSERT_TRUE(test::load_model_file(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &m, &err)) << err;
  onnx::Executor<float> ex;
  ASSERT_TRUE(ex.load(m, &err)) << err;
  const int64_t weights = ex.live_bytes();
  const auto x = onnx::Tensor<float>::floats({1, 3, 112, 112}, 0.5f);
  ASSERT_TRUE(ex.forward({{m.inputs[0].name, x}}, &err)) << err;
  EXPECT_GT(ex.live_bytes(), weights);
  onnx::ExecLimits small;
  small.max_live_bytes = (weights + ex.live_bytes()) / 2;
  onnx::Executor<float> tight;
  tight.set_limits(small);
  ASSERT_TRUE(tight.load(m, &err)) << err;  // the weights fit
  EXPECT_FALSE(tight.forward({{m.inputs[0].name, x}}, &err));
  EXPECT_NE(err.find("node '"), std::string::npos) << err;
  EXPECT_NE(err.find("alive"), std::string::npos) << err;
  small = onnx::ExecLimits();
  small.max_node_work = 2000000;  // the folded weights fit; the first Conv (5.2M multiply-adds at 112²) does not
  tight.set_limits(small);
  ASSERT_TRUE(tight.load(m, &err)) << err;
  EXPECT_FALSE(tight.forward({{m.inputs[0].name, x}}, &err));
  EXPECT_NE(err.find("(Conv)"), std::string::npos) << err;
  EXPECT_NE(err.find("work"), std::string::npos) << err;
}

}  // namespace
}  // namespace attnlab
