// Loading a user's ONNX text transformer and its tokenizer (onnx_text_dir.h).
#include "onnx_text_dir.h"

#include <filesystem>

#include "files.h"

namespace attnlab::cli {

namespace fs = std::filesystem;

bool is_onnx_text_model(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::exists(fs::path(path) / "model.onnx", ec);
  return fs::path(path).extension() == ".onnx";
}

OnnxTextFiles load_onnx_text_files(const std::string& model, const std::string& tokenizer, const std::string& output) {
  OnnxTextFiles f;
  f.model_path = model;
  f.tokenizer_path = tokenizer;
  std::error_code ec;
  if (fs::is_directory(model, ec)) {
    f.model_path = (fs::path(model) / "model.onnx").string();
    if (f.tokenizer_path.empty())
      for (const char* name : {"tokenizer.json", "tokenizer.bin"})
        if (fs::exists(fs::path(model) / name, ec)) {
          f.tokenizer_path = (fs::path(model) / name).string();
          break;
        }
    if (fs::exists(fs::path(model) / "config.json", ec)) f.config_path = (fs::path(model) / "config.json").string();
  }
  std::string bytes, error;
  if (!read_file(f.model_path, &bytes, &error)) fail(error);
  f.model = std::make_unique<OnnxTextModel>();
  if (!f.model->load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), output, &error))
    fail(f.model_path + ": " + error);
  if (!f.tokenizer_path.empty()) {
    std::string tb;
    if (!read_file(f.tokenizer_path, &tb, &error, kMaxTokenizerFileBytes)) fail(error);
    f.tokenizer = load_tokenizer(tb, &error);
    if (!f.tokenizer) fail(f.tokenizer_path + ": " + error);
    std::string config;
    if (!f.config_path.empty() && !read_file(f.config_path, &config, &error, kMaxTokenizerFileBytes)) fail(error);
    if (!read_onnx_text_config(config, *f.tokenizer, &f.config, &error)) fail(f.config_path + ": " + error);
    if (!check_onnx_text_pair(*f.model, *f.tokenizer, &error)) fail(f.tokenizer_path + " with " + f.model_path + ": " + error);
  }
  return f;
}

}  // namespace attnlab::cli
