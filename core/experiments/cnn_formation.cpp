// Probe maps during training: see cnn_formation.h for the contract.
#include "experiments/cnn_formation.h"

namespace attnlab {

CnnProbeMaps cnn_probe_maps(const CnnConfig& cfg, const CnnParams<float>& params, const Mat<float>& x,
                            const std::vector<int>& labels) {
  CnnProbeMaps out;
  const FeatureShape fs = cfg.feature_shape();
  out.h = fs.h;
  out.w = fs.w;
  if (x.cols() == 0 || static_cast<size_t>(x.cols()) != labels.size()) return out;
  CnnCache<float> cache;
  cnn_forward(cfg, params, x, false, cache);
  for (Eigen::Index b = 0; b < x.cols(); ++b) {
    CnnProbeMap m;
    m.label = labels[b];
    Eigen::Index k;
    cache.logits.col(b).maxCoeff(&k);
    m.predicted = static_cast<int>(k);
    m.logit = cache.logits(labels[b], b);
    m.bias = params.fc.b(labels[b], 0);
    m.cam = cnn_cam(cfg, params, cache, static_cast<int>(b), labels[b]);
    for (int s = 0; s < cfg.stages(); ++s) m.cbam.push_back(cnn_spatial_attention(cfg, cache, s, static_cast<int>(b)));
    out.probes.push_back(std::move(m));
  }
  return out;
}

}  // namespace attnlab
