#include "model/cnn_model.h"

#include <cmath>

#include "nn/pooling.h"

namespace attnlab {

namespace {
const PoolSpec kPool{2, 2};
}

std::string CnnConfig::check() const {
  if (image_size < 8 || image_size > 1024) return "image_size must be in [8, 1024]";
  if (in_channels < 1 || in_channels > 16) return "in_channels must be in [1, 16]";
  if (num_classes < 2 || num_classes > 1000) return "num_classes must be in [2, 1000]";
  if (widths.empty() || widths.size() > 8) return "the network needs 1 to 8 stages";
  if (pool.size() != widths.size() || cbam.size() != widths.size())
    return "widths, pool and cbam must have one entry per stage";
  for (int w : widths)
    if (w < 1 || w > 1024) return "stage widths must be in [1, 1024]";
  if (cbam_reduction < 1) return "cbam_reduction must be >= 1";
  if (!(lse_r > 0 && lse_r <= 1000)) return "lse_r must be in (0, 1000]";
  int size = image_size;
  for (int s = 0; s < stages(); ++s)
    if (pool[s]) {
      if (size < 2) return "too many pooled stages for image_size " + std::to_string(image_size);
      size /= 2;
    }
  return "";
}

FeatureShape CnnConfig::stage_input_shape(int s) const {
  FeatureShape sh = input_shape();
  for (int i = 0; i < s; ++i) {
    sh.c = widths[i];
    if (pool[i]) sh = pool_output_shape(kPool, sh);
  }
  return sh;
}

FeatureShape CnnConfig::stage_cbam_shape(int s) const {
  FeatureShape sh = stage_input_shape(s);
  sh.c = widths[s];
  return sh;
}

FeatureShape CnnConfig::feature_shape() const { return stage_input_shape(stages()); }

Conv2dSpec CnnConfig::conv_spec(int s) const {
  return {s == 0 ? in_channels : widths[s - 1], widths[s], 3, 1, 1, false};
}

bool CnnConfig::has_projection(int s) const { return residual && conv_spec(s).in_c != widths[s]; }

Conv2dSpec CnnConfig::shortcut_spec(int s) const { return {conv_spec(s).in_c, widths[s], 1, 1, 0, false}; }

CbamSpec CnnConfig::cbam_spec(int s) const {
  CbamSpec c;
  c.channels = widths[s];
  c.reduction = cbam_reduction;
  return c;
}

bool parse_cbam_placement(const std::string& text, int stages, std::vector<bool>* out) {
  std::vector<bool> v(stages, false);
  if (text == "all") {
    v.assign(stages, true);
  } else if (text != "none") {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = text.find(',', start);
      const std::string item = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (item.size() < 6 || item.compare(0, 5, "stage") != 0) return false;
      int k = 0;
      for (size_t i = 5; i < item.size(); ++i) {
        if (item[i] < '0' || item[i] > '9' || k > 100) return false;
        k = k * 10 + (item[i] - '0');
      }
      if (k < 1 || k > stages) return false;
      v[k - 1] = true;
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  *out = v;
  return true;
}

std::string cbam_placement_name(const std::vector<bool>& cbam) {
  std::string out;
  bool all = !cbam.empty();
  for (size_t i = 0; i < cbam.size(); ++i) {
    all = all && cbam[i];
    if (cbam[i]) out += (out.empty() ? "stage" : ",stage") + std::to_string(i + 1);
  }
  if (all && cbam.size() > 1) return "all";
  return out.empty() ? "none" : out;
}

template <class T>
void CnnParams<T>::resize(const CnnConfig& cfg) {
  stages.assign(cfg.stages(), {});
  for (int s = 0; s < cfg.stages(); ++s) {
    stages[s].conv.resize(cfg.conv_spec(s));
    stages[s].bn.resize(cfg.widths[s]);
    if (cfg.cbam[s]) stages[s].cbam.resize(cfg.cbam_spec(s));
    if (cfg.has_projection(s)) {
      stages[s].sc_conv.resize(cfg.shortcut_spec(s));
      stages[s].sc_bn.resize(cfg.widths[s]);
    }
  }
  fc.w = Mat<T>::Zero(cfg.num_classes, cfg.widths.back());
  fc.b = Mat<T>::Zero(cfg.num_classes, 1);
}

template <class T>
void CnnParams<T>::init(const CnnConfig& cfg, Rng& rng) {
  resize(cfg);
  auto normal = [&](Mat<T>& m, double std) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(std * rng.normal());
  };
  auto uniform = [&](Mat<T>& m, double bound) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(rng.uniform(-bound, bound));
  };
  for (int s = 0; s < cfg.stages(); ++s) {
    normal(stages[s].conv.w, std::sqrt(2.0 / stages[s].conv.w.rows()));  // fan_in = Cin*k*k
    if (cfg.cbam[s]) {
      CbamParams<T>& c = stages[s].cbam;
      uniform(c.fc1.w, 1.0 / std::sqrt(double(c.fc1.w.cols())));
      uniform(c.fc1.b, 1.0 / std::sqrt(double(c.fc1.w.cols())));
      uniform(c.fc2.w, 1.0 / std::sqrt(double(c.fc2.w.cols())));
      uniform(c.fc2.b, 1.0 / std::sqrt(double(c.fc2.w.cols())));
      uniform(c.conv.w, 1.0 / std::sqrt(double(c.conv.w.rows())));
      uniform(c.conv.b, 1.0 / std::sqrt(double(c.conv.w.rows())));
    }
    // Drawn after the plain stage's draws, so a plain network's initial weights do not change.
    if (cfg.has_projection(s)) normal(stages[s].sc_conv.w, std::sqrt(2.0 / stages[s].sc_conv.w.rows()));
  }
  uniform(fc.w, 1.0 / std::sqrt(double(fc.w.cols())));
  fc.b.setZero();
}

