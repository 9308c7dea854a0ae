// The core's thread pool (parallel/parallel_for.h) and the promise built on it: explanations do not depend on the
// thread count (identical rows, compared as bits, on the shipped BiLSTM and transformer).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "experiments/experiment.h"
#include "explain/explain_text.h"
#include "explain/han/explain_han.h"
#include "explain/onnx/onnx_explain.h"
#include "explain/onnx_text/onnx_text_explain.h"
#include "model/han_checkpoint.h"
#include "model/text_checkpoint.h"
#include "onnx/ops/parts.h"
#include "parallel/parallel_for.h"
#include "onnx_test_util.h"
#include "tiny_text_model.h"

namespace attnlab {
namespace {

// Restores the serial default after each test, so the rest of the suite is unaffected.
struct Threads {
  explicit Threads(int n) { set_thread_count(n); }
  ~Threads() { set_thread_count(1); }
};

TEST(ParallelFor, EveryIndexRunsOnceOnSeveralThreads) {
  Threads threads(4);
  ASSERT_EQ(thread_count(), 4);
  for (size_t n : {0u, 1u, 3u, 4u, 5u, 1000u}) {
    std::vector<std::atomic<int>> hits(n);
    std::mutex m;
    std::set<std::thread::id> ids;
    parallel_for(n, [&](size_t i) {
      hits[i]++;
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
      if (n == 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));  // let the others take part
    });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n " << n << " index " << i;
    if (n == 1000) EXPECT_GT(ids.size(), 1u) << "a loop of 1,000 slow items ran on one thread";
  }
}

TEST(ParallelFor, OneThreadRunsInOrderOnTheCaller) {
  Threads threads(1);
  std::vector<size_t> order;
  const auto me = std::this_thread::get_id();
  parallel_for(5, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelFor, ALoopInsideABodyRunsSeriallyOnItsThread) {
  Threads threads(3);
  std::vector<std::atomic<int>> hits(6 * 7);
  parallel_for(6, [&](size_t i) {
    const auto me = std::this_thread::get_id();
    parallel_for(7, [&](size_t j) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      hits[i * 7 + j]++;
    });
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ParallelFor, TheLowestThrowingIndexIsRethrownAfterEveryIndexRan) {
  for (int n : {1, 3}) {
    Threads threads(n);
    std::atomic<int> ran{0};
    try {
      parallel_for(50, [&](size_t i) {
        ++ran;
        if (i == 7 || i == 31) throw std::runtime_error("index " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "index 7");
    }
    // Serially the loop stops at the first throw (index 7); with threads every index runs.
    if (n > 1) EXPECT_EQ(ran.load(), 50);
    // The pool still works after a throw.
    std::atomic<int> again{0};
    parallel_for(10, [&](size_t) { ++again; });
    EXPECT_EQ(again.load(), 10);
  }
}

TEST(ParallelFor, ThreadCountIsClampedAndZeroMeansEveryCore) {
  EXPECT_EQ(set_thread_count(1000), kMaxThreads);
  EXPECT_EQ(set_thread_count(0), hardware_threads());
  EXPECT_GE(hardware_threads(), 1);
  EXPECT_EQ(set_thread_count(1), 1);
}

TEST(ParallelFor, SplitCoversEveryItemInPartsThatDifferByAtMostOne) {
  for (size_t items : {1u, 7u, 8u, 50u, 1001u})
    for (size_t parts = 1; parts <= std::min<size_t>(items, 9); ++parts) {
      EXPECT_EQ(split_begin(items, parts, 0), 0u);
      EXPECT_EQ(split_begin(items, parts, parts), items);
      for (size_t k = 0; k < parts; ++k) {
        const size_t size = split_begin(items, parts, k + 1) - split_begin(items, parts, k);
        EXPECT_TRUE(size == items / parts || size == items / parts + 1) << items << " " << parts << " " << k;
      }
    }
}

// f() run with the core on n threads (the serial default restored after).
template <class F>
auto on_threads(int n, F f) {
  Threads threads(n);
  return f();
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Every row of explain-text on 1 and 3 threads, as bits. Negative control: the same comparison catches a row that
// moved by one unit in the last place.
void expect_rows_identical_across_threads(const std::string& name) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/" + name + "/";
  const std::string config = test::read_text(dir + "config.json"), weights = test::read_text(dir + "model.safetensors");
  ASSERT_FALSE(config.empty()) << "no shipped model at " << dir;
  TextModel model;
  std::string error;
  ASSERT_TRUE(load_text_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &model, &error))
      << error;
  const std::string text =
      "the performances are uniformly good , but the script is a mess and the ending drags on far too long , which is "
      "a shame because the first hour is funny , warm and surprisingly moving";
  const TokenExplanation one = on_threads(1, [&] { return explain_text(model, text, {}); });
  const TokenExplanation three = on_threads(3, [&] { return explain_text(model, text, {}); });
  ASSERT_GT(one.ids.size(), 30u);
  const std::vector<std::pair<const char*, std::pair<const std::vector<double>*, const std::vector<double>*>>> rows = {
      {"probabilities", {&one.probabilities, &three.probabilities}},
      {"attention", {&one.attention, &three.attention}},
      {"gradient", {&one.gradient, &three.gradient}},
      {"leave_one_out", {&one.leave_one_out, &three.leave_one_out}},
      {"integrated_gradients", {&one.integrated_gradients, &three.integrated_gradients}},
      {"rollout", {&one.rollout, &three.rollout}},
      {"attnlrp", {&one.attnlrp, &three.attnlrp}},
      {"value_zeroing", {&one.value_zeroing, &three.value_zeroing}},
      {"alti", {&one.alti, &three.alti}},
  };
  for (const auto& [row, ab] : rows) EXPECT_TRUE(same_bits(*ab.first, *ab.second)) << name << ": row " << row;
  EXPECT_EQ(explanation_json(one), explanation_json(three));
  std::vector<double> moved = one.integrated_gradients;
  moved[3] = std::nextafter(moved[3], 1.0);
  EXPECT_FALSE(same_bits(one.integrated_gradients, moved)) << "the comparison cannot fail";
}

// The HAN's explanation (leave-one-out's word-deleted sentences and integrated gradients' word level in parts): the
// same JSON on 1 and 3 threads, on the shipped IMDB model and a document of several sentences.
TEST(ParallelExplain, HanExplanationIsIdenticalOnOneAndThreeThreads) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/imdb-han/";
  const std::string config = test::read_text(dir + "config.json"), weights = test::read_text(dir + "model.safetensors");
  ASSERT_FALSE(config.empty()) << "no shipped model at " << dir;
  HanModel model;
  std::string error;
  ASSERT_TRUE(load_han_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &model, &error))
      << error;
  const std::string text =
      "The cast is wonderful. The plot, though, is a mess and the ending drags. I laughed twice. Still, the music "
      "and the photography are worth the ticket, and the lead gives the performance of her career.";
  const std::string one = on_threads(1, [&] { return han_explanation_json(explain_han(model, text)); });
  const std::string three = on_threads(3, [&] { return han_explanation_json(explain_han(model, text)); });
  EXPECT_GT(one.size(), 500u);
  EXPECT_EQ(one, three);
}

TEST(ParallelExplain, BiLstmRowsAreIdenticalOnOneAndThreeThreads) { expect_rows_identical_across_threads("sst2-tanh"); }

TEST(ParallelExplain, TransformerRowsAreIdenticalOnOneAndThreeThreads) {
  expect_rows_identical_across_threads("sst2-transformer");
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// Every experiment of the registry that needs nothing beyond the model and its data: the same JSON (rows and
// summary) on 1 and 3 threads, over instances of different lengths; and the progress callback can still cancel.
TEST(ParallelExperiments, EveryExperimentGivesTheSameJsonOnOneAndThreeThreads) {
  const TextModel m = test::tiny_text_model({{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}});
  std::vector<Instance> data;
  for (int i = 0; i < 11; ++i) {
    Instance in;
    in.index = i;
    in.label = i % 2;
    for (int t = 0; t < 3 + (i * 5) % 9; ++t) {
      in.ids.push_back(2 + (i * 7 + t * 3) % 10);
      in.tokens.push_back(std::string(1, static_cast<char>('a' + in.ids.back() - 2)));
    }
    data.push_back(in);
  }
  ExperimentOptions o;
  o.seed = 3;
  int ran = 0;
  for (const Experiment& e : experiment_registry()) {
    if (e.needs_other_models || e.needs_human_rationales) continue;
    SCOPED_TRACE(e.name);
    const std::string one = on_threads(1, [&] { return run_experiment(e, m, data, o).dump(); });
    const std::string three = on_threads(3, [&] { return run_experiment(e, m, data, o).dump(); });
    EXPECT_EQ(one, three);
    ++ran;
  }
  EXPECT_GE(ran, 8);
  Threads threads(2);  // blocks of 4 instances per thread: progress is asked after 8 of the 11
  const nlohmann::json cut = run_experiment(*find_experiment("kendall"), m, data, o, [](int done, int) { return done < 4; });
  EXPECT_TRUE(cut["summary"].value("cancelled", false));
  EXPECT_GE(cut["rows"].size(), 4u);
  EXPECT_LT(cut["rows"].size(), data.size());
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// The methods that run many passes of a user's ONNX classifier on copies of the executor (SmoothGrad's samples,
// integrated gradients' steps, AblationCAM's channels): the same map, as JSON, on 1 and 3 threads (squeezenet 1.1
// at 112 px, the repository's fixture).
TEST(ParallelOnnx, ManyPassMethodsGiveTheSameMapOnOneAndThreeThreads) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &bytes));
  std::vector<float> x(3 * 112 * 112);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256) / 255.f - 0.5f;
  for (const std::string method : {"smoothgrad", "integrated-gradients", "ablationcam"}) {
    SCOPED_TRACE(method);
    OnnxExplainRequest r;
    r.method = method;
    r.layer = method == "ablationcam" ? "/features/features.9/Concat_output_0" : "auto";
    r.options.samples = 5;
    r.options.steps = 5;
    r.options.seed = 4;
    std::string maps[2];
    for (int run = 0; run < 2; ++run) {
      Threads threads(run == 0 ? 1 : 3);
      OnnxClassifier clf;
      std::string err;
      ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
      clf.set_input_size(112);
      nlohmann::json out;
      ASSERT_TRUE(onnx_explain(clf, x, r, &out, &err)) << err;
      ASSERT_GT(out["map"].size(), 1u);
      maps[run] = out.dump();
    }
    EXPECT_EQ(maps[0], maps[1]);
  }
  // The copies are bounded by memory: each holds an executor's values.
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  clf.set_input_size(112);
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  EXPECT_EQ(clf.lanes(1), 1);
  EXPECT_EQ(clf.lanes(3), 3);
  EXPECT_LT(clf.lanes(1 << 20), 1 << 20);
  EXPECT_GE(clf.lanes(1 << 20), 1);
}

