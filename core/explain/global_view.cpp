// Global view of an additive attention layer (global_view.h).
#include "explain/global_view.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

namespace attnlab {

namespace {

using nlohmann::json;

int argmax_col(const Mat<float>& logits, Eigen::Index b) {
  if (logits.rows() == 1) return logits(0, b) >= 0.f ? 1 : 0;
  Eigen::Index k;
  logits.col(b).maxCoeff(&k);
  return static_cast<int>(k);
}

// Ranks items, fills x, y and the query projection from the representations U [A x N] and the query q [1 x A].
void finish(GlobalView& v, const Mat<double>& U, const Mat<double>& q) {
  const Eigen::Index N = U.cols();
  if (N == 0) return;
  const Vec<double> mean = U.rowwise().mean();
  const Mat<double> C = U.colwise() - mean;
  const Mat<double> cov = C * C.transpose() / double(N);
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(cov);
  const Eigen::Index A = U.rows();
  Mat<double> pc(A, 2);
  pc.setZero();
  std::vector<double> lambda(2, 0.0);
  const double total = std::max(1e-300, cov.trace());
  for (int k = 0; k < 2 && k < A; ++k) {
    pc.col(k) = es.eigenvectors().col(A - 1 - k);  // largest eigenvalues last
    lambda[k] = es.eigenvalues()(A - 1 - k) / total;
    if (q.row(0).dot(pc.col(k)) < 0) pc.col(k) *= -1.0;  // sign: the query points to +x, +y
  }
  const Mat<double> xy = pc.transpose() * C;  // [2 x N]
  for (Eigen::Index i = 0; i < N; ++i) {
    v.items[i].x = xy(0, i);
    v.items[i].y = xy(1, i);
  }
  v.query = {q.row(0).dot(pc.col(0)), q.row(0).dot(pc.col(1))};
  v.score_at_mean = q.row(0).dot(mean);
  v.explained_variance = lambda;
  std::stable_sort(v.items.begin(), v.items.end(), [](const GlobalViewItem& a, const GlobalViewItem& b) {
    return a.score != b.score ? a.score > b.score : a.text < b.text;
  });
}

void set_contextual(GlobalViewItem& it, double sum, int count) {
  it.count = count;
  it.contextual_score = count > 0 ? sum / count : std::nan("");
}

}  // namespace

namespace {
constexpr size_t kTextBatch = 64, kTextUnits = 2048, kHanBatch = 32, kHanUnits = 1024;
size_t batches(size_t n, size_t per) { return (n + per - 1) / per; }
}  // namespace

GlobalViewJob::GlobalViewJob(const TextModel& model, std::vector<std::vector<int>> train) : text_(&model) {
  view_.level = "word";
  if (model.config.attention != AttentionKind::Tanh) {
    view_.error = std::string("the global view needs additive (tanh) attention; this model has '") +
                  attention_name(model.config.attention) + "'";
    finished_ = true;
    return;
  }
  // Contextual: the training texts in batches of similar length.
  std::vector<int> order(train.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return train[a].size() < train[b].size(); });
  for (int i : order) train_.push_back(std::move(train[i]));
  const int V = model.vocab.size();
  sum_.assign(V, 0.0);
  count_.assign(V, 0);
  unit_ = 2;  // <pad>, <unk> are not ranked
  U_.resize(model.params.attention.v.cols(), std::max(0, V - 2));
  total_ = static_cast<int>(batches(train_.size(), kTextBatch) + batches(static_cast<size_t>(std::max(0, V - 2)), kTextUnits));
}

GlobalViewJob::GlobalViewJob(const HanModel& model, std::vector<HanDocument> train, const std::string& level)
    : han_(&model), docs_(std::move(train)) {
  view_.level = level;
  word_ = level == "word";
  if (!word_ && level != "sentence") {
    view_.error = "level must be \"word\" or \"sentence\"";
    finished_ = true;
    return;
  }
  if ((word_ ? model.config.word_attention : model.config.sentence_attention) != AttentionKind::Tanh) {
    view_.error = "the global view needs additive attention at the " + level + " level; this model's is uniform";
    finished_ = true;
    return;
  }
  const int V = model.vocab.size();
  size_t units = 0;
  if (word_) {
    sum_.assign(V, 0.0);
    count_.assign(V, 0);
    units = static_cast<size_t>(std::max(0, V - 2));
  } else {
    std::map<std::vector<int>, int> distinct;
    for (const HanDocument& d : docs_)
      for (const auto& s : d) distinct[s] = 0;
    units = distinct.size();
  }
  total_ = static_cast<int>(batches(docs_.size(), kHanBatch) + batches(units, kHanUnits));
}

