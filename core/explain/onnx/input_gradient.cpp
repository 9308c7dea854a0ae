// Input-gradient saliency (Simonyan et al. 2014): max over channels of |∂y_c/∂x| (see input_method.h).
#include <algorithm>
#include <cmath>

#include "explain/onnx/input_method.h"
#include "parallel/parallel_for.h"

namespace attnlab {

bool onnx_class_gradient(OnnxClassifier& clf, const std::vector<float>& x, int c, std::vector<float>* g, float* logit,
                         std::string* error) {
  if (!clf.forward(x.data(), x.size(), error) || !clf.backward_class(c, error)) return false;
  if (logit) *logit = clf.logits()[c];
  return clf.input_gradient(g, error);
}

bool onnx_class_gradients(OnnxClassifier& clf, int count, int c,
                          const std::function<void(int, std::vector<float>*)>& input,
                          const std::function<void(int, const std::vector<float>&)>& accept, std::string* error) {
  const int lanes = clf.lanes(std::min(count, thread_count()));  // memory bounds the copies
  std::vector<OnnxClassifier> copies(static_cast<size_t>(lanes - 1), clf);
  std::vector<std::vector<float>> xs(lanes), gs(lanes);
  std::vector<std::string> errors(lanes);
  for (int k0 = 0; k0 < count; k0 += lanes) {
    const int n = std::min(lanes, count - k0);
    for (int j = 0; j < n; ++j) input(k0 + j, &xs[j]);
    parallel_for(static_cast<size_t>(n), [&](size_t j) {
      OnnxClassifier& mine = j == 0 ? clf : copies[j - 1];
      if (!onnx_class_gradient(mine, xs[j], c, &gs[j], nullptr, &errors[j])) gs[j].clear();
    });
    for (int j = 0; j < n; ++j) {
      if (!errors[j].empty()) {
        *error = errors[j];
        return false;
      }
      accept(k0 + j, gs[j]);
    }
  }
  return true;
}

std::vector<float> channel_abs_max(const std::vector<float>& v, int channels) {
  const size_t hw = v.size() / static_cast<size_t>(channels);
  std::vector<float> m(hw, 0.f);
  for (int ch = 0; ch < channels; ++ch)
    for (size_t p = 0; p < hw; ++p) m[p] = std::max(m[p], std::abs(v[ch * hw + p]));
  return m;
}

bool onnx_gradient_map(OnnxClassifier& clf, const std::vector<float>& x, int c, const InputMethodOptions&,
                       InputMapResult* out, std::string* error) {
  std::vector<float> g;
  if (!onnx_class_gradient(clf, x, c, &g, nullptr, error)) return false;
  const auto s = clf.input_shape();
  out->map = channel_abs_max(g, static_cast<int>(s[1]));
  out->h = static_cast<int>(s[2]);
  out->w = static_cast<int>(s[3]);
  return true;
}

InputMethodFn find_input_method(const std::string& name) {
  if (name == "gradient") return &onnx_gradient_map;
  if (name == "gradient-x-input") return &onnx_gradient_x_input_map;
  if (name == "smoothgrad") return &onnx_smoothgrad_map;
  if (name == "integrated-gradients") return &onnx_integrated_gradients_map;
  return nullptr;
}

}  // namespace attnlab
