// GAP + linear classifier head (CAM's head; MobileNetV2's classifier): logits = W · GAP(F) + b.
// Shapes (row-major, batch first): features F [N, K, h·w] (K channel planes of h·w positions),
// weight W [C, K], bias b [C], logits [N, C]; GAP(F)[n, k] = mean over the h·w positions.
// forward : F -> logits.
// backward: dlogits [N, C] -> dF [N, K, h·w] (dF[n, k, p] = (Wᵀ dlogits[n])[k] / (h·w)),
//           dW [C, K] = Σ_n dlogits[n] ⊗ GAP(F)[n], db [C] = Σ_n dlogits[n]. Outputs are overwritten; any
//           output pointer may be null (not computed). Gradient-checked in double (tests/core/test_image_head).
// Instantiated for float (the lab) and double (the gradient check).
#pragma once
#include <cstdint>
#include <vector>

namespace attnlab {

template <class T>
struct GapLinearHead {
  int classes = 0;
  int channels = 0;
  std::vector<T> weight;  // [C, K]
  std::vector<T> bias;    // [C]

  void forward(const T* features, int n, int hw, T* logits) const;
  void backward(const T* features, int n, int hw, const T* dlogits, T* dfeatures, T* dweight, T* dbias) const;
};

// Row-wise softmax of logits [n, classes], in double for stability, written as T.
template <class T>
std::vector<T> softmax_rows(const T* logits, int n, int classes);

// The sanity-check head (Adebayo et al. 2018): same shapes, weight and bias redrawn i.i.d. normal with the
// mean and standard deviation of the original weight / bias tensors (a zero-std tensor stays constant).
GapLinearHead<float> randomized_head(const GapLinearHead<float>& head, uint64_t seed);

extern template struct GapLinearHead<float>;
extern template struct GapLinearHead<double>;

}  // namespace attnlab
