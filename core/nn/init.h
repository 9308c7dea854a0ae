// init.h — weight initialisation shared by the models: fill_uniform(m, bound, rng) sets every entry of m to
// U(-bound, bound) in storage order (column-major: column by column), one rng draw per entry, so a model's
// initial weights depend only on its seed and the order in which its tensors are filled.
#pragma once

#include "nn/rng.h"
#include "nn/tensor.h"

namespace attnlab {

template <class T>
void fill_uniform(Mat<T>& m, double bound, Rng& rng) {
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(rng.uniform(-bound, bound));
}

}  // namespace attnlab
