// GRU layer (core/nn/gru): gradient checks in double (one direction and bidirectional, ragged batches with
// padding), masking (padding outputs exactly 0, padding inputs have no influence), and parity with PyTorch's
// torch.nn.GRU on a committed fixture (tests/fixtures/gru/make_fixture.py) with negative controls: the
// ONNX-default formulation (b_hn outside the reset product) and swapped r/z gates must not match.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gradcheck.h"
#include "nn/gru.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;

void random_gru(GruParams<double>& p, int E, int H, Rng& rng) {
  p.w_ih = random_mat(3 * H, E, rng);
  p.w_hh = random_mat(3 * H, H, rng);
  p.b_ih = random_mat(3 * H, 1, rng);
  p.b_hh = random_mat(3 * H, 1, rng);
}

Mat<double> pad_mask(const std::vector<int>& lengths, int steps, int rows) {
  const int B = static_cast<int>(lengths.size());
  Mat<double> m = Mat<double>::Zero(rows, static_cast<Eigen::Index>(B) * steps);
  for (int t = 0; t < steps; ++t)
    for (int b = 0; b < B; ++b)
      if (t < lengths[b]) m.col(static_cast<Eigen::Index>(t) * B + b).setOnes();
  return m;
}

TEST(Gru, GradientCheckOneDirection) {
  Rng rng(3);
  const int E = 3, H = 4, steps = 4;
  const std::vector<int> lengths = {4, 2, 3};
  const int B = 3;
  GruParams<double> p;
  random_gru(p, E, H, rng);
  Mat<double> x = random_mat(E, steps * B, rng);
  const Mat<double> G = random_mat(H, steps * B, rng).cwiseProduct(pad_mask(lengths, steps, H));
  auto loss = [&]() {
    GruCache<double> c;
    gru_forward(p, x, lengths, steps, c);
    return c.out.cwiseProduct(G).sum();
  };
  GruCache<double> c;
  gru_forward(p, x, lengths, steps, c);
  GruParams<double> g;
  g.resize(E, H);
  Mat<double> d_x;
  gru_backward(p, x, c, G, &g, &d_x);
  expect_gradient("w_ih", p.w_ih, g.w_ih, loss);
  expect_gradient("w_hh", p.w_hh, g.w_hh, loss);
  expect_gradient("b_ih", p.b_ih, g.b_ih, loss);
  expect_gradient("b_hh", p.b_hh, g.b_hh, loss);
  expect_gradient("x", x, d_x, loss);
}

TEST(Gru, GradientCheckBidirectionalRagged) {
  Rng rng(5);
  const int E = 3, H = 2, steps = 5;
  const std::vector<int> lengths = {5, 1, 3, 0};
  const int B = 4;
  BiGruParams<double> p;
  random_gru(p.fwd, E, H, rng);
  random_gru(p.bwd, E, H, rng);
  Mat<double> x = random_mat(E, steps * B, rng);
  // The upstream gradient is nonzero on padding too: the layer must ignore it.
  const Mat<double> G = random_mat(2 * H, steps * B, rng);
  const Mat<double> Gm = G.cwiseProduct(pad_mask(lengths, steps, 2 * H));
  auto loss = [&]() {
    BiGruCache<double> c;
    bigru_forward(p, x, lengths, steps, c);
    return c.out.cwiseProduct(Gm).sum();
  };
  BiGruCache<double> c;
  bigru_forward(p, x, lengths, steps, c);
  BiGruParams<double> g;
  g.fwd.resize(E, H);
  g.bwd.resize(E, H);
  Mat<double> d_x;
  bigru_backward(p, x, c, G, &g, &d_x);
  auto gl = g.list();
  auto pl = p.list();
  for (size_t i = 0; i < pl.size(); ++i) expect_gradient("param " + std::to_string(i), *pl[i], *gl[i], loss);
  expect_gradient("x", x, d_x, loss);
}

