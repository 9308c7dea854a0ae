// The debate's fourth round in the core: the Orthogonal LSTM (Mohankumar et al. 2020), conicity and the diversity
// penalty, and Pruthi et al.'s deception penalty — gradients against central finite differences (double), the
// orthogonality the cell promises, conicity's closed forms, and the two penalties doing what the papers say on
// a task small enough to train here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "counting_task.h"
#include "gradcheck.h"
#include "model/text_checkpoint.h"
#include "nn/bilstm.h"
#include "nn/conicity.h"
#include "nn/embedding.h"
#include "nn/loss.h"
#include "train/explanation_penalties.h"
#include "train/text_options.h"
#include "train/text_trainer.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;
using test::zero_padding;

constexpr int kE = 3, kH = 4, kSteps = 5;
const std::vector<int> kLens = {5, 2, 4};
constexpr int kB = 3;


LstmParams<double> random_lstm(Rng& rng) {
  LstmParams<double> p;
  p.w_ih = random_mat(4 * kH, kE, rng, 0.8);
  p.w_hh = random_mat(4 * kH, kH, rng, 0.8);
  p.bias = random_mat(4 * kH, 1, rng, 0.8);
  return p;
}

TEST(GradCheck, OrthogonalLstm) {
  Rng rng(11);
  LstmParams<double> p = random_lstm(rng);
  Mat<double> x = random_mat(kE, kSteps * kB, rng);
  const Mat<double> r = random_mat(kH, kSteps * kB, rng);
  auto loss = [&] {
    LstmCache<double> c;
    lstm_forward(p, x, kB, kSteps, c, true);
    return (c.out.array() * r.array()).sum();
  };
  LstmCache<double> c;
  lstm_forward(p, x, kB, kSteps, c, true);
  LstmParams<double> g;
  g.resize(kE, kH);
  Mat<double> dx;
  lstm_backward(p, x, c, r, &g, &dx);
  expect_gradient("w_ih", p.w_ih, g.w_ih, loss);
  expect_gradient("w_hh", p.w_hh, g.w_hh, loss);
  expect_gradient("bias", p.bias, g.bias, loss);
  expect_gradient("x", x, dx, loss);
}

TEST(GradCheck, OrthogonalBiLstmWithPadding) {
  Rng rng(12);
  BiLstmParams<double> p{random_lstm(rng), random_lstm(rng)};
  Mat<double> x = random_mat(kE, kSteps * kB, rng);
  const Mat<double> r = zero_padding(random_mat(2 * kH, kSteps * kB, rng), kLens);
  auto loss = [&] {
    BiLstmCache<double> c;
    bilstm_forward(p, x, kLens, kSteps, c, true);
    return (c.out.array() * r.array()).sum();
  };
  BiLstmCache<double> c;
  bilstm_forward(p, x, kLens, kSteps, c, true);
  BiLstmParams<double> g;
  g.fwd.resize(kE, kH);
  g.bwd.resize(kE, kH);
  Mat<double> dx;
  bilstm_backward(p, x, c, r, &g, &dx);
  expect_gradient("fwd.w_hh", p.fwd.w_hh, g.fwd.w_hh, loss);
  expect_gradient("bwd.w_ih", p.bwd.w_ih, g.bwd.w_ih, loss);
  expect_gradient("x", x, dx, loss);
  EXPECT_EQ(zero_padding(dx, kLens), dx);  // padding never reaches a real step
}

// |cos| of each output with the mean of the earlier outputs of its sequence (real steps only).
std::vector<double> cos_with_running_mean(const Mat<double>& out, const std::vector<int>& lengths) {
  const int B = static_cast<int>(lengths.size());
  std::vector<double> cos;
  for (int b = 0; b < B; ++b) {
    Vec<double> sum = Vec<double>::Zero(out.rows());
    for (int t = 0; t < lengths[b]; ++t) {
      const Vec<double> h = out.col(static_cast<Eigen::Index>(t) * B + b);
      if (t > 0) cos.push_back(std::abs(h.dot(sum)) / (h.norm() * sum.norm()));
      sum += h;
    }
  }
  return cos;
}

