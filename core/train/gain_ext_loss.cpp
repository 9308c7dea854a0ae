// GAIN_ext's pixel-level supervision of the class map and the composed GAIN training step: see gain_ext_loss.h.
#include "train/gain_ext_loss.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "image/map_ops.h"
#include "nn/loss.h"
#include "nn/rng.h"

namespace attnlab {

template <class T>
Mat<T> bilinear_upsample_matrix(int h, int w, int H, int W) {
  Mat<T> U = Mat<T>::Zero(Eigen::Index(H) * W, Eigen::Index(h) * w);
  std::vector<float> e(static_cast<size_t>(h) * w, 0.f);
  for (int j = 0; j < h * w; ++j) {
    e[j] = 1.f;
    const std::vector<float> col = upsample_bilinear(e.data(), h, w, H, W);
    for (size_t q = 0; q < col.size(); ++q) U(static_cast<Eigen::Index>(q), j) = static_cast<T>(col[q]);
    e[j] = 0.f;
  }
  return U;
}

template <class T>
T gain_ext_map_loss(const Mat<T>& U, const Vec<T>& cam, const uint8_t* mask, const GainExtOptions& o, Vec<T>* dcam) {
  const Vec<T> u = U * cam;  // [S*S]
  const Eigen::Index n = u.size();
  Eigen::Index ilo = 0, ihi = 0;
  const T lo = u.minCoeff(&ilo), hi = u.maxCoeff(&ihi);
  const T span = hi - lo;
  T loss = 0;
  Vec<T> gA(n);  // dL/dA
  Vec<T> A(n);
  for (Eigen::Index q = 0; q < n; ++q) {
    A(q) = span > 0 ? (u(q) - lo) / span : T(0);
    const T t = T(1) / (T(1) + std::exp(-static_cast<T>(o.omega) * (A(q) - static_cast<T>(o.sigma))));
    const T r = t - (mask[q] ? T(1) : T(0));
    loss += r * r / static_cast<T>(n);
    gA(q) = T(2) * r / static_cast<T>(n) * static_cast<T>(o.omega) * t * (T(1) - t);
  }
  if (dcam) {
    Vec<T> gu = Vec<T>::Zero(n);
    if (span > 0) {
      // A_q = (u_q - lo) / span: dA_q/du_q = 1/span, dA_q/dlo = (A_q - 1)/span, dA_q/dhi = -A_q/span.
      gu = gA / span;
      gu(ilo) += (gA.array() * (A.array() - T(1))).sum() / span;
      gu(ihi) += -(gA.array() * A.array()).sum() / span;
    }
    *dcam = U.transpose() * gu;
  }
  return loss;
}

template <class T>
T gain_ext_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache,
                     const std::vector<int>& labels, const std::vector<std::vector<uint8_t>>& masks,
                     const GainExtOptions& o, const Mat<T>& U, Mat<T>* dfeatures, CnnParams<T>* grads) {
  const FeatureShape fs = cfg.feature_shape();
  const Mat<T>& F = cache.features();
  const Eigen::Index B = F.cols();
  if (dfeatures) dfeatures->setZero(F.rows(), B);
  int m = 0;
  for (Eigen::Index b = 0; b < B; ++b) m += !masks[b].empty();
  if (m == 0 || o.weight <= 0) return T(0);
  const T scale = static_cast<T>(o.weight) / static_cast<T>(m);
  T total = 0;
  Vec<T> dcam;
  for (Eigen::Index b = 0; b < B; ++b) {
    if (masks[b].empty()) continue;
    const int y = labels[b];
    Eigen::Map<const Mat<T>> f(F.col(b).data(), fs.hw(), fs.c);  // [hw x K]
    const Vec<T> cam = f * p.fc.w.row(y).transpose();            // = cnn_cam, in T
    total += scale * gain_ext_map_loss<T>(U, cam, masks[b].data(), o, &dcam);
    dcam *= scale;
    if (grads) grads->fc.w.row(y) += (f.transpose() * dcam).transpose();
    if (dfeatures) {
      Eigen::Map<Mat<T>> df(dfeatures->col(b).data(), fs.hw(), fs.c);
      df += dcam * p.fc.w.row(y);
    }
  }
  return total;
}

template <class T>
GainLosses gain_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x, const std::vector<int>& labels,
                          const std::vector<std::vector<uint8_t>>& masks, const AttentionMiningOptions& am,
                          const GainExtOptions& ext, const Mat<T>& U, CnnCache<T>& cache, CnnParams<T>* running,
                          CnnParams<T>* grads) {
  GainLosses out;
  cnn_forward(cfg, p, x, true, cache, running);
  Mat<T> dlogits, dfeat;
  const T n = static_cast<T>(std::max<Eigen::Index>(1, x.cols()));
  out.classification = weighted_cross_entropy<T>(cache.logits, labels, {}, dlogits) / n;
  dlogits /= n;
  for (const auto& mk : masks) out.masked += !mk.empty();
  out.ext = gain_ext_gradients<T>(cfg, p, cache, labels, masks, ext, U, &dfeat, grads);
  Mat<T> xs;  // the erased batch, from the first pass's weights and maps
  if (am.weight > 0) xs = attention_mining_erase(cfg, p, cache, x, labels, am, static_cast<Mat<T>*>(nullptr));
  cnn_backward(cfg, p, cache, dlogits, grads, static_cast<Mat<T>*>(nullptr), &dfeat);
  if (am.weight > 0) {
    CnnCache<T> c2;
    cnn_forward(cfg, p, xs, true, c2);
    Mat<T> d2;
    out.mining = true_class_probability_loss<T>(c2.logits, labels, d2);
    d2 *= static_cast<T>(am.weight);
    cnn_backward(cfg, p, c2, d2, grads, static_cast<Mat<T>*>(nullptr));
  }
  return out;
}

std::vector<uint8_t> gain_ext_mask_carriers(int n, double fraction, uint64_t seed) {
  std::vector<uint8_t> out(std::max(0, n), 0);
  if (n <= 0 || !(fraction > 0)) return out;
  int k = static_cast<int>(std::lround(std::min(1.0, fraction) * n));
  k = std::max(1, std::min(n, k));
  std::vector<int> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  Rng rng(seed ^ 0x6A1E5EEDull);
  rng.shuffle(idx);
  for (int i = 0; i < k; ++i) out[idx[i]] = 1;
  return out;
}

#define ATTNLAB_GAIN_EXT(T)                                                                                     \
  template Mat<T> bilinear_upsample_matrix<T>(int, int, int, int);                                              \
  template T gain_ext_map_loss<T>(const Mat<T>&, const Vec<T>&, const uint8_t*, const GainExtOptions&, Vec<T>*); \
  template T gain_ext_gradients<T>(const CnnConfig&, const CnnParams<T>&, const CnnCache<T>&,                   \
                                   const std::vector<int>&, const std::vector<std::vector<uint8_t>>&,           \
                                   const GainExtOptions&, const Mat<T>&, Mat<T>*, CnnParams<T>*);               \
  template GainLosses gain_gradients<T>(const CnnConfig&, const CnnParams<T>&, const Mat<T>&,                   \
                                        const std::vector<int>&, const std::vector<std::vector<uint8_t>>&,      \
                                        const AttentionMiningOptions&, const GainExtOptions&, const Mat<T>&,    \
                                        CnnCache<T>&, CnnParams<T>*, CnnParams<T>*);
ATTNLAB_GAIN_EXT(float)
ATTNLAB_GAIN_EXT(double)
#undef ATTNLAB_GAIN_EXT

}  // namespace attnlab
