// attnlab onnx-info / explain-onnx: the ONNX executor of the core on a user's image classifier.
//   onnx-info --model M.onnx                       graph summary JSON (inputs, outputs, operator counts,
//                                                  parameters, unsupported operators, spatial layers)
//   explain-onnx --model M.onnx --image IMG --method M [--layer NAME|auto] [--class K]
//                [--preprocess imagenet|unit|raw|signed] [--size N] [--samples S] [--steps T] [--seed S]
// Images: PNG, JPEG, binary or ASCII PPM / PGM (P6, P5, P3, P2), decoded as the page does (core/image/image_file.h),
// resized like the image lab (shorter side to 256, centre crop 224, core/image/preprocess) and then to N×N
// bilinearly when --size differs from 224; or `.f32`: C·H·W little-endian floats already in the model's input
// space (no preprocessing). The last stdout line is one JSON object.
#include <CLI/CLI.hpp>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

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
  CLI::App *info = nullptr, *explain = nullptr;
  std::string model, image, method = "gradcam", layer = "auto", preprocess = "imagenet";
  int class_index = -1, size = 0, samples = 25, steps = 32;
  uint64_t seed = 0;
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
  e->add_option("--seed", c->seed, "smoothgrad noise seed");
  return [c]() -> int {
    if (*c->info) return run_info(*c);
    if (*c->explain) return run_explain(*c);
    return -1;
  };
}

}  // namespace attnlab::cli
