// Score-CAM as a plan (see plan.h): one masked input per feature channel, map from the class probabilities.
#include <algorithm>

#include "explain/image/plan.h"
#include "image/map_ops.h"

namespace attnlab {
namespace {

class ScoreCamPlan : public ImagePlan {
 public:
  ScoreCamPlan(const std::vector<float>& image, int h, int w, const std::vector<float>& features, int fh, int fw,
               int class_index)
      : ImagePlan(static_cast<int>(features.size() / (static_cast<size_t>(fh) * fw)), class_index, h, w),
        image_(image), features_(features), fh_(fh), fw_(fw) {}

  std::vector<float> result() const override {
    if (!done()) return {};
    const size_t fhw = static_cast<size_t>(fh_) * fw_;
    std::vector<double> acc(fhw, 0.0);
    for (int k = 0; k < count(); ++k)
      for (size_t p = 0; p < fhw; ++p) acc[p] += probability(k) * features_[k * fhw + p];
    std::vector<float> map(fhw);
    for (size_t p = 0; p < fhw; ++p) map[p] = static_cast<float>(std::max(0.0, acc[p]));
    return upsample_bilinear(map.data(), fh_, fw_, height(), width());
  }

 protected:
  void input(int k, float* out) const override {
    const size_t fhw = static_cast<size_t>(fh_) * fw_;
    const std::vector<float> up = upsample_bilinear(features_.data() + k * fhw, fh_, fw_, height(), width());
    const std::vector<float> m = normalize_minmax(up);
    mask_image(image_.data(), m.data(), m.size(), out);
  }

 private:
  std::vector<float> image_, features_;
  int fh_, fw_;
};

}  // namespace

std::unique_ptr<ImagePlan> make_score_cam_plan(const std::vector<float>& image, int h, int w,
                                               const std::vector<float>& features, int fh, int fw, int class_index,
                                               std::string* error) {
  if (h < 1 || w < 1 || image.size() != static_cast<size_t>(3) * h * w) {
    *error = "image must have 3·h·w values";
    return nullptr;
  }
  if (fh < 1 || fw < 1 || features.empty() || features.size() % (static_cast<size_t>(fh) * fw) != 0) {
    *error = "features must have K·h·w values for the feature size " + std::to_string(fh) + "x" + std::to_string(fw);
    return nullptr;
  }
  if (class_index < 0) {
    *error = "class index must be >= 0";
    return nullptr;
  }
  return std::make_unique<ScoreCamPlan>(image, h, w, features, fh, fw, class_index);
}

}  // namespace attnlab
