// The one signature every token-importance method has: a model, one token-id sequence, the class to
// explain; returns one score per token. Methods live one per file in core/explain/.
#pragma once
#include <vector>

#include "model/text_model.h"
#include "parallel/parallel_for.h"

namespace attnlab {

struct ExplainInput {
  const TextConfig* cfg = nullptr;
  const TextParams<float>* params = nullptr;
  std::vector<int> ids;  // >= 1 token
  int target = 1;        // class whose probability is explained (binary: 1 = positive)
  int ig_steps = 50;     // integrated gradients: uniform trapezoid segments to start (adaptive, see its file)
};

// The batched methods (leave-one-out's T shortened inputs, integrated gradients' path points) run in chunks of
// at most this many tokens (at least one sequence a chunk), so their memory stays bounded by the chunk instead
// of growing with T² (leave-one-out) or steps × T (integrated gradients); the values do not depend on it.
constexpr long kExplainBatchTokens = 8192;

// Those chunks run side by side on the core's threads (parallel/parallel_for.h). How the items are split depends
// on the work alone, never on the thread count: kExplainParts parts (or one per item when fewer), more when a part
// would hold over kExplainBatchTokens tokens, sizes differing by at most one (split_begin); inside a parallel loop (an
// experiment's instances) only as many as that bound needs. So every row is computed in the same batch shape whatever
// the thread count, and the rows are identical.
constexpr size_t kExplainParts = 8;
size_t explain_parts(size_t items, size_t tokens_per_item);

// Leave-one-out, IG and the gradient importance read only the output and the input gradients, so in wasm they run
// the transformer's last layer on the [CLS] query alone (TransformerRun::logits_only) — the page's speed target.
// Natively they keep the full path: Eigen computes a one-column product in another order than a many-column one,
// so the mode moves the CLI's values at float rounding, enough to reorder leave-one-out values tied at a saturated
// probability and change rank statistics (the Debate's attention-flow summary on 12 sentences moved by 2.5e-4).
// The wasm kernel computes every column in the same order, and there the mode changed no printed digit (IG
// completeness on 100 sentences; that summary equal to the native full path's).
#if defined(__wasm__)
constexpr bool kExplainLogitsOnly = true;
#else
constexpr bool kExplainLogitsOnly = false;
#endif

using ImportanceMethod = std::vector<double> (*)(const ExplainInput&);

// Probability of class c for column b of logits, and d p_c / d logits (column vector).
float class_probability(const TextConfig& cfg, const Mat<float>& logits, Eigen::Index b, int c);
Mat<float> d_class_probability(const TextConfig& cfg, const Mat<float>& logits, int c);  // [C' x B]

// Attention weights alpha_t (sum to 1).
std::vector<double> attention_importance(const ExplainInput& in);
// Jain & Wallace gradient importance: |sum_e x_te * d p_target / d x_te| with alpha held constant,
// normalised to sum 1 (all zero stays zero).
std::vector<double> gradient_importance(const ExplainInput& in);
// Leave-one-out: |p_target(x) - p_target(x without token t)|. A one-token input compares with the empty
// input, whose context vector is zero (the decoder bias alone).
std::vector<double> leave_one_out_importance(const ExplainInput& in);
// Integrated gradients (Sundararajan et al. 2017) of p_target w.r.t. the token embeddings from the
// all-zero embedding baseline, summed over embedding dimensions; signed. Sum over tokens ~= p(x) - p(0).
std::vector<double> integrated_gradients_importance(const ExplainInput& in);

}  // namespace attnlab
