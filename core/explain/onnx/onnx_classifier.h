// An ONNX image classifier for the explanation methods: owns the parsed Model and a float Executor, checks
// that the model is an image classifier (one float input of rank 4 [N or 1, C, H, W]; the first graph output
// is the logits [1, classes]), runs forward / backward on caller-owned buffers, and lists the spatial layers.
// Designed for a future wasm binding: no exceptions, every failure is a message, inputs are (pointer, count)
// and results are copied into caller-owned std::vectors.
//
//   OnnxClassifier clf;
//   clf.load(bytes, size, &err);                 // reader + executor + image-classifier checks
//   clf.input_shape();                           // [1, C, H, W] (a symbolic batch becomes 1; symbolic H/W: set_input_size)
//   clf.forward(x, n, &err); clf.logits();       // x: [1, C, H, W] row-major
//   clf.backward_class(c, &err);                 // d logits[c] / d every value
//   clf.spatial_layers();                        // float values [1, K, h, w] with h·w > 1, in execution order, and a
//                                                // vision transformer's token layers [1, N, D] (read as [D, g, g])
//   clf.layer(name, &A, &G, &err);               // activation and its gradient at a layer
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx/attention_finder.h"
#include "onnx/executor.h"
#include "onnx/model.h"

namespace attnlab {

struct SpatialLayer {
  std::string name;  // the ONNX tensor name
  std::string op;    // the operator that produced it
  int channels = 0, height = 0, width = 0;
  // > 0: a vision transformer's token layer [1, N, D] (N the attention's token count, patch_grid.h: class tokens +
  // g × g patches), which the CAM methods read as [D, g, g] without its class tokens — pytorch-grad-cam's
  // reshape_transform for ViTs.
  int class_tokens = 0;
};

struct LayerTensors {
  std::vector<float> activation, gradient;  // [K, h, w] each
  int k = 0, h = 0, w = 0;
};

// Copyable: a copy shares the parsed model and holds its own executor (values, gradients), so copies may run on
// different threads at once; one object must not.
class OnnxClassifier {
 public:
  // The most classes a classifier may have (declared or computed): the page builds one label per class.
  static constexpr int64_t kMaxClasses = int64_t(1) << 20;
  bool load(const uint8_t* bytes, size_t size, std::string* error);
  // For models with a symbolic spatial input size: fixes H = W = size (default: the model's, or 224).
  void set_input_size(int size);
  bool loaded() const { return loaded_; }

  // The graph summary: inputs, outputs, operator counts, parameter count, unsupported operators (works even
  // when load() failed because of unsupported operators: call summarize() on the bytes instead).
  static nlohmann::json summarize(const onnx::Model& m);
  const onnx::Model& model() const { return *model_; }
  // Every value of the last forward pass (and gradient of the last backward pass): the attention methods
  // (vit_maps.h) read the attention distributions there.
  const onnx::Executor<float>& executor() const { return ex_; }
  // The propagation rules of the next backward passes (onnx/propagation.h; null: the gradient). Must outlive their use.
  void set_propagation(const onnx::PropagationPlan* plan) { ex_.set_propagation(plan); }
  // The attention distributions found in the graph at load (onnx/attention_finder.h; empty for a CNN).
  const std::vector<onnx::FoundAttention>& attention() const { return attention_; }

  std::vector<int64_t> input_shape() const;  // [1, C, H, W]
  const std::string& input_name() const { return input_name_; }
  const std::string& logits_name() const { return logits_name_; }

  // keep (Executor::forward): null keeps every value, for backward and the maps; otherwise an inference pass that
  // keeps only the graph outputs and the names in *keep (read them with executor().value()).
  bool forward(const float* input, size_t count, std::string* error, const std::vector<std::string>* keep = nullptr);
  const std::vector<float>& logits() const { return logits_; }
  int num_classes() const { return static_cast<int>(logits_.size()); }
  // stop_at: a layer whose gradient is all that is needed (the backward stops there; Executor::backward).
  bool backward_class(int class_index, std::string* error, const std::string& stop_at = "");
  // d logits[class] / d input after backward_class, [C·H·W].
  bool input_gradient(std::vector<float>* out, std::string* error) const;

  // After forward: the layer's activation replaced by `activation` [K·h·w], the rest of the network re-run; the
  // logits then are those of the changed network (AblationCAM). forward() again restores everything.
  bool forward_from_layer(const std::string& name, const std::vector<float>& activation, std::string* error);
  // How many copies of this classifier, itself included, may run side by side on the core's threads: at most
  // `wanted`, their executors' bytes together (values and gradients held now) within kCopiesBytes, at least 1.
  static constexpr int64_t kCopiesBytes = int64_t(512) << 20;  // a quarter of the wasm core's 2 GiB
  int lanes(int wanted) const;
  // How many runtime nodes run after the one that produced value `name` (what forward_from_layer re-runs); 0 when
  // no runtime node produced it.
  int nodes_after(const std::string& name) const;

  // Model-parameter randomisation (Adebayo et al. 2018), top-down from a layer: a copy of this classifier whose
  // weights AFTER `layer` — every float or 8-bit initializer with ≥ 2 values read by a node that runs after the
  // layer's producer, directly or through constant-folded nodes (DequantizeLinear of int8 weights) — are shuffled,
  // each by a random permutation from Rng(seed) (the values' distribution kept, their arrangement destroyed).
  // layer "" = every such weight of the model (the input too). The activation at `layer` is then unchanged and
  // everything the map learns from the rest of the network is not. *shuffled = the tensors shuffled.
  bool randomized_after(const std::string& layer, uint64_t seed, OnnxClassifier* out, int* shuffled,
                        std::string* error) const;

  std::vector<SpatialLayer> spatial_layers() const;  // after forward
  // The default CAM layer. A vision transformer (attention found, its tokens a class token + a square grid): the
  // token layer that feeds the last attention block — reached from that block's values back through its value
  // projection (MatMul / Gemm) to the first [1, N, D] tensor, its normalised input (pytorch-grad-cam's advice: the
  // last block's output holds no gradient at the patches, since only the class token reaches the head). Otherwise
  // (and when that walk finds none) the last [1, K, h, w] layer with h·w > 1; "" if none.
  std::string auto_layer() const;
  bool layer(const std::string& name, LayerTensors* out, std::string* error) const;  // after backward_class

 private:
  bool load_model(std::unique_ptr<onnx::Model> m, std::string* error);
  // Shared by copies: a copy (one per extra thread, input_method.h onnx_class_gradients) holds its own executor
  // state over the same parsed model.
  std::shared_ptr<const onnx::Model> model_;
  onnx::Executor<float> ex_;
  bool loaded_ = false;
  std::string input_name_, logits_name_;
  int64_t c_ = 3, h_ = 224, w_ = 224;
  std::vector<onnx::FoundAttention> attention_;
  int tokens_ = 0;  // after forward: the last attention's token count when it is class tokens + a square grid, else 0
  // A token layer's grid (class_tokens > 0) when `v` is [1, tokens_, D ≥ 2].
  int token_grid(const onnx::Tensor<float>& v, int* class_tokens) const;
  std::vector<float> logits_;
};

}  // namespace attnlab
