// Native benchmarks of the transformer text model at the shipped size (2 layers × 4 heads, d = 128, FFN 256,
// vocab 16k; random weights — the cost does not depend on their values): a 50-token forward, and every
// importance of explain-text for a 50-token sentence (attention, gradient, leave-one-out, integrated gradients
// with 50 steps, the self-attention maps, rollout, exact flow, relevance, grad × attention, attention norm,
// AttnLRP, CP-LRP, value zeroing, ALTI); and, one by one, gradient × input beside AttnLRP and CP-LRP (the same
// forward and one backward under each rule: their ratio is the rules' cost) and value zeroing and ALTI.
// Run: build/attnlab_bench --benchmark_filter=Transformer
#include <benchmark/benchmark.h>

#include "parallel/parallel_for.h"

#include "explain/context_mixing.h"
#include "explain/explain_text.h"
#include "explain/lrp_relevance.h"
#include "model/text_checkpoint.h"

namespace attnlab {
namespace {

TextModel transformer_model(int layers) {
  TextModel m;
  std::vector<std::string> words = {"<pad>", "<unk>"};
  for (int i = 0; i < 16000; ++i) words.push_back("w" + std::to_string(i));
  m.vocab = Vocab(words);
  m.config.encoder = EncoderKind::Transformer;
  m.config.attention = AttentionKind::Dot;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = m.config.hidden_dim = 128;
  m.config.layers = layers;
  m.config.heads = 4;
  m.config.ffn_dim = 256;
  m.config.max_len = 64;
  m.max_tokens = 64;
  m.class_names = {"negative", "positive"};
  Rng rng(1);
  m.params.init(m.config, rng);
  return m;
}

std::string text_of_length(int n) {
  std::string s;
  for (int t = 0; t < n; ++t) s += (t ? " w" : "w") + std::to_string((t * 7919) % 15000);
  return s;
}

void BM_TransformerForward50(benchmark::State& state) {
  const TextModel m = transformer_model(2);
  std::vector<int> ids;
  for (int t = 0; t < 50; ++t) ids.push_back(2 + (t * 7919) % 15000);
  const TextBatch batch = TextBatch::from_sequences({ids});
  TextCache<float> cache;
  for (auto _ : state) {
    text_forward_ids(m.config, m.params, batch, cache);
    benchmark::DoNotOptimize(cache.logits.data());
  }
}
BENCHMARK(BM_TransformerForward50)->Unit(benchmark::kMicrosecond);

void BM_TransformerExplainAll50(benchmark::State& state) {
  const TextModel m = transformer_model(2);
  const std::string text = text_of_length(50);
  ExplainOptions o;
  o.ig_steps = 50;
  set_thread_count(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const TokenExplanation e = explain_text(m, text, o);
    benchmark::DoNotOptimize(e.flow.data());
  }
  set_thread_count(1);
}
BENCHMARK(BM_TransformerExplainAll50)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

std::vector<int> ids50() {
  std::vector<int> ids;
  for (int t = 0; t < 50; ++t) ids.push_back(2 + (t * 7919) % 15000);
  return ids;
}

void BM_TransformerRule50(benchmark::State& state) {
  const TextModel m = transformer_model(2);
  const std::vector<int> ids = ids50();
  const auto rule = static_cast<PropagationRule>(state.range(0));
  for (auto _ : state) {
    const LrpRelevance r = transformer_relevance(m.config, m.params, ids, 1, rule);
    benchmark::DoNotOptimize(r.tokens.data());
  }
  state.SetLabel(rule == PropagationRule::Gradient ? "gradient x input" : rule == PropagationRule::AttnLrp ? "AttnLRP" : "CP-LRP");
}
BENCHMARK(BM_TransformerRule50)
    ->Arg(static_cast<int>(PropagationRule::Gradient))
    ->Arg(static_cast<int>(PropagationRule::AttnLrp))
    ->Arg(static_cast<int>(PropagationRule::CpLrp))
    ->Arg(static_cast<int>(PropagationRule::Gradient))
    ->Unit(benchmark::kMicrosecond);

void BM_TransformerContextMixing50(benchmark::State& state) {
  const TextModel m = transformer_model(2);
  ExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.ids = ids50();
  const int kind = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const std::vector<double> r = kind == 0 ? value_zeroing_importance(in)
                                  : kind == 1 ? alti_importance(in)
                                              : mixing_rollout(value_zeroing_layers(m.config, m.params, in.ids));
    benchmark::DoNotOptimize(r.data());
  }
  state.SetLabel(kind == 0 ? "value zeroing (double)" : kind == 1 ? "ALTI (double)" : "value zeroing in float");
}
BENCHMARK(BM_TransformerContextMixing50)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attnlab