template <class T>
void CnnParams<T>::set_zero() {
  for (Mat<T>* m : list()) m->setZero();
}

template <class T>
std::vector<NamedParam<T>> CnnParams<T>::trained() {
  std::vector<NamedParam<T>> out;
  for (size_t s = 0; s < stages.size(); ++s) {
    const std::string pre = "stages." + std::to_string(s) + ".";
    CnnStageParams<T>& st = stages[s];
    const int64_t cout = st.conv.w.cols(), cin = st.conv.w.rows() / 9;
    out.push_back({pre + "conv.weight", &st.conv.w, {cout, cin, 3, 3}, false});
    out.push_back({pre + "bn.weight", &st.bn.gamma, {cout}, false});
    out.push_back({pre + "bn.bias", &st.bn.beta, {cout}, false});
    if (st.cbam.fc1.w.size()) {
      CbamParams<T>& c = st.cbam;
      out.push_back({pre + "cbam.fc1.weight", &c.fc1.w, {c.fc1.w.rows(), c.fc1.w.cols()}, true});
      out.push_back({pre + "cbam.fc1.bias", &c.fc1.b, {c.fc1.b.rows()}, false});
      out.push_back({pre + "cbam.fc2.weight", &c.fc2.w, {c.fc2.w.rows(), c.fc2.w.cols()}, true});
      out.push_back({pre + "cbam.fc2.bias", &c.fc2.b, {c.fc2.b.rows()}, false});
    }
    if (st.cbam.conv.w.size()) {
      const int64_t k = static_cast<int64_t>(std::lround(std::sqrt(st.cbam.conv.w.rows() / 2.0)));
      out.push_back({pre + "cbam.spatial.weight", &st.cbam.conv.w, {1, 2, k, k}, false});
      out.push_back({pre + "cbam.spatial.bias", &st.cbam.conv.b, {1}, false});
    }
    if (st.sc_conv.w.size()) {
      out.push_back({pre + "shortcut.conv.weight", &st.sc_conv.w, {cout, st.sc_conv.w.rows(), 1, 1}, false});
      out.push_back({pre + "shortcut.bn.weight", &st.sc_bn.gamma, {cout}, false});
      out.push_back({pre + "shortcut.bn.bias", &st.sc_bn.beta, {cout}, false});
    }
  }
  out.push_back({"fc.weight", &fc.w, {fc.w.rows(), fc.w.cols()}, true});
  out.push_back({"fc.bias", &fc.b, {fc.b.rows()}, false});
  return out;
}

template <class T>
std::vector<NamedParam<T>> CnnParams<T>::buffers() {
  std::vector<NamedParam<T>> out;
  for (size_t s = 0; s < stages.size(); ++s) {
    const std::string pre = "stages." + std::to_string(s) + ".bn.";
    BatchNormParams<T>& bn = stages[s].bn;
    out.push_back({pre + "running_mean", &bn.running_mean, {bn.running_mean.rows()}, false});
    out.push_back({pre + "running_var", &bn.running_var, {bn.running_var.rows()}, false});
    BatchNormParams<T>& sb = stages[s].sc_bn;
    if (stages[s].sc_conv.w.size()) {
      const std::string sp = "stages." + std::to_string(s) + ".shortcut.bn.";
      out.push_back({sp + "running_mean", &sb.running_mean, {sb.running_mean.rows()}, false});
      out.push_back({sp + "running_var", &sb.running_var, {sb.running_var.rows()}, false});
    }
  }
  return out;
}

