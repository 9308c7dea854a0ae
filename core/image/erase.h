// Adversarial erasing (Wei et al. 2017): pixels whose map value is > threshold (map01 [h·w], e.g. a min–max
// normalised map) are replaced in all channels of the planar image [3, h, w] by the fill: Mean (the
// image's mean colour, per channel, over all pixels), Blur (the same pixel of a Gaussian blur σ = 5,
// kernel 11, reflect borders), Grey (128). Every other pixel is unchanged (bit for bit). NaN never erases.
#pragma once
#include <string>
#include <vector>

namespace attnlab {

enum class EraseFill { Mean, Blur, Grey };

// "mean" | "blur" | "grey" (also "gray"); false otherwise.
bool parse_erase_fill(const std::string& name, EraseFill* out);

std::vector<float> erase_region(const std::vector<float>& image, const std::vector<float>& map01, int h, int w,
                                double threshold, EraseFill fill);

}  // namespace attnlab
