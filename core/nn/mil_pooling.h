// Global pooling heads as multiple-instance-learning choices (each position of a channel is an instance):
//   GAP: mean over the h*w positions; GMP: max (the first maximum in row-major order);
//   LSE: (1/r) log( (1/hw) sum_p exp(r x_p) ), computed stably; r -> 0 tends to GAP, r -> inf to GMP.
// x [C*H*W x N] (NCHW, see conv2d.h) -> pooled [C x N]; the classifier on top is nn/linear.h.
// Backward: GAP spreads dpooled / hw, GMP routes it to the argmax, LSE weights it by softmax(r x) over the
// positions. dx is overwritten. Gradient-checked in double (LSE included).
#pragma once
#include <string>
#include <vector>

#include "nn/conv2d.h"

namespace attnlab {

enum class PoolHead { Gap, Gmp, Lse };
const char* pool_head_name(PoolHead head);
bool parse_pool_head(const std::string& name, PoolHead* out);

template <class T>
struct GlobalPoolCache {
  std::vector<int> argmax;  // GMP: [C x N] position index within the plane
  Mat<T> weights;           // LSE: [C*H*W x N] softmax(r x) per plane (sums to 1 per plane)
};

template <class T>
void global_pool_forward(PoolHead head, double r, const FeatureShape& shape, const Mat<T>& x, Mat<T>& pooled,
                         GlobalPoolCache<T>& cache);

template <class T>
void global_pool_backward(PoolHead head, double r, const FeatureShape& shape, const GlobalPoolCache<T>& cache,
                          const Mat<T>& dpooled, Mat<T>& dx);

}  // namespace attnlab
