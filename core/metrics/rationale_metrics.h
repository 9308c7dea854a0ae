// Agreement of an importance ranking with a human rationale (a 0/1 mask over the tokens), as ERASER scores
// plausibility (DeYoung et al. 2020, §4.1; their rationale_benchmark/metrics.py):
//  - token P/R/F1 of a predicted token set against the human set (ERASER's per-instance "instance_macro"
//    F1; 0 when precision or recall is 0);
//  - AUPRC of soft scores against the mask: the precision-recall curve with one point per distinct score
//    (tied scores enter together), starting at (recall 0, precision 1), integrated with the trapezoidal rule —
//    sklearn's auc(recall, precision) over precision_recall_curve, which ERASER calls. A perfect ranking gives
//    1; it is not average precision (the step-wise sum), and a ranking with all scores tied gives
//    (1 + prevalence) / 2.
//  - IOU span match: spans are the maximal runs of 1s of each mask; a predicted span is matched when its
//    intersection-over-union with some human span is >= threshold (ERASER: 0.5); precision = matched
//    predicted spans / predicted spans, recall = matched predicted spans / human spans (ERASER's counts), F1
//    as above. ERASER's "IOU F1" is the F1 of the precisions and recalls averaged over instances (macro).
// Pure functions; masks and scores of one instance have the same length.
#pragma once
#include <utility>
#include <vector>

namespace attnlab {

struct PrecisionRecall {
  double precision = 0, recall = 0, f1 = 0;
};

// ERASER's F1 of a precision and a recall: 0 when either is 0.
double f1_of(double precision, double recall);

// The k positions with the largest |score| (ties: earlier position first) as a 0/1 mask; k is clamped to
// [0, size].
std::vector<int> top_k_mask(const std::vector<double>& score, int k);

// Token-level precision / recall / F1 of `predicted` against `human` (0 when a set is empty).
PrecisionRecall token_prf(const std::vector<int>& predicted, const std::vector<int>& human);

// AUPRC of `score` (higher = ranked first; pass |importance| for unsigned ranking) against `human`; NaN when
// `human` has no 1s or the sizes differ.
double auprc(const std::vector<double>& score, const std::vector<int>& human);

// Maximal runs of non-zero entries, as [begin, end).
std::vector<std::pair<int, int>> mask_spans(const std::vector<int>& mask);

// Span-level match of `predicted` against `human` at an IOU threshold (see above).
PrecisionRecall iou_span_match(const std::vector<int>& predicted, const std::vector<int>& human,
                               double threshold = 0.5);

}  // namespace attnlab