TEST(OrthogonalLstm, EachStateIsOrthogonalToTheMeanOfTheEarlierOnes) {
  Rng rng(13);
  BiLstmParams<double> p{random_lstm(rng), random_lstm(rng)};
  const Mat<double> x = random_mat(kE, kSteps * kB, rng);
  BiLstmCache<double> ortho, plain;
  bilstm_forward(p, x, kLens, kSteps, ortho, true);
  bilstm_forward(p, x, kLens, kSteps, plain, false);
  for (const LstmCache<double>* c : {&ortho.fwd, &ortho.bwd}) {  // each direction, in its own reading order
    for (int b = 0; b < kB; ++b) {
      Vec<double> sum = Vec<double>::Zero(kH);
      for (int t = 0; t < kLens[b]; ++t) {
        const Eigen::Index col = static_cast<Eigen::Index>(t) * kB + b;
        const Vec<double> m = sum / double(t + 1);  // the reference's m_t, from the outputs themselves
        EXPECT_LT((c->mean.col(col) - m).cwiseAbs().maxCoeff(), 1e-15);
        // h . m is what the eps leaves of the raw state's component: (u . m) eps / (m . m + eps).
        const double left = c->raw.col(col).dot(m) * 1e-6 / (m.squaredNorm() + 1e-6);
        EXPECT_NEAR(c->out.col(col).dot(m), left, 1e-12);
        sum += c->out.col(col);
      }
    }
    for (double v : cos_with_running_mean(c->out, kLens)) EXPECT_LT(v, 1e-2);
  }
  // Negative control: the plain LSTM's states are not orthogonal to their running mean.
  double plain_max = 0;
  for (double v : cos_with_running_mean(plain.fwd.out, kLens)) plain_max = std::max(plain_max, v);
  EXPECT_GT(plain_max, 0.3);
  // The first step has no earlier state: both cells give the same h_1.
  EXPECT_LT((ortho.fwd.out.leftCols(kB) - plain.fwd.out.leftCols(kB)).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(Conicity, ClosedForms) {
  // Parallel states: conicity 1. An orthonormal basis e1, e2, e3: each has cosine 1/sqrt(3) with the mean.
  Mat<double> parallel(2, 3);
  parallel << 1, 2, 0.5, 2, 4, 1;
  EXPECT_NEAR(conicity_forward(parallel, {3})[0], 1.0, 1e-12);
  const Mat<double> basis = Mat<double>::Identity(3, 3);
  EXPECT_NEAR(conicity_forward(basis, {3})[0], 1 / std::sqrt(3.0), 1e-12);
  // Padding (B = 2, lengths 2 and 1) is not read: sequence 1 is one state, conicity 1.
  Mat<double> padded(2, 4);
  padded << 1, 5, 0, 9, 0, -3, 1, 9;
  const std::vector<double> c = conicity_forward(padded, {2, 1});
  EXPECT_NEAR(c[0], 1 / std::sqrt(2.0), 1e-12);  // e1 and e2
  EXPECT_NEAR(c[1], 1.0, 1e-12);
}

TEST(GradCheck, Conicity) {
  Rng rng(14);
  Mat<double> h = random_mat(2 * kH, kSteps * kB, rng);
  const std::vector<double> scale = {0.7, -1.3, 2.0};
  auto loss = [&] {
    const std::vector<double> c = conicity_forward(h, kLens);
    return scale[0] * c[0] + scale[1] * c[1] + scale[2] * c[2];
  };
  Mat<double> d = Mat<double>::Zero(h.rows(), h.cols());
  conicity_backward(h, kLens, scale, d);
  expect_gradient("h", h, d, loss);
  EXPECT_EQ(zero_padding(d, kLens), d);
}

// The training loss with both penalties, in double: class loss + diversity * conicity + deception * -log(1 - m).
TEST(GradCheck, ClassLossPlusDiversityAndDeceptionPenalties) {
  TextConfig cfg;
  cfg.vocab_size = 8;
  cfg.embedding_dim = kE;
  cfg.hidden_dim = kH;
  cfg.orthogonal = true;
  Rng rng(15);
  TextParams<double> p;
  p.init(cfg, rng);
  for (Mat<double>* m : p.list()) *m *= 1.5;
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4, 5}, {6, 7}, {3, 2, 7}});
  const std::vector<int> labels = {1, 0, 1};
  ExplanationPenalties pen;
  pen.diversity = 0.5;
  pen.deception = 1.0;
  pen.impermissible = {0, 0, 1, 0, 0, 0, 0, 1};  // tokens 2 and 7
  auto loss = [&] {
    TextCache<double> c;
    text_forward_ids(cfg, p, batch, c);
    Mat<double> d, da, ds;
    return weighted_bce_with_logits<double>(c.logits, labels, 1.0, d) + explanation_penalties(pen, batch, c, &da, &ds);
  };
  TextCache<double> c;
  text_forward_ids(cfg, p, batch, c);
  Mat<double> d_logits, d_alpha, d_states, dx;
  weighted_bce_with_logits<double>(c.logits, labels, 1.0, d_logits);
  explanation_penalties(pen, batch, c, &d_alpha, &d_states);
  TextParams<double> g;
  g.resize(cfg);
  text_backward<double>(cfg, p, c, d_logits, {}, &g, &dx, nullptr, &d_alpha, &d_states);
  embedding_backward(batch.ids, dx, g.embedding);
  auto pn = p.named();
  auto gn = g.named();
  for (size_t i = 0; i < pn.size(); ++i) expect_gradient(pn[i].first, *pn[i].second, *gn[i].second, loss);
}

