// SmoothGrad (Smilkov et al. 2017): the input gradient averaged over `samples` noisy copies x + N(0, σ²),
// σ = noise · (max x − min x), drawn from Rng(seed); map = max over channels of |mean| (see input_method.h).
#include <algorithm>

#include "explain/onnx/input_method.h"
#include "nn/rng.h"

namespace attnlab {

bool onnx_smoothgrad_map(OnnxClassifier& clf, const std::vector<float>& x, int c, const InputMethodOptions& o,
                         InputMapResult* out, std::string* error) {
  if (o.samples < 1) {
    *error = "smoothgrad needs at least one sample";
    return false;
  }
  if (x.empty()) {
    *error = "empty input";
    return false;
  }
  const auto mm = std::minmax_element(x.begin(), x.end());
  const double sigma = o.noise * (*mm.second - *mm.first);
  Rng rng(o.seed);
  std::vector<double> acc(x.size(), 0.0);
  const bool ok = onnx_class_gradients(  // the samples side by side; noise drawn and sums made in sample order
      clf, o.samples, c,
      [&](int, std::vector<float>* xn) {
        xn->resize(x.size());
        for (size_t k = 0; k < x.size(); ++k) (*xn)[k] = static_cast<float>(x[k] + sigma * rng.normal());
      },
      [&](int, const std::vector<float>& g) {
        for (size_t k = 0; k < x.size(); ++k) acc[k] += g[k];
      },
      error);
  if (!ok) return false;
  std::vector<float> mean(x.size());
  for (size_t k = 0; k < x.size(); ++k) mean[k] = static_cast<float>(acc[k] / o.samples);
  const auto s = clf.input_shape();
  out->map = channel_abs_max(mean, static_cast<int>(s[1]));
  out->h = static_cast<int>(s[2]);
  out->w = static_cast<int>(s[3]);
  out->extra = {{"samples", o.samples}, {"sigma", sigma}};
  return true;
}

}  // namespace attnlab
