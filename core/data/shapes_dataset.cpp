#include "data/shapes_dataset.h"

#include <algorithm>
#include <cmath>

#include "nn/rng.h"

namespace attnlab {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

float l1(const float* a, const float* b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

void random_color(Rng& rng, float* c) {
  for (int k = 0; k < 3; ++k) c[k] = static_cast<float>(rng.uniform());
}

constexpr float kPi = 3.14159265358979f;

}  // namespace

const char* shape_kind_name(int kind) {
  static const char* names[kShapeKinds] = {"circle", "square", "triangle", "cross", "ring"};
  return kind >= 0 && kind < kShapeKinds ? names[kind] : "?";
}

const char* background_kind_name(int kind) {
  static const char* names[kBackgroundKinds] = {"noise", "stripes", "checker", "dots", "gradient"};
  return kind >= 0 && kind < kBackgroundKinds ? names[kind] : "?";
}

std::string check_shapes_config(const ShapesConfig& c) {
  if (c.image_size < 16 || c.image_size > 512) return "image_size must be in [16, 512]";
  if (c.num_classes < 2 || c.num_classes > kShapeKinds) return "num_classes must be in [2, 5]";
  if (!(c.confounder >= 0.0 && c.confounder <= 1.0)) return "confounder must be in [0, 1]";
  if (!(c.min_radius > 0.02 && c.min_radius <= c.max_radius && c.max_radius < 0.5))
    return "radii must satisfy 0.02 < min_radius <= max_radius < 0.5";
  if (!(c.texture_contrast >= 0.0 && c.texture_contrast <= 1.0)) return "texture_contrast must be in [0, 1]";
  if (!(c.object_contrast >= 0.0 && c.object_contrast <= 3.0)) return "object_contrast must be in [0, 3]";
  return "";
}

ShapeSpec sample_shape_spec(const ShapesConfig& cfg, uint64_t seed, Split split, int index) {
  Rng rng(splitmix64(splitmix64(seed) ^ splitmix64((static_cast<uint64_t>(split) << 40) + uint64_t(index))));
  ShapeSpec s;
  const float S = static_cast<float>(cfg.image_size);
  s.label = index % cfg.num_classes;
  if (cfg.confounder > 0.0) {
    if (rng.uniform() < cfg.confounder) {
      s.background = s.label;
    } else {
      s.background = static_cast<int>(rng.below(kBackgroundKinds - 1));
      if (s.background >= s.label) ++s.background;
    }
  } else {
    s.background = static_cast<int>(rng.below(kBackgroundKinds));
  }
  s.radius = static_cast<float>(rng.uniform(cfg.min_radius, cfg.max_radius)) * S;
  const float lo = s.radius + 1.f, hi = S - s.radius - 1.f;
  s.cx = static_cast<float>(rng.uniform(lo, hi));
  s.cy = static_cast<float>(rng.uniform(lo, hi));
  s.angle = static_cast<float>(rng.uniform(0.0, 2.0 * kPi));
  // Background: a base colour and a second one at a modest texture contrast (each channel within
  // +-texture_contrast of the base), so the texture is visible but weaker than the object's edges.
  random_color(rng, s.bg_a);
  for (int k = 0; k < 3; ++k)
    s.bg_b[k] = std::min(1.f, std::max(0.f, s.bg_a[k] + static_cast<float>(rng.uniform(-cfg.texture_contrast,
                                                                                     cfg.texture_contrast))));
  // Object colour far from both background colours and their mean (the best of the tries is kept).
  float mid[3], best = -1, cand[3];
  for (int k = 0; k < 3; ++k) mid[k] = 0.5f * (s.bg_a[k] + s.bg_b[k]);
  for (int tries = 0; tries < 64 && best < static_cast<float>(cfg.object_contrast); ++tries) {
    random_color(rng, cand);
    const float d = std::min({l1(cand, s.bg_a), l1(cand, s.bg_b), l1(cand, mid)});
    if (d > best) {
      best = d;
      for (int k = 0; k < 3; ++k) s.color[k] = cand[k];
    }
  }
  s.bg_period = static_cast<float>(rng.uniform(0.08, 0.2)) * S;
  s.bg_angle = static_cast<float>(rng.uniform(0.0, kPi));
  s.bg_phase = static_cast<float>(rng.uniform());
  s.noise_seed = rng.next_u64();
  return s;
}

bool shape_contains(int kind, float u, float v) {
  const float r2 = u * u + v * v;
  switch (kind) {
    case 0: return r2 <= 1.f;                                      // circle
    case 1: return std::abs(u) <= 0.7f && std::abs(v) <= 0.7f;     // square (corners at radius 0.99)
    case 2: {                                                      // equilateral triangle in the unit circle
      const float s3 = 1.7320508f;
      return v >= -0.5f && s3 * u + v <= 1.f && -s3 * u + v <= 1.f;
    }
    case 3:                                                        // cross of two 0.6-wide bars
      return (std::abs(u) <= 0.3f && std::abs(v) <= 0.95f) || (std::abs(v) <= 0.3f && std::abs(u) <= 0.95f);
    case 4: return r2 <= 1.f && r2 >= 0.55f * 0.55f;               // ring
  }
  return false;
}

void render_background(const ShapeSpec& s, int size, float* image) {
  const int plane = size * size;
  Rng noise(s.noise_seed);
  const float ca = std::cos(s.bg_angle), sa = std::sin(s.bg_angle), P = s.bg_period;
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const float px = x + 0.5f, py = y + 0.5f;
      float t = 0;  // blend from colour a (0) to colour b (1)
      switch (s.background) {
        case 0: t = static_cast<float>(noise.uniform()); break;
        case 1: {
          const float q = (px * ca + py * sa) / P + s.bg_phase;
          t = (q - std::floor(q)) < 0.5f ? 0.f : 1.f;
          break;
        }
        case 2: {
          const long i = static_cast<long>(std::floor(px / P + s.bg_phase));
          const long j = static_cast<long>(std::floor(py / P + s.bg_phase));
          t = ((i + j) & 1) ? 1.f : 0.f;
          break;
        }
        case 3: {
          const float qx = px / P + s.bg_phase, qy = py / P + s.bg_phase;
          const float dx = qx - std::floor(qx) - 0.5f, dy = qy - std::floor(qy) - 0.5f;
          t = dx * dx + dy * dy <= 0.09f ? 1.f : 0.f;
          break;
        }
        case 4: {
          const float half = 0.5f * size;
          t = std::min(1.f, std::max(0.f, ((px - half) * ca + (py - half) * sa) / size + 0.5f));
          break;
        }
      }
      for (int k = 0; k < 3; ++k) image[k * plane + y * size + x] = s.bg_a[k] + (s.bg_b[k] - s.bg_a[k]) * t;
    }
}