TEST(ExplanationPenalties, WordListFlagsVocabularyIdsAndTheChecksSayWhy) {
  const Vocab vocab({"<pad>", "<unk>", "good", "bad", "film"});
  int found = 0;
  const std::vector<char> flags = impermissible_flags(vocab, "Good\nbad  awful good <unk>", &found);
  EXPECT_EQ(flags, (std::vector<char>{0, 0, 1, 1, 0}));
  EXPECT_EQ(found, 2);
  TextConfig cfg;
  ExplanationPenalties pen;
  pen.deception = 1;
  EXPECT_NE(check_explanation_penalties(cfg, pen).find("impermissible"), std::string::npos);  // none flagged
  pen.impermissible = flags;
  EXPECT_EQ(check_explanation_penalties(cfg, pen), "");
  cfg.encoder = EncoderKind::Transformer;
  EXPECT_NE(check_explanation_penalties(cfg, pen).find("transformer"), std::string::npos);
  cfg.encoder = EncoderKind::BiLstm;
  cfg.attention = AttentionKind::Uniform;
  EXPECT_NE(check_explanation_penalties(cfg, pen).find("uniform"), std::string::npos);
}

TEST(OrthogonalLstm, CheckpointKeepsTheCell) {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "a"});
  m.config.vocab_size = 3;
  m.config.embedding_dim = 2;
  m.config.hidden_dim = 2;
  m.config.orthogonal = true;
  m.class_names = {"negative", "positive"};
  Rng rng(1);
  m.params.init(m.config, rng);
  const std::string config = text_model_config_json(m);
  EXPECT_NE(config.find("\"ortho_bilstm\""), std::string::npos);
  const std::vector<uint8_t> w = text_model_weights(m, StorageType::F32);
  TextModel back;
  std::string error;
  ASSERT_TRUE(load_text_model(config, w.data(), w.size(), &back, &error)) << error;
  EXPECT_TRUE(back.config.orthogonal);
  EXPECT_EQ(back.config.encoder, EncoderKind::BiLstm);
}

TEST(ExplanationPenalties, PageTrainingOptionsSetTheCellAndThePenalties) {
  const std::string tsv = "1\tgood film\n0\tbad film\n1\tgood fun\n";
  TextTrainingSetup ok;
  ASSERT_EQ(text_training_setup(tsv, tsv,
                                {{"encoder", "ortho_bilstm"}, {"diversity", 0.5}, {"deception", 1.0},
                                 {"impermissible", "good bad awful"}},
                                &ok),
            "");
  EXPECT_TRUE(ok.model.config.orthogonal);
  EXPECT_EQ(ok.train.penalties.diversity, 0.5);
  EXPECT_EQ(ok.train.penalties.deception, 1.0);
  EXPECT_EQ(std::count(ok.train.penalties.impermissible.begin(), ok.train.penalties.impermissible.end(), 1), 2);
  const auto error = [&](const nlohmann::json& o) {
    TextTrainingSetup s;
    return text_training_setup(tsv, tsv, o, &s);
  };
  EXPECT_NE(error({{"impermissible", "good"}}).find("deception weight"), std::string::npos);
  EXPECT_NE(error({{"deception", 1.0}}).find("needs impermissible words"), std::string::npos);
  EXPECT_NE(error({{"deception", 1.0}, {"impermissible", "awful"}}).find("none of"), std::string::npos);
  EXPECT_NE(error({{"encoder", "transformer"}, {"diversity", 0.5}}).find("transformer"), std::string::npos);
  EXPECT_NE(error({{"diversity", -1.0}}), "");
}


struct Trained {
  double accuracy = 0, impermissible_mass = 0, conicity = 0;
};

