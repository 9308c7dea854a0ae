// Conv's 3 × 3, stride-1 forward by Winograd's minimal filtering F(2 × 2, 3 × 3) (Lavin & Gray 2016): each 2 × 2
// block of outputs ("tile") from its 4 × 4 input patch d as Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A, so the products over the
// input channels are 16 matrix products U_k [M, C] · V_k [C, tiles] — 16 multiply-adds per tile and channel pair
// against im2col's 36 (2.25× fewer). The same function as im2col's (an exact identity in real numbers); in floats
// it rounds otherwise, within a few ulps of the sums' magnitude (tested against the direct sum).
// The tiles of an image are cut into blocks of a size fixed by the shape (never by the thread count or the batch),
// so an output's value depends only on its image and the weights; blocks run in parts on the core's threads.
#pragma once
#include <atomic>
#include <cstdint>

#include "onnx/ops/window.h"

namespace attnlab::onnx {

// Whether the Winograd path computes this conv: 2-D, kernel 3 × 3, stride 1, dilation 1 (any pads: a patch's cells
// outside x are zeros), and outputs large enough that the 16 products beat im2col (Ho · Wo ≥ kWinogradMinPixels;
// measured in wasm: at 49, resnet10 lost).
constexpr int64_t kWinogradMinPixels = 100;
// set_conv_winograd(false) turns the path off (tests compare it with im2col's); returns the old setting.
bool winograd_applies(const Window2d& g);
inline std::atomic<bool> g_conv_winograd{true};
inline bool set_conv_winograd(bool on) { return g_conv_winograd.exchange(on); }

// y [N, M, Ho, Wo] (every element assigned) = Conv(x [N, C, H, W], w [M, Cg, 3, 3], bias [M] or null) with
// `groups` groups (C = groups · Cg, M = groups · Mg) and geometry g (winograd_applies).
template <class T>
void conv3x3_winograd(const T* x, const T* w, const T* bias, int64_t N, int64_t groups, int64_t Cg, int64_t Mg,
                      const Window2d& g, T* y);

}  // namespace attnlab::onnx