template <class T>
std::vector<Mat<T>*> CnnParams<T>::list() {
  std::vector<Mat<T>*> out;
  for (auto& p : trained()) out.push_back(p.mat);
  return out;
}

template <class T>
void cnn_forward(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x, bool training, CnnCache<T>& cache,
                 CnnParams<T>* running, const BatchNormOptions& bn) {
  cache.stages.resize(cfg.stages());
  const Mat<T>* in = &x;
  for (int s = 0; s < cfg.stages(); ++s) {
    CnnStageCache<T>& c = cache.stages[s];
    const FeatureShape in_shape = cfg.stage_input_shape(s), sh = cfg.stage_cbam_shape(s);
    if (s == 0) c.in = x;  // later stages read the previous stage's out
    conv2d_forward(cfg.conv_spec(s), p.stages[s].conv, in_shape, *in, c.conv);
    batch_norm_forward(p.stages[s].bn, sh, c.conv, training, c.bn, c.bn_cache,
                       running ? &running->stages[s].bn : nullptr, bn);
    const Mat<T>* a = &c.relu;
    if (cfg.residual) {
      const Mat<T>* branch = &c.bn;
      if (cfg.cbam[s]) {
        cbam_forward(cfg.cbam_spec(s), p.stages[s].cbam, sh, c.bn, c.att, c.cbam_cache);
        branch = &c.att;
      }
      const Mat<T>* shortcut = in;
      if (cfg.has_projection(s)) {
        conv2d_forward(cfg.shortcut_spec(s), p.stages[s].sc_conv, in_shape, *in, c.sc_conv);
        batch_norm_forward(p.stages[s].sc_bn, sh, c.sc_conv, training, c.sc, c.sc_bn_cache,
                           running ? &running->stages[s].sc_bn : nullptr, bn);
        shortcut = &c.sc;
      }
      relu_forward<T>(*branch + *shortcut, c.relu);
    } else {
      relu_forward(c.bn, c.relu);
      if (cfg.cbam[s]) {
        cbam_forward(cfg.cbam_spec(s), p.stages[s].cbam, sh, c.relu, c.att, c.cbam_cache);
        a = &c.att;
      }
    }
    if (cfg.pool[s]) max_pool_forward(kPool, sh, *a, c.out, c.pool_argmax);
    else c.out = *a;
    in = &c.out;
  }
  global_pool_forward(cfg.head, cfg.lse_r, cfg.feature_shape(), cache.features(), cache.pooled, cache.pool_cache);
  linear_forward(p.fc, cache.pooled, cache.logits);
}

// Residual stage s: d [C*H*W x N] at the stage's pre-pool output (ReLU(branch + shortcut)) in, the
// gradient at the stage input out (when want_dx; else d is left unspecified).
template <class T>
void residual_stage_backward(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, int s, Mat<T>& d,
                             CnnParams<T>* grads, bool want_dx) {
  const CnnStageCache<T>& c = cache.stages[s];
  const FeatureShape in_shape = cfg.stage_input_shape(s), sh = cfg.stage_cbam_shape(s);
  Mat<T> dsum, dbranch, dtmp, dshort;
  relu_backward(c.relu, d, dsum);
  const Mat<T>* db = &dsum;
  if (cfg.cbam[s]) {
    cbam_backward(cfg.cbam_spec(s), p.stages[s].cbam, sh, c.bn, c.cbam_cache, dsum,
                  grads ? &grads->stages[s].cbam : nullptr, dbranch);
    db = &dbranch;
  }
  batch_norm_backward(p.stages[s].bn, sh, c.bn_cache, *db, grads ? &grads->stages[s].bn : nullptr, &dtmp);
  const Mat<T>& stage_in = s == 0 ? c.in : cache.stages[s - 1].out;
  conv2d_backward(cfg.conv_spec(s), p.stages[s].conv, in_shape, stage_in, dtmp,
                  grads ? &grads->stages[s].conv : nullptr, want_dx ? &d : static_cast<Mat<T>*>(nullptr));
  if (cfg.has_projection(s)) {
    batch_norm_backward(p.stages[s].sc_bn, sh, c.sc_bn_cache, dsum, grads ? &grads->stages[s].sc_bn : nullptr,
                        &dtmp);
    conv2d_backward(cfg.shortcut_spec(s), p.stages[s].sc_conv, in_shape, stage_in, dtmp,
                    grads ? &grads->stages[s].sc_conv : nullptr, want_dx ? &dshort : static_cast<Mat<T>*>(nullptr));
    if (want_dx) d += dshort;
  } else if (want_dx) {
    d += dsum;
  }
}

