// Input-space attribution methods on an OnnxClassifier (one per file), all explaining logits[class]:
//   gradient             (input_gradient.cpp)        map = max over channels of |∂y_c/∂x| (Simonyan et al.)
//   gradient-x-input     (gradient_x_input.cpp)      x ⊙ ∂y_c/∂x, map = Σ over channels (signed); extra {sum}
//   smoothgrad           (smoothgrad.cpp)            the gradient averaged over `samples` copies of x plus
//                                                    N(0, (noise·(max x − min x))²) from the seed; map = max_c |mean|
//   integrated-gradients (integrated_gradients.cpp)  baseline 0 (in model input space); attributions =
//                                                    x ⊙ mean of ∂y_c/∂x at (k + ½)/steps · x, k < steps (midpoint
//                                                    rule); map = Σ over channels (signed); `extra` holds the
//                                                    completeness check {sum, target = y_c(x) − y_c(0)}.
// x: [C·H·W] in the model's input space. Result map: [H·W] row-major. Returns false with a message.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx/onnx_classifier.h"

namespace attnlab {

struct InputMethodOptions {
  int samples = 25;      // smoothgrad
  double noise = 0.15;   // smoothgrad: σ as a fraction of the input's range
  int steps = 32;        // integrated gradients
  uint64_t seed = 0;
};

struct InputMapResult {
  std::vector<float> map;  // [H·W]
  int h = 0, w = 0;
  nlohmann::json extra = nlohmann::json::object();
};

bool onnx_gradient_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index, const InputMethodOptions& o,
                       InputMapResult* out, std::string* error);
bool onnx_gradient_x_input_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index,
                               const InputMethodOptions& o, InputMapResult* out, std::string* error);
bool onnx_smoothgrad_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index, const InputMethodOptions& o,
                         InputMapResult* out, std::string* error);
bool onnx_integrated_gradients_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index,
                                   const InputMethodOptions& o, InputMapResult* out, std::string* error);

using InputMethodFn = bool (*)(OnnxClassifier&, const std::vector<float>&, int, const InputMethodOptions&, InputMapResult*,
                               std::string*);
InputMethodFn find_input_method(const std::string& name);  // nullptr if unknown

// Shared: forward + backward of class c at x; the input gradient into *g.
bool onnx_class_gradient(OnnxClassifier& clf, const std::vector<float>& x, int c, std::vector<float>* g, float* logit,
                         std::string* error);
// The input gradient of class c at `count` inputs, side by side on the core's threads (parallel/parallel_for.h), one
// copy of the classifier per extra thread. input(k, &x) writes input k and is called in order k = 0, 1, … on the
// calling thread (so it may draw from one random stream); accept(k, g) receives gradient k, also in order on the
// calling thread (so sums run in sample order): the result does not depend on the thread count. The first error
// (lowest k) is returned.
bool onnx_class_gradients(OnnxClassifier& clf, int count, int c,
                          const std::function<void(int, std::vector<float>*)>& input,
                          const std::function<void(int, const std::vector<float>&)>& accept, std::string* error);
// max over channels of |v| for v [C·H·W] → [H·W].
std::vector<float> channel_abs_max(const std::vector<float>& v, int channels);

}  // namespace attnlab
