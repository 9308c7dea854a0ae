// RISE as a plan (see plan.h): grids and shifts drawn at construction, masks rebuilt on demand.
#include <cmath>

#include "explain/image/plan.h"
#include "image/map_ops.h"
#include "nn/rng.h"

namespace attnlab {
namespace {

class RisePlan : public ImagePlan {
 public:
  RisePlan(const std::vector<float>& image, int h, int w, int class_index, int n, int cells, double p,
           uint64_t seed)
      : ImagePlan(n, class_index, h, w), image_(image), cells_(cells), p_(p) {
    cell_h_ = (h + cells - 1) / cells;
    cell_w_ = (w + cells - 1) / cells;
    Rng rng(seed);
    grids_.resize(static_cast<size_t>(n) * cells * cells);
    shifts_.resize(static_cast<size_t>(n) * 2);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < cells * cells; ++j) grids_[static_cast<size_t>(i) * cells * cells + j] = rng.uniform() < p ? 1.f : 0.f;
      shifts_[2 * i] = static_cast<int>(rng.below(cell_h_));
      shifts_[2 * i + 1] = static_cast<int>(rng.below(cell_w_));
    }
  }

  std::vector<float> mask(int i) const {
    const int uh = (cells_ + 1) * cell_h_, uw = (cells_ + 1) * cell_w_;
    const std::vector<float> up =
        upsample_bilinear(grids_.data() + static_cast<size_t>(i) * cells_ * cells_, cells_, cells_, uh, uw);
    std::vector<float> m(static_cast<size_t>(height()) * width());
    const int dy = shifts_[2 * i], dx = shifts_[2 * i + 1];
    for (int y = 0; y < height(); ++y)
      for (int x = 0; x < width(); ++x) m[static_cast<size_t>(y) * width() + x] = up[static_cast<size_t>(y + dy) * uw + x + dx];
    return m;
  }

  std::vector<float> result() const override {
    if (!done()) return {};
    std::vector<double> acc(static_cast<size_t>(height()) * width(), 0.0);
    for (int i = 0; i < count(); ++i) {
      const std::vector<float> m = mask(i);
      for (size_t q = 0; q < acc.size(); ++q) acc[q] += probability(i) * m[q];
    }
    std::vector<float> out(acc.size());
    for (size_t q = 0; q < acc.size(); ++q) out[q] = static_cast<float>(acc[q] / (count() * p_));
    return out;
  }

 protected:
  void input(int i, float* out) const override {
    const std::vector<float> m = mask(i);
    mask_image(image_.data(), m.data(), m.size(), out);
  }

 private:
  std::vector<float> image_;
  int cells_, cell_h_ = 1, cell_w_ = 1;
  double p_;
  std::vector<float> grids_;  // [n, cells, cells]
  std::vector<int> shifts_;   // [n, 2] (dy, dx)
};

}  // namespace

std::unique_ptr<ImagePlan> make_rise_plan(const std::vector<float>& image, int h, int w, int class_index, int n,
                                          int cells, double p, uint64_t seed, std::string* error) {
  if (h < 1 || w < 1 || image.size() != static_cast<size_t>(3) * h * w) {
    *error = "image must have 3·h·w values";
    return nullptr;
  }
  if (n < 1 || n > 100000) {
    *error = "n (number of masks) must be in 1..100000, got " + std::to_string(n);
    return nullptr;
  }
  if (cells < 1 || cells > std::min(h, w)) {
    *error = "cells must be in 1.." + std::to_string(std::min(h, w)) + ", got " + std::to_string(cells);
    return nullptr;
  }
  if (!(p > 0 && p <= 1)) {
    *error = "p must be in (0, 1]";
    return nullptr;
  }
  if (class_index < 0) {
    *error = "class index must be >= 0";
    return nullptr;
  }
  return std::make_unique<RisePlan>(image, h, w, class_index, n, cells, p, seed);
}

std::vector<float> rise_mask(const ImagePlan& plan, int i) {
  const auto* rise = dynamic_cast<const RisePlan*>(&plan);
  return rise && i >= 0 && i < plan.count() ? rise->mask(i) : std::vector<float>{};
}

}  // namespace attnlab
