#include "nn/gru.h"

#include "nn/bilstm.h"  // reverse_within_lengths
#include "nn/matmul.h"

namespace attnlab {

template <class T>
void GruParams<T>::resize(int input, int hidden) {
  w_ih = Mat<T>::Zero(3 * hidden, input);
  w_hh = Mat<T>::Zero(3 * hidden, hidden);
  b_ih = Mat<T>::Zero(3 * hidden, 1);
  b_hh = Mat<T>::Zero(3 * hidden, 1);
}

namespace {

// mask(b) = 1 when step t is a real step of sequence b.
template <class T>
Eigen::Array<T, 1, Eigen::Dynamic> step_mask(const std::vector<int>& lengths, int t) {
  Eigen::Array<T, 1, Eigen::Dynamic> m(static_cast<Eigen::Index>(lengths.size()));
  for (size_t b = 0; b < lengths.size(); ++b) m(static_cast<Eigen::Index>(b)) = t < lengths[b] ? T(1) : T(0);
  return m;
}

template <class T>
void sigmoid_block(Eigen::Block<Mat<T>> z) {
  z = (T(0.5) + T(0.5) * (T(0.5) * z.array()).tanh()).matrix();
}

}  // namespace

template <class T>
void gru_forward(const GruParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps, GruCache<T>& c) {
  const int H = p.hidden();
  const int B = static_cast<int>(lengths.size());
  const Eigen::Index n = static_cast<Eigen::Index>(B) * steps;
  c.B = B;
  c.steps = steps;
  c.lengths = lengths;
  c.gates = Mat<T>::Zero(3 * H, n);  // input part W_ih x + b_ih, then activations in place
  matmul_acc(c.gates, p.w_ih, x);
  c.gates.colwise() += p.b_ih.col(0);
  c.hn.resize(H, n);
  c.out.resize(H, n);
  Mat<T> gh(3 * H, B);
  for (int t = 0; t < steps; ++t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t) * B;
    gh.colwise() = p.b_hh.col(0);
    if (t > 0) matmul_acc(gh, p.w_hh, c.out.middleCols(col - B, B));
    auto g = c.gates.middleCols(col, B);
    g.topRows(2 * H) += gh.topRows(2 * H);
    sigmoid_block<T>(c.gates.block(0, col, 2 * H, B));
    c.hn.middleCols(col, B) = gh.bottomRows(H);
    g.bottomRows(H) = (g.bottomRows(H).array() + g.topRows(H).array() * gh.bottomRows(H).array()).tanh().matrix();
    auto h = c.out.middleCols(col, B);
    const auto z = g.middleRows(H, H).array();
    if (t > 0) h = ((T(1) - z) * g.bottomRows(H).array() + z * c.out.middleCols(col - B, B).array()).matrix();
    else h = ((T(1) - z) * g.bottomRows(H).array()).matrix();
    const auto mask = step_mask<T>(lengths, t);
    h = (h.array().rowwise() * mask).matrix();  // padding: exactly 0
  }
}

