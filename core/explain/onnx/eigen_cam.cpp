// EigenCAM on an ONNX layer (no gradient): R = the activations as [h·w, K], centred per channel; the
// projection R·v₁ on the first right singular vector equals σ₁·u₁, the top eigenvector of R Rᵀ (h·w × h·w,
// small) — computed that way. Sign: chosen so the projection correlates positively with Σ_k A_k (the SVD's
// sign is arbitrary). Map = ReLU(projection) (see layer_method.h).
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_eigen_cam(const LayerTensors& L) {
  const size_t n = static_cast<size_t>(L.k) * L.h * L.w;
  if (L.k <= 0 || L.h <= 0 || L.w <= 0 || L.activation.size() != n) return {};
  const int hw = L.h * L.w;
  Eigen::MatrixXd R(hw, L.k);
  for (int k = 0; k < L.k; ++k)
    for (int p = 0; p < hw; ++p) R(p, k) = L.activation[static_cast<size_t>(k) * hw + p];
  R.rowwise() -= R.colwise().mean();
  const Eigen::MatrixXd gram = R * R.transpose();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(gram);
  const int top = hw - 1;  // eigenvalues ascending
  const double sigma = std::sqrt(std::max(0.0, es.eigenvalues()(top)));
  Eigen::VectorXd proj = es.eigenvectors().col(top) * sigma;
  Eigen::VectorXd total = Eigen::VectorXd::Zero(hw);
  for (int k = 0; k < L.k; ++k)
    for (int p = 0; p < hw; ++p) total(p) += L.activation[static_cast<size_t>(k) * hw + p];
  total.array() -= total.mean();
  if (proj.dot(total) < 0) proj = -proj;
  std::vector<float> out(hw);
  for (int p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, proj(p)));
  return out;
}

}  // namespace attnlab
