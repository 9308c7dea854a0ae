#include "nn/bilstm.h"

namespace attnlab {

std::vector<Eigen::Index> reverse_within_lengths(const std::vector<int>& lengths, int steps) {
  const int B = static_cast<int>(lengths.size());
  std::vector<Eigen::Index> perm(static_cast<size_t>(B) * steps);
  for (int t = 0; t < steps; ++t)
    for (int b = 0; b < B; ++b) {
      const int src = t < lengths[b] ? lengths[b] - 1 - t : t;
      perm[static_cast<size_t>(t) * B + b] = static_cast<Eigen::Index>(src) * B + b;
    }
  return perm;
}

template <class T>
static void permute_columns(const Mat<T>& src, const std::vector<Eigen::Index>& perm, Eigen::Ref<Mat<T>> dst) {
  for (size_t k = 0; k < perm.size(); ++k) dst.col(static_cast<Eigen::Index>(k)) = src.col(perm[k]);
}

template <class T>
void bilstm_forward(const BiLstmParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps,
                    BiLstmCache<T>& c, bool orthogonal) {
  const int B = static_cast<int>(lengths.size());
  const int H = p.hidden();
  c.reverse = reverse_within_lengths(lengths, steps);
  c.x_rev.resize(x.rows(), x.cols());
  permute_columns<T>(x, c.reverse, c.x_rev);
  lstm_forward(p.fwd, x, B, steps, c.fwd, orthogonal);
  lstm_forward(p.bwd, c.x_rev, B, steps, c.bwd, orthogonal);
  c.out.resize(2 * H, x.cols());
  c.out.topRows(H) = c.fwd.out;
  for (size_t k = 0; k < c.reverse.size(); ++k)
    c.out.col(static_cast<Eigen::Index>(k)).bottomRows(H) = c.bwd.out.col(c.reverse[k]);
}

template <class T>
void bilstm_backward(const BiLstmParams<T>& p, const Mat<T>& x, const BiLstmCache<T>& c, const Mat<T>& d_out,
                     BiLstmParams<T>* grads, Mat<T>* d_x) {
  const int H = p.hidden();
  const Mat<T> d_fwd = d_out.topRows(H);
  Mat<T> d_bwd(H, d_out.cols());
  for (size_t k = 0; k < c.reverse.size(); ++k)
    d_bwd.col(static_cast<Eigen::Index>(k)) = d_out.col(c.reverse[k]).bottomRows(H);
  Mat<T> dx_f, dx_r;
  lstm_backward(p.fwd, x, c.fwd, d_fwd, grads ? &grads->fwd : nullptr, d_x ? &dx_f : nullptr);
  lstm_backward(p.bwd, c.x_rev, c.bwd, d_bwd, grads ? &grads->bwd : nullptr, d_x ? &dx_r : nullptr);
  if (d_x) {
    *d_x = dx_f;
    for (size_t k = 0; k < c.reverse.size(); ++k) d_x->col(c.reverse[k]) += dx_r.col(static_cast<Eigen::Index>(k));
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                             \
  template void bilstm_forward<T>(const BiLstmParams<T>&, const Mat<T>&, const std::vector<int>&, int,     \
                                  BiLstmCache<T>&, bool);                                                  \
  template void bilstm_backward<T>(const BiLstmParams<T>&, const Mat<T>&, const BiLstmCache<T>&,           \
                                   const Mat<T>&, BiLstmParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
