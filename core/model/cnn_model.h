// The localisation lab's small CNN: S stages of conv3x3 (no bias) - batch norm - ReLU [- CBAM] [- maxpool 2x2],
// or, with `residual`, S residual stages  out = pool?( ReLU( [CBAM]( BN(conv3x3(x)) ) + shortcut(x) ) ),
// shortcut = x when the stage keeps the channel count, else BN(conv1x1(x)) (a projection, no bias) — CBAM on
// the residual branch before the addition, as Woo et al. 2018 place it in ResNet blocks (one 3x3 conv per
// branch here, to keep the cost of the plain network: +11 % multiply-adds for the 1x1 projections);
// then a global pooling head (GAP | GMP | LSE with temperature r, nn/mil_pooling.h) and a linear classifier.
// Images are NCHW Mat [in_c*S*S x N] (nn/conv2d.h). Default: 3 -> 16 -> 32 -> 64 channels, pooling after
// stages 1 and 2, so a 64x64 image gives a 64 x 16 x 16 last feature map.
// Class activation map (Zhou et al. 2016): cam_c = sum_k W[c, k] F_k over the last feature map F — exact for
// GAP (logit_c = mean(cam_c) + b_c); the same weighted sum is the map for the GMP / LSE heads.
// Forward in training mode uses batch statistics and updates the running ones (when asked); backward
// accumulates every trained parameter's gradient. Gradient-checked end to end in double
// (tests/core/test_cnn_model.cpp). Instantiated for float and double.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "nn/batch_norm.h"
#include "nn/cbam.h"
#include "nn/conv2d.h"
#include "nn/linear.h"
#include "nn/mil_pooling.h"
#include "nn/rng.h"

namespace attnlab {

struct CnnConfig {
  int image_size = 64, in_channels = 3, num_classes = 5;
  std::vector<int> widths = {16, 32, 64};          // output channels per stage
  std::vector<bool> pool = {true, true, false};    // 2x2 max pool at the end of the stage
  std::vector<bool> cbam = {false, false, false};  // CBAM after the stage's ReLU (before its pool)
  int cbam_reduction = 4;
  PoolHead head = PoolHead::Gap;
  double lse_r = 5.0;
  bool residual = false;  // residual stages (see above); false = the plain stages of the shipped models

  int stages() const { return static_cast<int>(widths.size()); }
  std::string check() const;  // "" when valid, else a message
  FeatureShape input_shape() const { return {in_channels, image_size, image_size}; }
  FeatureShape stage_input_shape(int s) const;  // shape entering stage s
  FeatureShape stage_cbam_shape(int s) const;   // shape CBAM of stage s sees (before the pool)
  FeatureShape feature_shape() const;           // last stage's output
  Conv2dSpec conv_spec(int s) const;
  bool has_projection(int s) const;      // residual stage s changes the channel count: a 1x1 shortcut
  Conv2dSpec shortcut_spec(int s) const;  // its 1x1 conv (no bias)
  CbamSpec cbam_spec(int s) const;
};

// "none" | "all" | "stage1" | "stage2" | ... | comma lists ("stage1,stage3"); false on bad input.
bool parse_cbam_placement(const std::string& text, int stages, std::vector<bool>* out);
std::string cbam_placement_name(const std::vector<bool>& cbam);

// A parameter as stored: its name, its matrix, its checkpoint shape, and whether the matrix is a
// column-major [rows x cols] that is stored row-major (linear weights) rather than copied as is.
template <class T>
struct NamedParam {
  std::string name;
  Mat<T>* mat;
  std::vector<int64_t> shape;
  bool transpose;
};

template <class T>
struct CnnStageParams {
  Conv2dParams<T> conv;
  BatchNormParams<T> bn;
  CbamParams<T> cbam;  // empty when the stage has none
  Conv2dParams<T> sc_conv;   // residual projection shortcut, w [Cin x Cout] (empty when none)
  BatchNormParams<T> sc_bn;  // its batch norm (empty when none)
};

template <class T>
struct CnnParams {
  std::vector<CnnStageParams<T>> stages;
  LinearParams<T> fc;  // w [classes x K], b [classes x 1]

  void resize(const CnnConfig& cfg);  // shapes, zero weights, BN at identity
  void init(const CnnConfig& cfg, Rng& rng);  // Kaiming-normal convs, PyTorch-style uniform linears
  void set_zero();
  std::vector<NamedParam<T>> trained();   // what the optimiser updates
  std::vector<NamedParam<T>> buffers();   // BN running statistics
  std::vector<Mat<T>*> list();            // trained matrices, in trained() order
};

template <class T>
struct CnnStageCache {
  Mat<T> in;               // [stage input]
  Mat<T> conv, bn, relu;   // [C*H*W x N] each (residual: relu = ReLU(branch + shortcut))
  BatchNormCache<T> bn_cache;
  CbamCache<T> cbam_cache;
  Mat<T> att;              // CBAM output (or relu when none; residual: CBAM(bn), empty when none)
  Mat<T> sc_conv, sc;      // residual projection: conv1x1(in), BN of it (empty otherwise)
  BatchNormCache<T> sc_bn_cache;
  std::vector<int> pool_argmax;
  Mat<T> out;              // stage output
};

template <class T>
struct CnnCache {
  std::vector<CnnStageCache<T>> stages;
  GlobalPoolCache<T> pool_cache;
  Mat<T> pooled;  // [K x N]
  Mat<T> logits;  // [classes x N]
  const Mat<T>& features() const { return stages.back().out; }  // [K*h*w x N]
};

// x [in_c*S*S x N]. In training, BN uses batch statistics and, if running is non-null, updates its
// running statistics (pass &params) with bn.momentum.
template <class T>
void cnn_forward(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x, bool training, CnnCache<T>& cache,
                 CnnParams<T>* running = nullptr, const BatchNormOptions& bn = {});

// dlogits [classes x N]; grads (nullable) accumulate (sized by resize); dx (nullable) overwritten.
// dfeatures (nullable) [K*h*w x N]: an extra gradient on the last feature map (a loss on the class maps,
// train/gain_ext_loss.h), added to what the head passes back.
template <class T>
void cnn_backward(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, const Mat<T>& dlogits,
                  CnnParams<T>* grads, Mat<T>* dx, const Mat<T>* dfeatures = nullptr);

// Class map of example b for class c at feature resolution [h*w] (row-major h x w).
template <class T>
std::vector<float> cnn_cam(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, int b, int c);

// CBAM spatial attention map of stage s, example b, [h*w] at that stage's resolution (empty: no spatial CBAM).
template <class T>
std::vector<float> cnn_spatial_attention(const CnnConfig& cfg, const CnnCache<T>& cache, int s, int b);

}  // namespace attnlab
