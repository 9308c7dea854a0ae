// GAIN-style attention mining with a detached soft mask: see cnn_attention_mining.h for the contract.
#include "experiments/cnn_attention_mining.h"

#include <algorithm>
#include <cmath>

#include "image/map_ops.h"
#include "nn/loss.h"

namespace attnlab {

template <class T>
Mat<T> attention_mining_erase(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, const Mat<T>& x,
                              const std::vector<int>& labels, const AttentionMiningOptions& o, Mat<T>* masks) {
  const int S = cfg.image_size, C = cfg.in_channels;
  const Eigen::Index plane = Eigen::Index(S) * S;
  const FeatureShape fs = cfg.feature_shape();
  Mat<T> xs = x;
  if (masks) masks->resize(plane, x.cols());
  for (Eigen::Index b = 0; b < x.cols(); ++b) {
    const std::vector<float> cam = cnn_cam(cfg, p, cache, static_cast<int>(b), labels[b]);
    const std::vector<float> up = upsample_bilinear(cam.data(), fs.h, fs.w, S, S);
    const auto [lo, hi] = std::minmax_element(up.begin(), up.end());
    const double span = double(*hi) - double(*lo);
    for (Eigen::Index q = 0; q < plane; ++q) {
      const double a = span > 0 ? (double(up[q]) - *lo) / span : 0.0;
      const T t = static_cast<T>(1.0 / (1.0 + std::exp(-o.omega * (a - o.sigma))));
      if (masks) (*masks)(q, b) = t;
      for (int c = 0; c < C; ++c) {
        T& v = xs(c * plane + q, b);
        v = v + t * (static_cast<T>(o.fill) - v);
      }
    }
  }
  return xs;
}

template <class T>
T true_class_probability_loss(const Mat<T>& logits, const std::vector<int>& labels, Mat<T>& dlogits) {
  const Mat<T> prob = softmax_columns<T>(logits);
  dlogits.setZero(logits.rows(), logits.cols());
  const T n = static_cast<T>(std::max<Eigen::Index>(1, logits.cols()));
  T loss = 0;
  for (Eigen::Index b = 0; b < logits.cols(); ++b) {
    const int y = labels[b];
    const T py = prob(y, b);
    loss += py / n;
    // d p_y / d z_j = p_y (delta_yj - p_j)
    for (Eigen::Index j = 0; j < logits.rows(); ++j) dlogits(j, b) = py * ((j == y ? T(1) : T(0)) - prob(j, b)) / n;
  }
  return loss;
}

template <class T>
AttentionMiningLosses attention_mining_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x,
                                                 const std::vector<int>& labels, const AttentionMiningOptions& o,
                                                 CnnCache<T>& cache, CnnParams<T>* running, CnnParams<T>* grads) {
  AttentionMiningLosses out;
  cnn_forward(cfg, p, x, true, cache, running);
  Mat<T> dlogits;
  const T n = static_cast<T>(std::max<Eigen::Index>(1, x.cols()));
  out.classification = weighted_cross_entropy<T>(cache.logits, labels, {}, dlogits) / n;
  dlogits /= n;
  // The erased batch comes from the first pass's weights and maps, before any update.
  Mat<T> xs;
  if (o.weight > 0) xs = attention_mining_erase(cfg, p, cache, x, labels, o, static_cast<Mat<T>*>(nullptr));
  cnn_backward(cfg, p, cache, dlogits, grads, static_cast<Mat<T>*>(nullptr));
  if (o.weight > 0) {
    CnnCache<T> c2;
    cnn_forward(cfg, p, xs, true, c2);
    Mat<T> d2;
    out.mining = true_class_probability_loss<T>(c2.logits, labels, d2);
    d2 *= static_cast<T>(o.weight);
    cnn_backward(cfg, p, c2, d2, grads, static_cast<Mat<T>*>(nullptr));
  }
  return out;
}

#define ATTNLAB_AM(T)                                                                                          \
  template Mat<T> attention_mining_erase<T>(const CnnConfig&, const CnnParams<T>&, const CnnCache<T>&,          \
                                            const Mat<T>&, const std::vector<int>&, const AttentionMiningOptions&, \
                                            Mat<T>*);                                                          \
  template T true_class_probability_loss<T>(const Mat<T>&, const std::vector<int>&, Mat<T>&);                 \
  template AttentionMiningLosses attention_mining_gradients<T>(const CnnConfig&, const CnnParams<T>&,           \
                                                               const Mat<T>&, const std::vector<int>&,          \
                                                               const AttentionMiningOptions&, CnnCache<T>&,     \
                                                               CnnParams<T>*, CnnParams<T>*);
ATTNLAB_AM(float)
ATTNLAB_AM(double)
#undef ATTNLAB_AM

}  // namespace attnlab
