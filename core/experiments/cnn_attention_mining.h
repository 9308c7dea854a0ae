// GAIN-style attention mining (Li et al. 2018, "Tell Me Where to Look"), the remedy of the localisation lab's
// confounder experiment (issue 5, experiment 3). For a batch x [3*S*S x B] with true labels y:
//   A_b   = min-max normalised class map of y_b (model/cnn_model.h cnn_cam), upsampled bilinearly to S x S;
//   T_b   = sigmoid(omega * (A_b - sigma))                      (GAIN's soft mask, omega = 10, sigma = 0.5)
//   x*_b  = x_b + T_b * (fill - x_b)   in every channel         (the attended region erased to grey)
//   L     = CE(f(x), y) + weight * (1/B) sum_b softmax(f(x*_b))[y_b]
// The mask T is treated as a CONSTANT (no gradient through A or the sigmoid): the attention-mining term
// reaches the weights only through the second forward pass on x*, i.e. it penalises whatever evidence for
// the class is left OUTSIDE the attended region. (GAIN proper back-propagates through its Grad-CAM map as
// well; this is the cheaper, detached variant, and the gradient it computes is checked by central
// differences in double with the mask held fixed: tests/core/test_cnn_experiments.cpp.)
// Both passes are in training mode (batch statistics); only the first updates BN running statistics.
#pragma once
#include <vector>

#include "model/cnn_model.h"

namespace attnlab {

struct AttentionMiningOptions {
  double weight = 0.0;  // 0 = off
  double sigma = 0.5, omega = 10.0;
  double fill = 0.5;
};

// The erased images x* and (masks nullable) the soft masks T [S*S x B], from the first pass's cache.
template <class T>
Mat<T> attention_mining_erase(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache, const Mat<T>& x,
                              const std::vector<int>& labels, const AttentionMiningOptions& o, Mat<T>* masks);

// Mean over the batch of softmax(logits)[label]; dlogits [C x B] its gradient (overwritten).
template <class T>
T true_class_probability_loss(const Mat<T>& logits, const std::vector<int>& labels, Mat<T>& dlogits);

struct AttentionMiningLosses {
  double classification = 0, mining = 0;
};

// One training step's gradients: forward x (cache receives this pass; running as in cnn_forward), the
// cross-entropy (mean over the batch), the erased batch from that pass, the second pass, and grads
// (accumulated) of L. With o.weight == 0 this is plain cross-entropy and no second pass is run.
template <class T>
AttentionMiningLosses attention_mining_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x,
                                                 const std::vector<int>& labels, const AttentionMiningOptions& o,
                                                 CnnCache<T>& cache, CnnParams<T>* running, CnnParams<T>* grads);

}  // namespace attnlab