// One pass of a user's classifier with its products inside cut into parts (onnx/ops/parts.h: Conv, depthwise
// Conv, Gemm, MatMul; forward and backward): the logits and the input gradient are the same bits on 1, 2 and 3
// threads — with the default cut, and with every op cut as finely as it allows (each part's work lowered to one
// multiply-add), which stays within float rounding of the default. Control: at the default, MobileNetV2's first
// convolution is cut (so 2 and 3 threads do run it in parts).
TEST(ParallelOnnx, OnePassIsTheSameOnOneTwoAndThreeThreads) {
  struct Pass {
    std::vector<float> logits, grad;
  };
  const auto pass = [](const std::string& file, int size, int threads, Pass* out) {
    Threads t(threads);
    OnnxClassifier clf;
    std::string err;
    ASSERT_TRUE(test::load_classifier_file(std::string(ATTNLAB_SOURCE_DIR) + file, &clf, &err)) << err;
    clf.set_input_size(size);
    std::vector<float> x(static_cast<size_t>(3 * size * size));
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256) / 255.f - 0.5f;
    ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
    ASSERT_TRUE(clf.backward_class(1, &err)) << err;
    out->logits = clf.logits();
    ASSERT_TRUE(clf.input_gradient(&out->grad, &err)) << err;
  };
  ASSERT_GT(onnx::op_parts(112, int64_t(32) * 27 * 112), 1);  // MobileNetV2's first Conv: 112 rows of 32·27·112
  for (const auto& [file, size] : {std::pair<std::string, int>{"/models/image/mobilenet_v2.onnx", 224},
                                   {"/tests/fixtures/onnx/resnet10/model.onnx", 112}}) {
    SCOPED_TRACE(file);
    Pass whole[3], fine[3];
    for (int t = 0; t < 3; ++t) pass(file, size, t + 1, &whole[t]);
    const int64_t work = onnx::set_op_work_per_part(1);
    for (int t = 0; t < 3; ++t) pass(file, size, t + 1, &fine[t]);
    onnx::set_op_work_per_part(work);
    for (int t = 1; t < 3; ++t) {
      EXPECT_EQ(whole[t].logits, whole[0].logits) << t + 1 << " threads";
      EXPECT_EQ(whole[t].grad, whole[0].grad) << t + 1 << " threads";
      EXPECT_EQ(fine[t].logits, fine[0].logits) << t + 1 << " threads, finest cut";
      EXPECT_EQ(fine[t].grad, fine[0].grad) << t + 1 << " threads, finest cut";
    }
    ASSERT_GT(whole[0].grad.size(), 1000u);
    EXPECT_LT(test::rel_err(fine[0].logits, whole[0].logits), 1e-5);
    EXPECT_LT(test::rel_err(fine[0].grad, whole[0].grad), 1e-4);
  }
}