template <class T>
void gru_backward(const GruParams<T>& p, const Mat<T>& x, const GruCache<T>& c, const Mat<T>& d_out,
                  GruParams<T>* grads, Mat<T>* d_x) {
  const int H = p.hidden();
  const int B = c.B, steps = c.steps;
  const Eigen::Index n = static_cast<Eigen::Index>(B) * steps;
  Mat<T> d_gi(3 * H, n);  // gradient w.r.t. W_ih x + b_ih
  Mat<T> d_gh(3 * H, n);  // gradient w.r.t. W_hh h_prev + b_hh
  Mat<T> dh_next = Mat<T>::Zero(H, B), dh(H, B);
  for (int t = steps - 1; t >= 0; --t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t) * B;
    const auto mask = step_mask<T>(c.lengths, t);
    dh = ((d_out.middleCols(col, B) + dh_next).array().rowwise() * mask).matrix();
    const auto g = c.gates.middleCols(col, B);
    const auto r = g.topRows(H).array(), z = g.middleRows(H, H).array(), nn = g.bottomRows(H).array();
    const Mat<T> hprev = t > 0 ? Mat<T>(c.out.middleCols(col - B, B)) : Mat<T>::Zero(H, B);
    const Mat<T> da_n = (dh.array() * (T(1) - z) * (T(1) - nn.square())).matrix();
    const Mat<T> da_r = (da_n.array() * c.hn.middleCols(col, B).array() * r * (T(1) - r)).matrix();
    const Mat<T> da_z = (dh.array() * (hprev.array() - nn) * z * (T(1) - z)).matrix();
    auto gi = d_gi.middleCols(col, B);
    auto ghb = d_gh.middleCols(col, B);
    gi.topRows(H) = da_r;
    gi.middleRows(H, H) = da_z;
    gi.bottomRows(H) = da_n;
    ghb.topRows(H) = da_r;
    ghb.middleRows(H, H) = da_z;
    ghb.bottomRows(H) = (da_n.array() * r).matrix();
    dh_next = (dh.array() * z).matrix();
    matmul_acc_tn(dh_next, p.w_hh, ghb);
  }
  if (grads) {
    matmul_acc_nt(grads->w_ih, d_gi, x);
    grads->b_ih += d_gi.rowwise().sum();
    grads->b_hh += d_gh.rowwise().sum();
    if (steps > 1) {
      const Eigen::Index m = static_cast<Eigen::Index>(steps - 1) * B;
      matmul_acc_nt(grads->w_hh, d_gh.rightCols(m), c.out.leftCols(m));
    }
  }
  if (d_x) {
    *d_x = Mat<T>::Zero(p.w_ih.cols(), n);
    matmul_acc_tn(*d_x, p.w_ih, d_gi);
  }
}

template <class T>
void bigru_forward(const BiGruParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps,
                   BiGruCache<T>& c) {
  const int H = p.hidden();
  c.reverse = reverse_within_lengths(lengths, steps);
  c.x_rev.resize(x.rows(), x.cols());
  for (size_t k = 0; k < c.reverse.size(); ++k) c.x_rev.col(static_cast<Eigen::Index>(k)) = x.col(c.reverse[k]);
  gru_forward(p.fwd, x, lengths, steps, c.fwd);
  gru_forward(p.bwd, c.x_rev, lengths, steps, c.bwd);
  c.out.resize(2 * H, x.cols());
  c.out.topRows(H) = c.fwd.out;
  for (size_t k = 0; k < c.reverse.size(); ++k)
    c.out.col(static_cast<Eigen::Index>(k)).bottomRows(H) = c.bwd.out.col(c.reverse[k]);
}

template <class T>
void bigru_backward(const BiGruParams<T>& p, const Mat<T>& x, const BiGruCache<T>& c, const Mat<T>& d_out,
                    BiGruParams<T>* grads, Mat<T>* d_x) {
  const int H = p.hidden();
  const Mat<T> d_fwd = d_out.topRows(H);
  Mat<T> d_bwd(H, d_out.cols());
  for (size_t k = 0; k < c.reverse.size(); ++k)
    d_bwd.col(static_cast<Eigen::Index>(k)) = d_out.col(c.reverse[k]).bottomRows(H);
  Mat<T> dx_f, dx_r;
  gru_backward(p.fwd, x, c.fwd, d_fwd, grads ? &grads->fwd : nullptr, d_x ? &dx_f : nullptr);
  gru_backward(p.bwd, c.x_rev, c.bwd, d_bwd, grads ? &grads->bwd : nullptr, d_x ? &dx_r : nullptr);
  if (d_x) {
    *d_x = dx_f;
    for (size_t k = 0; k < c.reverse.size(); ++k) d_x->col(c.reverse[k]) += dx_r.col(static_cast<Eigen::Index>(k));
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                  \
  template struct GruParams<T>;                                                                                 \
  template void gru_forward<T>(const GruParams<T>&, const Mat<T>&, const std::vector<int>&, int, GruCache<T>&); \
  template void gru_backward<T>(const GruParams<T>&, const Mat<T>&, const GruCache<T>&, const Mat<T>&,          \
                                GruParams<T>*, Mat<T>*);                                                        \
  template void bigru_forward<T>(const BiGruParams<T>&, const Mat<T>&, const std::vector<int>&, int,            \
                                 BiGruCache<T>&);                                                               \
  template void bigru_backward<T>(const BiGruParams<T>&, const Mat<T>&, const BiGruCache<T>&, const Mat<T>&,    \
                                  BiGruParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