Trained train_counting(bool orthogonal, const ExplanationPenalties& pen) {
  TextConfig cfg;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 8;
  cfg.hidden_dim = 8;
  cfg.orthogonal = orthogonal;
  const auto train = test::counting_task(1500, 5), dev = test::counting_task(300, 6);
  TextParams<float> p;
  Rng rng(1);
  p.init(cfg, rng);
  TrainOptions o;
  o.epochs = 6;
  o.penalties = pen;
  const TrainResult r = train_text_model(cfg, p, train, dev, o);
  Trained out;
  out.accuracy = r.best_dev.accuracy;
  ExplanationPenalties flags;
  flags.impermissible = {0, 0, 1, 1};  // good, bad
  for (const auto& ex : dev) {
    const TextBatch batch = TextBatch::from_sequences({ex.ids});
    TextCache<float> c;
    text_forward_ids(cfg, p, batch, c);
    out.impermissible_mass += impermissible_mass(flags, batch, c.attention.alpha, 0) / dev.size();
    out.conicity += conicity_forward(c.encoder.out, c.lengths)[0] / dev.size();
  }
  return out;
}

TEST(ExplanationPenalties, DeceptionHidesTheDecisiveTokensFromAttentionWhileTheModelStillSolvesTheTask) {
  const Trained plain = train_counting(false, {});
  ExplanationPenalties deceive;
  deceive.deception = 1.0;
  deceive.impermissible = {0, 0, 1, 1};
  const Trained deceptive = train_counting(false, deceive);
  // The plain model attends to "good" and "bad", the only tokens that decide the label (a negative control: if it
  // did not, hiding them would show nothing).
  EXPECT_GT(plain.impermissible_mass, 0.5);
  EXPECT_LT(deceptive.impermissible_mass, 0.05);
  EXPECT_GE(plain.accuracy, 0.9);
  EXPECT_GE(deceptive.accuracy, 0.9);  // it still reads them, through the LSTM states of the other tokens
}

TEST(ExplanationPenalties, DiversityAndTheOrthogonalCellLowerConicity) {
  const Trained plain = train_counting(false, {});
  ExplanationPenalties diverse;
  diverse.diversity = 0.5;
  const Trained diversity = train_counting(false, diverse);
  const Trained ortho = train_counting(true, {});
  EXPECT_LT(diversity.conicity, plain.conicity - 0.1) << plain.conicity;
  EXPECT_LT(ortho.conicity, plain.conicity - 0.1) << plain.conicity;
  EXPECT_GE(diversity.accuracy, 0.85);
  EXPECT_GE(ortho.accuracy, 0.85);
}


// Impermissible by position (Pruthi et al.'s block files mark the appended sentence of each example): marks at the
// positions where the flagged words stand give the word list's loss and gradient exactly; the same word marked in
// one example and not in another is penalised only where marked; a shifted mark gives another loss (negative control).
TEST(ExplanationPenalties, PositionsMarkTokensAsTheWordListDoesAndOnlyWhereMarked) {
  TextConfig cfg;
  cfg.vocab_size = 8;
  cfg.embedding_dim = kE;
  cfg.hidden_dim = kH;
  Rng rng(21);
  TextParams<double> p;
  p.init(cfg, rng);
  const std::vector<std::vector<int>> seqs = {{2, 3, 4, 5}, {6, 7}, {3, 2, 7}};
  const TextBatch words = TextBatch::from_sequences(seqs);
  TextCache<double> c;
  text_forward_ids(cfg, p, words, c);
  auto penalty = [&](const ExplanationPenalties& pen, const TextBatch& batch, Mat<double>* d_alpha) {
    Mat<double> ds;
    return explanation_penalties(pen, batch, c, d_alpha, &ds);
  };
  ExplanationPenalties by_word;
  by_word.deception = 1.0;
  by_word.impermissible = {0, 0, 1, 0, 0, 0, 0, 1};  // tokens 2 and 7
  ExplanationPenalties by_position;
  by_position.deception = 1.0;
  by_position.by_position = true;
  auto marked_batch = [&](const std::vector<std::vector<int>>& positions) {
    TextBatch b = words;
    b.marked.assign(b.ids.size(), 0);
    for (size_t s = 0; s < seqs.size(); ++s) {
      const std::vector<char> f = marked_flags(positions[s], seqs[s].size(), nullptr);
      for (size_t t = 0; t < f.size(); ++t) b.marked[t * seqs.size() + s] = f[t];
    }
    return b;
  };
  Mat<double> da_word, da_pos;
  const double l_word = penalty(by_word, words, &da_word);
  const double l_pos = penalty(by_position, marked_batch({{0}, {1}, {1, 2}}), &da_pos);  // where 2 and 7 stand
  EXPECT_EQ(l_word, l_pos);
  EXPECT_EQ(da_word, da_pos);
  // the word 3 marked in the first example only: its attention there is penalised, not in the third
  Mat<double> da_one;
  penalty(by_position, marked_batch({{1}, {}, {}}), &da_one);
  EXPECT_GT(da_one(1, 0), 0);
  EXPECT_EQ(da_one(0, 2), 0);
  EXPECT_EQ(da_one.cwiseAbs().sum(), da_one(1, 0));
  // negative control: marks one position off give another loss
  Mat<double> da_off;
  EXPECT_NE(penalty(by_position, marked_batch({{1}, {0}, {0, 1}}), &da_off), l_word);
  // marks past an example's length are dropped; a check says why a penalty has nothing to hide
  int kept = 0;
  EXPECT_EQ(marked_flags({0, 3, 9, 3}, 4, &kept), (std::vector<char>{1, 0, 0, 1}));
  EXPECT_EQ(kept, 2);
  ExplanationPenalties none;
  none.deception = 1.0;
  EXPECT_NE(check_explanation_penalties(cfg, none), "");
  none.by_position = true;
  EXPECT_EQ(check_explanation_penalties(cfg, none), "");
}

