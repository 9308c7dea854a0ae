// GAIN_ext (Li et al. 2018, "Tell Me Where to Look", the extension with pixel-level supervision): on the few
// training images that carry an object mask H, the attention map of the true class is pulled towards H.
// For image b of a batch with true label y_b and a mask H_b [S*S] (1 on the object, else 0):
//   u_b  = U cam_{y_b}(b)                  the class map (model/cnn_model.h cnn_cam, [h*w]) upsampled bilinearly
//                                          to S x S; U [S*S x h*w] is image/map_ops upsample_bilinear as a matrix
//   A_b  = (u_b - min u_b) / (max u_b - min u_b)      min-max normalised (A = 0 for a constant map)
//   T_b  = sigmoid(omega * (A_b - sigma))             GAIN's soft mask (omega = 10, sigma = 0.5 by default)
//   L_e  = weight * (1 / |M|) sum_{b in M} (1 / S^2) sum_q (T_bq - H_bq)^2
// M = the images of the batch that carry a mask (L_e = 0 when none does). Unlike the detached attention-mining
// term (experiments/cnn_attention_mining.h), L_e is back-propagated through the whole map: the sigmoid, the
// normalisation (its min and max route their gradient to the first extreme pixel), the upsampling, the
// classifier row w_{y_b} and the last feature map (cnn_backward's dfeatures). Gradient-checked in double
// against central differences (tests/core/test_cnn_gain_ext.cpp).
// gain_gradients composes one GAIN training step: L = CE + am_weight * L_am (mask constant, as
// attention_mining_gradients) + L_e, with one backward pass for CE + L_e.
// Which training images carry masks: gain_ext_mask_carriers (seeded, exactly round(fraction * n) of them,
// at least one when fraction > 0).
#pragma once
#include <cstdint>
#include <vector>

#include "experiments/cnn_attention_mining.h"
#include "model/cnn_model.h"

namespace attnlab {

struct GainExtOptions {
  double weight = 0.0;  // 0 = off
  double sigma = 0.5, omega = 10.0;
};

// U [H*W x h*w] with U e_j = upsample_bilinear(e_j): u = U m is the upsampled map m.
template <class T>
Mat<T> bilinear_upsample_matrix(int h, int w, int H, int W);

// One image: L = (1/S^2) sum_q (T_q - H_q)^2 for the map cam [h*w] (T as above, U from bilinear_upsample_matrix,
// mask [U.rows()] with nonzero = object); dcam (nullable) [h*w] receives dL/dcam (overwritten).
template <class T>
T gain_ext_map_loss(const Mat<T>& U, const Vec<T>& cam, const uint8_t* mask, const GainExtOptions& o, Vec<T>* dcam);

// The batch term from a forward pass's cache: masks[b] empty = no mask, else [S*S]. Returns L_e (weight
// included); dfeatures [K*h*w x B] is overwritten (zero columns for images without a mask); grads->fc.w
// (nullable) accumulates the classifier's part.
template <class T>
T gain_ext_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const CnnCache<T>& cache,
                     const std::vector<int>& labels, const std::vector<std::vector<uint8_t>>& masks,
                     const GainExtOptions& o, const Mat<T>& U, Mat<T>* dfeatures, CnnParams<T>* grads);

struct GainLosses {
  double classification = 0, mining = 0, ext = 0;  // ext: L_e with its weight; mining without its weight
  int masked = 0;                                  // images of the batch that carried a mask
};

// Forward x (cache receives it; running as in cnn_forward), CE (mean over the batch) + L_e, one backward,
// then (am.weight > 0) the attention-mining pass on the erased batch of the first pass. grads accumulate.
template <class T>
GainLosses gain_gradients(const CnnConfig& cfg, const CnnParams<T>& p, const Mat<T>& x, const std::vector<int>& labels,
                          const std::vector<std::vector<uint8_t>>& masks, const AttentionMiningOptions& am,
                          const GainExtOptions& ext, const Mat<T>& U, CnnCache<T>& cache, CnnParams<T>* running,
                          CnnParams<T>* grads);

// n flags, exactly k = round(fraction * n) set (k >= 1 when fraction > 0), chosen by a seeded shuffle.
std::vector<uint8_t> gain_ext_mask_carriers(int n, double fraction, uint64_t seed);

}  // namespace attnlab
