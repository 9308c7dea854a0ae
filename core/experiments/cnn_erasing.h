// Adversarial erasing with ground truth (localisation lab, issue 5, experiment 4; after Wei et al. 2017,
// "Object Region Mining with Adversarial Erasing"). For each test image and its TRUE class c, step k = 1..K:
// run the CNN on the current image, take the class map of c upsampled to the image, min-max normalise it over
// the pixels not yet erased, and call the not-yet-erased pixels with normalised value >= threshold the step's
// region; add the region to the union, then erase it in the image (every channel set to `fill`, a constant,
// by default the data set's mid grey 0.5 — so the erased patch is a flat patch, not the background texture).
// Reported per step (means over images): recall of the object mask by the union (|U ∩ M| / |M|), precision of
// the union (|U ∩ M| / |U|), the union's area fraction, and whether the CNN still predicts c on the image
// BEFORE the step's erasing (step 1 = the clean image's accuracy).
// The pure pieces (cam_top_region, erase_region, mask_recall / precision) are exposed for tests.
#pragma once
#include <cstdint>
#include <vector>

#include "data/shapes_dataset.h"
#include "model/cnn_model.h"

namespace attnlab {

// Pixels with erased[q] == 0 whose value, min-max normalised over those pixels, is >= threshold. When all
// remaining values are equal (flat map), every remaining pixel is selected. Sizes must match; [h*w] each.
std::vector<uint8_t> cam_top_region(const std::vector<float>& map, const std::vector<uint8_t>& erased,
                                    double threshold);
// Sets image [C, S*S planar] to fill wherever region[q] != 0 (all C channels).
void erase_region(std::vector<float>& image, int channels, const std::vector<uint8_t>& region, float fill);
// |a ∩ b| / |b| (0 when b is empty) and |a ∩ b| / |a| (0 when a is empty).
double mask_recall(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
double mask_precision(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

struct CnnErasingOptions {
  int steps = 4;
  double threshold = 0.5;
  float fill = 0.5f;
  int batch_size = 64;
};

struct CnnErasingResult {
  int n = 0;
  // One entry per step k = 1..steps (index k-1).
  std::vector<double> recall, precision, union_area, still_correct, step_area;
};

CnnErasingResult run_cnn_erasing(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                                 const CnnErasingOptions& o);

}  // namespace attnlab