TEST(ExplanationPenalties, PositionListsParseOneLinePerExampleAndSayWhatIsWrong) {
  std::vector<std::vector<int>> out;
  std::string error;
  ASSERT_TRUE(parse_position_lists("0 2\n\n 5\t7 \r\n", 3, &out, &error)) << error;
  EXPECT_EQ(out, (std::vector<std::vector<int>>{{0, 2}, {}, {5, 7}}));
  ASSERT_TRUE(parse_position_lists("1\n2", 2, &out, &error)) << error;  // no final newline
  EXPECT_FALSE(parse_position_lists("1\n2\n", 3, &out, &error));
  EXPECT_NE(error.find("2 lines of positions for 3 examples of the data"), std::string::npos) << error;
  EXPECT_FALSE(parse_position_lists("1\n2\n3\n", 2, &out, &error));
  EXPECT_NE(error.find("line 3: more lines"), std::string::npos) << error;
  for (const char* bad : {"-1", "x", "1.5", "99999999999999999999", "20000"}) {
    EXPECT_FALSE(parse_position_lists(std::string("0\n3 ") + bad + "\n", 2, &out, &error)) << bad;
    EXPECT_NE(error.find("line 2: '"), std::string::npos) << error;
    EXPECT_NE(error.find("is not a token position"), std::string::npos) << error;
  }
  ASSERT_TRUE(parse_position_lists("19999\n", 1, &out, &error)) << error;
}

// Training with marks by position where the decisive words stand trains exactly as the word list does (the trainer's
// batches carry the marks), and hides them from attention.
TEST(ExplanationPenalties, TrainingWithPositionMarksEqualsTrainingWithTheWordList) {
  auto marked = [](std::vector<EncodedExample> data) {
    for (auto& ex : data) {
      std::vector<int> positions;
      for (size_t t = 0; t < ex.ids.size(); ++t)
        if (ex.ids[t] == 2 || ex.ids[t] == 3) positions.push_back(static_cast<int>(t));
      ex.marked = marked_flags(positions, ex.ids.size(), nullptr);
    }
    return data;
  };
  TextConfig cfg;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 8;
  cfg.hidden_dim = 8;
  const auto train = test::counting_task(600, 5), dev = test::counting_task(100, 6);
  auto run = [&](const std::vector<EncodedExample>& data, const ExplanationPenalties& pen) {
    TextParams<float> p;
    Rng rng(1);
    p.init(cfg, rng);
    TrainOptions o;
    o.epochs = 2;
    o.penalties = pen;
    train_text_model(cfg, p, data, dev, o);
    return p;
  };
  ExplanationPenalties by_word;
  by_word.deception = 1.0;
  by_word.impermissible = {0, 0, 1, 1};
  ExplanationPenalties by_position;
  by_position.deception = 1.0;
  by_position.by_position = true;
  const TextParams<float> a = run(train, by_word), b = run(marked(train), by_position), plain = run(train, {});
  auto an = a.named();
  auto bn = b.named();
  auto pn = plain.named();
  bool differs_from_plain = false;
  for (size_t i = 0; i < an.size(); ++i) {
    EXPECT_EQ(*an[i].second, *bn[i].second) << an[i].first;
    differs_from_plain = differs_from_plain || *an[i].second != *pn[i].second;
  }
  EXPECT_TRUE(differs_from_plain) << "negative control: the penalty changes the training";
}

}  // namespace
}  // namespace attnlab
