// Faithfulness metrics as plans (protocol in explain/image/plan.h).
// Deletion / insertion (Petsiuk et al. 2018, RISE protocol): pixels ordered by decreasing saliency (ties by
// index, NaN last); input i (i = 0 … steps) has the first floor(i · H·W / steps) pixels changed: deletion
// sets them to grey 128 (all channels; the model-space zero, as RISE zeroes the normalised tensor),
// insertion starts from a Gaussian blur (σ = 5, kernel 11, reflect borders) of the image and puts the
// original pixels back. result_json: {"x": [fraction changed], "y": [probability], "auc": trapezoid of y over x}.
// Explanation mask (Score-CAM's average drop / increase in confidence): input 0 = the image, input 1 = the
// image masked by the min–max-normalised saliency (x' = 128 + m (x − 128)); result_json:
// {"original": P, "masked": P', "drop": max(0, P − P') / P, "increase": P' > P}.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "explain/image/plan.h"

namespace attnlab {

enum class CurveKind { Deletion, Insertion };

std::unique_ptr<ImagePlan> make_curve_plan(CurveKind kind, const std::vector<float>& image, int h, int w,
                                           const std::vector<float>& saliency, int class_index, int steps,
                                           std::string* error);

std::unique_ptr<ImagePlan> make_explanation_mask_plan(const std::vector<float>& image, int h, int w,
                                                      const std::vector<float>& saliency, int class_index,
                                                      std::string* error);

// Trapezoid rule: Σ (y_i + y_{i+1}) / 2 · (x_{i+1} − x_i).
double trapezoid_auc(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attnlab
