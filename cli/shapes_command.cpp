// attnlab shapes-data --split train|validation|test --n N --out PREFIX [--seed S] [--size S] [--classes C]
//   [--confounder P] [--texture-contrast C]
// Writes the localisation lab's procedural shapes (core/data/shapes_dataset.h) for tools outside the core (the
// PyTorch recipe of models/tools/train-vit-shapes.py): PREFIX.images.f32 (n · 3 · S · S little-endian floats,
// planar RGB in [0, 1], image after image), PREFIX.labels.u8 (n bytes) and PREFIX.masks.u8 (n · S · S bytes, 1 on the
// object). The example i of a split is the one train-cnn / eval-cnn / eval-onnx-shapes use for the same seed and
// configuration. The last stdout line is one JSON object (the files, n, S, the configuration).
#include <CLI/CLI.hpp>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "data/shapes_dataset.h"
#include "files.h"

namespace attnlab::cli {
namespace {

struct ShapesCommand {
  CLI::App* app = nullptr;
  std::string split = "train", out;
  int n = 1000, size = ShapesConfig().image_size, classes = ShapesConfig().num_classes;
  uint64_t seed = 1;
  double confounder = 0.0, texture_contrast = ShapesConfig().texture_contrast;
};

int run(const ShapesCommand& c) {
  ShapesConfig cfg;
  cfg.image_size = c.size;
  cfg.num_classes = c.classes;
  cfg.confounder = c.confounder;
  cfg.texture_contrast = c.texture_contrast;
  if (const std::string bad = check_shapes_config(cfg); !bad.empty()) fail(bad);
  const Split split = c.split == "train" ? Split::Train : c.split == "validation" ? Split::Validation : Split::Test;
  const ShapesDataset data(cfg, c.seed, split, c.n);
  std::ofstream images(c.out + ".images.f32", std::ios::binary), labels(c.out + ".labels.u8", std::ios::binary),
      masks(c.out + ".masks.u8", std::ios::binary);
  if (!images || !labels || !masks) fail("cannot write " + c.out + ".{images.f32,labels.u8,masks.u8}");
  for (int i = 0; i < c.n; ++i) {
    const ShapeExample ex = data.example(i);
    images.write(reinterpret_cast<const char*>(ex.image.data()), static_cast<std::streamsize>(ex.image.size() * sizeof(float)));
    const char label = static_cast<char>(ex.label);
    labels.write(&label, 1);
    masks.write(reinterpret_cast<const char*>(ex.mask.data()), static_cast<std::streamsize>(ex.mask.size()));
  }
  if (!images || !labels || !masks) fail("writing " + c.out + " failed");
  std::cout << nlohmann::json({{"out", c.out}, {"split", c.split}, {"n", c.n}, {"image_size", c.size}, {"classes", c.classes},
                               {"seed", c.seed}, {"confounder", c.confounder}, {"texture_contrast", c.texture_contrast}})
                   .dump()
            << std::endl;
  return 0;
}

}  // namespace

std::function<int()> add_shapes_command(CLI::App& app) {
  auto c = std::make_shared<ShapesCommand>();
  c->app = app.add_subcommand("shapes-data", "write the localisation lab's procedural shapes as raw files (images, labels, masks)");
  CLI::App* a = c->app;
  a->add_option("--split", c->split)->check(CLI::IsMember({"train", "validation", "test"}));
  a->add_option("--n", c->n, "images")->check(CLI::Range(1, 1000000));
  a->add_option("--out", c->out, "file prefix")->required();
  a->add_option("--seed", c->seed, "data seed");
  a->add_option("--size", c->size, "image side")->check(CLI::Range(16, 512));
  a->add_option("--classes", c->classes)->check(CLI::Range(2, 5));
  a->add_option("--confounder", c->confounder)->check(CLI::Range(0.0, 1.0));
  a->add_option("--texture-contrast", c->texture_contrast)->check(CLI::Range(0.0, 1.0));
  return [c]() -> int { return *c->app ? run(*c) : -1; };
}

}  // namespace attnlab::cli
