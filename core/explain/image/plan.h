// Perturbation plans: every image method or metric that needs many network passes is a plan with one
// protocol, so the page's worker and the Node evaluation share one loop:
//   count()                         number of network inputs in total
//   inputs(start, n, out)           writes inputs [start, start + n) as n planar [3, H, W] images (0–255)
//   accept(start, n, logits, C)     logits [n, C] of those inputs; the plan keeps softmax(logits)[class]
//   done()                          every input accepted
//   result()                        a map [H, W] (map plans; empty for metric plans)
//   result_json()                   curves / metrics as JSON (map plans: {"count", "class_index"})
// Inputs depend only on the plan's parameters and the input index, and results are accumulated in input
// order from the stored probabilities, so any split into batches (in any order) gives identical results.
// Images are planar float [3, H, W]; "masking an image with m ∈ [0, 1]" is done in model space:
// x' = 128 + m · (x − 128) (128 is the model-space zero of MobileNetV2's (x − 128)/128 input mapping, where the
// papers multiply the normalised tensor).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

constexpr float kGrey = 128.f;

class ImagePlan {
 public:
  virtual ~ImagePlan() = default;
  int count() const { return static_cast<int>(prob_.size()); }
  int height() const { return h_; }
  int width() const { return w_; }
  int class_index() const { return class_index_; }
  // Requires 0 <= start, n >= 0, start + n <= count(); out holds n·3·H·W floats.
  void inputs(int start, int n, float* out) const;
  // "" on success, else a message (range, class index not among the C logits, non-finite logits).
  std::string accept(int start, int n, const float* logits, int classes);
  bool done() const { return accepted_ == count(); }
  int accepted() const { return accepted_; }
  virtual std::vector<float> result() const { return {}; }
  virtual std::string result_json() const;
  // Target-class probability of input i (valid once accepted).
  double probability(int i) const { return prob_[i]; }

 protected:
  ImagePlan(int count, int class_index, int h, int w);
  virtual void input(int index, float* out) const = 0;  // one planar [3, H, W] image

 private:
  std::vector<double> prob_;
  std::vector<char> seen_;
  int accepted_ = 0;
  int class_index_, h_, w_;
};

// Model-space masking x' = 128 + m (x − 128), planar image [3, h·w], mask [h·w].
void mask_image(const float* image, const float* mask, size_t hw, float* out);

// ---- factories; each returns nullptr and sets *error on bad parameters. image: planar [3, h, w]. ----

// Score-CAM (Wang et al. 2020): input k = image masked by the min–max-normalised channel map A_k upsampled
// to h×w; w_k = softmax probability of the class; result = ReLU(Σ_k w_k A_k) (feature resolution) upsampled.
// A channel that is zero everywhere adds nothing whatever w_k, so it has no input: count() is the other channels,
// result_json adds "channels" (all of them).
std::unique_ptr<ImagePlan> make_score_cam_plan(const std::vector<float>& image, int h, int w,
                                               const std::vector<float>& features, int fh, int fw, int class_index,
                                               std::string* error);

// RISE (Petsiuk et al. 2018): n masks, each a cells×cells binary grid (1 with probability p) bilinearly
// upsampled to (cells + 1)·cell_h × (cells + 1)·cell_w (cell = ceil(side / cells)) and cropped at a random
// shift in [0, cell); everything drawn from Rng(seed) at construction. result = Σ_i P_i M_i / (n · p).
std::unique_ptr<ImagePlan> make_rise_plan(const std::vector<float>& image, int h, int w, int class_index, int n,
                                          int cells, double p, uint64_t seed, std::string* error);
// The mask of input i of a RISE plan (for tests / display).
std::vector<float> rise_mask(const ImagePlan& plan, int i);

// Occlusion (Zeiler & Fergus 2014): input 0 = the image, then one input per window position (grey 128
// square, top-left corners 0, stride, … while the window fits); result at a pixel = mean over the windows
// covering it of (P_image − P_window), 0 where no window covers it.
std::unique_ptr<ImagePlan> make_occlusion_plan(const std::vector<float>& image, int h, int w, int class_index,
                                               int window, int stride, std::string* error);

}  // namespace attnlab
