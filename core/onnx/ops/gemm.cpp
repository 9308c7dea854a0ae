// Matrix products (gemm_rm below: the core's SIMD kernel in wasm, Eigen natively and in double):
//   Gemm    Y [M, N] = alpha · op(A) · op(B) + beta · C; op = transpose when transA / transB; C optional,
//           broadcast to [M, N]. dA = alpha · dY · op(B)ᵀ (transposed back), dB likewise, dC = beta · Σ dY.
//   MatMul  numpy matmul: rank-1 operands are promoted ([K] → [1, K] / [K, 1]) and the added axis removed;
//           leading (batch) axes broadcast. dA = dY · Bᵀ, dB = Aᵀ · dY, summed over broadcast batches.
#include <Eigen/Core>
#include <type_traits>

#include "nn/matmul.h"
#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using CMap = Eigen::Map<const RowMat<T>>;
template <class T>
using MMap = Eigen::Map<RowMat<T>>;

// C [M, N] = op(A) · op(B) (+= when acc), all row-major; op transposes when ta / tb (A is then stored [K, M],
// B [N, K]). In wasm (float) through the core's SIMD kernel (nn/matmul.h), which sums every element over k in
// order whatever the shape, so a row's value does not depend on how many rows are multiplied with it
// (leave-one-out in pieces equals leave-one-out in one batch, bit for bit, as the page's jobs need); Eigen's
// GEMM under wasm does depend on it (its leftover rows take another kernel). Natively and in double: Eigen.
// Large products run in parts on the core's threads (ops/parts.h): C's rows when it has many (or more rows than
// columns), else its columns — cut from the shape alone, so the values do not depend on the thread count (in wasm
// they are the uncut product's bits; natively Eigen may round a part otherwise than the whole, the same on any
// thread count).
template <class T>
void gemm_rm(int64_t M, int64_t N, int64_t K, const T* A, bool ta, const T* B, bool tb, T* C, bool acc) {
  const bool by_rows = M >= 16 || M >= N;
  const int64_t items = by_rows ? M : N, work = (by_rows ? N : M) * K;  // a row's (or column's) multiply-adds
#if defined(__wasm__)
  if constexpr (std::is_same_v<T, float>) {
    if (M == 0 || N == 0) return;
    if (K == 0) {
      if (!acc) std::fill(C, C + M * N, 0.f);
      return;
    }
    // column-major, Cᵀ [N, M] += op(B)ᵀ [N, K] · op(A)ᵀ [K, M]: the row-major storage read as it is, a transposed
    // operand copied once into plain storage (the kernel reads neither operand transposed)
    const auto plain = [](const float* src, int64_t rows, int64_t cols, RowMat<float>& copy) {
      copy = CMap<float>(src, rows, cols).transpose();
      return copy.data();
    };
    RowMat<float> at, bt;
    const float* bp = tb ? plain(B, N, K, bt) : B;  // op(B)ᵀ column-major, leading dimension N
    const float* ap = ta ? plain(A, K, M, at) : A;  // op(A)ᵀ column-major, leading dimension K
    const int n = static_cast<int>(N), m = static_cast<int>(M), k = static_cast<int>(K);
    for_parts(items, work, [&](int64_t b, int64_t e) {
      const int len = static_cast<int>(e - b);
      if (!acc && by_rows) std::fill(C + b * N, C + e * N, 0.f);  // this part's rows or columns zeroed by the part
      if (!acc && !by_rows)
        for (int64_t r = 0; r < M; ++r) std::fill(C + r * N + b, C + r * N + e, 0.f);
      if (by_rows) matmul_acc_kernel(n, len, k, bp, n, ap + b * K, k, C + b * N, n);  // C's rows b .. e − 1
      else matmul_acc_kernel(len, m, k, bp + b, n, ap, k, C + b, n);                // C's columns b .. e − 1
    });
    return;
  }
#endif
  MMap<T> Y(C, M, N);
  CMap<T> Am(A, ta ? K : M, ta ? M : K), Bm(B, tb ? N : K, tb ? K : N);
  const auto product = [&](const auto& opA, const auto& opB) {
    if (op_parts(items, work) == 1) {  // whole: Eigen rounds the uncut expression as before
      if (!acc) Y.setZero();
      Y.noalias() += opA * opB;
      return;
    }
    for_parts(items, work, [&](int64_t b, int64_t e) {  // each part zeroes its own rows or columns first
      if (by_rows) {
        if (!acc) Y.middleRows(b, e - b).setZero();
        Y.middleRows(b, e - b).noalias() += opA.middleRows(b, e - b) * opB;
      } else {
        if (!acc) Y.middleCols(b, e - b).setZero();
        Y.middleCols(b, e - b).noalias() += opA * opB.middleCols(b, e - b);
      }
    });
  };
  if (!ta && !tb) product(Am, Bm);
  else if (!ta && tb) product(Am, Bm.transpose());
  else if (ta && !tb) product(Am.transpose(), Bm);
  else product(Am.transpose(), Bm.transpose());
}

