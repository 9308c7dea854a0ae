// Conv's 3 × 3 stride-1 forward by F(2 × 2, 3 × 3) (see conv_winograd.h). With B, G, A the transforms of Lavin &
// Gray (2016):
//   Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1],  G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1],  Aᵀ = [1 1 1 0; 0 1 −1 −1],
// tile (ty, tx) reads the patch of rows 2·ty − pt … + 3 and columns 2·tx − pl … + 3 (zeros outside x) and writes
// outputs (2·ty + u, 2·tx + v), u, v ∈ {0, 1}, where they lie inside [Ho, Wo].
// Layouts: U [groups][16][Mg][Cg] (k = 4·row + column of the 4 × 4 transform), V [16][Cg][tiles of the block],
// products Pk [16][Mg][tiles of the block].
#include "onnx/ops/conv_winograd.h"

#include <Eigen/Core>
#include <algorithm>
#include "onnx/ops/parts.h"
#include "onnx/ops/scratch.h"

namespace attnlab::onnx {
namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Tiles per block: a block's V (16 · Cg · tiles values) stays near 256 K values whatever Cg (the products' operands
// in the cache), between 16 and 256 tiles. A function of Cg alone: never of the thread count or the batch.
int64_t block_tiles(int64_t Cg) { return std::clamp<int64_t>(16384 / std::max<int64_t>(Cg, 1), 16, 256); }

// U [16][Mg][Cg] = G g Gᵀ for each kernel g = w [m, c] (3 × 3), for m in [m0, m1).
template <class T>
void transform_weights(const T* w, int64_t Mg, int64_t Cg, int64_t m0, int64_t m1, T* U) {
  const int64_t MC = Mg * Cg;
  for (int64_t mc = m0 * Cg; mc < m1 * Cg; ++mc) {
    const T* k = w + mc * 9;
    T t[4][3];  // G g
    for (int j = 0; j < 3; ++j) {
      const T a = k[j], b = k[3 + j], c = k[6 + j];
      t[0][j] = a;
      t[1][j] = (a + b + c) * T(0.5);
      t[2][j] = (a - b + c) * T(0.5);
      t[3][j] = c;
    }
    for (int i = 0; i < 4; ++i) {  // (G g) Gᵀ, row i
      const T a = t[i][0], b = t[i][1], c = t[i][2];
      T* u = U + (4 * i) * MC + mc;
      u[0] = a;
      u[MC] = (a + b + c) * T(0.5);
      u[2 * MC] = (a - b + c) * T(0.5);
      u[3 * MC] = c;
    }
  }
}

// Calls f(ty, q0, q1, tt) for each row ty of tiles that [t0, t1) meets: its tiles tx in [q0, q1), the first at
// position tt of the block.
template <class F>
void for_tile_rows(int64_t tw, int64_t t0, int64_t t1, F&& f) {
  for (int64_t ty = t0 / tw; ty * tw < t1; ++ty) {
    const int64_t q0 = std::max<int64_t>(t0 - ty * tw, 0), q1 = std::min<int64_t>(t1 - ty * tw, tw);
    f(ty, q0, q1, ty * tw + q0 - t0);
  }
}

// V [16][Cg][t1 − t0] = Bᵀ d B for the patches d of tiles [t0, t1) of x [Cg, H, W] (tw tiles a row), a row of
// tiles at a time: the patches' four input rows (zeros outside x) combined column-wise (Bᵀ ·), then each tile's
// four columns (· B) — loops over contiguous columns and tiles. `rows`: scratch of 8 · (2 · tw + 2) values.
template <class T>
void transform_inputs(const T* x, int64_t Cg, const Window2d& g, int64_t tw, int64_t t0, int64_t t1, T* V, T* rows) {
  const int64_t nb = t1 - t0, CN = Cg * nb;
  for (int64_t c = 0; c < Cg; ++c) {
    const T* xc = x + c * g.H * g.W;
    for_tile_rows(tw, t0, t1, [&](int64_t ty, int64_t q0, int64_t q1, int64_t tt) {
      const int64_t iy0 = ty * 2 - g.pt, ix0 = q0 * 2 - g.pl, width = 2 * (q1 - q0) + 2;
      T* d[4];  // the patch rows, columns ix0 … ix0 + width − 1
      T* e[4];  // Bᵀ d
      for (int r = 0; r < 4; ++r) {
        d[r] = rows + r * width;
        e[r] = rows + (4 + r) * width;
        const int64_t iy = iy0 + r;
        if (iy < 0 || iy >= g.H) {
          std::fill(d[r], d[r] + width, T(0));
          continue;
        }
        const int64_t lo = std::clamp<int64_t>(-ix0, 0, width), hi = std::clamp<int64_t>(g.W - ix0, lo, width);
        std::fill(d[r], d[r] + lo, T(0));
        std::copy(xc + iy * g.W + ix0 + lo, xc + iy * g.W + ix0 + hi, d[r] + lo);
        std::fill(d[r] + hi, d[r] + width, T(0));
      }
      for (int64_t j = 0; j < width; ++j) {
        e[0][j] = d[0][j] - d[2][j];
        e[1][j] = d[1][j] + d[2][j];
        e[2][j] = d[2][j] - d[1][j];
        e[3][j] = d[1][j] - d[3][j];
      }
      const int64_t n = q1 - q0;
      for (int r = 0; r < 4; ++r) {  // (Bᵀ d) B, row r, for the row's tiles
        const T* er = e[r];
        T* v0 = V + (4 * r + 0) * CN + c * nb + tt;
        T* v1 = V + (4 * r + 1) * CN + c * nb + tt;
        T* v2 = V + (4 * r + 2) * CN + c * nb + tt;
        T* v3 = V + (4 * r + 3) * CN + c * nb + tt;
        for (int64_t q = 0; q < n; ++q) {
          const T a = er[2 * q], b = er[2 * q + 1], cc = er[2 * q + 2], dd = er[2 * q + 3];
          v0[q] = a - cc;
          v1[q] = b + cc;
          v2[q] = cc - b;
          v3[q] = b - dd;
        }
      }
    });
  }
}

// y [Mg, Ho, Wo] at the outputs of tiles [t0, t1) = Aᵀ p A (+ bias) from the products P [16][Mg][t1 − t0], a row
// of tiles at a time. `rows`: scratch of 2 · (2 · tw) values.
template <class T>
void transform_outputs(const T* P, const T* bias, int64_t Mg, const Window2d& g, int64_t tw, int64_t t0, int64_t t1, T* y,
                       T* rows) {
  const int64_t nb = t1 - t0, MN = Mg * nb;
  for (int64_t m = 0; m < Mg; ++m) {
    const T bv = bias ? bias[m] : T(0);
    T* ym = y + m * g.Ho * g.Wo;
    for_tile_rows(tw, t0, t1, [&](int64_t ty, int64_t q0, int64_t q1, int64_t tt) {
      const T* p = P + m * nb + tt;
      const int64_t n = q1 - q0;
      T* o0 = rows;       // output row 2 · ty, columns 2 · q0 …
      T* o1 = rows + 2 * n;  // output row 2 · ty + 1
      for (int64_t q = 0; q < n; ++q) {
        T a[4], b[4];  // the two rows of Aᵀ p
        for (int s = 0; s < 4; ++s) {
          a[s] = p[s * MN + q] + p[(4 + s) * MN + q] + p[(8 + s) * MN + q];
          b[s] = p[(4 + s) * MN + q] - p[(8 + s) * MN + q] - p[(12 + s) * MN + q];
        }
        o0[2 * q] = a[0] + a[1] + a[2] + bv;
        o0[2 * q + 1] = a[1] - a[2] - a[3] + bv;
        o1[2 * q] = b[0] + b[1] + b[2] + bv;
        o1[2 * q + 1] = b[1] - b[2] - b[3] + bv;
      }
      const int64_t oy = ty * 2, ox = q0 * 2, len = std::min(2 * n, g.Wo - ox);
      std::copy(o0, o0 + len, ym + oy * g.Wo + ox);
      if (oy + 1 < g.Ho) std::copy(o1, o1 + len, ym + (oy + 1) * g.Wo + ox);
    });
  }
}

}  // namespace