bool GlobalViewJob::step() {
  if (finished_) return false;
  const bool more = text_ ? step_text() : step_han();
  ++done_;
  if (!more) {
    finished_ = true;
    done_ = total_;
    const Mat<float>& q = text_ ? text_->params.attention.v
                          : word_ ? han_->params.word_attention.v : han_->params.sentence_attention.v;
    finish(view_, U_, q.cast<double>());
  }
  return more;
}

bool GlobalViewJob::step_text() {
  const TextModel& model = *text_;
  const Mat<float>& q = model.params.attention.v;
  const int V = model.vocab.size();
  TextCache<float> c;
  if (pos_ < train_.size()) {
    std::vector<std::vector<int>> seqs;
    for (size_t k = pos_; k < std::min(train_.size(), pos_ + kTextBatch); ++k)
      if (!train_[k].empty()) seqs.push_back(train_[k]);
    pos_ = std::min(train_.size(), pos_ + kTextBatch);
    if (!seqs.empty()) {
      const TextBatch batch = TextBatch::from_sequences(seqs);
      text_forward_ids(model.config, model.params, batch, c);
      const Mat<float> scores = q * c.attention.act;  // [1 x T*B]
      const int B = batch.size();
      for (int t = 0; t < batch.steps; ++t)
        for (int b = 0; b < B; ++b)
          if (t < batch.lengths[b]) {
            const int id = batch.ids[static_cast<size_t>(t) * B + b];
            if (id >= 0 && id < V) {
              sum_[id] += scores(0, static_cast<Eigen::Index>(t) * B + b);
              ++count_[id];
            }
          }
    }
    return true;
  }
  // Non-contextual: every word alone.
  if (unit_ >= static_cast<size_t>(V)) return false;
  const int a = static_cast<int>(unit_);
  std::vector<std::vector<int>> seqs;
  for (int id = a; id < std::min(V, a + static_cast<int>(kTextUnits)); ++id) seqs.push_back({id});
  unit_ = static_cast<size_t>(std::min(V, a + static_cast<int>(kTextUnits)));
  text_forward_ids(model.config, model.params, TextBatch::from_sequences(seqs), c);
  for (int b = 0; b < static_cast<int>(seqs.size()); ++b) {
    const int id = a + b;
    GlobalViewItem it;
    it.text = model.vocab.word(id);
    it.score = q.row(0).dot(c.attention.act.col(b));
    it.predicted_class = argmax_col(c.logits, b);
    set_contextual(it, sum_[id], count_[id]);
    view_.items.push_back(it);
    U_.col(id - 2) = c.attention.act.col(b).cast<double>();
  }
  return unit_ < static_cast<size_t>(V);
}