template <class T>
void cnn_backward(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, const Mat<T>& dlogits,
                  CnnParams<T>* grads, Mat<T>* dx, const Mat<T>* dfeatures) {
  Mat<T> dpooled, d, dtmp;
  linear_backward(p.fc, cache.pooled, dlogits, grads ? &grads->fc : nullptr, &dpooled);
  global_pool_backward(cfg.head, cfg.lse_r, cfg.feature_shape(), cache.pool_cache, dpooled, d);
  if (dfeatures) d += *dfeatures;
  for (int s = cfg.stages() - 1; s >= 0; --s) {
    const CnnStageCache<T>& c = cache.stages[s];
    const FeatureShape in_shape = cfg.stage_input_shape(s), sh = cfg.stage_cbam_shape(s);
    if (cfg.pool[s]) {
      max_pool_backward(kPool, sh, c.pool_argmax, d, dtmp);
      d.swap(dtmp);
    }
    if (cfg.residual) {
      residual_stage_backward(cfg, p, cache, s, d, grads, s > 0 || dx);
      continue;
    }
    if (cfg.cbam[s]) {
      cbam_backward(cfg.cbam_spec(s), p.stages[s].cbam, sh, c.relu, c.cbam_cache, d,
                    grads ? &grads->stages[s].cbam : nullptr, dtmp);
      d.swap(dtmp);
    }
    relu_backward(c.relu, d, dtmp);
    batch_norm_backward(p.stages[s].bn, sh, c.bn_cache, dtmp, grads ? &grads->stages[s].bn : nullptr, &d);
    const Mat<T>& stage_in = s == 0 ? c.in : cache.stages[s - 1].out;
    if (s == 0 && !dx) {
      conv2d_backward(cfg.conv_spec(s), p.stages[s].conv, in_shape, stage_in, d,
                      grads ? &grads->stages[s].conv : nullptr, static_cast<Mat<T>*>(nullptr));
    } else {
      conv2d_backward(cfg.conv_spec(s), p.stages[s].conv, in_shape, stage_in, d,
                      grads ? &grads->stages[s].conv : nullptr, &dtmp);
      d.swap(dtmp);
    }
  }
  if (dx) dx->swap(d);
}

template <class T>
std::vector<float> cnn_cam(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, int b, int c) {
  const FeatureShape sh = cfg.feature_shape();
  Eigen::Map<const Mat<T>> f(cache.features().col(b).data(), sh.hw(), sh.c);  // [hw x K]
  const Vec<T> cam = f * p.fc.w.row(c).transpose();
  std::vector<float> out(sh.hw());
  for (int q = 0; q < sh.hw(); ++q) out[q] = static_cast<float>(cam(q));
  return out;
}

template <class T>
std::vector<float> cnn_spatial_attention(const CnnConfig& cfg, const CnnCache<T>& cache, int s, int b) {
  if (s < 0 || s >= cfg.stages() || !cfg.cbam[s] || !cfg.cbam_spec(s).spatial) return {};
  const Mat<T>& ms = cache.stages[s].cbam_cache.ms;
  std::vector<float> out(ms.rows());
  for (Eigen::Index q = 0; q < ms.rows(); ++q) out[q] = static_cast<float>(ms(q, b));
  return out;
}

#define ATTNLAB_INSTANTIATE(T)                                                                                   \
  template struct CnnParams<T>;                                                                                  \
  template void cnn_forward<T>(const CnnConfig&, const CnnParams<T>&, const Mat<T>&, bool, CnnCache<T>&,         \
                               CnnParams<T>*, const BatchNormOptions&);                                          \
  template void cnn_backward<T>(const CnnConfig&, const CnnParams<T>&, const CnnCache<T>&, const Mat<T>&,        \
                                CnnParams<T>*, Mat<T>*, const Mat<T>*);                                          \
  template std::vector<float> cnn_cam<T>(const CnnConfig&, const CnnParams<T>&, const CnnCache<T>&, int, int);   \
  template std::vector<float> cnn_spatial_attention<T>(const CnnConfig&, const CnnCache<T>&, int, int);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
