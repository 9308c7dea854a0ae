#include "nn/conv2d.h"

#include <algorithm>
#include <vector>

#include "parallel/parallel_for.h"

namespace attnlab {

FeatureShape conv2d_output_shape(const Conv2dSpec& s, const FeatureShape& in) {
  if (s.in_c <= 0 || s.out_c <= 0 || s.k <= 0 || s.stride <= 0 || s.pad < 0 || in.c != s.in_c || in.h <= 0 ||
      in.w <= 0)
    return {};
  const int hp = in.h + 2 * s.pad - s.k, wp = in.w + 2 * s.pad - s.k;
  if (hp < 0 || wp < 0) return {};
  return {s.out_c, hp / s.stride + 1, wp / s.stride + 1};
}

template <class T>
void im2col(const T* x, const FeatureShape& in, const Conv2dSpec& s, const FeatureShape& out, T* col) {
  const int hw_out = out.hw();
  for (int c = 0; c < in.c; ++c)
    for (int ki = 0; ki < s.k; ++ki)
      for (int kj = 0; kj < s.k; ++kj) {
        T* dst = col + static_cast<size_t>((c * s.k + ki) * s.k + kj) * hw_out;
        const T* plane = x + static_cast<size_t>(c) * in.hw();
        for (int oy = 0; oy < out.h; ++oy) {
          const int iy = oy * s.stride - s.pad + ki;
          T* row = dst + oy * out.w;
          if (iy < 0 || iy >= in.h) {
            for (int ox = 0; ox < out.w; ++ox) row[ox] = T(0);
            continue;
          }
          const T* src = plane + iy * in.w;
          for (int ox = 0; ox < out.w; ++ox) {
            const int ix = ox * s.stride - s.pad + kj;
            row[ox] = (ix >= 0 && ix < in.w) ? src[ix] : T(0);
          }
        }
      }
}

template <class T>
void col2im(const T* col, const FeatureShape& in, const Conv2dSpec& s, const FeatureShape& out, T* dx) {
  const int hw_out = out.hw();
  for (int c = 0; c < in.c; ++c)
    for (int ki = 0; ki < s.k; ++ki)
      for (int kj = 0; kj < s.k; ++kj) {
        const T* src = col + static_cast<size_t>((c * s.k + ki) * s.k + kj) * hw_out;
        T* plane = dx + static_cast<size_t>(c) * in.hw();
        for (int oy = 0; oy < out.h; ++oy) {
          const int iy = oy * s.stride - s.pad + ki;
          if (iy < 0 || iy >= in.h) continue;
          const T* row = src + oy * out.w;
          T* dst = plane + iy * in.w;
          for (int ox = 0; ox < out.w; ++ox) {
            const int ix = ox * s.stride - s.pad + kj;
            if (ix >= 0 && ix < in.w) dst[ix] += row[ox];
          }
        }
      }
}

// The batch's images in parts of kConvPartImages (the split follows the batch alone), each part on its own thread
// (parallel/parallel_for.h). An image's output and input gradient are computed alone, as in one loop; the weight
// and bias gradients of a part are summed over its images in order, then the parts' sums are added in part order,
// so every result is the same on any number of threads.
constexpr int kConvPartImages = 4;

template <class T>
void conv2d_forward(const Conv2dSpec& s, const Conv2dParams<T>& p, const FeatureShape& in, const Mat<T>& x,
                    Mat<T>& y) {
  const FeatureShape out = conv2d_output_shape(s, in);
  const int n = static_cast<int>(x.cols());
  const int ckk = s.in_c * s.k * s.k;
  y.resize(out.size(), n);
  const size_t parts = static_cast<size_t>((n + kConvPartImages - 1) / kConvPartImages);
  parallel_for(parts, [&](size_t part) {
    Mat<T> col(out.hw(), ckk);
    const int b1 = std::min(n, static_cast<int>(part + 1) * kConvPartImages);
    for (int b = static_cast<int>(part) * kConvPartImages; b < b1; ++b) {
      im2col(x.col(b).data(), in, s, out, col.data());
      Eigen::Map<Mat<T>> yt(y.col(b).data(), out.hw(), out.c);  // [Ho*Wo x Cout] = planar CHW
      yt.noalias() = col * p.w;
      if (p.b.size()) yt.rowwise() += p.b.col(0).transpose();
    }
  });
}

template <class T>
void conv2d_backward(const Conv2dSpec& s, const Conv2dParams<T>& p, const FeatureShape& in, const Mat<T>& x,
                     const Mat<T>& dy, Conv2dParams<T>* grads, Mat<T>* dx) {
  const FeatureShape out = conv2d_output_shape(s, in);
  const int n = static_cast<int>(x.cols());
  const int ckk = s.in_c * s.k * s.k;
  if (dx) dx->setZero(in.size(), n);
  const size_t parts = static_cast<size_t>((n + kConvPartImages - 1) / kConvPartImages);
  std::vector<Mat<T>> dw(grads ? parts : 0), db(grads && grads->b.size() ? parts : 0);
  parallel_for(parts, [&](size_t part) {
    Mat<T> col(out.hw(), ckk), dcol;
    if (grads) dw[part].setZero(grads->w.rows(), grads->w.cols());
    if (!db.empty()) db[part].setZero(grads->b.rows(), grads->b.cols());
    const int b1 = std::min(n, static_cast<int>(part + 1) * kConvPartImages);
    for (int b = static_cast<int>(part) * kConvPartImages; b < b1; ++b) {
      Eigen::Map<const Mat<T>> dyt(dy.col(b).data(), out.hw(), out.c);
      if (grads) {
        im2col(x.col(b).data(), in, s, out, col.data());
        dw[part].noalias() += col.transpose() * dyt;
        if (!db.empty()) db[part] += dyt.colwise().sum().transpose();
      }
      if (dx) {
        dcol.noalias() = dyt * p.w.transpose();  // [Ho*Wo x Cin*k*k]
        col2im(dcol.data(), in, s, out, dx->col(b).data());
      }
    }
  });
  for (size_t part = 0; part < dw.size(); ++part) grads->w += dw[part];
  for (size_t part = 0; part < db.size(); ++part) grads->b += db[part];
}

#define ATTNLAB_INSTANTIATE(T)                                                                                 \
  template void im2col<T>(const T*, const FeatureShape&, const Conv2dSpec&, const FeatureShape&, T*);          \
  template void col2im<T>(const T*, const FeatureShape&, const Conv2dSpec&, const FeatureShape&, T*);          \
  template void conv2d_forward<T>(const Conv2dSpec&, const Conv2dParams<T>&, const FeatureShape&, const Mat<T>&, \
                                  Mat<T>&);                                                                    \
  template void conv2d_backward<T>(const Conv2dSpec&, const Conv2dParams<T>&, const FeatureShape&,             \
                                   const Mat<T>&, const Mat<T>&, Conv2dParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
