// Erasing pictures for a few images; contract in cnn_erasing_trace.h.
#include "experiments/cnn_erasing_trace.h"

#include <algorithm>

#include "image/map_ops.h"

namespace attnlab {

CnnErasingTrace trace_cnn_erasing(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                                  int n, const CnnErasingOptions& o) {
  CnnErasingTrace t;
  const int K = std::max(0, o.steps), S = cfg.image_size, C = cfg.in_channels;
  n = std::max(0, std::min(n, data.size()));
  t.n = n;
  t.steps = K;
  t.size = S;
  if (n == 0 || K == 0) return t;
  const size_t plane = size_t(S) * S;
  const FeatureShape fs = cfg.feature_shape();
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  Mat<float> x;
  std::vector<int> labels;
  data.batch(idx, x, labels, &t.masks);
  std::vector<std::vector<uint8_t>> unions(n, std::vector<uint8_t>(plane, 0));
  t.images.resize(n);
  t.maps.resize(n);
  t.unions.resize(n);
  CnnCache<float> cache;
  for (int k = 0; k < K; ++k) {
    cnn_forward(cfg, params, x, false, cache);
    for (int b = 0; b < n; ++b) {
      std::vector<float> image(x.col(b).data(), x.col(b).data() + x.rows());
      t.images[b].push_back(image);
      const std::vector<float> cam = cnn_cam(cfg, params, cache, b, labels[b]);
      const std::vector<float> up = upsample_bilinear(cam.data(), fs.h, fs.w, S, S);
      const std::vector<uint8_t> region = cam_top_region(up, unions[b], o.threshold);
      t.maps[b].push_back(normalize_minmax(up));
      for (size_t q = 0; q < plane; ++q) unions[b][q] = unions[b][q] || region[q];
      t.unions[b].push_back(unions[b]);
      erase_region(image, C, region, o.fill);
      std::copy(image.begin(), image.end(), x.col(b).data());
    }
  }
  return t;
}

}  // namespace attnlab
