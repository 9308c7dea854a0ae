// Value zeroing and ALTI per layer, and their rollout (contract in context_mixing.h).
#include "explain/context_mixing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nn/embedding.h"
#include "nn/gelu.h"
#include "parallel/parallel_for.h"

namespace attnlab {

namespace {

// Value zeroing's sources run in at most this many parts (parallel/parallel_for.h), and its feed-forward products take
// at most this many columns at once (their memory: hidden size × this).
constexpr size_t kMixingParts = 8;
constexpr int kMixingBatchColumns = 4096;

template <class T>
const TransformerCache<T>& run_forward(const TextConfig& cfg, const TextParams<T>& params, const Mat<T>& x,
                                       TextCache<T>& cache) {
  if (cfg.encoder != EncoderKind::Transformer) throw std::invalid_argument("context mixing needs a transformer");
  text_forward(cfg, params, x, {static_cast<int>(x.cols())}, cache);  // full path: every row of every layer
  return cache.transformer;
}

template <class T>
Mat<T> embedded(const TextParams<T>& params, const std::vector<int>& ids) {
  Mat<T> x;
  embedding_forward(params.embedding, ids, x);
  return x;
}

// Σ_h A_h[i, j] Wo_h v_h,j for the rows i < rows, one source j: [d x rows].
template <class T>
Mat<T> head_mix(const TransformerCache<T>& tc, const MhaParams<T>& attn, int l, int heads, int rows, int j) {
  const Eigen::Index d = tc.layers[l].attn.v.rows();
  const Eigen::Index dk = d / heads;
  Mat<T> out = Mat<T>::Zero(d, rows);
  for (int h = 0; h < heads; ++h) {
    const Vec<T> f = attn.o.w.middleCols(h * dk, dk) * tc.layers[l].attn.v.col(j).segment(h * dk, dk);
    const Mat<T>& P = tc.probs(l, 0, h);
    for (int i = 0; i < rows; ++i) out.col(i) += P(i, j) * f;
  }
  return out;
}

void normalise_rows(Mat<double>& c) {
  for (Eigen::Index i = 0; i < c.rows(); ++i) {
    const double s = c.row(i).sum();
    if (s > 0) c.row(i) /= s;
  }
}

}  // namespace

template <class T>
std::vector<Mat<double>> value_zeroing_layers(const TextConfig& cfg, const TextParams<T>& params, const Mat<T>& x) {
  TextCache<T> cache;
  const TransformerCache<T>& tc = run_forward(cfg, params, x, cache);
  const int L = static_cast<int>(tc.layers.size()), n = tc.n[0];
  std::vector<Mat<double>> out;
  for (int l = 0; l < L; ++l) out.push_back(Mat<double>::Zero(l == L - 1 ? 1 : n, n));
  // The sources j in parts side by side on the core's threads, each part writing its own columns of every layer;
  // the parts come from n alone, so every column is computed in the same products whatever the thread count.
  const size_t parts = std::min<size_t>(static_cast<size_t>(n), kMixingParts);
  parallel_for(parts, [&](size_t k) {
    const int p0 = static_cast<int>(split_begin(n, parts, k));
    const int p1 = static_cast<int>(split_begin(n, parts, k + 1));
    LayerNormCache<T> ln;
    Mat<T> changed, y, pre, act, f;
    for (int l = 0; l < L; ++l) {
      const auto& lc = tc.layers[l];
      const auto& lp = params.transformer.layers[l];
      const int rows = static_cast<int>(out[l].rows());
      const Mat<T> mid = lc.mid.leftCols(rows), orig = lc.out.leftCols(rows);
      // Columns [jj·rows, (jj+1)·rows) hold the layer with source j0 + jj's values zeroed, so the feed-forward block
      // runs as a few wide products instead of one per source (the last layer's are one column each).
      const int per_batch = std::max(1, kMixingBatchColumns / rows);
      for (int j0 = p0; j0 < p1; j0 += per_batch) {
        const int J = std::min(per_batch, p1 - j0);
        changed.resize(mid.rows(), static_cast<Eigen::Index>(J) * rows);
        for (int jj = 0; jj < J; ++jj)
          changed.middleCols(static_cast<Eigen::Index>(jj) * rows, rows) =
              mid - head_mix(tc, lp.attn, l, cfg.heads, rows, j0 + jj);
        layer_norm_forward(lp.ln2, changed, y, ln);
        linear_forward(lp.fc1, y, pre);
        gelu_forward(pre, act);
        linear_forward(lp.fc2, act, f);
        changed += f;
        for (int jj = 0; jj < J; ++jj)
          for (int i = 0; i < rows; ++i) {  // 1 − cos(a, b) = ‖a/‖a‖ − b/‖b‖‖² / 2, without 1 − (≈1)'s cancellation
            const Vec<double> a = changed.col(static_cast<Eigen::Index>(jj) * rows + i).template cast<double>();
            const Vec<double> b = orig.col(i).template cast<double>();
            const double na = a.norm(), nb = b.norm();
            out[l](i, j0 + jj) = na > 0 && nb > 0 ? 0.5 * (a / na - b / nb).squaredNorm() : 0.0;
          }
      }
    }
  });
  for (Mat<double>& c : out) normalise_rows(c);
  return out;
}

template <class T>
std::vector<Mat<double>> alti_layers(const TextConfig& cfg, const TextParams<T>& params, const Mat<T>& x) {
  TextCache<T> cache;
  const TransformerCache<T>& tc = run_forward(cfg, params, x, cache);
  const int L = static_cast<int>(tc.layers.size()), n = tc.n[0];
  std::vector<Mat<double>> out;
  for (int l = 0; l < L; ++l) {
    const auto& lc = tc.layers[l];
    const int rows = l == L - 1 ? 1 : n;
    const Mat<double> y = lc.mid.leftCols(rows).template cast<double>();
    Mat<double> c = Mat<double>::Zero(rows, n);
    for (int j = 0; j < n; ++j) {
      Mat<double> t = head_mix(tc, params.transformer.layers[l].attn, l, cfg.heads, rows, j).template cast<double>();
      if (j < rows) t.col(j) += lc.in.col(j).template cast<double>();
      for (int i = 0; i < rows; ++i)
        c(i, j) = std::max(0.0, y.col(i).template lpNorm<1>() - (y.col(i) - t.col(i)).template lpNorm<1>());
    }
    normalise_rows(c);
    out.push_back(std::move(c));
  }
  return out;
}

template <class T>
std::vector<Mat<double>> value_zeroing_layers(const TextConfig& cfg, const TextParams<T>& params,
                                              const std::vector<int>& ids) {
  return value_zeroing_layers(cfg, params, embedded(params, ids));
}

template <class T>
std::vector<Mat<double>> alti_layers(const TextConfig& cfg, const TextParams<T>& params, const std::vector<int>& ids) {
  return alti_layers(cfg, params, embedded(params, ids));
}

TextParams<double> transformer_in_double(const TextParams<float>& params) {
  TextParams<double> p;
  p.transformer = params.transformer.cast<double>();
  p.decoder = {params.decoder.w.cast<double>(), params.decoder.b.cast<double>()};
  return p;
}

Mat<double> embedded_in_double(const TextParams<float>& params, const std::vector<int>& ids) {
  return embedded(params, ids).cast<double>();
}

std::vector<double> mixing_rollout(const std::vector<Mat<double>>& layers) {
  if (layers.empty()) return {};
  Mat<double> r = layers.back().row(0);
  for (int l = static_cast<int>(layers.size()) - 2; l >= 0; --l) r = r * layers[l];
  std::vector<double> out;
  for (Eigen::Index j = 1; j < r.cols(); ++j) out.push_back(r(0, j));
  return out;
}

template std::vector<Mat<double>> value_zeroing_layers<float>(const TextConfig&, const TextParams<float>&,
                                                              const Mat<float>&);
template std::vector<Mat<double>> value_zeroing_layers<double>(const TextConfig&, const TextParams<double>&,
                                                               const Mat<double>&);
template std::vector<Mat<double>> alti_layers<float>(const TextConfig&, const TextParams<float>&, const Mat<float>&);
template std::vector<Mat<double>> alti_layers<double>(const TextConfig&, const TextParams<double>&,
                                                      const Mat<double>&);
template std::vector<Mat<double>> value_zeroing_layers<float>(const TextConfig&, const TextParams<float>&,
                                                              const std::vector<int>&);
template std::vector<Mat<double>> value_zeroing_layers<double>(const TextConfig&, const TextParams<double>&,
                                                               const std::vector<int>&);
template std::vector<Mat<double>> alti_layers<float>(const TextConfig&, const TextParams<float>&,
                                                     const std::vector<int>&);
template std::vector<Mat<double>> alti_layers<double>(const TextConfig&, const TextParams<double>&,
                                                      const std::vector<int>&);

}  // namespace attnlab
