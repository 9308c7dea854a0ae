// Occlusion as a plan (see plan.h): input 0 the image, then grey squares at every window position.
#include <algorithm>

#include "explain/image/plan.h"

namespace attnlab {
namespace {

class OcclusionPlan : public ImagePlan {
 public:
  OcclusionPlan(const std::vector<float>& image, int h, int w, int class_index, int window, int stride)
      : ImagePlan(1 + ((h - window) / stride + 1) * ((w - window) / stride + 1), class_index, h, w),
        image_(image), window_(window), stride_(stride), nx_((w - window) / stride + 1) {}

  std::vector<float> result() const override {
    if (!done()) return {};
    const size_t hw = static_cast<size_t>(height()) * width();
    std::vector<double> sum(hw, 0.0), cnt(hw, 0.0);
    for (int i = 1; i < count(); ++i) {
      const int y0 = (i - 1) / nx_ * stride_, x0 = (i - 1) % nx_ * stride_;
      const double drop = probability(0) - probability(i);
      for (int y = y0; y < y0 + window_; ++y)
        for (int x = x0; x < x0 + window_; ++x) {
          sum[static_cast<size_t>(y) * width() + x] += drop;
          cnt[static_cast<size_t>(y) * width() + x] += 1;
        }
    }
    std::vector<float> out(hw);
    for (size_t q = 0; q < hw; ++q) out[q] = cnt[q] > 0 ? static_cast<float>(sum[q] / cnt[q]) : 0.f;
    return out;
  }

 protected:
  void input(int i, float* out) const override {
    std::copy(image_.begin(), image_.end(), out);
    if (i == 0) return;
    const size_t hw = static_cast<size_t>(height()) * width();
    const int y0 = (i - 1) / nx_ * stride_, x0 = (i - 1) % nx_ * stride_;
    for (int c = 0; c < 3; ++c)
      for (int y = y0; y < y0 + window_; ++y)
        std::fill_n(out + c * hw + static_cast<size_t>(y) * width() + x0, window_, kGrey);
  }

 private:
  std::vector<float> image_;
  int window_, stride_, nx_;
};

}  // namespace

std::unique_ptr<ImagePlan> make_occlusion_plan(const std::vector<float>& image, int h, int w, int class_index,
                                               int window, int stride, std::string* error) {
  if (h < 1 || w < 1 || image.size() != static_cast<size_t>(3) * h * w) {
    *error = "image must have 3·h·w values";
    return nullptr;
  }
  if (window < 1 || window > std::min(h, w)) {
    *error = "window must be in 1.." + std::to_string(std::min(h, w)) + ", got " + std::to_string(window);
    return nullptr;
  }
  if (stride < 1) {
    *error = "stride must be >= 1, got " + std::to_string(stride);
    return nullptr;
  }
  if (class_index < 0) {
    *error = "class index must be >= 0";
    return nullptr;
  }
  return std::make_unique<OcclusionPlan>(image, h, w, class_index, window, stride);
}

}  // namespace attnlab
