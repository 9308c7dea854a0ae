// Deletion / insertion curve plans and the explanation-mask plan; see deletion_insertion.h.
#include "metrics/deletion_insertion.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "image/map_ops.h"

namespace attnlab {
namespace {

bool image_ok(const std::vector<float>& image, int h, int w, const std::vector<float>& saliency, std::string* error) {
  if (h < 1 || w < 1 || image.size() != static_cast<size_t>(3) * h * w) {
    *error = "image must have 3·h·w values";
    return false;
  }
  if (saliency.size() != static_cast<size_t>(h) * w) {
    *error = "saliency must have h·w = " + std::to_string(static_cast<size_t>(h) * w) + " values, got " +
             std::to_string(saliency.size());
    return false;
  }
  return true;
}

class CurvePlan : public ImagePlan {
 public:
  CurvePlan(CurveKind kind, const std::vector<float>& image, int h, int w, const std::vector<float>& saliency,
            int class_index, int steps)
      : ImagePlan(steps + 1, class_index, h, w), kind_(kind), image_(image), steps_(steps) {
    const size_t hw = static_cast<size_t>(h) * w;
    order_.resize(hw);
    std::iota(order_.begin(), order_.end(), 0);
    auto key = [&](int i) { return std::isnan(saliency[i]) ? -INFINITY : saliency[i]; };
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) > key(b); });
    start_ = kind == CurveKind::Deletion ? image : gaussian_blur(image.data(), 3, h, w, 5.0, 11);
  }

  size_t changed(int i) const {
    return static_cast<size_t>(static_cast<uint64_t>(i) * order_.size() / static_cast<uint64_t>(steps_));
  }

  std::string result_json() const override {
    if (!done()) return nlohmann::json{{"error", "not done"}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    nlohmann::json j;
    std::vector<double> x(count()), y(count());
    for (int i = 0; i < count(); ++i) {
      x[i] = static_cast<double>(changed(i)) / order_.size();
      y[i] = probability(i);
    }
    j["kind"] = kind_ == CurveKind::Deletion ? "deletion" : "insertion";
    j["x"] = x;
    j["y"] = y;
    j["auc"] = trapezoid_auc(x, y);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 protected:
  void input(int i, float* out) const override {
    const size_t hw = order_.size();
    std::copy(start_.begin(), start_.end(), out);
    const size_t n = changed(i);
    for (size_t r = 0; r < n; ++r) {
      const int q = order_[r];
      for (int c = 0; c < 3; ++c) out[c * hw + q] = kind_ == CurveKind::Deletion ? kGrey : image_[c * hw + q];
    }
  }

 private:
  CurveKind kind_;
  std::vector<float> image_, start_;
  std::vector<int> order_;
  int steps_;
};

class ExplanationMaskPlan : public ImagePlan {
 public:
  ExplanationMaskPlan(const std::vector<float>& image, int h, int w, const std::vector<float>& saliency,
                      int class_index)
      : ImagePlan(2, class_index, h, w), image_(image), mask_(normalize_minmax(saliency)) {}

  std::string result_json() const override {
    if (!done()) return nlohmann::json{{"error", "not done"}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const double p = probability(0), q = probability(1);
    return nlohmann::json{{"original", p},
                          {"masked", q},
                          {"drop", p > 0 ? std::max(0.0, p - q) / p : 0.0},
                          {"increase", q > p}}
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 protected:
  void input(int i, float* out) const override {
    if (i == 0) std::copy(image_.begin(), image_.end(), out);
    else mask_image(image_.data(), mask_.data(), mask_.size(), out);
  }

 private:
  std::vector<float> image_, mask_;
};

}  // namespace

double trapezoid_auc(const std::vector<double>& x, const std::vector<double>& y) {
  double a = 0;
  for (size_t i = 0; i + 1 < x.size() && i + 1 < y.size(); ++i) a += (y[i] + y[i + 1]) / 2 * (x[i + 1] - x[i]);
  return a;
}

std::unique_ptr<ImagePlan> make_curve_plan(CurveKind kind, const std::vector<float>& image, int h, int w,
                                           const std::vector<float>& saliency, int class_index, int steps,
                                           std::string* error) {
  if (!image_ok(image, h, w, saliency, error)) return nullptr;
  if (steps < 1 || static_cast<size_t>(steps) > static_cast<size_t>(h) * w) {
    *error = "steps must be in 1.." + std::to_string(static_cast<size_t>(h) * w) + ", got " + std::to_string(steps);
    return nullptr;
  }
  if (class_index < 0) {
    *error = "class index must be >= 0";
    return nullptr;
  }
  return std::make_unique<CurvePlan>(kind, image, h, w, saliency, class_index, steps);
}

std::unique_ptr<ImagePlan> make_explanation_mask_plan(const std::vector<float>& image, int h, int w,
                                                      const std::vector<float>& saliency, int class_index,
                                                      std::string* error) {
  if (!image_ok(image, h, w, saliency, error)) return nullptr;
  if (class_index < 0) {
    *error = "class index must be >= 0";
    return nullptr;
  }
  return std::make_unique<ExplanationMaskPlan>(image, h, w, saliency, class_index);
}

}  // namespace attnlab
