// ROAD, RemOve And Debias (Rong et al. 2022, "A Consistent and Efficient Evaluation Strategy for Attribution
// Methods"), as a plan (protocol in explain/image/plan.h): pixels ranked by the saliency (ties by index, NaN last)
// are removed MoRF (most relevant first) or LeRF (least relevant first) at each percentage, and replaced by noisy
// linear imputation — every removed pixel takes the weighted mean of its in-bounds 8 neighbours (weights 1/6 for the
// 4 direct ones, 1/12 for the diagonals), all removed pixels solved together per channel (a sparse symmetric
// positive-definite system: Eigen's conjugate gradient, tolerance 1e-6), plus N(0, noise²) from Rng(seed) (noise
// in the image's 0–255 units). Imputing from the neighbours instead of a constant grey is the "debias": the removed
// region's shape carries less information about which pixels were removed.
// Input i = the image with percentages[i] % removed. result_json: {"kind": "road-morf" | "road-lerf",
// "percentages": [...], "y": [probability], "mean": mean of y}. MoRF: a faithful map makes y fall fast (low mean);
// LeRF: y stays high (high mean).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "explain/image/plan.h"

namespace attnlab {

enum class RoadOrder { MostRelevantFirst, LeastRelevantFirst };

std::unique_ptr<ImagePlan> make_road_plan(RoadOrder order, const std::vector<float>& image, int h, int w,
                                          const std::vector<float>& saliency, int class_index,
                                          const std::vector<double>& percentages, double noise, uint64_t seed,
                                          std::string* error);

// The percentages the page and the catalogue use: 10, 20, …, 90 (pytorch-grad-cam's ROAD default).
const std::vector<double>& road_percentages();

// The imputation alone (for tests): planar [3, h, w] with the pixels where removed[p] != 0 imputed.
std::vector<float> road_impute(const std::vector<float>& image, int h, int w, const std::vector<char>& removed,
                               double noise, uint64_t seed);

}  // namespace attnlab