bool winograd_applies(const Window2d& g) {
  return g_conv_winograd.load(std::memory_order_relaxed) && g.spatial == 2 && g.kh == 3 && g.kw == 3 && g.sh == 1 &&
         g.sw == 1 && g.dh == 1 && g.dw == 1 && g.Ho * g.Wo >= kWinogradMinPixels;
}

template <class T>
void conv3x3_winograd(const T* x, const T* w, const T* bias, int64_t N, int64_t groups, int64_t Cg, int64_t Mg,
                      const Window2d& g, T* y) {
  const int64_t th = (g.Ho + 1) / 2, tw = (g.Wo + 1) / 2, tiles = th * tw;
  const int64_t nbt = std::min(tiles, block_tiles(Cg)), blocks = (tiles + nbt - 1) / nbt;
  const int64_t ustride = 16 * Mg * Cg, HW = g.H * g.W, P = g.Ho * g.Wo;
  const Scratch<T> U(groups * ustride);
  for_parts(groups * Mg, Cg * 9 * 4, [&](int64_t r0, int64_t r1) {  // r = group · Mg + m
    for (int64_t r = r0; r < r1;) {
      const int64_t grp = r / Mg, m1 = std::min(Mg, r1 - grp * Mg);
      transform_weights(w + grp * Mg * Cg * 9, Mg, Cg, r - grp * Mg, m1, U.data() + grp * ustride);
      r = grp * Mg + m1;
    }
  });
  for_parts(N * groups * blocks, 16 * Mg * Cg * nbt, [&](int64_t i0, int64_t i1) {
    const Scratch<T> V(16 * Cg * nbt), Pk(16 * Mg * nbt), rows(8 * (2 * tw + 2));
    for (int64_t item = i0; item < i1; ++item) {  // item = (image · groups + group) · blocks + block
      const int64_t blk = item % blocks, bg = item / blocks, grp = bg % groups;
      const int64_t t0 = blk * nbt, t1 = std::min(tiles, t0 + nbt), nb = t1 - t0;
      transform_inputs(x + bg * Cg * HW, Cg, g, tw, t0, t1, V.data(), rows.data());
      const T* Ug = U.data() + grp * ustride;
      for (int k = 0; k < 16; ++k)
        Eigen::Map<RowMat<T>>(Pk.data() + k * Mg * nb, Mg, nb).noalias() =
            Eigen::Map<const RowMat<T>>(Ug + k * Mg * Cg, Mg, Cg) * Eigen::Map<const RowMat<T>>(V.data() + k * Cg * nb, Cg, nb);
      transform_outputs(Pk.data(), bias ? bias + grp * Mg : nullptr, Mg, g, tw, t0, t1, y + bg * Mg * P, rows.data());
    }
  });
}

template void conv3x3_winograd<float>(const float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                      const Window2d&, float*);
template void conv3x3_winograd<double>(const double*, const double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                       const Window2d&, double*);

}  // namespace attnlab::onnx
