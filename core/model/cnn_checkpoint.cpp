#include "model/cnn_checkpoint.h"

#include <nlohmann/json.hpp>

#include "io/config_fields.h"

namespace attnlab {

using nlohmann::json;

namespace {

std::vector<NamedParam<float>> all_tensors(CnnParams<float>& p) {
  auto out = p.trained();
  for (auto& b : p.buffers()) out.push_back(b);
  return out;
}

// A lower bound of the values the config's tensors hold (conv weights + classifier), checked against the
// file before the parameters are allocated: a config of eight 1024-wide stages would otherwise allocate
// ~300 MB to report that an empty file lacks a tensor.
uint64_t min_cnn_values(const CnnConfig& c) {
  uint64_t n = 0, in = static_cast<uint64_t>(c.in_channels);
  for (int w : c.widths) {
    n += in * static_cast<uint64_t>(w) * 9;
    in = static_cast<uint64_t>(w);
  }
  return n + in * static_cast<uint64_t>(c.num_classes);
}

}  // namespace

bool load_cnn_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, CnnModel* out,
                    std::string* error) {
  json j;
  if (!parse_config(config_json, "attnlab-cnn-v1", "CNN", &j, error)) return false;
  CnnModel m;
  CnnConfig& c = m.config;
  // image_size: the range the shapes data and `eval-cnn` accept (ShapesConfig, train-cnn --image-size).
  if (!config_get_int(j, "image_size", 16, 512, &c.image_size, error) ||
      !config_get_int(j, "in_channels", 1, 16, &c.in_channels, error) ||
      !config_get_int(j, "num_classes", 2, 1000, &c.num_classes, error) ||
      !config_get_int(j, "cbam_reduction", 1, 1024, &c.cbam_reduction, error))
    return false;
  auto widths = j.find("widths"), pool = j.find("pool"), cbam = j.find("cbam");
  if (widths == j.end() || !widths->is_array() || pool == j.end() || !pool->is_array() || cbam == j.end() ||
      !cbam->is_array()) {
    *error = "config.json: 'widths', 'pool' and 'cbam' must be arrays";
    return false;
  }
  c.widths.clear();
  c.pool.clear();
  c.cbam.clear();
  if (widths->size() > 8) {
    *error = "config.json: 'widths' has " + std::to_string(widths->size()) + " stages, at most 8";
    return false;
  }
  for (const auto& w : *widths) {
    long long v = 0;
    if (!json_int_in(w, 1, 1024, &v)) {
      *error = "config.json: 'widths' must hold integers in [1, 1024], got " + w.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return false;
    }
    c.widths.push_back(static_cast<int>(v));
  }
  for (const auto& b : *pool) {
    if (!b.is_boolean()) {
      *error = "config.json: 'pool' must hold booleans";
      return false;
    }
    c.pool.push_back(b.get<bool>());
  }
  for (const auto& b : *cbam) {
    if (!b.is_boolean()) {
      *error = "config.json: 'cbam' must hold booleans";
      return false;
    }
    c.cbam.push_back(b.get<bool>());
  }
  auto head = j.find("head");
  if (head == j.end() || !head->is_string() || !parse_pool_head(head->get<std::string>(), &c.head)) {
    *error = "config.json: 'head' must be one of \"gap\", \"gmp\", \"lse\"";
    return false;
  }
  auto res = j.find("residual");  // optional (absent: the plain stages of the first models)
  if (res != j.end()) {
    if (!res->is_boolean()) {
      *error = "config.json: 'residual' must be a boolean";
      return false;
    }
    c.residual = res->get<bool>();
  }
  auto r = j.find("lse_r");
  if (r != j.end()) {
    if (!r->is_number()) {
      *error = "config.json: 'lse_r' must be a number";
      return false;
    }
    c.lse_r = r->get<double>();  // range checked by c.check()
  }
  const std::string check = c.check();
  if (!check.empty()) {
    *error = "config.json: " + check;
    return false;
  }
  auto names = j.find("class_names");  // optional (absent: "class 0", "class 1", ...)
  if (names != j.end()) {
    bool ok = names->is_array() && static_cast<int>(names->size()) == c.num_classes;
    for (size_t i = 0; ok && i < names->size(); ++i) ok = (*names)[i].is_string();
    if (!ok) {
      *error = "config.json: 'class_names' must be an array of " + std::to_string(c.num_classes) +
               " strings (one per class)";
      return false;
    }
    for (const auto& n : *names) m.class_names.push_back(n.get<std::string>());
  } else {
    for (int k = 0; k < c.num_classes; ++k) m.class_names.push_back("class " + std::to_string(k));
  }
  json extra = json::object();
  for (const char* key : {"training", "metrics", "provenance"}) {
    auto it = j.find(key);
    if (it != j.end()) extra[key] = *it;
  }
  m.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  SafetensorsFile file;
  std::string st_error;
  if (!read_safetensors(weights, weights_size, &file, &st_error)) {
    *error = "model.safetensors: " + st_error;
    return false;
  }
  uint64_t have = 0;
  for (const auto& [name, t] : file.tensors) have += t.data.size();
  if (have < min_cnn_values(c)) {
    *error = "model.safetensors holds only " + std::to_string(have) + " values; the tensor shapes of the config need at least " +
             std::to_string(min_cnn_values(c));
    return false;
  }
  m.params.resize(c);
  const auto tensors = all_tensors(m.params);
  for (const auto& np : tensors) {
    auto it = file.tensors.find(np.name);
    if (it == file.tensors.end()) {
      *error = "model.safetensors: tensor '" + np.name + "' is missing (the config needs it)";
      return false;
    }
    const NamedTensor& t = it->second;
    if (t.shape != np.shape) {
      *error = "model.safetensors: tensor '" + np.name + "' has shape " + shape_str(t.shape) +
               ", the config needs " + shape_str(np.shape);
      return false;
    }
    Mat<float>& mat = *np.mat;
    if (np.transpose)
      mat = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          t.data.data(), mat.rows(), mat.cols());
    else
      mat = Eigen::Map<const Mat<float>>(t.data.data(), mat.rows(), mat.cols());
    if (!mat.allFinite()) {
      *error = "model.safetensors: tensor '" + np.name + "' contains NaN or infinite values";
      return false;
    }
  }
  for (const auto& [name, t] : file.tensors) {
    bool known = false;
    for (const auto& np : tensors) known = known || np.name == name;
    if (!known) {
      *error = "model.safetensors: unexpected tensor '" + name + "' (does the config match the weights?)";
      return false;
    }
  }
  *out = std::move(m);
  return true;
}