bool GlobalViewJob::step_han() {
  const HanModel& model = *han_;
  const Mat<float>& q = word_ ? model.params.word_attention.v : model.params.sentence_attention.v;
  HanCache<float> c;
  if (pos_ < docs_.size()) {
    std::vector<HanDocument> docs(docs_.begin() + pos_, docs_.begin() + std::min(docs_.size(), pos_ + kHanBatch));
    pos_ = std::min(docs_.size(), pos_ + kHanBatch);
    han_forward(model.config, model.params, docs, c);
    if (word_) {
      for (const HanWordChunk<float>& ch : c.chunks) {
        const Mat<float> scores = q * ch.attention.act;
        const int B = static_cast<int>(ch.sentences.size());
        for (int t = 0; t < ch.steps; ++t)
          for (int b = 0; b < B; ++b)
            if (t < ch.lengths[b]) {
              const int id = ch.ids[static_cast<size_t>(t) * B + b];
              sum_[id] += scores(0, static_cast<Eigen::Index>(t) * B + b);
              ++count_[id];
            }
      }
    } else {
      const Mat<float> scores = q * c.sentence_attention.act;  // [1 x smax*D]
      for (int d = 0; d < c.D; ++d)
        for (int i = 0; i < c.doc_count[d]; ++i) {
          auto& e = sentences_[docs[d][i]];
          e.first += scores(0, static_cast<Eigen::Index>(i) * c.D + d);
          ++e.second;
        }
    }
    return true;
  }
  if (!contextual_done_) {  // the units: word: {id}; sentence: its ids
    contextual_done_ = true;
    if (word_)
      for (int id = 2; id < model.vocab.size(); ++id) units_.push_back({id});
    else
      for (const auto& kv : sentences_) units_.push_back(kv.first);
    U_.resize(q.cols(), static_cast<Eigen::Index>(units_.size()));
  }
  if (unit_ >= units_.size()) return false;
  const size_t a = unit_;
  std::vector<HanDocument> docs;
  for (size_t k = a; k < std::min(units_.size(), a + kHanUnits); ++k) docs.push_back({units_[k]});
  unit_ = std::min(units_.size(), a + kHanUnits);
  han_forward(model.config, model.params, docs, c);
  for (int d = 0; d < static_cast<int>(docs.size()); ++d) {
    const std::vector<int>& u = units_[a + d];
    GlobalViewItem it;
    Vec<float> rep;
    if (word_) {
      const HanWordChunk<float>& ch = c.chunks[c.sentence_chunk[d]];
      rep = ch.attention.act.col(c.sentence_col[d]);  // one-word sentence: step 0
      it.text = model.vocab.word(u[0]);
      set_contextual(it, sum_[u[0]], count_[u[0]]);
    } else {
      rep = c.sentence_attention.act.col(d);  // smax = 1: column d
      for (size_t t = 0; t < u.size(); ++t) it.text += (t ? " " : "") + model.vocab.word(u[t]);
      const auto& e = sentences_[u];
      set_contextual(it, e.first, e.second);
    }
    it.score = q.row(0).dot(rep);
    it.predicted_class = argmax_col(c.logits, d);
    U_.col(static_cast<Eigen::Index>(a + d)) = rep.cast<double>();
    view_.items.push_back(std::move(it));
  }
  return unit_ < units_.size();
}

GlobalView GlobalViewJob::result() { return std::move(view_); }

GlobalView global_view_text(const TextModel& model, const std::vector<std::vector<int>>& train) {
  GlobalViewJob job(model, train);
  while (job.step()) {
  }
  return job.result();
}

GlobalView global_view_han(const HanModel& model, const std::vector<HanDocument>& train, const std::string& level) {
  GlobalViewJob job(model, train, level);
  while (job.step()) {
  }
  return job.result();
}

std::string global_view_json(const GlobalView& v, int top_n, const std::vector<std::string>& class_names) {
  auto item_json = [](const GlobalViewItem& it) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    return json{{"text", it.text}, {"score", num(it.score)}, {"contextual_score", num(it.contextual_score)},
                {"count", it.count}, {"predicted_class", it.predicted_class}, {"x", num(it.x)}, {"y", num(it.y)}};
  };
  auto top_bottom = [&](const std::vector<const GlobalViewItem*>& items) {
    json top = json::array(), bottom = json::array();
    const size_t n = static_cast<size_t>(std::max(0, top_n));
    for (size_t i = 0; i < std::min(n, items.size()); ++i) top.push_back(item_json(*items[i]));
    for (size_t i = items.size() > n ? std::max(n, items.size() - n) : items.size(); i < items.size(); ++i)
      bottom.push_back(item_json(*items[i]));
    return std::make_pair(top, bottom);
  };
  json j;
  j["level"] = v.level;
  j["error"] = v.error;
  j["query"] = v.query;
  j["score_at_mean"] = v.score_at_mean;
  j["explained_variance"] = v.explained_variance;
  j["count_total"] = v.items.size();
  std::vector<const GlobalViewItem*> all;
  for (const auto& it : v.items) all.push_back(&it);
  auto [top, bottom] = top_bottom(all);
  json listed = top;
  for (const auto& b : bottom) listed.push_back(b);
  j[v.level == "sentence" ? "sentences" : "words"] = listed;
  j["top"] = top.size();
  j["bottom"] = bottom.size();
  json per = json::object();
  for (size_t c = 0; c < class_names.size(); ++c) {
    std::vector<const GlobalViewItem*> mine;
    for (const auto* it : all)
      if (it->predicted_class == static_cast<int>(c)) mine.push_back(it);
    auto [t, b] = top_bottom(mine);
    per[class_names[c]] = {{"count", mine.size()}, {"top", t}, {"bottom", b}};
  }
  j["per_class"] = per;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attnlab