// A user's text transformer: from its second call on, explain runs leave-one-out's passes on copies of the model
// while the calling lane computes the rows (onnx_text_explain: on_model_lanes' first) — the explain object must be
// the same bits as the rows-then-leave-one-out of one thread and of the model's first call (which runs them in turn).
// A causal LM with the last-position cut and leave-one-out's passes after prefixes (stories260K) and an encoder (the BERT-shaped fixture), 1 / 2 / 3 threads.
TEST(ParallelOnnx, TextRowsBesideLeaveOneOutAreTheSameOnOneTwoAndThreeThreads) {
  for (const auto& [path, T] : {std::pair<const char*, int>{"/models/text/stories260K/model.onnx", 24},
                                {"/tests/fixtures/onnx-text/bert-sst2/model.onnx", 20}}) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + path, &bytes));
    OnnxTextExplainRequest r;
    for (int i = 0; i < T; ++i) r.ids.push_back(i == 0 ? 1 : 30 + (i * 37) % 400);
    r.ig_steps = 0;
    r.context_mixing = false;
    r.leave_one_out = true;
    r.flow_layers = true;  // the page's step: the per-layer flow curves, items of the lanes beside the rows
    std::string one, one_longer;
    for (int n : {1, 2, 3}) {
      Threads threads(n);
      OnnxTextModel m;
      std::string err;
      ASSERT_TRUE(m.load(bytes.data(), bytes.size(), "", &err)) << err;
      m.set_last_row_batches(true);  // as in wasm: a causal LM's passes on the last position, after prefixes
      nlohmann::json first, second;
      ASSERT_TRUE(onnx_text_explain(m, r, &first, &err)) << path << " " << err;
      // the batched passes were checked on the first call: the second may run them beside the rows
      EXPECT_EQ(m.batch_check(), OnnxTextModel::BatchCheck::kAgree) << path;
      if (m.causal()) EXPECT_EQ(m.suffix_check(), OnnxTextModel::BatchCheck::kAgree) << path << ": deletions after a prefix";
      ASSERT_TRUE(onnx_text_explain(m, r, &second, &err)) << path << " " << err;
      ASSERT_TRUE(second.contains("leave_one_out") && second.contains("gradient") && second.contains("attnlrp") &&
                  second.contains("flow_layers"))
          << path;
      EXPECT_EQ(second.dump(), first.dump()) << path << " on " << n << " threads: the second call differs from the first";
      if (n == 1) one = second.dump();
      else EXPECT_EQ(second.dump(), one) << path << " on " << n << " threads";
      // and the model is left on the explained ids: its logits are the explanation's
      EXPECT_EQ(nlohmann::json(m.logits()).dump(), second["logits"].dump()) << path;
      // the text one token longer (the page's "next"): a causal LM's deletions run from the ones kept
      OnnxTextExplainRequest next = r;
      next.ids.push_back(second["target"].get<int>());
      nlohmann::json third;
      ASSERT_TRUE(onnx_text_explain(m, next, &third, &err)) << path << " " << err;
      if (m.causal()) EXPECT_TRUE(m.deletions() && m.deletions()->ids == next.ids) << path;
      if (n == 1) one_longer = third.dump();
      else EXPECT_EQ(third.dump(), one_longer) << path << " one token longer, on " << n << " threads";
    }
  }
}

}  // namespace
}  // namespace attnlab