template <class T>
std::string gemm_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2); !e.empty()) return e;
  const Tensor<T>&a = *in[0], &b = *in[1];
  if (a.rank() != 2 || b.rank() != 2) return "A and B must be matrices, got " + shape_str(a.shape) + " and " + shape_str(b.shape);
  const bool ta = n.attr_int("transA", 0), tb = n.attr_int("transB", 0);
  const T alpha = T(n.attr_float("alpha", 1.f)), beta = T(n.attr_float("beta", 1.f));
  const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  const int64_t Kb = tb ? b.shape[1] : b.shape[0], N = tb ? b.shape[0] : b.shape[1];
  if (K != Kb) return "inner dimensions differ: " + shape_str(a.shape) + " and " + shape_str(b.shape);
  if (auto e = check_output_size({M, N}); !e.empty()) return e;
  if (auto e = charge_work({M, K, N}); !e.empty()) return e;
  out[0] = Tensor<T>::uninit({M, N});
  gemm_rm(M, N, K, a.f.data(), ta, b.f.data(), tb, out[0].f.data(), false);
  if (alpha != T(1)) MMap<T>(out[0].f.data(), M, N) *= alpha;
  if (in.size() > 2 && in[2]) {
    const Tensor<T>& c = *in[2];
    Shape bs;
    if (!c.is_float() || !broadcast_shapes(c.shape, {M, N}, &bs) || bs != Shape{M, N})
      return "C " + shape_str(c.shape) + " does not broadcast to [" + std::to_string(M) + "," + std::to_string(N) + "]";
    const Shape sc = broadcast_strides(c.shape, {M, N}), zero(2, 0);
    broadcast_loop2(Shape{M, N}, sc, zero, [&](int64_t k, int64_t ic, int64_t) { out[0].f[k] += beta * c.f[ic]; });
  }
  return "";
}

template <class T>
std::string gemm_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const Tensor<T>&a = *in[0], &b = *in[1];
  const bool ta = n.attr_int("transA", 0), tb = n.attr_int("transB", 0);
  const T alpha = T(n.attr_float("alpha", 1.f)), beta = T(n.attr_float("beta", 1.f));
  const int64_t M = out[0]->shape[0], N = out[0]->shape[1], K = ta ? a.shape[0] : a.shape[1];
  const T* dY = dout[0]->f.data();
  if (need[0]) {  // d op(A) = alpha dY op(B)^T
    din[0] = Tensor<T>::uninit(a.shape);
    if (!ta) gemm_rm(M, K, N, dY, false, b.f.data(), !tb, din[0].f.data(), false);  // [M, K] = dY · op(B)ᵀ
    else gemm_rm(K, M, N, b.f.data(), tb, dY, true, din[0].f.data(), false);      // [K, M] = op(B) · dYᵀ
    MMap<T>(din[0].f.data(), a.shape[0], a.shape[1]) *= alpha;
  }
  if (need[1]) {  // d op(B) = alpha op(A)^T dY
    din[1] = Tensor<T>::uninit(b.shape);
    if (!tb) gemm_rm(K, N, M, a.f.data(), !ta, dY, false, din[1].f.data(), false);  // [K, N] = op(A)ᵀ · dY
    else gemm_rm(N, K, M, dY, true, a.f.data(), ta, din[1].f.data(), false);        // [N, K] = dYᵀ · op(A)
    MMap<T>(din[1].f.data(), b.shape[0], b.shape[1]) *= alpha;
  }
  if (need.size() > 2 && need[2]) {
    const Tensor<T>& c = *in[2];
    din[2] = Tensor<T>::floats(c.shape);
    const Shape sc = broadcast_strides(c.shape, {M, N}), zero(2, 0);
    broadcast_loop2(Shape{M, N}, sc, zero, [&](int64_t k, int64_t ic, int64_t) { din[2].f[ic] += beta * dout[0]->f[k]; });
  }
  return "";
}

