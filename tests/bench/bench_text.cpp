// Native benchmarks of the text model at the shipped size (E = H = 128, vocab 16k): a 50-token forward,
// forward + backward, a training batch (tokens/s), and a plain GEMM of the same shapes as the practical
// peak. FLOP counters give GFLOP/s. Run: build/attnlab_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <memory>

#include "explain/importance.h"
#include "parallel/parallel_for.h"
#include "train/text_trainer.h"

namespace attnlab {
namespace {

struct Model {
  TextConfig cfg;
  TextParams<float> params;
  Model() {
    cfg.vocab_size = 16000;
    Rng rng(1);
    params.init(cfg, rng);
  }
};

std::vector<int> ids_of_length(int n) {
  std::vector<int> ids;
  for (int t = 0; t < n; ++t) ids.push_back(2 + (t * 7919) % 15000);
  return ids;
}

// Forward FLOPs per token (multiply-add = 2): input projections, recurrences, tanh attention.
double forward_flops_per_token(const TextConfig& c) {
  const double H = c.hidden_dim, E = c.embedding_dim;
  return 2 * (2 * 4 * H * E + 2 * 4 * H * H) + 2 * H * 2 * H + 2 * H;
}

void BM_Forward50(benchmark::State& state) {
  Model m;
  const TextBatch batch = TextBatch::from_sequences({ids_of_length(50)});
  TextCache<float> cache;
  for (auto _ : state) {
    text_forward_ids(m.cfg, m.params, batch, cache);
    benchmark::DoNotOptimize(cache.logits.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(50 * forward_flops_per_token(m.cfg), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Forward50)->Unit(benchmark::kMicrosecond);

void BM_ForwardBackward50(benchmark::State& state) {
  Model m;
  const TextBatch batch = TextBatch::from_sequences({ids_of_length(50)});
  TextParams<float> grads;
  grads.resize(m.cfg);
  for (auto _ : state) {
    grads.set_zero();
    benchmark::DoNotOptimize(text_loss_and_gradients(m.cfg, m.params, batch, {1}, 1.f, {}, grads));
  }
  // backward ~ 2x forward
  state.counters["FLOP/s"] = benchmark::Counter(3 * 50 * forward_flops_per_token(m.cfg), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ForwardBackward50)->Unit(benchmark::kMicrosecond);

// Arg: the core's threads (parallel/parallel_for.h); the rows do not depend on it (tests/core/test_parallel.cpp).
void BM_ExplainAll50(benchmark::State& state) {
  set_thread_count(static_cast<int>(state.range(0)));
  Model m;
  ExplainInput in;
  in.cfg = &m.cfg;
  in.params = &m.params;
  in.ids = ids_of_length(50);
  for (auto _ : state) {
    benchmark::DoNotOptimize(attention_importance(in));
    benchmark::DoNotOptimize(gradient_importance(in));
    benchmark::DoNotOptimize(leave_one_out_importance(in));
    benchmark::DoNotOptimize(integrated_gradients_importance(in));
  }
  set_thread_count(1);
}
BENCHMARK(BM_ExplainAll50)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime();

// A training step on 32 sequences of 20 tokens (forward + backward, no optimiser).
void BM_TrainBatch32x20(benchmark::State& state) {
  Model m;
  std::vector<std::vector<int>> seqs(32, ids_of_length(20));
  const TextBatch batch = TextBatch::from_sequences(seqs);
  const std::vector<int> labels(32, 1);
  TextParams<float> grads;
  grads.resize(m.cfg);
  for (auto _ : state) {
    grads.set_zero();
    benchmark::DoNotOptimize(text_loss_and_gradients(m.cfg, m.params, batch, labels, 1.f, {}, grads));
  }
  state.counters["tokens/s"] = benchmark::Counter(32 * 20, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["FLOP/s"] = benchmark::Counter(3 * 32 * 20 * forward_flops_per_token(m.cfg), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrainBatch32x20)->Unit(benchmark::kMillisecond);

// Ten training steps (Adam included) of the BiLSTM on 320 sequences of 20 tokens, batch 32, in data-parallel parts
// (train/data_parallel.h): range(0) parts (0 = the rule: 4), range(1) threads. The step's rows do not depend on the
// threads; parts 1 is the whole batch in one pass.
void BM_TrainSteps(benchmark::State& state) {
  Model m;
  std::vector<EncodedExample> train;
  for (int i = 0; i < 320; ++i) {
    std::vector<int> ids = ids_of_length(20);
    ids[static_cast<size_t>(i) % 20] = 2 + i;
    train.push_back({i % 2, ids});
  }
  TrainOptions o;
  o.epochs = 1;
  o.parts = static_cast<int>(state.range(0));
  set_thread_count(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    state.PauseTiming();
    auto run = std::make_unique<TextTrainingRun>(m.cfg, m.params, train, std::vector<EncodedExample>{}, o);
    state.ResumeTiming();
    benchmark::DoNotOptimize(run->step(10));
    state.PauseTiming();
    run.reset();
    state.ResumeTiming();
  }
  set_thread_count(1);
  state.counters["tokens/s"] = benchmark::Counter(320 * 20, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrainSteps)->Args({1, 1})->Args({0, 1})->Args({0, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

// The practical limit: the LSTM input projection as one GEMM [4H x E] x [E x N].
void BM_Gemm512x128xN(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Mat<float> a = Mat<float>::Random(512, 128), b = Mat<float>::Random(128, n);
  Mat<float> c(512, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * 512 * 128 * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Gemm512x128xN)->Arg(1)->Arg(50)->Arg(640)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace attnlab

BENCHMARK_MAIN();
