// The shared plan bookkeeping: per-input target probabilities and which inputs were accepted.
#include "explain/image/plan.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

ImagePlan::ImagePlan(int count, int class_index, int h, int w)
    : prob_(count, 0.0), seen_(count, 0), class_index_(class_index), h_(h), w_(w) {}

void ImagePlan::inputs(int start, int n, float* out) const {
  const size_t size = static_cast<size_t>(3) * h_ * w_;
  for (int i = 0; i < n; ++i) input(start + i, out + i * size);
}

std::string ImagePlan::accept(int start, int n, const float* logits, int classes) {
  if (start < 0 || n < 0 || start + n > count())
    return "inputs " + std::to_string(start) + ".." + std::to_string(start + n) + " are outside 0.." +
           std::to_string(count());
  if (class_index_ >= classes)
    return "class index " + std::to_string(class_index_) + " is not among the " + std::to_string(classes) + " logits";
  for (size_t i = 0; i < static_cast<size_t>(n) * classes; ++i)  // check all before keeping any
    if (!std::isfinite(logits[i]))
      return "logits of input " + std::to_string(start + static_cast<int>(i / classes)) + " are not finite";
  for (int i = 0; i < n; ++i) {
    const float* l = logits + static_cast<size_t>(i) * classes;
    double mx = -INFINITY;
    for (int c = 0; c < classes; ++c) mx = std::max(mx, static_cast<double>(l[c]));
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(l[c]) - mx);
    prob_[start + i] = std::exp(static_cast<double>(l[class_index_]) - mx) / sum;
    if (!seen_[start + i]) {
      seen_[start + i] = 1;
      ++accepted_;
    }
  }
  return "";
}

std::string ImagePlan::result_json() const {
  return "{\"count\":" + std::to_string(count()) + ",\"class_index\":" + std::to_string(class_index_) + "}";
}

void mask_image(const float* image, const float* mask, size_t hw, float* out) {
  for (int c = 0; c < 3; ++c)
    for (size_t i = 0; i < hw; ++i) out[c * hw + i] = kGrey + mask[i] * (image[c * hw + i] - kGrey);
}

}  // namespace attnlab