std::string cnn_model_config_json(const CnnModel& model) {
  const CnnConfig& c = model.config;
  json j = json::parse(model.extra_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) j = json::object();
  j["format"] = "attnlab-cnn-v1";
  j["image_size"] = c.image_size;
  j["in_channels"] = c.in_channels;
  j["num_classes"] = c.num_classes;
  if (static_cast<int>(model.class_names.size()) == c.num_classes) j["class_names"] = model.class_names;
  j["widths"] = c.widths;
  j["pool"] = c.pool;
  j["cbam"] = c.cbam;
  j["cbam_reduction"] = c.cbam_reduction;
  j["head"] = pool_head_name(c.head);
  j["lse_r"] = c.lse_r;
  if (c.residual) j["residual"] = true;  // written only when set: a plain model's config.json is unchanged
  else j.erase("residual");
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<uint8_t> cnn_model_weights(const CnnModel& model, StorageType storage) {
  CnnParams<float> p = model.params;  // named() needs mutable access
  std::map<std::string, NamedTensor> tensors;
  for (const auto& np : all_tensors(p)) {
    NamedTensor t;
    t.shape = np.shape;
    if (np.transpose) {
      const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = *np.mat;
      t.data.assign(rm.data(), rm.data() + rm.size());
    } else {
      t.data.assign(np.mat->data(), np.mat->data() + np.mat->size());
    }
    tensors[np.name] = std::move(t);
  }
  return write_safetensors(tensors, storage, {{"format", "attnlab-cnn-v1"}});
}

}  // namespace attnlab