TEST(Gru, PaddingIsMaskedAndHasNoInfluence) {
  Rng rng(7);
  const int E = 3, H = 3, steps = 4;
  const std::vector<int> lengths = {2, 4};
  BiGruParams<double> p;
  random_gru(p.fwd, E, H, rng);
  random_gru(p.bwd, E, H, rng);
  Mat<double> x = random_mat(E, steps * 2, rng);
  BiGruCache<double> a, b;
  bigru_forward(p, x, lengths, steps, a);
  for (int t = 2; t < steps; ++t) {
    EXPECT_EQ(a.out.col(t * 2 + 0).cwiseAbs().maxCoeff(), 0.0) << "padding output at step " << t;
    x.col(t * 2 + 0).setConstant(100.0);  // garbage on padding
  }
  bigru_forward(p, x, lengths, steps, b);
  EXPECT_EQ((a.out - b.out).cwiseAbs().maxCoeff(), 0.0);
  // Sequence 0 alone (no batch partner, no padding) gives the same states.
  Mat<double> x0(E, 2);
  x0 << x.col(0), x.col(2);
  BiGruCache<double> s;
  bigru_forward(p, x0, {2}, 2, s);
  EXPECT_LT((s.out.col(0) - a.out.col(0)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((s.out.col(1) - a.out.col(2)).cwiseAbs().maxCoeff(), 1e-14);
}

// ---- PyTorch parity ----

nlohmann::json load_fixture() {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/gru/bigru_small.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

Mat<double> mat_rows(const nlohmann::json& j) {  // [[..],[..]] row-major -> Mat
  const Eigen::Index r = static_cast<Eigen::Index>(j.size());
  const Eigen::Index c = j[0].is_array() ? static_cast<Eigen::Index>(j[0].size()) : 1;
  Mat<double> m(r, c);
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index k = 0; k < c; ++k) m(i, k) = j[0].is_array() ? j[i][k].get<double>() : j[i].get<double>();
  return m;
}

struct TorchGruFixture {
  int E = 0, H = 0, T = 0;
  std::vector<int> lengths;
  Mat<double> x, G, out, d_x;  // [. x T*B] (columns k = t*B + b)
  BiGruParams<double> params, grads;
};

TorchGruFixture read_torch_gru_fixture() {
  const nlohmann::json j = load_fixture();
  TorchGruFixture f;
  if (j.is_discarded()) return f;
  f.E = j["E"];
  f.H = j["H"];
  f.T = j["T"];
  f.lengths = j["lengths"].get<std::vector<int>>();
  f.x = mat_rows(j["x"]).transpose();
  f.G = mat_rows(j["G"]).transpose();
  f.out = mat_rows(j["out"]).transpose();
  f.d_x = mat_rows(j["d_x"]).transpose();
  auto fill = [&](const nlohmann::json& src, BiGruParams<double>& p) {
    for (int d = 0; d < 2; ++d) {
      const std::string sfx = d ? "_l0_reverse" : "_l0";
      GruParams<double>& g = d ? p.bwd : p.fwd;
      g.w_ih = mat_rows(src["weight_ih" + sfx]);
      g.w_hh = mat_rows(src["weight_hh" + sfx]);
      g.b_ih = mat_rows(src["bias_ih" + sfx]);
      g.b_hh = mat_rows(src["bias_hh" + sfx]);
    }
  };
  fill(j["params"], f.params);
  fill(j["grads"], f.grads);
  return f;
}

double max_out_diff(const BiGruParams<double>& p, const TorchGruFixture& f) {
  BiGruCache<double> c;
  bigru_forward(p, f.x, f.lengths, f.T, c);
  return (c.out - f.out).cwiseAbs().maxCoeff();
}

TEST(Gru, MatchesPyTorchForwardAndBackward) {
  const TorchGruFixture f = read_torch_gru_fixture();
  ASSERT_GT(f.E, 0) << "tests/fixtures/gru/bigru_small.json missing or invalid";
  EXPECT_LT(max_out_diff(f.params, f), 1e-12);
  BiGruCache<double> c;
  bigru_forward(f.params, f.x, f.lengths, f.T, c);
  BiGruParams<double> g;
  g.fwd.resize(f.E, f.H);
  g.bwd.resize(f.E, f.H);
  Mat<double> d_x;
  bigru_backward(f.params, f.x, c, f.G, &g, &d_x);
  auto gl = g.list();
  auto want = const_cast<BiGruParams<double>&>(f.grads).list();
  for (size_t i = 0; i < gl.size(); ++i) EXPECT_LT((*gl[i] - *want[i]).cwiseAbs().maxCoeff(), 1e-12) << "param " << i;
  EXPECT_LT((d_x - f.d_x).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Gru, PyTorchParityNegativeControls) {
  const TorchGruFixture f = read_torch_gru_fixture();
  ASSERT_GT(f.E, 0);
  const int H = f.H;
  // (a) b_hn outside the reset product (ONNX linear_before_reset = 0 style): fold b_hn into b_in.
  BiGruParams<double> outside = f.params;
  for (GruParams<double>* g : {&outside.fwd, &outside.bwd}) {
    g->b_ih.bottomRows(H) += g->b_hh.bottomRows(H);
    g->b_hh.bottomRows(H).setZero();
  }
  EXPECT_GT(max_out_diff(outside, f), 1e-3);
  // (b) gate order z, r, n instead of r, z, n.
  BiGruParams<double> swapped = f.params;
  for (GruParams<double>* g : {&swapped.fwd, &swapped.bwd})
    for (Mat<double>* m : {&g->w_ih, &g->w_hh, &g->b_ih, &g->b_hh}) {
      Mat<double> top = m->topRows(H);
      m->topRows(H) = m->middleRows(H, H);
      m->middleRows(H, H) = top;
    }
  EXPECT_GT(max_out_diff(swapped, f), 1e-3);
}

TEST(Gru, FloatMatchesDouble) {
  const TorchGruFixture f = read_torch_gru_fixture();
  ASSERT_GT(f.E, 0);
  BiGruParams<float> pf;
  pf.fwd = {f.params.fwd.w_ih.cast<float>(), f.params.fwd.w_hh.cast<float>(), f.params.fwd.b_ih.cast<float>(),
            f.params.fwd.b_hh.cast<float>()};
  pf.bwd = {f.params.bwd.w_ih.cast<float>(), f.params.bwd.w_hh.cast<float>(), f.params.bwd.b_ih.cast<float>(),
            f.params.bwd.b_hh.cast<float>()};
  BiGruCache<float> c;
  bigru_forward(pf, Mat<float>(f.x.cast<float>()), f.lengths, f.T, c);
  EXPECT_LT((c.out.cast<double>() - f.out).cwiseAbs().maxCoeff(), 1e-5);
}

}  // namespace
}  // namespace attnlab
