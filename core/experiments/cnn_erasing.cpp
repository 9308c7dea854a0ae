// Adversarial erasing with ground truth: see cnn_erasing.h for the contract.
#include "experiments/cnn_erasing.h"

#include <algorithm>
#include <limits>

#include "image/map_ops.h"

namespace attnlab {

std::vector<uint8_t> cam_top_region(const std::vector<float>& map, const std::vector<uint8_t>& erased,
                                    double threshold) {
  std::vector<uint8_t> region(map.size(), 0);
  if (erased.size() != map.size()) return region;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (size_t q = 0; q < map.size(); ++q)
    if (!erased[q]) {
      lo = std::min(lo, map[q]);
      hi = std::max(hi, map[q]);
    }
  if (!(hi >= lo)) return region;  // nothing left
  const double span = double(hi) - double(lo);
  for (size_t q = 0; q < map.size(); ++q) {
    if (erased[q]) continue;
    const double v = span > 0 ? (double(map[q]) - lo) / span : 1.0;
    region[q] = v >= threshold ? 1 : 0;
  }
  return region;
}

void erase_region(std::vector<float>& image, int channels, const std::vector<uint8_t>& region, float fill) {
  const size_t plane = region.size();
  if (image.size() != plane * size_t(channels)) return;
  for (int c = 0; c < channels; ++c)
    for (size_t q = 0; q < plane; ++q)
      if (region[q]) image[c * plane + q] = fill;
}

namespace {
void overlap(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, long* both, long* na, long* nb) {
  *both = *na = *nb = 0;
  const size_t n = std::min(a.size(), b.size());
  for (size_t q = 0; q < n; ++q) {
    *na += a[q] != 0;
    *nb += b[q] != 0;
    *both += a[q] != 0 && b[q] != 0;
  }
}
}  // namespace

double mask_recall(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  long both, na, nb;
  overlap(a, b, &both, &na, &nb);
  return nb > 0 ? double(both) / nb : 0.0;
}

double mask_precision(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  long both, na, nb;
  overlap(a, b, &both, &na, &nb);
  return na > 0 ? double(both) / na : 0.0;
}

CnnErasingResult run_cnn_erasing(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                                 const CnnErasingOptions& o) {
  CnnErasingResult r;
  const int K = std::max(0, o.steps), S = cfg.image_size, n = data.size(), C = cfg.in_channels;
  const size_t plane = size_t(S) * S;
  r.recall.assign(K, 0);
  r.precision.assign(K, 0);
  r.union_area.assign(K, 0);
  r.still_correct.assign(K, 0);
  r.step_area.assign(K, 0);
  r.n = n;
  if (n == 0 || K == 0) return r;
  const FeatureShape fs = cfg.feature_shape();
  CnnCache<float> cache;
  Mat<float> x;
  std::vector<int> labels;
  std::vector<std::vector<uint8_t>> masks;
  for (int start = 0; start < n; start += std::max(1, o.batch_size)) {
    std::vector<int> idx;
    for (int i = start; i < std::min(n, start + std::max(1, o.batch_size)); ++i) idx.push_back(i);
    data.batch(idx, x, labels, &masks);
    const int B = static_cast<int>(idx.size());
    std::vector<std::vector<uint8_t>> uni(B, std::vector<uint8_t>(plane, 0));
    for (int k = 0; k < K; ++k) {
      cnn_forward(cfg, params, x, false, cache);
      for (int b = 0; b < B; ++b) {
        Eigen::Index pred;
        cache.logits.col(b).maxCoeff(&pred);
        r.still_correct[k] += pred == labels[b];
        const std::vector<float> cam = cnn_cam(cfg, params, cache, b, labels[b]);
        const std::vector<float> up = upsample_bilinear(cam.data(), fs.h, fs.w, S, S);
        const std::vector<uint8_t> region = cam_top_region(up, uni[b], o.threshold);
        long a = 0;
        for (size_t q = 0; q < plane; ++q) {
          a += region[q];
          if (region[q]) uni[b][q] = 1;
        }
        r.step_area[k] += double(a) / plane;
        long ua = 0;
        for (size_t q = 0; q < plane; ++q) ua += uni[b][q];
        r.union_area[k] += double(ua) / plane;
        r.recall[k] += mask_recall(uni[b], masks[b]);
        r.precision[k] += mask_precision(uni[b], masks[b]);
        std::vector<float> img(x.col(b).data(), x.col(b).data() + plane * C);
        erase_region(img, C, region, o.fill);
        std::copy(img.begin(), img.end(), x.col(b).data());
      }
    }
  }
  for (int k = 0; k < K; ++k) {
    r.recall[k] /= n;
    r.precision[k] /= n;
    r.union_area[k] /= n;
    r.still_correct[k] /= n;
    r.step_area[k] /= n;
  }
  return r;
}

}  // namespace attnlab
