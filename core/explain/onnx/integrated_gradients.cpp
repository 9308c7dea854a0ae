// Integrated gradients (Sundararajan et al. 2017) from the all-zero baseline in model input space, midpoint
// rule over `steps` points; map = Σ over channels of x ⊙ mean gradient (signed); extra.completeness compares
// Σ attributions with y_c(x) − y_c(0) (see input_method.h).
#include "explain/onnx/input_method.h"

namespace attnlab {

bool onnx_integrated_gradients_map(OnnxClassifier& clf, const std::vector<float>& x, int c, const InputMethodOptions& o,
                                   InputMapResult* out, std::string* error) {
  if (o.steps < 1) {
    *error = "integrated gradients needs at least one step";
    return false;
  }
  std::vector<double> acc(x.size(), 0.0);
  const bool ok = onnx_class_gradients(  // the steps side by side; sums made in step order
      clf, o.steps, c,
      [&](int k, std::vector<float>* xs) {
        const double a = (k + 0.5) / o.steps;
        xs->resize(x.size());
        for (size_t q = 0; q < x.size(); ++q) (*xs)[q] = static_cast<float>(a * x[q]);
      },
      [&](int, const std::vector<float>& g) {
        for (size_t q = 0; q < x.size(); ++q) acc[q] += g[q];
      },
      error);
  if (!ok) return false;
  std::vector<float> zero(x.size(), 0.f);
  if (!clf.forward(zero.data(), zero.size(), error)) return false;
  const double y0 = clf.logits()[c];
  if (!clf.forward(x.data(), x.size(), error)) return false;
  const double y1 = clf.logits()[c];
  const auto s = clf.input_shape();
  const int C = static_cast<int>(s[1]);
  const size_t hw = x.size() / C;
  out->map.assign(hw, 0.f);
  double total = 0;
  for (int ch = 0; ch < C; ++ch)
    for (size_t p = 0; p < hw; ++p) {
      const double attr = x[ch * hw + p] * acc[ch * hw + p] / o.steps;
      out->map[p] += static_cast<float>(attr);
      total += attr;
    }
  out->h = static_cast<int>(s[2]);
  out->w = static_cast<int>(s[3]);
  out->extra = {{"steps", o.steps}, {"completeness", {{"sum", total}, {"target", y1 - y0}}}};
  return true;
}

}  // namespace attnlab
