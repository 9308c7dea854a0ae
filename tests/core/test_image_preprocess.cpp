// Tests for core/image: preprocessing geometry and resampling (exact crop at 256, constant images, a 2×
// downscale of a checkerboard, a bilinear upscale of a ramp, alpha over white, masks aligned with images),
// bilinear half-pixel upsampling, min–max normalisation, Gaussian blur, colour maps and overlays.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "image/colormap.h"
#include "image/map_ops.h"
#include "image/preprocess.h"
#include "nn/rng.h"

namespace attnlab {
namespace {

constexpr size_t kPlane = 224 * 224;

std::vector<uint8_t> rgba_image(int w, int h, const std::function<void(int, int, uint8_t*)>& px) {
  std::vector<uint8_t> v(static_cast<size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) px(x, y, &v[(static_cast<size_t>(y) * w + x) * 4]);
  return v;
}

TEST(ImagePreprocess, ExactCentreCropWhenShorterSideIs256) {
  Rng rng(1);
  for (auto [w, h] : {std::pair{300, 256}, std::pair{256, 383}, std::pair{256, 256}}) {
    const auto img = rgba_image(w, h, [&](int, int, uint8_t* p) {
      for (int c = 0; c < 3; ++c) p[c] = static_cast<uint8_t>(rng.below(256));
      p[3] = 255;
    });
    std::vector<float> out;
    std::string error;
    ASSERT_TRUE(preprocess_rgba(img.data(), w, h, &out, &error)) << error;
    ASSERT_EQ(out.size(), 3 * kPlane);
    const int x0 = (w - 224) / 2, y0 = (h - 224) / 2;
    int mismatches = 0;
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 224; ++y)
        for (int x = 0; x < 224; ++x)
          mismatches += out[c * kPlane + y * 224 + x] != img[((y + y0) * w + x + x0) * 4 + c];
    EXPECT_EQ(mismatches, 0) << w << "x" << h;
  }
}

TEST(ImagePreprocess, GeometryOfTheResize) {
  CropGeometry g = crop_geometry(640, 480);  // 640 · 256 / 480 = 341.33 -> 341
  EXPECT_EQ(g.resized_width, 341);
  EXPECT_EQ(g.resized_height, 256);
  EXPECT_EQ(g.x0, 58);
  EXPECT_EQ(g.y0, 16);
  g = crop_geometry(100, 300);  // upscale: 300 · 256 / 100 = 768
  EXPECT_EQ(g.resized_width, 256);
  EXPECT_EQ(g.resized_height, 768);
}

TEST(ImagePreprocess, ConstantImageStaysConstant) {
  for (auto [w, h] : {std::pair{517, 389}, std::pair{31, 40}, std::pair{2000, 300}}) {
    const auto img = rgba_image(w, h, [](int, int, uint8_t* p) { p[0] = 10, p[1] = 120, p[2] = 250, p[3] = 255; });
    std::vector<float> out;
    std::string error;
    ASSERT_TRUE(preprocess_rgba(img.data(), w, h, &out, &error)) << error;
    const float want[3] = {10, 120, 250};
    float worst = 0;
    for (int c = 0; c < 3; ++c)
      for (size_t i = 0; i < kPlane; ++i) worst = std::max(worst, std::abs(out[c * kPlane + i] - want[c]));
    EXPECT_LT(worst, 1e-3) << w << "x" << h;
  }
}

TEST(ImagePreprocess, TwoTimesDownscaleOfACheckerboardAverages) {
  // 512×512 one-pixel checkerboard of 0 / 255 -> 256×256 (triangle filter of radius 2: taps 1/8 3/8 3/8 1/8)
  // -> every pixel of the crop (away from the border) is exactly the mean 127.5.
  const auto img = rgba_image(512, 512, [](int x, int y, uint8_t* p) {
    p[0] = p[1] = p[2] = (x + y) % 2 ? 255 : 0;
    p[3] = 255;
  });
  std::vector<float> out;
  std::string error;
  ASSERT_TRUE(preprocess_rgba(img.data(), 512, 512, &out, &error)) << error;
  for (size_t i = 0; i < 3 * kPlane; ++i) ASSERT_NEAR(out[i], 127.5f, 1e-3) << i;
}

TEST(ImagePreprocess, UpscaleIsBilinearWithHalfPixelCentres) {
  // 128×128 horizontal ramp value = 2x -> 256 wide: output column i (resized coordinates) samples source
  // position (i + 0.5)/2 − 0.5, so value = 2 · ((i + 0.5)/2 − 0.5) = i − 0.5 away from the borders.
  const auto img = rgba_image(128, 128, [](int x, int, uint8_t* p) {
    p[0] = p[1] = p[2] = static_cast<uint8_t>(2 * x);
    p[3] = 255;
  });
  std::vector<float> out;
  std::string error;
  ASSERT_TRUE(preprocess_rgba(img.data(), 128, 128, &out, &error)) << error;
  for (int y = 0; y < 224; ++y)
    for (int x = 0; x < 224; ++x) ASSERT_NEAR(out[y * 224 + x], (x + 16) - 0.5, 1e-3) << x << "," << y;
}

TEST(ImagePreprocess, AlphaIsCompositedOverWhite) {
  const auto img = rgba_image(256, 256, [](int x, int, uint8_t* p) {
    p[0] = 0, p[1] = 100, p[2] = 255;
    p[3] = x < 128 ? 0 : 51;  // transparent | 20 % opaque
  });
  std::vector<float> out;
  std::string error;
  ASSERT_TRUE(preprocess_rgba(img.data(), 256, 256, &out, &error)) << error;
  EXPECT_FLOAT_EQ(out[0], 255.f);                               // left: white
  EXPECT_NEAR(out[223], 0.8 * 255, 1e-3);                        // right, R = 0.2·0 + 0.8·255
  EXPECT_NEAR(out[kPlane + 223], 0.2 * 100 + 0.8 * 255, 1e-3);  // G
  EXPECT_NEAR(out[2 * kPlane + 223], 255, 1e-3);                 // B
}

TEST(ImagePreprocess, MaskGeometryMatchesImageGeometry) {
  // A label rectangle drawn into a mask and, white on black, into an image of the same size: after the
  // same geometry the image's 50 % contour and the mask's edge differ only next to the mask's edge.
  for (const auto& size : {std::pair{640, 480}, std::pair{300, 700}, std::pair{150, 120}}) {
    const int w = size.first, h = size.second;  // not a structured binding: clang 14 cannot capture those
    auto inside = [&](int x, int y) { return x >= w / 3 && x < 3 * w / 4 && y >= h / 4 && y < 2 * h / 3; };
    std::vector<uint8_t> labels(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) labels[y * w + x] = inside(x, y) ? 7 : 0;
    const auto img = rgba_image(w, h, [&](int x, int y, uint8_t* p) {
      p[0] = p[1] = p[2] = inside(x, y) ? 255 : 0;
      p[3] = 255;
    });
    std::vector<float> out;
    std::vector<uint8_t> mask;
    std::string error;
    ASSERT_TRUE(preprocess_rgba(img.data(), w, h, &out, &error)) << error;
    ASSERT_TRUE(preprocess_mask(labels.data(), w, h, &mask, &error)) << error;
    ASSERT_EQ(mask.size(), kPlane);
    int in_mask = 0, off_edge = 0;
    for (int y = 0; y < 224; ++y)
      for (int x = 0; x < 224; ++x) {
        in_mask += mask[y * 224 + x] == 7;
        if ((out[y * 224 + x] > 127.5f) == (mask[y * 224 + x] == 7)) continue;
        bool edge = false;  // a 3×3 neighbourhood holding both labels
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int yy = std::clamp(y + dy, 0, 223), xx = std::clamp(x + dx, 0, 223);
            edge = edge || mask[yy * 224 + xx] != mask[y * 224 + x];
          }
        off_edge += !edge;
      }
    EXPECT_GT(in_mask, 1000) << w << "x" << h;
    EXPECT_EQ(off_edge, 0) << w << "x" << h;
  }
}

