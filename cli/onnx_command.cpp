// attnlab onnx-info / explain-onnx: the ONNX executor of the core on a user's image classifier (onnx-info also
// describes a text model: kind "text", what explain-onnx-text will read).
//   onnx-info --model M.onnx                       graph summary JSON (inputs, outputs, operator counts,
//                                                  parameters, unsupported operators, spatial layers)
//   explain-onnx --model M.onnx --image IMG --method M [--layer NAME|auto] [--class K]
//                [--preprocess imagenet|unit|raw|signed] [--size N] [--samples S] [--steps T] [--seed S]
//   eval-onnx-shapes --model M.onnx --methods rollout,chefer,… [--n 1000] [--seed 1] [--confounder P]
//                [--texture-contrast C]   the localisation lab's measures against the shapes' object masks
//                                          (experiments/onnx_shapes_localization.h); progress on stderr
// Images: PNG, JPEG, binary or ASCII PPM / PGM (P6, P5, P3, P2), decoded as the page does (core/image/image_file.h),
// resized like the image lab (shorter side to 256, centre crop 224, core/image/preprocess) and then to N×N
// bilinearly when --size differs from 224; or `.f32`: C·H·W little-endian floats already in the model's input
// space (no preprocessing). The last stdout line is one JSON object.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "experiments/onnx_shapes_localization.h"
#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx/onnx_explain.h"
#include "files.h"
#include "image/image_file.h"
#include "image/model_input.h"
#include "image/preprocess.h"

using nlohmann::json;

namespace attnlab::cli {
namespace {

struct OnnxCommands {
  CLI::App *info = nullptr, *explain = nullptr, *shapes = nullptr;
  std::string model, image, method = "gradcam", layer = "auto", preprocess = "imagenet";
  int class_index = -1, size = 0, samples = 25, steps = 32;
  uint64_t seed = 0;
  // eval-onnx-shapes
  std::vector<std::string> methods;
  int n = 1000;
  uint64_t data_seed = 1;
  double confounder = 0.0, texture_contrast = ShapesConfig().texture_contrast;
};

// The model input [C·N·N] from an image file (see the file comment).
std::vector<float> load_input(const OnnxCommands& c, const std::vector<int64_t>& shape) {
  std::string bytes, err;
  if (!read_file(c.image, &bytes, &err)) fail(err);
  const int64_t C = shape[1], H = shape[2], W = shape[3];
  const size_t want = static_cast<size_t>(C * H * W);
  if (c.image.size() > 4 && c.image.substr(c.image.size() - 4) == ".f32") {
    if (bytes.size() != want * 4)
      fail(c.image + ": " + std::to_string(bytes.size()) + " bytes, the model input [" + std::to_string(C) + "," +
           std::to_string(H) + "," + std::to_string(W) + "] needs " + std::to_string(want * 4));
    std::vector<float> x(want);
    std::memcpy(x.data(), bytes.data(), bytes.size());
    return x;
  }
  DecodedImage img;  // PNG, JPEG, PPM/PGM (core/image/image_file.h)
  if (!decode_image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &img, &err)) fail(c.image + ": " + err);
  std::vector<float> rgb, x;
  InputScaling scaling;
  if (!preprocess_rgba(img.rgba.data(), img.width, img.height, &rgb, &err) || !parse_input_scaling(c.preprocess, &scaling, &err) ||
      !model_input_from_planar(rgb.data(), kImageSize, static_cast<int>(C), static_cast<int>(H), static_cast<int>(W),
                               scaling, &x, &err))
    fail(c.image + ": " + err);
  return x;
}

OnnxClassifier load_classifier(const OnnxCommands& c, std::string* bytes) {
  std::string err;
  if (!read_file(c.model, bytes, &err)) fail(err);
  OnnxClassifier clf;
  if (!clf.load(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), &err)) fail(c.model + ": " + err);
  if (c.size > 0) clf.set_input_size(c.size);
  return clf;
}

int run_info(const OnnxCommands& c) {
  std::string bytes, err;
  if (!read_file(c.model, &bytes, &err)) fail(err);
  json out;
  if (!onnx_info(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), c.size, &out, &err)) fail(c.model + ": " + err);
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

