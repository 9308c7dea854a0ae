#include "nn/lstm.h"

#include <cmath>

#include "nn/matmul.h"
#include "nn/simd.h"

namespace attnlab {

template <class T>
void LstmParams<T>::resize(int input, int hidden) {
  w_ih = Mat<T>::Zero(4 * hidden, input);
  w_hh = Mat<T>::Zero(4 * hidden, hidden);
  bias = Mat<T>::Zero(4 * hidden, 1);
}

namespace {

// One LSTM cell for one sequence, fused: z [4H] pre-activations in, gate activations out (in place);
// sigmoid(x) = (1 + tanh(x/2)) / 2; c = f*c_prev + i*g; h = o*tanh(c).
// Double precision (gradient checks) uses std::tanh; float uses the 4-lane rational tanh. Used in wasm,
// where Eigen has no SIMD packets; natively Eigen's array expressions below are faster.
[[maybe_unused]] void cell_forward(double* z, const double* c_prev, double* c, double* h, int H) {
  for (int r = 0; r < H; ++r) {
    const double i = 0.5 + 0.5 * std::tanh(0.5 * z[r]);
    const double f = 0.5 + 0.5 * std::tanh(0.5 * z[H + r]);
    const double g = std::tanh(z[2 * H + r]);
    const double o = 0.5 + 0.5 * std::tanh(0.5 * z[3 * H + r]);
    z[r] = i;
    z[H + r] = f;
    z[2 * H + r] = g;
    z[3 * H + r] = o;
    c[r] = f * c_prev[r] + i * g;
    h[r] = o * std::tanh(c[r]);
  }
}

[[maybe_unused]] void cell_forward(float* z, const float* c_prev, float* c, float* h, int H) {
  using namespace simd;
  const v4 half = splat(0.5f);
  int r = 0;
  for (; r + 4 <= H; r += 4) {
    const v4 i = half + half * simd::tanh(half * load(z + r));
    const v4 f = half + half * simd::tanh(half * load(z + H + r));
    const v4 g = simd::tanh(load(z + 2 * H + r));
    const v4 o = half + half * simd::tanh(half * load(z + 3 * H + r));
    store(z + r, i);
    store(z + H + r, f);
    store(z + 2 * H + r, g);
    store(z + 3 * H + r, o);
    const v4 cell = f * load(c_prev + r) + i * g;
    store(c + r, cell);
    store(h + r, o * simd::tanh(cell));
  }
  const auto tanh1 = [](float x) { return simd::tanh(splat(x))[0]; };
  for (; r < H; ++r) {  // H not a multiple of 4
    const float i = 0.5f + 0.5f * tanh1(0.5f * z[r]);
    const float f = 0.5f + 0.5f * tanh1(0.5f * z[H + r]);
    const float g = tanh1(z[2 * H + r]);
    const float o = 0.5f + 0.5f * tanh1(0.5f * z[3 * H + r]);
    z[r] = i;
    z[H + r] = f;
    z[2 * H + r] = g;
    z[3 * H + r] = o;
    c[r] = f * c_prev[r] + i * g;
    h[r] = o * tanh1(c[r]);
  }
}

constexpr double kOrthoEps = 1e-6;

// The Orthogonal LSTM's projection of step t's outputs (columns col..col+B), in place; keeps the raw outputs
// and the means for the backward. sum [H x B]: the earlier outputs' sum, updated.
template <class T>
void orthogonalise_step(LstmCache<T>& c, Eigen::Index col, int B, int t, Mat<T>& sum) {
  auto h = c.out.middleCols(col, B);
  c.raw.middleCols(col, B) = h;
  auto m = c.mean.middleCols(col, B);
  m = sum / T(t + 1);
  for (int b = 0; b < B; ++b) {
    const T s = h.col(b).dot(m.col(b)) / (m.col(b).squaredNorm() + T(kOrthoEps));
    h.col(b) -= s * m.col(b);
  }
  sum += h;
}

}  // namespace

template <class T>
void lstm_forward(const LstmParams<T>& p, const Mat<T>& x, int B, int steps, LstmCache<T>& c, bool orthogonal) {
  const int H = p.hidden();
  const Eigen::Index n = static_cast<Eigen::Index>(B) * steps;
  c.B = B;
  c.steps = steps;
  c.gates = Mat<T>::Zero(4 * H, n);  // [4H x TB]  (Eigen's replicate() is slow here; += bias is not)
  matmul_acc(c.gates, p.w_ih, x);
  c.gates.colwise() += p.bias.col(0);
  c.cell.resize(H, n);
  c.out.resize(H, n);
  c.orthogonal = orthogonal;
  Mat<T> ortho_sum;
  if (orthogonal) {
    c.raw.resize(H, n);
    c.mean.resize(H, n);
    ortho_sum = Mat<T>::Zero(H, B);
  } else {
    c.raw.resize(0, 0);
    c.mean.resize(0, 0);
  }
  [[maybe_unused]] const Mat<T> zero_cell = Mat<T>::Zero(H, 1);
  for (int t = 0; t < steps; ++t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t) * B;
    if (t > 0) matmul_acc(c.gates.middleCols(col, B), p.w_hh, c.out.middleCols(col - B, B));
#if defined(__wasm__)
    for (int b = 0; b < B; ++b)
      cell_forward(c.gates.col(col + b).data(), t > 0 ? c.cell.col(col - B + b).data() : zero_cell.data(),
                   c.cell.col(col + b).data(), c.out.col(col + b).data(), H);
#else
    // Natively Eigen's packet math (AVX/AVX-512) evaluates the same tanh approximation on all B columns.
    auto z = c.gates.middleCols(col, B);
    z.topRows(2 * H) = (T(0.5) + T(0.5) * (T(0.5) * z.topRows(2 * H).array()).tanh()).matrix();
    z.middleRows(2 * H, H) = z.middleRows(2 * H, H).array().tanh().matrix();
    z.bottomRows(H) = (T(0.5) + T(0.5) * (T(0.5) * z.bottomRows(H).array()).tanh()).matrix();
    auto ct = c.cell.middleCols(col, B);
    if (t > 0) ct = z.middleRows(H, H).cwiseProduct(c.cell.middleCols(col - B, B)) + z.topRows(H).cwiseProduct(z.middleRows(2 * H, H));
    else ct = z.topRows(H).cwiseProduct(z.middleRows(2 * H, H));
    c.out.middleCols(col, B) = z.bottomRows(H).cwiseProduct(ct.array().tanh().matrix());
#endif
    if (orthogonal) orthogonalise_step(c, col, B, t, ortho_sum);
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
  // Orthogonal: the gradient on each output from the later steps' means (m_t reads every earlier output / t).
  Mat<T> d_from_means = c.orthogonal ? Mat<T>::Zero(H, B) : Mat<T>();
#if defined(__wasm__)
  const Mat<T> w_hh_t = p.w_hh.transpose();  // once, not per step (the kernel wants plain C += A * B)
#endif
  for (int t = steps - 1; t >= 0; --t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t) * B;
    const auto g = c.gates.middleCols(col, B);
    const auto i = g.topRows(H), f = g.middleRows(H, H), gg = g.middleRows(2 * H, H), o = g.bottomRows(H);
    const Mat<T> tc = c.cell.middleCols(col, B).array().tanh().matrix();
    dh = d_out.middleCols(col, B) + dh_next;
    if (c.orthogonal) {
      // h = u - s m with s = (u.m) / n, n = m.m + eps. Given g = dL/dh:
      //   dL/du = g - m (m.g) / n;  dL/dm = -s g - (m.g) / n u + 2 s (m.g) / n m.
      dh += d_from_means;
      const auto u = c.raw.middleCols(col, B);
      const auto m = c.mean.middleCols(col, B);
      Mat<T> dm(H, B);
      for (int b = 0; b < B; ++b) {
        const T n = m.col(b).squaredNorm() + T(kOrthoEps);
        const T s = u.col(b).dot(m.col(b)) / n;
        const T mg = m.col(b).dot(dh.col(b));
        dm.col(b) = -s * dh.col(b) - (mg / n) * u.col(b) + (T(2) * s * mg / n) * m.col(b);
        dh.col(b) -= (mg / n) * m.col(b);
      }
      d_from_means += dm / T(t + 1);
    }
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
    dh_next.setZero();
#if defined(__wasm__)
    matmul_acc(dh_next, w_hh_t, dz);
#else
    matmul_acc_tn(dh_next, p.w_hh, dz);
#endif
  }
  if (grads) {
    matmul_acc_nt(grads->w_ih, d_gates, x);
    if (steps > 1) {
      const Eigen::Index m = static_cast<Eigen::Index>(steps - 1) * B;
      matmul_acc_nt(grads->w_hh, d_gates.rightCols(m), c.out.leftCols(m));
    }
    grads->bias += d_gates.rowwise().sum();
  }
  if (d_x) {
    *d_x = Mat<T>::Zero(p.w_ih.cols(), d_gates.cols());
    matmul_acc_tn(*d_x, p.w_ih, d_gates);
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                          \
  template struct LstmParams<T>;                                                                        \
  template void lstm_forward<T>(const LstmParams<T>&, const Mat<T>&, int, int, LstmCache<T>&, bool);    \
  template void lstm_backward<T>(const LstmParams<T>&, const Mat<T>&, const LstmCache<T>&, const Mat<T>&, \
                                 LstmParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
