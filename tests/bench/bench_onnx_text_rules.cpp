// The propagation rules on users' ONNX transformers (issue 30): one backward of the explained logit as the gradient
// (OnnxTextModel::backward) beside the same backward under AttnLRP / CP-LRP (onnx_text_relevance: the plan found from
// the graph + one backward under it + the tokens' relevances), on the BERT-shaped fixture and on stories260K, 50
// tokens, after one forward. Run: build/attnlab_bench --benchmark_filter=OnnxTextRule
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "explain/onnx_text/onnx_text_explain.h"

namespace attnlab {
namespace {

const char* const kRuleModels[] = {"tests/fixtures/onnx-text/bert-sst2/model.onnx", "models/text/stories260K/model.onnx"};

bool load_rule_model(int which, OnnxTextModel* m, std::vector<int>* ids) {
  std::ifstream f(std::string(ATTNLAB_SOURCE_DIR) + "/" + kRuleModels[which], std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string err;
  if (bytes.empty() || !m->load(bytes.data(), bytes.size(), "", &err)) return false;
  ids->clear();
  ids->push_back(which == 0 ? 101 : 1);  // [CLS] / BOS
  for (int t = 1; t < 49; ++t) ids->push_back(which == 0 ? 1000 + (t * 7919) % 20000 : 3 + (t * 97) % 500);
  if (which == 0) ids->push_back(102);  // [SEP]
  else ids->push_back(3 + (49 * 97) % 500);
  return m->run(*ids, &err);
}

void BM_OnnxTextRule(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0)), mode = static_cast<int>(state.range(1));
  OnnxTextModel m;
  std::vector<int> ids;
  if (!load_rule_model(which, &m, &ids)) {
    state.SkipWithError("model missing");
    return;
  }
  std::string err;
  std::vector<double> tokens;
  std::vector<std::string> notes;
  for (auto _ : state) {
    bool ok;
    if (mode == 0) ok = m.backward(1, &err);
    else ok = onnx_text_relevance(m, 1, mode == 1 ? onnx::RelevanceRule::AttnLrp : onnx::RelevanceRule::CpLrp, &tokens, &notes, &err);
    if (!ok) state.SkipWithError(err.c_str());
  }
  state.SetLabel(std::string(which == 0 ? "bert-sst2 " : "stories260K ") +
                 (mode == 0 ? "gradient" : mode == 1 ? "AttnLRP" : "CP-LRP"));
}
BENCHMARK(BM_OnnxTextRule)->ArgsProduct({{0, 1}, {0, 1, 2}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attnlab
