// Procedural localisation data set (seeded, no files): one object per image — circle, square, triangle,
// cross or ring (the first num_classes of these are the classes), varied size, position, colour and
// rotation — on a textured background (noise, stripes, checker, dots, gradient), each with its exact
// object mask. Images are planar RGB [3, S, S] floats in [0, 1] (one column of an NCHW Mat, see
// nn/conv2d.h), masks [S, S] uint8 with 1 on the object. Pixel (x, y) is sampled at its centre; the mask is
// the same inside-test the renderer paints with, so mask == pixels painted in the object colour, exactly.
// Colours: the background's two colours differ by at most texture_contrast per channel; the object colour is
// the farthest (L1) of up to 64 draws, stopping at one object_contrast away, so the object edges dominate.
//
// Example i of a split is a function of (seed, split, i) only: label = i mod num_classes (balanced), and
// everything else drawn from its own generator, so any example can be made on demand and in any order.
// Confounder mode (the "boat is water" case): with confounder p > 0, class c gets background kind c with
// probability p and one of the other kinds uniformly otherwise; p = 0 draws the background uniformly over
// all kinds, independent of the class (the de-correlated test condition). p = 1 / kinds is also independent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

constexpr int kShapeKinds = 5;       // circle, square, triangle, cross, ring
constexpr int kBackgroundKinds = 5;  // noise, stripes, checker, dots, gradient
const char* shape_kind_name(int kind);
const char* background_kind_name(int kind);

struct ShapesConfig {
  int image_size = 64;       // S, 16..512
  int num_classes = 5;       // 2..5
  double confounder = 0.0;   // p in [0, 1], see above
  double min_radius = 0.18;  // object radius as a fraction of S (circumscribed circle)
  double max_radius = 0.32;
  double texture_contrast = 0.1;  // background: second colour within +-this per channel of the first
  double object_contrast = 0.8;   // wanted L1 RGB distance of the object colour from the background colours
};

// "" when valid, else a message naming the bad field.
std::string check_shapes_config(const ShapesConfig& cfg);

enum class Split { Train = 0, Validation = 1, Test = 2 };

// Everything that decides one example's pixels.
struct ShapeSpec {
  int label = 0, background = 0;
  float cx = 0, cy = 0, radius = 0, angle = 0;  // pixels, radians
  float color[3] = {0, 0, 0};                   // object
  float bg_a[3] = {0, 0, 0}, bg_b[3] = {0, 0, 0};
  float bg_period = 8, bg_angle = 0, bg_phase = 0;
  uint64_t noise_seed = 0;
};

ShapeSpec sample_shape_spec(const ShapesConfig& cfg, uint64_t seed, Split split, int index);

// Shape membership in the object's own frame (unit circumscribed radius).
bool shape_contains(int kind, float u, float v);

// Paints the background over the whole image [3, S, S].
void render_background(const ShapeSpec& spec, int size, float* image);
// Paints the object (image nullable) and writes its mask [S, S] (mask nullable; 1 inside, else left as is).
void render_object(const ShapeSpec& spec, int size, float* image, uint8_t* mask);

struct ShapeExample {
  int label = 0, background = 0;
  std::vector<float> image;   // [3, S, S]
  std::vector<uint8_t> mask;  // [S, S]
};

ShapeExample make_shape_example(const ShapesConfig& cfg, uint64_t seed, Split split, int index);

// A split of n examples, made on demand.
class ShapesDataset {
 public:
  ShapesDataset(const ShapesConfig& cfg, uint64_t seed, Split split, int n)
      : cfg_(cfg), seed_(seed), split_(split), n_(n) {}
  int size() const { return n_; }
  const ShapesConfig& config() const { return cfg_; }
  ShapeExample example(int i) const { return make_shape_example(cfg_, seed_, split_, i); }
  // Example i's drawing parameters (label, background kind, ...) without rendering it.
  ShapeSpec spec(int i) const { return sample_shape_spec(cfg_, seed_, split_, i); }
  // x [3*S*S x idx.size()] (resized), labels; masks (nullable) get one [S*S] mask per example.
  void batch(const std::vector<int>& idx, Mat<float>& x, std::vector<int>& labels,
             std::vector<std::vector<uint8_t>>* masks = nullptr) const;

 private:
  ShapesConfig cfg_;
  uint64_t seed_;
  Split split_;
  int n_;
};

}  // namespace attnlab