void render_object(const ShapeSpec& s, int size, float* image, uint8_t* mask) {
  const int plane = size * size;
  const float ca = std::cos(s.angle), sa = std::sin(s.angle), inv = 1.f / s.radius;
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const float dx = x + 0.5f - s.cx, dy = y + 0.5f - s.cy;
      const float u = (dx * ca + dy * sa) * inv, v = (-dx * sa + dy * ca) * inv;
      if (!shape_contains(s.label, u, v)) continue;
      if (mask) mask[y * size + x] = 1;
      if (image)
        for (int k = 0; k < 3; ++k) image[k * plane + y * size + x] = s.color[k];
    }
}

ShapeExample make_shape_example(const ShapesConfig& cfg, uint64_t seed, Split split, int index) {
  const ShapeSpec s = sample_shape_spec(cfg, seed, split, index);
  ShapeExample e;
  e.label = s.label;
  e.background = s.background;
  const int S = cfg.image_size;
  e.image.resize(static_cast<size_t>(3) * S * S);
  e.mask.assign(static_cast<size_t>(S) * S, 0);
  render_background(s, S, e.image.data());
  render_object(s, S, e.image.data(), e.mask.data());
  return e;
}

void ShapesDataset::batch(const std::vector<int>& idx, Mat<float>& x, std::vector<int>& labels,
                          std::vector<std::vector<uint8_t>>* masks) const {
  const int S = cfg_.image_size;
  x.resize(3 * S * S, static_cast<Eigen::Index>(idx.size()));
  labels.resize(idx.size());
  if (masks) masks->resize(idx.size());
  for (size_t b = 0; b < idx.size(); ++b) {
    ShapeExample e = example(idx[b]);
    x.col(static_cast<Eigen::Index>(b)) = Eigen::Map<const Vec<float>>(e.image.data(), 3 * S * S);
    labels[b] = e.label;
    if (masks) (*masks)[b] = std::move(e.mask);
  }
}

}  // namespace attnlab
