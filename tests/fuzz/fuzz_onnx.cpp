// libFuzzer target for the ONNX reader and executor (core/onnx/reader.h, executor.h): any bytes must give a Model
// or a message; a model that loads is then run — forward on small inputs (each declared input with symbolic dims
// as 2 and every dim at most 8; floats 0.5, integers 0, bools 1; then the inference pass, which must give the same
// outputs bit for bit and leave backward refusing; then a pass on the last position of its output's row-wise tail,
// onnx/last_row.h), backward from its first float output, plain and
// under each relevance rule's propagation plan (AttnLRP, CP-LRP: onnx/propagation.h) — and its
// onnx-info summary serialised, and the bytes rewritten with its attention made graph outputs (onnx/graph_outputs.h,
// which must read back): never a crash, a hang, undefined behaviour or an allocation past the budget
// (a small ExecLimits here so each input runs in milliseconds). Built by CMake with -DATTNLAB_FUZZ=ON
// (build-fuzz/), run by tests/fuzz/run.sh from tests/fuzz/corpus/onnx/ (small models of the ONNX project's
// conformance cases, Debian libonnx-testdata, and the crafted cases of tests/fixtures/onnx-hostile/) with
// tests/fuzz/dict/onnx.dict.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "explain/onnx/onnx_classifier.h"
#include "onnx/executor.h"
#include "onnx/graph_outputs.h"
#include "onnx/last_row.h"
#include "onnx/propagation.h"
#include "onnx/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab::onnx;
  ReaderLimits limits;
  limits.max_bytes = 1 << 20;
  limits.max_tensor_elements = 1 << 20;
  limits.max_total_elements = 1 << 22;
  Model m;
  std::string err;
  if (read_model(data, size, &m, &err, limits)) {
    (void)attnlab::OnnxClassifier::summarize(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::vector<uint8_t> exposed;
    std::vector<std::string> names;
    Model back;
    if (expose_attention(data, size, &exposed, &names, &err) && !names.empty() &&
        !read_model(exposed.data(), exposed.size(), &back, &err, limits))
      __builtin_trap();  // a model with its attention as outputs must read back
    ExecLimits budget;
    budget.max_tensor_elements = 1 << 20;
    budget.max_live_bytes = 64 << 20;
    budget.max_node_work = 1 << 24;
    budget.max_fold_work = 1 << 24;
    budget.max_forward_work = 1 << 26;
    Executor<float> ex;
    ex.set_limits(budget);
    if (ex.load(m, &err)) {
      std::map<std::string, Tensor<float>> inputs;
      for (const ValueInfo& vi : m.inputs) {
        Shape s;
        for (int64_t d : vi.dims) s.push_back(d < 0 ? 2 : std::min<int64_t>(d, 8));
        if (!shape_fits(s, 1 << 16)) return 0;
        Tensor<float> t;
        if (is_float_type(vi.dtype) || vi.dtype == kUndefined) {
          t = Tensor<float>::floats(s, 0.5f);
        } else {
          t = Tensor<float>::ints(s, vi.dtype);
          if (vi.dtype == kBool) std::fill(t.i.begin(), t.i.end(), 1);
        }
        inputs[vi.name] = std::move(t);
      }
      if (ex.forward(inputs, &err)) {
        // The inference pass (values let go after their last reader) must give the same outputs, bit for bit, and
        // leave backward refusing until a full pass ran again.
        std::map<std::string, std::vector<float>> full;
        for (const ValueInfo& o : m.outputs)
          if (const Tensor<float>* y = ex.value(o.name); y && y->is_float()) full[o.name] = to_std(y->f);
        const std::vector<std::string> none;
        if (!ex.forward(inputs, &err, &none)) __builtin_trap();
        for (const auto& [name, f] : full) {
          const Tensor<float>* y = ex.value(name);
          if (!y || y->f.size() != f.size() || (!f.empty() && std::memcmp(y->f.data(), f.data(), f.size() * sizeof(float))))
            __builtin_trap();
        }
        if (!full.empty() && ex.backward(full.begin()->first, Tensor<float>::floats(ex.value(full.begin()->first)->shape, 1.f), &err))
          __builtin_trap();
        // A causal LM's last position alone (onnx/last_row.h): the planner walks whatever graph loaded, and a pass on
        // the last of 2 positions (the symbolic dims' size) runs or fails with a message.
        if (!m.outputs.empty()) {
          ex.set_last_row_nodes(last_row_nodes(ex, m.outputs[0].name));
          ex.forward(inputs, &err, &none, 2);
          ex.set_last_row_nodes({});
        }
        if (!ex.forward(inputs, &err)) __builtin_trap();
        for (const ValueInfo& o : m.outputs) {
          const Tensor<float>* y = ex.value(o.name);
          if (!y || !y->is_float()) continue;
          const Tensor<float> seed = Tensor<float>::floats(y->shape, 1.f);
          ex.backward(o.name, seed, &err);
          // The relevance rules (onnx/propagation.h): the planner walks whatever graph loaded, and the ruled
          // backward runs with its factors and LayerNormalization / Tanh rules.
          for (RelevanceRule rule : {RelevanceRule::AttnLrp, RelevanceRule::CpLrp}) {
            const PropagationPlan plan = plan_propagation(ex, rule, o.name);
            ex.set_propagation(&plan);
            ex.backward(o.name, seed, &err);
            ex.set_propagation(nullptr);
          }
          break;
        }
      }
    }
  }
  TensorData t;
  read_tensor(data, size, &t, &err, limits);
  return 0;
}
