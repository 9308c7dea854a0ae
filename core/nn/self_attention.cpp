// Multi-head self-attention forward / backward (contract in self_attention.h).
#include "nn/self_attention.h"

#include <cmath>

namespace attnlab {

template <class T>
void mha_forward(const MhaParams<T>& p, int H, const Mat<T>& x, const std::vector<int>& n, int S, bool uniform,
                 const Mat<T>* imposed_alpha, MhaCache<T>& c, Mat<T>& out, const char* head_off) {
  const int B = static_cast<int>(n.size());
  const Eigen::Index d = x.rows();
  const int dk = static_cast<int>(d) / H;
  const T scale = T(1) / std::sqrt(T(dk));
  c.heads = H;
  c.S = S;
  c.n = n;
  c.uniform = uniform;
  c.imposed = imposed_alpha != nullptr;
  c.alpha = imposed_alpha ? *imposed_alpha : Mat<T>();
  c.head_off.assign(head_off ? head_off : nullptr, head_off ? head_off + H : nullptr);
  if (!uniform) {
    linear_forward(p.q, x, c.q);
    linear_forward(p.k, x, c.k);
  } else {
    c.q.resize(0, 0);
    c.k.resize(0, 0);
  }
  linear_forward(p.v, x, c.v);
  c.ctx = Mat<T>::Zero(d, x.cols());
  c.probs.assign(static_cast<size_t>(B) * H, Mat<T>());
  c.own_row0.assign(c.imposed ? static_cast<size_t>(B) * H : 0, Mat<T>());
  for (int b = 0; b < B; ++b) {
    const int nb = n[b];
    const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
    for (int h = 0; h < H; ++h) {
      Mat<T>& P = c.probs[static_cast<size_t>(b) * H + h];
      P = Mat<T>::Zero(S, S);
      if (uniform) {
        P.topLeftCorner(nb, nb).setConstant(T(1) / T(nb));
      } else {
        const auto qh = c.q.block(h * dk, col0, dk, nb);
        const auto kh = c.k.block(h * dk, col0, dk, nb);
        Mat<T> scores = (qh.transpose() * kh) * scale;  // [nb x nb]
        for (int i = 0; i < nb; ++i) {
          const T mx = scores.row(i).maxCoeff();
          scores.row(i) = (scores.row(i).array() - mx).exp().matrix();
          scores.row(i) /= scores.row(i).sum();
        }
        P.topLeftCorner(nb, nb) = scores;
      }
      if (c.imposed) {
        c.own_row0[static_cast<size_t>(b) * H + h] = P.block(0, 0, 1, nb);
        const T self = P(0, 0);
        for (int j = 1; j < nb; ++j) P(0, j) = (T(1) - self) * (*imposed_alpha)(j - 1, b);
      }
      if (!c.head_off.empty() && c.head_off[h]) continue;  // switched off: ctx_h stays 0
      c.ctx.block(h * dk, col0, dk, nb).noalias() =
          c.v.block(h * dk, col0, dk, nb) * P.topLeftCorner(nb, nb).transpose();
    }
  }
  linear_forward(p.o, c.ctx, out);
}

template <class T>
void mha_backward(const MhaParams<T>& p, const Mat<T>& x, const MhaCache<T>& c, const Mat<T>& d_out, bool detach,
                  MhaParams<T>* grads, Mat<T>* d_x, std::vector<Mat<T>>* d_probs, Mat<T>* d_alpha) {
  const int B = static_cast<int>(c.n.size()), H = c.heads, S = c.S;
  const Eigen::Index d = x.rows();
  const int dk = static_cast<int>(d) / H;
  const T scale = T(1) / std::sqrt(T(dk));
  Mat<T> d_ctx;
  linear_backward(p.o, c.ctx, d_out, grads ? &grads->o : nullptr, &d_ctx);
  Mat<T> d_q = Mat<T>::Zero(d, x.cols()), d_k = Mat<T>::Zero(d, x.cols()), d_v = Mat<T>::Zero(d, x.cols());
  if (d_probs) d_probs->assign(static_cast<size_t>(B) * H, Mat<T>());
  if (d_alpha) *d_alpha = Mat<T>::Zero(c.alpha.rows() ? c.alpha.rows() : S - 1, B);
  const bool scores_path = !c.uniform && !detach;
  for (int b = 0; b < B; ++b) {
    const int nb = c.n[b];
    const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
    for (int h = 0; h < H; ++h) {
      if (!c.head_off.empty() && c.head_off[h]) {
        if (d_probs) (*d_probs)[static_cast<size_t>(b) * H + h] = Mat<T>::Zero(S, S);
        continue;  // no path through a switched-off head
      }
      const Mat<T>& Pfull = c.probs[static_cast<size_t>(b) * H + h];
      const auto P = Pfull.topLeftCorner(nb, nb);
      const auto dctx = d_ctx.block(h * dk, col0, dk, nb);
      const auto vh = c.v.block(h * dk, col0, dk, nb);
      d_v.block(h * dk, col0, dk, nb).noalias() += dctx * P;            // dv_j = sum_i P[i,j] dctx_i
      Mat<T> dP = dctx.transpose() * vh;                                  // dP[i,j] = dctx_i . v_j
      if (d_probs) {
        Mat<T>& out = (*d_probs)[static_cast<size_t>(b) * H + h];
        out = Mat<T>::Zero(S, S);
        out.topLeftCorner(nb, nb) = dP;
      }
      if (c.imposed) {
        // Row 0 = [c, (1-c) a]: d c = dP[0,0] - sum_j a_j dP[0,j]; d a_j = (1-c) dP[0,j].
        const T self = P(0, 0);
        T d_self = dP(0, 0);
        for (int j = 1; j < nb; ++j) {
          const T a = c.alpha(j - 1, b);
          d_self -= a * dP(0, j);
          if (d_alpha) (*d_alpha)(j - 1, b) += (T(1) - self) * dP(0, j);
        }
        // c is the own softmax's weight of key 0: its gradient goes to row 0's scores through that softmax.
        dP.row(0).setZero();
        if (scores_path) {
          const Mat<T>& own = c.own_row0[static_cast<size_t>(b) * H + h];
          for (int j = 0; j < nb; ++j) dP(0, j) = 0;
          // d score_j = d_self * own_0 (delta_0j - own_j); expressed as a dP row on the own softmax below.
          Mat<T> dS0 = (-d_self * own(0, 0)) * own;
          dS0(0, 0) += d_self * own(0, 0);
          // Apply the row-0 score gradient directly.
          const auto qh = c.q.block(h * dk, col0, dk, nb);
          const auto kh = c.k.block(h * dk, col0, dk, nb);
          d_q.block(h * dk, col0, dk, 1).noalias() += (kh * dS0.transpose()) * scale;
          d_k.block(h * dk, col0, dk, nb).noalias() += (qh.col(0) * dS0) * scale;
        }
      } else if (d_alpha) {
        for (int j = 1; j < nb; ++j) (*d_alpha)(j - 1, b) += (T(1) - P(0, 0)) * dP(0, j);
      }
      if (!scores_path) continue;
      // Softmax backward per row: dS = P ⊙ (dP - rowsum(dP ⊙ P)). (Imposed row 0 was handled above: its dP is 0
      // and its P row is not the softmax, so skip it.)
      Mat<T> dS(nb, nb);
      for (int i = 0; i < nb; ++i) {
        if (c.imposed && i == 0) {
          dS.row(0).setZero();
          continue;
        }
        const T dot = (dP.row(i).array() * P.row(i).array()).sum();
        dS.row(i) = (P.row(i).array() * (dP.row(i).array() - dot)).matrix();
      }
      const auto qh = c.q.block(h * dk, col0, dk, nb);
      const auto kh = c.k.block(h * dk, col0, dk, nb);
      d_q.block(h * dk, col0, dk, nb).noalias() += (kh * dS.transpose()) * scale;  // dq_i = sum_j dS[i,j] k_j
      d_k.block(h * dk, col0, dk, nb).noalias() += (qh * dS) * scale;              // dk_j = sum_i dS[i,j] q_i
    }
  }
  Mat<T> dx_part;
  if (d_x) *d_x = Mat<T>::Zero(d, x.cols());
  linear_backward(p.v, x, d_v, grads ? &grads->v : nullptr, d_x ? &dx_part : nullptr);
  if (d_x) *d_x += dx_part;
  if (!c.uniform) {
    linear_backward(p.q, x, d_q, grads ? &grads->q : nullptr, d_x ? &dx_part : nullptr);
    if (d_x) *d_x += dx_part;
    linear_backward(p.k, x, d_k, grads ? &grads->k : nullptr, d_x ? &dx_part : nullptr);
    if (d_x) *d_x += dx_part;
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                 \
  template void mha_forward<T>(const MhaParams<T>&, int, const Mat<T>&, const std::vector<int>&, int, bool,    \
                               const Mat<T>*, MhaCache<T>&, Mat<T>&, const char*);                                          \
  template void mha_backward<T>(const MhaParams<T>&, const Mat<T>&, const MhaCache<T>&, const Mat<T>&, bool,   \
                                MhaParams<T>*, Mat<T>*, std::vector<Mat<T>>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