struct MatMulDims {
  Shape a2, b2, batch, out;  // a2/b2: promoted shapes
  int64_t M, K, N;
  Shape sa, sb;              // batch strides in matrices
  int64_t nbatch;
};

template <class T>
std::string matmul_dims(const Tensor<T>& a, const Tensor<T>& b, MatMulDims* d) {
  if (a.rank() < 1 || b.rank() < 1) return "MatMul of a scalar";
  d->a2 = a.shape;
  d->b2 = b.shape;
  if (a.rank() == 1) d->a2.insert(d->a2.begin(), 1);
  if (b.rank() == 1) d->b2.push_back(1);
  d->M = d->a2[d->a2.size() - 2];
  d->K = d->a2.back();
  d->N = d->b2.back();
  if (d->b2[d->b2.size() - 2] != d->K) return "inner dimensions differ: " + shape_str(a.shape) + " and " + shape_str(b.shape);
  const Shape ba(d->a2.begin(), d->a2.end() - 2), bb(d->b2.begin(), d->b2.end() - 2);
  if (!broadcast_shapes(ba, bb, &d->batch)) return "batch axes of " + shape_str(a.shape) + " and " + shape_str(b.shape) + " do not broadcast";
  if (auto e = check_output_size(d->batch); !e.empty()) return e;
  d->sa = broadcast_strides(ba, d->batch);
  d->sb = broadcast_strides(bb, d->batch);
  d->nbatch = shape_numel(d->batch);
  d->out = d->batch;
  if (a.rank() > 1) d->out.push_back(d->M);
  if (b.rank() > 1) d->out.push_back(d->N);
  return "";
}

template <class T>
std::string matmul_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2); !e.empty()) return e;
  MatMulDims d;
  if (auto e = matmul_dims(*in[0], *in[1], &d); !e.empty()) return e;
  if (auto e = check_output_size(d.out); !e.empty()) return e;
  if (auto e = charge_work({d.nbatch, d.M, d.K, d.N}); !e.empty()) return e;
  out[0] = Tensor<T>::uninit(d.out);  // each batch's block assigned once (acc = false)
  const int64_t am = d.M * d.K, bm = d.K * d.N, om = d.M * d.N;
  broadcast_loop2(d.batch, d.sa, d.sb, [&](int64_t k, int64_t ia, int64_t ib) {
    gemm_rm(d.M, d.N, d.K, in[0]->f.data() + ia * am, false, in[1]->f.data() + ib * bm, false, out[0].f.data() + k * om, false);
  });
  return "";
}

template <class T>
std::string matmul_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  MatMulDims d;
  if (auto e = matmul_dims(*in[0], *in[1], &d); !e.empty()) return e;
  if (auto e = charge_work({2, d.nbatch, d.M, d.K, d.N}); !e.empty()) return e;
  const int64_t am = d.M * d.K, bm = d.K * d.N, om = d.M * d.N;
  if (need[0]) din[0] = Tensor<T>::floats(in[0]->shape);
  if (need[1]) din[1] = Tensor<T>::floats(in[1]->shape);
  broadcast_loop2(d.batch, d.sa, d.sb, [&](int64_t k, int64_t ia, int64_t ib) {
    const T* dY = dout[0]->f.data() + k * om;
    if (need[0]) gemm_rm(d.M, d.K, d.N, dY, false, in[1]->f.data() + ib * bm, true, din[0].f.data() + ia * am, true);
    if (need[1]) gemm_rm(d.K, d.N, d.M, in[0]->f.data() + ia * am, true, dY, false, din[1].f.data() + ib * bm, true);
  });
  return "";
}

}  // namespace

template <class T>
void register_gemm_ops(OpRegistry<T>& r) {
  r["Gemm"] = {&gemm_fwd<T>, &gemm_bwd<T>, 6};
  r["MatMul"] = {&matmul_fwd<T>, &matmul_bwd<T>, 1};
}
template void register_gemm_ops<float>(OpRegistry<float>&);
template void register_gemm_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
