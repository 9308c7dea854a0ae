// Score-CAM as a plan (see plan.h): one masked input per feature channel that is not zero everywhere, map from the
// class probabilities.
#include <algorithm>

#include "explain/image/plan.h"
#include "image/map_ops.h"

namespace attnlab {
namespace {

// The channels whose map is not zero everywhere (a ReLU network's last layer has many that are on a given photo:
// 267–668 of MobileNetV2's 1,280 on the shipped photos). A zero channel adds w_k · 0 to the sum whatever its
// probability, so its pass is skipped: the map is the one all K passes give, bit for bit.
std::vector<int> live_channels(const std::vector<float>& features, size_t fhw) {
  std::vector<int> live;
  for (size_t k = 0; k < features.size() / fhw; ++k)
    if (std::any_of(features.begin() + static_cast<long>(k * fhw), features.begin() + static_cast<long>((k + 1) * fhw),
                    [](float v) { return v != 0.f; }))
      live.push_back(static_cast<int>(k));
  return live;
}

class ScoreCamPlan : public ImagePlan {
 public:
  ScoreCamPlan(const std::vector<float>& image, int h, int w, const std::vector<float>& features, int fh, int fw,
               int class_index, std::vector<int> live)
      : ImagePlan(static_cast<int>(live.size()), class_index, h, w),
        image_(image), features_(features), fh_(fh), fw_(fw), live_(std::move(live)),
        channels_(static_cast<int>(features.size() / (static_cast<size_t>(fh) * fw))) {}

  std::vector<float> result() const override {
    if (!done()) return {};
    const size_t fhw = static_cast<size_t>(fh_) * fw_;
    std::vector<double> acc(fhw, 0.0);
    for (int k = 0; k < count(); ++k)
      for (size_t p = 0; p < fhw; ++p) acc[p] += probability(k) * features_[live_[k] * fhw + p];
    std::vector<float> map(fhw);
    for (size_t p = 0; p < fhw; ++p) map[p] = static_cast<float>(std::max(0.0, acc[p]));
    return upsample_bilinear(map.data(), fh_, fw_, height(), width());
  }
  std::string result_json() const override {
    return "{\"count\":" + std::to_string(count()) + ",\"channels\":" + std::to_string(channels_) +
           ",\"class_index\":" + std::to_string(class_index()) + "}";
  }

 protected:
  void input(int k, float* out) const override {
    const size_t fhw = static_cast<size_t>(fh_) * fw_;
    const std::vector<float> up = upsample_bilinear(features_.data() + live_[k] * fhw, fh_, fw_, height(), width());
    const std::vector<float> m = normalize_minmax(up);
    mask_image(image_.data(), m.data(), m.size(), out);
  }

 private:
  std::vector<float> image_, features_;
  int fh_, fw_;
  std::vector<int> live_;  // input k masks with channel live_[k]
  int channels_;
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
  return std::make_unique<ScoreCamPlan>(image, h, w, features, fh, fw, class_index,
                                        live_channels(features, static_cast<size_t>(fh) * fw));
}

}  // namespace attnlab