TEST(ImagePreprocess, BadSizesGiveAMessage) {
  std::vector<float> out;
  std::string error;
  const uint8_t px[4] = {0, 0, 0, 255};
  EXPECT_FALSE(preprocess_rgba(px, 0, 1, &out, &error));
  EXPECT_NE(error.find("not supported"), std::string::npos) << error;
  EXPECT_TRUE(preprocess_rgba(px, 1, 1, &out, &error));  // a single pixel upscales to a constant image
  EXPECT_NEAR(out[0], 0, 1e-6);
}

TEST(ImageMapOps, UpsampleHandComputed) {
  // 2×2 -> 4×4: source coordinates per output index (i + 0.5)/2 − 0.5 clamped = 0, .25, .75, 1, and the
  // map 2y + x is linear, so out = 2 r[y] + r[x].
  const std::vector<float> m = {0, 1, 2, 3};
  const std::vector<float> up = upsample_bilinear(m.data(), 2, 2, 4, 4);
  const double r[4] = {0, 0.25, 0.75, 1};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_NEAR(up[y * 4 + x], 2 * r[y] + r[x], 1e-6) << x << "," << y;
  // 1×3 -> 1×2 (downscale also works): source x = (i + .5)·1.5 − .5 = 0.25, 1.75
  const std::vector<float> row = {0, 10, 20};
  const std::vector<float> down = upsample_bilinear(row.data(), 1, 3, 1, 2);
  EXPECT_NEAR(down[0], 2.5, 1e-5);
  EXPECT_NEAR(down[1], 17.5, 1e-5);
}

TEST(ImageMapOps, UpsampleKeepsConstants) {
  const std::vector<float> m(49, 3.5f);
  for (float v : upsample_bilinear(m.data(), 7, 7, 224, 224)) ASSERT_FLOAT_EQ(v, 3.5f);
}

