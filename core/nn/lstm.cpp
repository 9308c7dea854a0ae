#include "nn/lstm.h"

#include "nn/matmul.h"

namespace attnlab {

template <class T>
void LstmParams<T>::resize(int input, int hidden) {
  w_ih = Mat<T>::Zero(4 * hidden, input);
  w_hh = Mat<T>::Zero(4 * hidden, hidden);
  bias = Mat<T>::Zero(4 * hidden, 1);
}

template <class T>
void lstm_forward(const LstmParams<T>& p, const Mat<T>& x, int B, int steps, LstmCache<T>& c) {
  const int H = p.hidden();
  const Eigen::Index n = static_cast<Eigen::Index>(B) * steps;
  c.B = B;
  c.steps = steps;
  c.gates = p.bias.col(0).replicate(1, n);  // [4H x TB]
  matmul_acc(c.gates, p.w_ih, x);
  c.cell.resize(H, n);
  c.out.resize(H, n);
  for (int t = 0; t < steps; ++t) {
    auto z = c.gates.middleCols(static_cast<Eigen::Index>(t) * B, B);
    if (t > 0) matmul_acc(z, p.w_hh, c.out.middleCols(static_cast<Eigen::Index>(t - 1) * B, B));
    // sigmoid(x) = (1 + tanh(x/2)) / 2: Eigen's tanh is a rational approximation that vectorises
    // (also without SIMD packets, in wasm), where exp() would be a libm call per element.
    z.topRows(2 * H) = (T(0.5) + T(0.5) * (T(0.5) * z.topRows(2 * H).array()).tanh()).matrix();
    z.middleRows(2 * H, H) = z.middleRows(2 * H, H).array().tanh().matrix();
    z.bottomRows(H) = (T(0.5) + T(0.5) * (T(0.5) * z.bottomRows(H).array()).tanh()).matrix();
    auto ct = c.cell.middleCols(static_cast<Eigen::Index>(t) * B, B);
    if (t > 0) {
      ct = z.middleRows(H, H).cwiseProduct(c.cell.middleCols(static_cast<Eigen::Index>(t - 1) * B, B)) +
           z.topRows(H).cwiseProduct(z.middleRows(2 * H, H));
    } else {
      ct = z.topRows(H).cwiseProduct(z.middleRows(2 * H, H));
    }
    c.out.middleCols(static_cast<Eigen::Index>(t) * B, B) =
        z.bottomRows(H).cwiseProduct(ct.array().tanh().matrix());
  }
}

template <class T>
void lstm_backward(const LstmParams<T>& p, const Mat<T>& x, const LstmCache<T>& c, const Mat<T>& d_out,
                   LstmParams<T>* grads, Mat<T>* d_x) {
  const int H = p.hidden();
  const int B = c.B, steps = c.steps;
  Mat<T> d_gates(4 * H, static_cast<Eigen::Index>(B) * steps);
  Mat<T> dh_next = Mat<T>::Zero(H, B), dc_next = Mat<T>::Zero(H, B);
  Mat<T> dh(H, B), dc(H, B);
  for (int t = steps - 1; t >= 0; --t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t) * B;
    const auto g = c.gates.middleCols(col, B);
    const auto i = g.topRows(H), f = g.middleRows(H, H), gg = g.middleRows(2 * H, H), o = g.bottomRows(H);
    const Mat<T> tc = c.cell.middleCols(col, B).array().tanh().matrix();
    dh = d_out.middleCols(col, B) + dh_next;
    dc = dc_next.array() + dh.array() * o.array() * (T(1) - tc.array().square());
    auto dz = d_gates.middleCols(col, B);
    dz.bottomRows(H) = (dh.array() * tc.array() * o.array() * (T(1) - o.array())).matrix();
    dz.topRows(H) = (dc.array() * gg.array() * i.array() * (T(1) - i.array())).matrix();
    dz.middleRows(2 * H, H) = (dc.array() * i.array() * (T(1) - gg.array().square())).matrix();
    if (t > 0) {
      const auto cprev = c.cell.middleCols(col - B, B);
      dz.middleRows(H, H) = (dc.array() * cprev.array() * f.array() * (T(1) - f.array())).matrix();
    } else {
      dz.middleRows(H, H).setZero();
    }
    dc_next = dc.cwiseProduct(f);
    dh_next.noalias() = p.w_hh.transpose() * dz;
  }
  if (grads) {
    grads->w_ih.noalias() += d_gates * x.transpose();
    if (steps > 1) {
      const Eigen::Index m = static_cast<Eigen::Index>(steps - 1) * B;
      grads->w_hh.noalias() += d_gates.rightCols(m) * c.out.leftCols(m).transpose();
    }
    grads->bias += d_gates.rowwise().sum();
  }
  if (d_x) d_x->noalias() = p.w_ih.transpose() * d_gates;
}

#define ATTNLAB_INSTANTIATE(T)                                                                          \
  template struct LstmParams<T>;                                                                        \
  template void lstm_forward<T>(const LstmParams<T>&, const Mat<T>&, int, int, LstmCache<T>&);          \
  template void lstm_backward<T>(const LstmParams<T>&, const Mat<T>&, const LstmCache<T>&, const Mat<T>&, \
                                 LstmParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
