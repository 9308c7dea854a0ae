// Image preprocessing for the image lab (contract: docs/DESIGN.md "Image core API").
// RGBA bytes (row-major, 4 bytes a pixel) -> planar RGB float [3, 224, 224] in 0–255: the shorter side is
// resized to 256 (antialiased: triangle filter widened by the scale factor when downscaling = area-like,
// plain bilinear when upscaling; half-pixel centres; weights renormalised at the borders, as PIL), the
// longer side to round(longer · 256 / shorter); then the centre 224×224 crop (offset = (size − 224) / 2,
// integer division); alpha is composited over white (c · a + 255 · (1 − a), a = alpha / 255). When a side
// already has its target length the weights are the identity, so a photo whose shorter side is 256 gets an
// exact centre crop. Label masks go through the same geometry with nearest neighbour (source index =
// floor((i + 0.5) · in / out)). Only the cropped region is computed. Bad sizes -> false + a message.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

constexpr int kImageSize = 224;    // network input side
constexpr int kResizeShort = 256;  // shorter side before the centre crop

// Size after the resize and the crop offsets inside it.
struct CropGeometry {
  int resized_width = 0, resized_height = 0;
  int x0 = 0, y0 = 0;
};
// Requires width, height >= 1.
CropGeometry crop_geometry(int width, int height);

// rgba: width*height*4 bytes. out: 3*224*224 floats (planar R, G, B), 0–255.
bool preprocess_rgba(const uint8_t* rgba, int width, int height, std::vector<float>* out, std::string* error);

// labels: width*height bytes. out: 224*224 labels (nearest neighbour, same geometry as preprocess_rgba).
bool preprocess_mask(const uint8_t* labels, int width, int height, std::vector<uint8_t>* out, std::string* error);

// Largest accepted input: each side <= 16384 and width*height <= 2^26 pixels (a 64-megapixel photo).
bool check_image_size(int width, int height, std::string* error);

}  // namespace attnlab
