// The host's interrupt word (core/parallel/interrupt.h): the ONNX executor checks it before each node, so a call that
// the page stops ends within one node's work.
//   - set before a pass: forward and backward fail with kInterruptedMessage; cleared, the same pass gives the same
//     logits as before (nothing of the stopped pass stays);
//   - set by another thread while passes run (the page writing the worker's memory): the running loop of passes ends
//     with that message;
//   - the attention-model interface on the shipped stories260K: freezing an instance (the debate's first step) fails
//     with the message; cleared, it succeeds (the negative control: the failure is the word's doing).
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx_text/onnx_attention_model.h"
#include "onnx_test_util.h"
#include "parallel/interrupt.h"
#include "text/subword_tokenizer.h"

namespace attnlab {
namespace {

const std::string kInterruptModel = std::string(ATTNLAB_SOURCE_DIR) + "/models/image/mobilenet_v2.onnx";

std::vector<float> interrupt_photo() {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.f, 255.f);
  std::vector<float> x(3 * 224 * 224);
  for (float& v : x) v = u(rng);
  return x;
}

// MobileNetV2 loaded and a fixed photo; the word cleared after each test.
class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    ASSERT_TRUE(test::load_classifier_file(kInterruptModel, &clf_, &err)) << err;
    x_ = interrupt_photo();
  }
  void TearDown() override { clear_interrupt(); }
  bool forward(std::string* err) { return clf_.forward(x_.data(), x_.size(), err); }
  OnnxClassifier clf_;
  std::vector<float> x_;
};

TEST_F(Interrupt, AnInterruptedPassFailsWithItsMessageAndTheNextPassIsWhole) {
  std::string err;
  ASSERT_TRUE(forward(&err)) << err;
  const std::vector<float> logits = clf_.logits();

  request_interrupt();
  EXPECT_TRUE(interrupted());
  EXPECT_FALSE(forward(&err));
  EXPECT_EQ(err, kInterruptedMessage);
  clear_interrupt();
  ASSERT_TRUE(forward(&err)) << err;
  EXPECT_EQ(clf_.logits(), logits);

  request_interrupt();  // a backward after a whole forward
  EXPECT_FALSE(clf_.backward_class(1, &err));
  EXPECT_EQ(err, kInterruptedMessage);
  clear_interrupt();
  EXPECT_TRUE(clf_.backward_class(1, &err)) << err;
}

TEST_F(Interrupt, AnotherThreadStopsALoopOfPasses) {
  std::string err;
  std::atomic<int> passes{0};
  std::atomic<bool> ended{false};  // the loop ended before any pass ran whole: the thread must not wait for one
  std::thread page([&] {
    while (passes.load() < 1 && !ended.load()) std::this_thread::yield();
    request_interrupt();
  });
  bool stopped = false;
  for (int k = 0; k < 100000 && !stopped; ++k) {
    if (forward(&err)) passes.fetch_add(1);
    else stopped = true;
  }
  ended = true;
  page.join();
  EXPECT_TRUE(stopped);
  EXPECT_EQ(err, kInterruptedMessage);
  EXPECT_GE(passes.load(), 1);
}

TEST(InterruptDebate, TheDebateOnAUsersModelStopsAtItsFirstPass) {
  struct ClearAfter {
    ~ClearAfter() { clear_interrupt(); }
  } clear;
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/stories260K/";
  const std::string bytes = test::read_text(dir + "model.onnx");
  OnnxTextModel model;
  std::string error;
  ASSERT_TRUE(model.load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "", &error)) << error;
  auto tok = load_tokenizer(test::read_text(dir + "tokenizer.bin"), &error);
  ASSERT_TRUE(tok) << error;
  Tokenization t;
  ASSERT_TRUE(tok->encode("Lily and Ben went to the park. They", true, &t, &error)) << error;
  Instance inst;
  inst.ids = t.ids;
  inst.special = t.special;
  OnnxAttentionModel am(model);
  ASSERT_TRUE(am.prepare(inst.ids, &error)) << error;

  request_interrupt();
  EXPECT_EQ(am.freeze(inst, &error), nullptr);
  EXPECT_EQ(error, kInterruptedMessage);
  clear_interrupt();
  EXPECT_NE(am.freeze(inst, &error), nullptr) << error;
}

}  // namespace
}  // namespace attnlab
