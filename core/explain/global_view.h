// The global view of an additive attention layer: every position is scored against ONE learned query,
// score = q . u with u = tanh(W h + b) (the flat tanh model: q = v, h = BiLSTM state; HAN: q = u_w over word
// states, q = u_s over sentence states). Which inputs lie closest to the query, independent of any input?
//   score            non-contextual: the unit alone through the encoder (a word as a one-token text / a
//                    one-word sentence; a sentence as a one-sentence document)
//   contextual_score the mean score over the unit's occurrences in the given training data (NaN when unseen)
//   count            those occurrences
//   predicted_class  the model's decision on the unit alone
// Items are ranked by score (descending; ties by text). The PCA of the scored representations u (of all
// items) gives 2-D coordinates; since the score is linear in u, score(x, y) = score_at_mean + x q1 + y q2 on
// the PCA plane, with (q1, q2) = the query projected on the two components (the query direction to draw;
// equal-score contours are the lines perpendicular to it).
// Levels: "word" (every vocabulary word except <pad>, <unk>) for tanh text models and HAN models with word
// attention; "sentence" (every distinct training sentence) for HAN models with sentence attention.
// No exceptions: an unsupported model / level gives `error`.
// GlobalViewJob is the same computation in steps (one batch each), for a caller that reports progress and can
// stop between steps (the page's worker); global_view_text / global_view_han run it to the end.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/han_checkpoint.h"
#include "model/text_checkpoint.h"

namespace attnlab {

struct GlobalViewItem {
  std::string text;
  double score = 0, contextual_score = 0;
  int count = 0;
  int predicted_class = 0;
  double x = 0, y = 0;  // PCA coordinates of u
};

struct GlobalView {
  std::string level;
  std::vector<GlobalViewItem> items;  // ranked by score
  std::vector<double> query;          // (q1, q2)
  double score_at_mean = 0;
  std::vector<double> explained_variance;  // of the two components (fraction of the total)
  std::string error;
};

// train: token ids of the training texts (as the model reads them, max_tokens cut applied by the caller).
GlobalView global_view_text(const TextModel& model, const std::vector<std::vector<int>>& train);
// train: the encoded training documents; level "word" or "sentence". For sentences, texts are the
// sentences' tokens joined by spaces (taken from the vocabulary ids: unknown words read "<unk>").
GlobalView global_view_han(const HanModel& model, const std::vector<HanDocument>& train, const std::string& level);

// The JSON of `attnlab global-view`: {level, query, score_at_mean, explained_variance, top, bottom (the top /
// bottom N by score, "words" or "sentences" key: the top N then the bottom N), per_class: {name: {top, bottom}}
// (class = predicted_class of the unit alone), count_total}. Each item {text, score, contextual_score, count,
// predicted_class, x, y}.
// The global view in steps: step() runs one batch (contextual batches first, then the units alone) and returns
// false once nothing is left (at once on error); result() then gives the view (call it once). The model must
// outlive the job; the job owns its copy of the training data. Same batches and order as global_view_text/_han.
class GlobalViewJob {
 public:
  GlobalViewJob(const TextModel& model, std::vector<std::vector<int>> train);
  GlobalViewJob(const HanModel& model, std::vector<HanDocument> train, const std::string& level);
  bool step();
  int steps_done() const { return done_; }
  int steps_total() const { return total_; }
  const std::string& error() const { return view_.error; }  // set at construction (unsupported model / level)
  GlobalView result();

 private:
  bool step_text();
  bool step_han();
  const TextModel* text_ = nullptr;
  const HanModel* han_ = nullptr;
  bool word_ = true;
  std::vector<std::vector<int>> train_;     // text: token ids, in length order
  std::vector<HanDocument> docs_;
  std::vector<double> sum_;
  std::vector<int> count_;
  std::map<std::vector<int>, std::pair<double, int>> sentences_;  // sentence ids -> (score sum, count)
  std::vector<std::vector<int>> units_;     // HAN: {id} or a sentence's ids
  Mat<double> U_;
  GlobalView view_;
  size_t pos_ = 0;      // next training text / document
  size_t unit_ = 0;     // next unit (text: vocabulary id; HAN: index in units_)
  int done_ = 0, total_ = 0;
  bool contextual_done_ = false, finished_ = false;
};

std::string global_view_json(const GlobalView& view, int top_n, const std::vector<std::string>& class_names);

}  // namespace attnlab
