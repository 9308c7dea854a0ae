// Gradient × input (Shrikumar et al. 2016; Ancona et al. 2018): attributions x ⊙ ∂y_c/∂x in the model's input
// space; map = Σ over channels (signed), as integrated gradients' map (see input_method.h). `extra.sum` = Σ of all
// attributions: for a network that is linear in x with no bias it is y_c exactly (Euler), which the tests check.
#include "explain/onnx/input_method.h"

namespace attnlab {

bool onnx_gradient_x_input_map(OnnxClassifier& clf, const std::vector<float>& x, int c, const InputMethodOptions&,
                               InputMapResult* out, std::string* error) {
  std::vector<float> g;
  if (!onnx_class_gradient(clf, x, c, &g, nullptr, error)) return false;
  const auto s = clf.input_shape();
  const int C = static_cast<int>(s[1]);
  const size_t hw = x.size() / static_cast<size_t>(C);
  std::vector<double> acc(hw, 0.0);
  double total = 0;
  for (int ch = 0; ch < C; ++ch)
    for (size_t p = 0; p < hw; ++p) {
      const double a = static_cast<double>(g[ch * hw + p]) * x[ch * hw + p];
      acc[p] += a;
      total += a;
    }
  out->map.assign(acc.begin(), acc.end());
  out->h = static_cast<int>(s[2]);
  out->w = static_cast<int>(s[3]);
  out->extra = {{"sum", total}};
  return true;
}

}  // namespace attnlab
