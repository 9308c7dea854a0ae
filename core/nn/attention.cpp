#include "nn/attention.h"

#include <cmath>

#include "nn/matmul.h"
#include "nn/simd.h"

namespace attnlab {

const char* attention_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::Tanh: return "tanh";
    case AttentionKind::Dot: return "dot";
    case AttentionKind::Uniform: return "uniform";
  }
  return "?";
}

bool parse_attention(const std::string& name, AttentionKind* kind) {
  if (name == "tanh") *kind = AttentionKind::Tanh;
  else if (name == "dot") *kind = AttentionKind::Dot;
  else if (name == "uniform") *kind = AttentionKind::Uniform;
  else return false;
  return true;
}

namespace {

void tanh_inplace(Mat<double>& m) { m = m.array().tanh().matrix(); }
void tanh_inplace(Mat<float>& m) {
#if !defined(__wasm__)
  m = m.array().tanh().matrix();  // Eigen's packet math natively
#else
  float* d = m.data();  // 4 lanes at a time: Eigen has no wasm SIMD path
  const Eigen::Index n = m.size();
  Eigen::Index i = 0;
  for (; i + 4 <= n; i += 4) simd::store(d + i, simd::tanh(simd::load(d + i)));
  for (; i < n; ++i) d[i] = simd::tanh(simd::splat(d[i]))[0];
#endif
}

}  // namespace

template <class T>
void attention_forward(AttentionKind kind, const AttentionParams<T>& p, const Mat<T>& h,
                       const std::vector<int>& lengths, int steps, AttentionCache<T>& c,
                       const Mat<T>* alpha_override) {
  const int B = static_cast<int>(lengths.size());
  c.alpha = Mat<T>::Zero(steps, B);
  c.imposed = alpha_override != nullptr;
  if (alpha_override) {
    c.alpha = *alpha_override;
  } else if (kind == AttentionKind::Uniform) {
    for (int b = 0; b < B; ++b)
      if (lengths[b] > 0) c.alpha.col(b).head(lengths[b]).setConstant(T(1) / T(lengths[b]));
  } else {
    Mat<T> scores;  // [1 x T*B]
    if (kind == AttentionKind::Tanh) {
      c.act = Mat<T>::Zero(p.w1.rows(), h.cols());
      matmul_acc(c.act, p.w1, h);
      c.act.colwise() += p.b1.col(0);
      tanh_inplace(c.act);
      scores.noalias() = p.v * c.act;
    } else {
      scores.noalias() = p.v * h;
      scores /= std::sqrt(T(h.rows()));
    }
    for (int b = 0; b < B; ++b) {
      const int n = lengths[b];
      if (n <= 0) continue;
      T mx = scores(0, b);
      for (int t = 1; t < n; ++t) mx = std::max(mx, scores(0, static_cast<Eigen::Index>(t) * B + b));
      T sum = 0;
      for (int t = 0; t < n; ++t) {
        const T e = std::exp(scores(0, static_cast<Eigen::Index>(t) * B + b) - mx);
        c.alpha(t, b) = e;
        sum += e;
      }
      c.alpha.col(b).head(n) /= sum;
    }
  }
  c.context = Mat<T>::Zero(h.rows(), B);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < lengths[b]; ++t) c.context.col(b) += c.alpha(t, b) * h.col(static_cast<Eigen::Index>(t) * B + b);
}

template <class T>
void attention_backward(AttentionKind kind, const AttentionParams<T>& p, const Mat<T>& h,
                        const std::vector<int>& lengths, int steps, const AttentionCache<T>& c,
                        const Mat<T>& d_context, bool detach_alpha, Mat<T>& d_h, AttentionParams<T>* grads,
                        Mat<T>* d_alpha, const Mat<T>* d_alpha_extra) {
  const int B = static_cast<int>(lengths.size());
  Mat<T> da = Mat<T>::Zero(steps, B);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < lengths[b]; ++t) {
      const Eigen::Index col = static_cast<Eigen::Index>(t) * B + b;
      da(t, b) = h.col(col).dot(d_context.col(b));
      d_h.col(col) += c.alpha(t, b) * d_context.col(b);
    }
  if (d_alpha_extra) da += *d_alpha_extra;
  if (d_alpha) *d_alpha = da;
  if (detach_alpha || c.imposed || kind == AttentionKind::Uniform) return;
  // softmax backward: de_t = alpha_t (da_t - sum_s alpha_s da_s)
  Mat<T> d_scores = Mat<T>::Zero(1, h.cols());
  for (int b = 0; b < B; ++b) {
    const int n = lengths[b];
    T dot = 0;
    for (int t = 0; t < n; ++t) dot += c.alpha(t, b) * da(t, b);
    for (int t = 0; t < n; ++t) d_scores(0, static_cast<Eigen::Index>(t) * B + b) = c.alpha(t, b) * (da(t, b) - dot);
  }
  if (kind == AttentionKind::Tanh) {
    Mat<T> d_act = p.v.transpose() * d_scores;  // [H x T*B]
    d_act = (d_act.array() * (T(1) - c.act.array().square())).matrix();
    if (grads) {
      grads->v.noalias() += d_scores * c.act.transpose();
      matmul_acc_nt(grads->w1, d_act, h);
      grads->b1 += d_act.rowwise().sum();
    }
    matmul_acc_tn(d_h, p.w1, d_act);
  } else {
    const T s = std::sqrt(T(h.rows()));
    if (grads) grads->v.noalias() += (d_scores * h.transpose()) / s;
    d_h.noalias() += (p.v.transpose() * d_scores) / s;
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                          \
  template void attention_forward<T>(AttentionKind, const AttentionParams<T>&, const Mat<T>&,           \
                                     const std::vector<int>&, int, AttentionCache<T>&, const Mat<T>*);  \
  template void attention_backward<T>(AttentionKind, const AttentionParams<T>&, const Mat<T>&,          \
                                      const std::vector<int>&, int, const AttentionCache<T>&,           \
                                      const Mat<T>&, bool, Mat<T>&, AttentionParams<T>*, Mat<T>*, const Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