int run_explain(const OnnxCommands& c) {
  std::string bytes, err;
  OnnxClassifier clf = load_classifier(c, &bytes);
  const auto shape = clf.input_shape();
  const std::vector<float> x = load_input(c, shape);
  OnnxExplainRequest r;
  r.method = c.method;
  r.layer = c.layer;
  r.class_index = c.class_index;
  r.options.samples = c.samples;
  r.options.steps = c.steps;
  r.options.seed = c.seed;
  json result;
  if (!onnx_explain(clf, x, r, &result, &err)) fail(err);
  json out = {{"model", c.model}, {"method", c.method}, {"input_shape", shape}};
  out.update(result);
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

int run_shapes(const OnnxCommands& c) {
  std::string bytes, err;
  OnnxClassifier clf = load_classifier(c, &bytes);
  const auto shape = clf.input_shape();
  OnnxShapesRequest r;
  r.shapes.image_size = shape.size() == 4 ? static_cast<int>(shape[2]) : 0;
  // the class count is known after a forward pass (on zeros of the model's input size)
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(std::max<int64_t>(d, 1));
  const std::vector<float> zeros(count, 0.0f);
  if (!clf.forward(zeros.data(), zeros.size(), &err)) fail(c.model + ": " + err);
  const int classes = clf.num_classes();
  if (classes < 2 || classes > kShapeKinds)
    fail(c.model + ": the model has " + std::to_string(classes) + " outputs; the shapes have 2 to 5 classes (circle, " +
         "square, triangle, cross, ring, in that order: the first K of them)");
  r.shapes.num_classes = classes;
  r.shapes.confounder = c.confounder;
  r.shapes.texture_contrast = c.texture_contrast;
  r.seed = c.data_seed;
  r.n = c.n;
  r.methods = c.methods;
  json result;
  int shown = -1;
  const auto progress = [&](int done, int total) {
    const int pct = 100 * done / total;
    if (pct / 10 != shown) std::cerr << "eval-onnx-shapes: " << done << " / " << total << " images\n", shown = pct / 10;
    return true;
  };
  if (!onnx_shapes_localization(clf, r, &result, &err, progress)) fail(c.model + ": " + err);
  json out = {{"model", c.model}, {"data", "procedural shapes (core/data/shapes_dataset), test split"}};
  out.update(result);
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

std::function<int()> add_onnx_commands(CLI::App& app) {
  auto c = std::make_shared<OnnxCommands>();
  c->info = app.add_subcommand("onnx-info", "summary of an ONNX model: inputs, outputs, operators, parameters, unsupported");
  c->info->add_option("--model", c->model, "an .onnx file")->required();
  c->info->add_option("--size", c->size, "input side for models with a symbolic H/W")->check(CLI::Range(8, 4096));
  c->explain = app.add_subcommand("explain-onnx", "a saliency map of an ONNX image classifier (the core's executor)");
  CLI::App* e = c->explain;
  e->add_option("--model", c->model, "an .onnx file")->required();
  e->add_option("--image", c->image, "a PNG, JPEG or PPM/PGM image, or a .f32 tensor in model input space")->required();
  e->add_option("--method", c->method)->check(CLI::IsMember(onnx_method_names()));
  e->add_option("--layer", c->layer, "tensor name of the CAM layer, or auto (the last with spatial extent)");
  e->add_option("--class", c->class_index, "explained class (default: the top-1)");
  e->add_option("--preprocess", c->preprocess, "imagenet (mean/std) | unit (0-1) | raw (0-255) | signed (-1..1)")
      ->check(CLI::IsMember({"imagenet", "unit", "raw", "signed"}));
  e->add_option("--size", c->size, "input side for models with a symbolic H/W (default: the model's, else 224)")
      ->check(CLI::Range(8, 4096));
  e->add_option("--samples", c->samples, "smoothgrad samples")->check(CLI::Range(1, 10000));
  e->add_option("--steps", c->steps, "integrated-gradients steps")->check(CLI::Range(1, 10000));
  e->add_option("--seed", c->seed, "seed of smoothgrad's noise and of the random baseline map");
  c->shapes = app.add_subcommand("eval-onnx-shapes",
                                  "localisation measures of an ONNX image classifier's maps against the shapes' masks");
  CLI::App* s = c->shapes;
  s->add_option("--model", c->model, "an .onnx file with input [1, 3, S, S] (planar RGB in [0, 1])")->required();
  s->add_option("--methods", c->methods, "explain-onnx methods, comma-separated")
      ->required()->delimiter(',')->check(CLI::IsMember(onnx_method_names()));
  s->add_option("--n", c->n, "test images")->check(CLI::Range(1, 1000000));
  s->add_option("--seed", c->data_seed, "data seed of the test split (the CNN lab's models use their training seed)");
  s->add_option("--confounder", c->confounder, "P(background kind == class) of the test images")->check(CLI::Range(0.0, 1.0));
  s->add_option("--texture-contrast", c->texture_contrast, "background texture contrast (train-cnn's option)")
      ->check(CLI::Range(0.0, 1.0));
  s->add_option("--size", c->size, "input side for models with a symbolic H/W")->check(CLI::Range(16, 512));
  return [c]() -> int {
    if (*c->shapes) return run_shapes(*c);
    if (*c->info) return run_info(*c);
    if (*c->explain) return run_explain(*c);
    return -1;
  };
}

}  // namespace attnlab::cli
