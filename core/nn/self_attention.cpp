// Multi-head self-attention forward / backward (contract in self_attention.h).
#include "nn/self_attention.h"

#include <cmath>

#include "nn/matmul.h"
#include "nn/simd.h"

namespace attnlab {

namespace {

// Softmax of every column of s in place (the column maximum subtracted first, so it never overflows).
void softmax_columns(Mat<double>& s) {
  for (Eigen::Index i = 0; i < s.cols(); ++i) {
    auto col = s.col(i);
    col = (col.array() - col.maxCoeff()).exp().matrix();
    col /= col.sum();
  }
}

// float: four lanes at a time with simd::exp (Eigen 3.4's exp is scalar under wasm).
void softmax_columns(Mat<float>& s) {
  using namespace simd;
  const int n = static_cast<int>(s.rows());
  for (Eigen::Index i = 0; i < s.cols(); ++i) {
    float* c = s.col(i).data();
    const float mx = s.col(i).maxCoeff();
    int j = 0;
    v4 acc = splat(0.f);
    for (; j + 4 <= n; j += 4) {
      const v4 e = simd::exp(load(c + j) - splat(mx));
      store(c + j, e);
      acc += e;
    }
    float sum = acc[0] + acc[1] + acc[2] + acc[3];
    if (j < n) {
      float tail[4] = {mx, mx, mx, mx};
      for (int k = j; k < n; ++k) tail[k - j] = c[k];
      const v4 e = simd::exp(load(tail) - splat(mx));
      for (int k = j; k < n; ++k) {
        c[k] = e[k - j];
        sum += e[k - j];
      }
    }
    const v4 sv = splat(sum);
    for (j = 0; j + 4 <= n; j += 4) store(c + j, load(c + j) / sv);
    for (; j < n; ++j) c[j] /= sum;
  }
}

// Column b*S (position 0 of each sequence) of x [d x B*S], as [d x B].
template <class T>
Mat<T> first_columns(const Mat<T>& x, int B, int S) {
  Mat<T> out(x.rows(), B);
  for (int b = 0; b < B; ++b) out.col(b) = x.col(static_cast<Eigen::Index>(b) * S);
  return out;
}

}  // namespace

template <class T>
void mha_forward(const MhaParams<T>& p, int H, const Mat<T>& x, const std::vector<int>& n, int S, bool uniform,
                 const Mat<T>* imposed_alpha, MhaCache<T>& c, Mat<T>& out, const char* head_off,
                 bool first_query_only) {
  const int B = static_cast<int>(n.size());
  const Eigen::Index d = x.rows();
  const int dk = static_cast<int>(d) / H;
  const T scale = T(1) / std::sqrt(T(dk));
  c.heads = H;
  c.S = S;
  c.n = n;
  c.uniform = uniform;
  c.imposed = imposed_alpha != nullptr;
  c.first_query_only = first_query_only;
  c.alpha = imposed_alpha ? *imposed_alpha : Mat<T>();
  c.head_off.assign(head_off ? head_off : nullptr, head_off ? head_off + H : nullptr);
  if (!uniform) {
    if (first_query_only) {
      linear_forward(p.q, first_columns(x, B, S), c.q);
    } else {
      linear_forward(p.q, x, c.q);
    }
    linear_forward(p.k, x, c.k);
  } else {
    c.q.resize(0, 0);
    c.k.resize(0, 0);
  }
  linear_forward(p.v, x, c.v);
  c.ctx = Mat<T>::Zero(d, first_query_only ? B : x.cols());
  c.probs.assign(static_cast<size_t>(B) * H, Mat<T>());
  c.own_row0.assign(c.imposed ? static_cast<size_t>(B) * H : 0, Mat<T>());
  Mat<T> kt, st;
  for (int b = 0; b < B; ++b) {
    const int nb = n[b];
    const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
    // The query columns of this sequence: all nb positions, or position 0 only (its column b in q and ctx).
    const int nq = first_query_only ? 1 : nb;
    const Eigen::Index qcol0 = first_query_only ? b : col0;
    for (int h = 0; h < H; ++h) {
      // st = P_h transposed ([key j x query i]): each query's softmax is one contiguous column, and
      // ctx_h = V_h P_h^T = V_h st is a plain product.
      if (uniform) {
        st.setConstant(nb, nq, T(1) / T(nb));
      } else {
        kt = c.k.block(h * dk, col0, dk, nb).transpose();
        st.setZero(nb, nq);
        matmul_acc(st, kt, c.q.block(h * dk, qcol0, dk, nq));  // st(j, i) = k_j . q_i
        st *= scale;
        softmax_columns(st);
      }
      if (c.imposed) {
        c.own_row0[static_cast<size_t>(b) * H + h] = st.col(0).transpose();
        const T self = st(0, 0);
        for (int j = 1; j < nb; ++j) st(j, 0) = (T(1) - self) * (*imposed_alpha)(j - 1, b);
      }
      Mat<T>& P = c.probs[static_cast<size_t>(b) * H + h];
      P = Mat<T>::Zero(S, S);
      P.topLeftCorner(nq, nb) = st.transpose();
      if (!c.head_off.empty() && c.head_off[h]) continue;  // switched off: ctx_h stays 0
      matmul_acc(c.ctx.block(h * dk, qcol0, dk, nq), c.v.block(h * dk, col0, dk, nb), st);
    }
  }
  linear_forward(p.o, c.ctx, out);
}

template <class T>
void mha_backward(const MhaParams<T>& p, const Mat<T>& x, const MhaCache<T>& c, const Mat<T>& d_out, bool detach,
                  MhaParams<T>* grads, Mat<T>* d_x, std::vector<Mat<T>>* d_probs, Mat<T>* d_alpha,
                  bool uniform_rule) {
  const int B = static_cast<int>(c.n.size()), H = c.heads, S = c.S;
  const Eigen::Index d = x.rows();
  const int dk = static_cast<int>(d) / H;
  const T scale = T(1) / std::sqrt(T(dk));
  Mat<T> d_ctx;
  linear_backward(p.o, c.ctx, d_out, grads ? &grads->o : nullptr, &d_ctx);
  const bool fq = c.first_query_only;
  Mat<T> d_q = Mat<T>::Zero(d, fq ? B : x.cols()), d_k = Mat<T>::Zero(d, x.cols()), d_v = Mat<T>::Zero(d, x.cols());
  if (d_probs) d_probs->assign(static_cast<size_t>(B) * H, Mat<T>());
  if (d_alpha) *d_alpha = Mat<T>::Zero(c.alpha.rows() ? c.alpha.rows() : S - 1, B);
  const bool scores_path = !c.uniform && !detach;
  const T half = T(0.5);
  const T score_scale = uniform_rule ? scale * half : scale;  // Q's and K's halves of Q·Kᵀ
  for (int b = 0; b < B; ++b) {
    const int nb = c.n[b];
    const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
    const int nq = fq ? 1 : nb;  // query columns, as in the forward
    const Eigen::Index qcol0 = fq ? b : col0;
    for (int h = 0; h < H; ++h) {
      if (!c.head_off.empty() && c.head_off[h]) {
        if (d_probs) (*d_probs)[static_cast<size_t>(b) * H + h] = Mat<T>::Zero(S, S);
        continue;  // no path through a switched-off head
      }
      const Mat<T>& Pfull = c.probs[static_cast<size_t>(b) * H + h];
      const auto P = Pfull.topLeftCorner(nq, nb);
      const auto dctx = d_ctx.block(h * dk, qcol0, dk, nq);
      const auto vh = c.v.block(h * dk, col0, dk, nb);
      matmul_acc(d_v.block(h * dk, col0, dk, nb), dctx, P);  // dv_j = sum_i P[i,j] dctx_i
      // Transposed layout as in the forward: dpt(j, i) = dP[i, j] = dctx_i . v_j, one query per column.
      Mat<T> dpt = Mat<T>::Zero(nb, nq);
      matmul_acc_tn(dpt, vh, dctx);
      if (uniform_rule) dpt *= half;  // P's half of P·V
      if (d_probs) {
        Mat<T>& out = (*d_probs)[static_cast<size_t>(b) * H + h];
        out = Mat<T>::Zero(S, S);
        out.topLeftCorner(nq, nb) = dpt.transpose();
      }
      if (c.imposed) {
        // Row 0 = [c, (1-c) a]: d c = dP[0,0] - sum_j a_j dP[0,j]; d a_j = (1-c) dP[0,j].
        const T self = P(0, 0);
        T d_self = dpt(0, 0);
        for (int j = 1; j < nb; ++j) {
          const T a = c.alpha(j - 1, b);
          d_self -= a * dpt(j, 0);
          if (d_alpha) (*d_alpha)(j - 1, b) += (T(1) - self) * dpt(j, 0);
        }
        // c is the own softmax's weight of key 0: its gradient goes to row 0's scores through that softmax.
        dpt.col(0).setZero();
        if (scores_path) {
          const Mat<T>& own = c.own_row0[static_cast<size_t>(b) * H + h];
          // d score_j = d_self * own_0 (delta_0j - own_j); expressed as a dP row on the own softmax below.
          Mat<T> dS0 = (-d_self * own(0, 0)) * own;
          dS0(0, 0) += d_self * own(0, 0);
          // Apply the row-0 score gradient directly.
          const auto q0 = c.q.block(h * dk, qcol0, dk, 1);
          const auto kh = c.k.block(h * dk, col0, dk, nb);
          d_q.block(h * dk, qcol0, dk, 1).noalias() += (kh * dS0.transpose()) * scale;
          d_k.block(h * dk, col0, dk, nb).noalias() += (q0 * dS0) * scale;
        }
      } else if (d_alpha) {
        for (int j = 1; j < nb; ++j) (*d_alpha)(j - 1, b) += (T(1) - P(0, 0)) * dpt(j, 0);
      }
      if (!scores_path) continue;
      // Softmax backward per query (column of the transposed layout): dS = P ⊙ (dP - rowsum(dP ⊙ P)), then
      // scaled. (Imposed row 0 was handled above: its P row is not the softmax, so its column stays 0.)
      const Mat<T> pt = P.transpose();
      for (int i = (c.imposed ? 1 : 0); i < nq; ++i) {
        const T dot = (dpt.col(i).array() * pt.col(i).array()).sum();
        dpt.col(i) = (pt.col(i).array() * (dpt.col(i).array() - dot) * score_scale).matrix();
      }
      // dpt now holds dS^T · scale: dq_i = sum_j dS[i,j] k_j, dk_j = sum_i dS[i,j] q_i.
      matmul_acc(d_q.block(h * dk, qcol0, dk, nq), c.k.block(h * dk, col0, dk, nb), dpt);
      matmul_acc_nt(d_k.block(h * dk, col0, dk, nb), c.q.block(h * dk, qcol0, dk, nq), dpt);
    }
  }
  if (uniform_rule) d_v *= half;  // V's half of P·V
  Mat<T> dx_part;
  if (d_x) *d_x = Mat<T>::Zero(d, x.cols());
  linear_backward(p.v, x, d_v, grads ? &grads->v : nullptr, d_x ? &dx_part : nullptr);
  if (d_x) *d_x += dx_part;
  if (!c.uniform) {
    if (fq) {
      linear_backward(p.q, first_columns(x, B, S), d_q, grads ? &grads->q : nullptr, d_x ? &dx_part : nullptr);
      if (d_x)
        for (int b = 0; b < B; ++b) d_x->col(static_cast<Eigen::Index>(b) * S) += dx_part.col(b);
    } else {
      linear_backward(p.q, x, d_q, grads ? &grads->q : nullptr, d_x ? &dx_part : nullptr);
      if (d_x) *d_x += dx_part;
    }
    linear_backward(p.k, x, d_k, grads ? &grads->k : nullptr, d_x ? &dx_part : nullptr);
    if (d_x) *d_x += dx_part;
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                 \
  template void mha_forward<T>(const MhaParams<T>&, int, const Mat<T>&, const std::vector<int>&, int, bool,    \
                               const Mat<T>*, MhaCache<T>&, Mat<T>&, const char*, bool);                  \
  template void mha_backward<T>(const MhaParams<T>&, const Mat<T>&, const MhaCache<T>&, const Mat<T>&, bool,   \
                                MhaParams<T>*, Mat<T>*, std::vector<Mat<T>>*, Mat<T>*, bool);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