TEST(ImageMapOps, NormalizeMinMax) {
  EXPECT_EQ(normalize_minmax(std::vector<float>{2, 4, 6}), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(normalize_minmax(std::vector<float>{5, 5}), (std::vector<float>{0, 0}));
  EXPECT_TRUE(normalize_minmax(std::vector<float>{}).empty());
}

TEST(ImageMapOps, GaussianBlur) {
  EXPECT_EQ(reflect_index(-1, 5), 1);
  EXPECT_EQ(reflect_index(5, 5), 3);
  EXPECT_EQ(reflect_index(-7, 3), 1);  // period 4: -7 -> 1
  EXPECT_EQ(reflect_index(3, 1), 0);
  // constant stays constant (reflect padding), on a plane smaller than the kernel too
  const std::vector<float> c(2 * 3 * 4, 9.f);
  for (float v : gaussian_blur(c.data(), 2, 3, 4, 5.0, 11)) EXPECT_NEAR(v, 9.f, 1e-5);
  // an impulse in the middle of a 21×21 plane spreads into the normalised kernel: total kept, symmetric,
  // centre weight = g(0)² / (Σ g)² with g(i) = exp(−i²/50), i = −5..5.
  std::vector<float> d(21 * 21, 0.f);
  d[10 * 21 + 10] = 1.f;
  const std::vector<float> b = gaussian_blur(d.data(), 1, 21, 21, 5.0, 11);
  double total = 0, g = 0;
  for (float v : b) total += v;
  for (int i = -5; i <= 5; ++i) g += std::exp(-i * i / 50.0);
  EXPECT_NEAR(total, 1.0, 1e-5);
  EXPECT_NEAR(b[10 * 21 + 10], 1.0 / (g * g), 1e-6);
  EXPECT_NEAR(b[10 * 21 + 13], b[10 * 21 + 7], 1e-7);
  EXPECT_EQ(b[10 * 21 + 16], 0.f);  // outside the 11-tap kernel
}

TEST(ImageColormap, EndpointsAndFormulas) {
  uint8_t rgb[3];
  auto expect_rgb = [&](Colormap cm, float t, int r, int g, int b) {
    colormap_rgb(cm, t, rgb);
    EXPECT_EQ(rgb[0], r) << t;
    EXPECT_EQ(rgb[1], g) << t;
    EXPECT_EQ(rgb[2], b) << t;
  };
  expect_rgb(Colormap::Viridis, 0, 68, 1, 84);      // matplotlib #440154
  expect_rgb(Colormap::Viridis, 1, 253, 231, 37);   // #fde725
  expect_rgb(Colormap::Inferno, 0, 0, 0, 4);        // #000004
  expect_rgb(Colormap::Inferno, 1, 252, 255, 164);  // #fcffa4
  expect_rgb(Colormap::Gray, 0.5f, 128, 128, 128);
  expect_rgb(Colormap::Jet, 0, 0, 0, 128);
  expect_rgb(Colormap::Jet, 0.5f, 128, 255, 128);
  expect_rgb(Colormap::Viridis, -3, 68, 1, 84);  // clamped
  expect_rgb(Colormap::Viridis, NAN, 68, 1, 84);
  Colormap cm;
  EXPECT_TRUE(parse_colormap("inferno", &cm));
  EXPECT_EQ(cm, Colormap::Inferno);
  EXPECT_FALSE(parse_colormap("rainbow", &cm));
}

TEST(ImageColormap, PerceptualMapsGetLighterMonotonically) {
  for (Colormap cm : {Colormap::Viridis, Colormap::Inferno}) {
    double last = -1;
    for (int i = 0; i <= 64; ++i) {
      uint8_t rgb[3];
      colormap_rgb(cm, i / 64.f, rgb);
      const double luma = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
      EXPECT_GT(luma, last) << i;
      last = luma;
    }
  }
}

TEST(ImageColormap, OverlayBlends) {
  const int H = 1, W = 2;
  const std::vector<float> image = {10, 20, 30, 40, 50, 60};  // planar: R = {10, 20}, G = {30, 40}, B = {50, 60}
  const std::vector<float> map = {0, 1};
  auto o0 = overlay_rgba(image.data(), map.data(), H, W, 0, Colormap::Gray);
  EXPECT_EQ(o0, (std::vector<uint8_t>{10, 30, 50, 255, 20, 40, 60, 255}));
  auto o1 = overlay_rgba(image.data(), map.data(), H, W, 1, Colormap::Gray);
  EXPECT_EQ(o1, (std::vector<uint8_t>{0, 0, 0, 255, 255, 255, 255, 255}));
  auto oh = overlay_rgba(image.data(), map.data(), H, W, 0.5f, Colormap::Gray);
  EXPECT_EQ(oh[4], 138);  // 0.5·20 + 0.5·255 = 137.5 -> 138
  EXPECT_EQ(colorize_rgba(map.data(), H, W, Colormap::Gray), (std::vector<uint8_t>{0, 0, 0, 255, 255, 255, 255, 255}));
}

}  // namespace
}  // namespace attnlab
