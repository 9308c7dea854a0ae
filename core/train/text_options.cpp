#include "train/text_options.h"

#include "model/transformer_config.h"
#include "text/dataset.h"

namespace attnlab {
namespace {


TrainOptions train_options(const std::vector<ParamSpec>& specs, const nlohmann::json& o) {
  TrainOptions t;
  t.epochs = param_or_default(specs, o, "epochs").get<int>();
  t.batch_size = param_or_default(specs, o, "batch_size").get<int>();
  t.seed = param_or_default(specs, o, "seed").get<uint64_t>();
  t.adam.lr = param_or_default(specs, o, "lr").get<double>();
  return t;
}

}  // namespace

const std::vector<ParamSpec>& text_training_specs() {
  static const std::vector<ParamSpec> specs = {
      {"attention", "string", "tanh", 0, -1, {"uniform", "tanh", "dot"}, "attention of the classifier"},
      iparam("seed", 1, 0, 2147483647, "initial weights and batch order"),
      iparam("epochs", 8, 1, 1000, "training epochs (the best dev epoch is kept)"),
      iparam("embedding_dim", 128, 1, 1024, "embedding size E"),
      iparam("hidden_dim", 128, 1, 1024, "BiLSTM hidden size H per direction"),
      iparam("min_count", 1, 1, 1000000, "keep words seen at least this often"),
      iparam("batch_size", 32, 1, 4096, "batch size"),
      {"lr", "number", 1e-3, 1e-6, 1, {}, "Adam learning rate (AdamW peak rate for a transformer)"},
      {"encoder", "string", "bilstm", 0, -1, {"bilstm", "ortho_bilstm", "transformer"},
       "BiLSTM + attention, the Orthogonal LSTM of Mohankumar et al. 2020, or a transformer encoder"},
      {"diversity", "number", 0.0, 0, 100, {}, "Diversity LSTM: weight of the conicity penalty (the paper's 0.5; 0 = off)"},
      {"deception", "number", 0.0, 0, 100, {},
       "Pruthi et al. 2020: weight of -log(1 - attention on the impermissible words) (the paper's 0.1 or 1; 0 = off)"},
      {"impermissible", "string", "", 0, -1, {}, "the words attention must not show (deception), whitespace-separated"},
      iparam("layers", 2, 1, 12, "transformer blocks"),
      iparam("heads", 4, 1, 64, "transformer attention heads (must divide embedding_dim)"),
      iparam("ffn_dim", 256, 1, 4096, "transformer feed-forward width"),
      iparam("max_len", 64, 1, 512, "transformer: longest input in tokens (longer ones are cut)"),
      {"dropout", "number", 0.1, 0, 0.9, {}, "transformer: dropout rate in training"},
      {"weight_decay", "number", 0.01, 0, 1, {}, "transformer: AdamW decoupled weight decay"},
      {"warmup", "number", 0.1, 0, 1, {}, "transformer: AdamW warm-up fraction of all steps, then linear decay to 0"}};
  return specs;
}

const std::vector<ParamSpec>& adversary_training_specs() {
  static const std::vector<ParamSpec> specs = {
      {"lambda", "number", 1.0, 0, 1e6, {}, "weight of -KL(attention || base attention)"},
      iparam("seed", 1, 0, 2147483647, "initial weights and batch order"),
      iparam("epochs", 8, 1, 1000, "training epochs (the last finished epoch is kept)"),
      iparam("batch_size", 32, 1, 4096, "batch size"),
      {"lr", "number", 1e-3, 1e-6, 1, {}, "Adam learning rate"},
      {"base", "string", "", 0, -1, {}, "the base model's name (recorded in the config)"}};
  return specs;
}

std::vector<std::string> default_text_class_names() { return {"negative", "positive"}; }

std::string text_training_setup(const std::string& train_tsv, const std::string& dev_tsv, const nlohmann::json& o,
                                TextTrainingSetup* out) {
  if (!o.is_object()) return "training options must be a JSON object";
  const std::string bad = check_params(text_training_specs(), o);
  if (!bad.empty()) return bad;
  std::vector<TextExample> train, dev;
  std::string error;
  if (!parse_labeled_tsv(train_tsv, &train, &error)) return "training data: " + error;
  if (!parse_labeled_tsv(dev_tsv, &dev, &error)) return "dev data: " + error;
  if (train.empty() || dev.empty()) return "training and dev data must not be empty";
  for (const auto* set : {&train, &dev})
    for (const auto& ex : *set)
      if (ex.label < 0 || ex.label > 1) return "labels must be 0 or 1";
  const auto& specs = text_training_specs();
  TextModel& m = out->model;
  parse_attention(param_or_default(specs, o, "attention").get<std::string>(), &m.config.attention);
  m.config.embedding_dim = param_or_default(specs, o, "embedding_dim").get<int>();
  m.config.hidden_dim = param_or_default(specs, o, "hidden_dim").get<int>();
  m.config.num_classes = 2;
  const std::string encoder = param_or_default(specs, o, "encoder").get<std::string>();
  const bool transformer = encoder == "transformer";
  m.config.orthogonal = encoder == "ortho_bilstm";
  if (!transformer)
    for (const char* key : {"layers", "heads", "ffn_dim", "max_len", "dropout", "weight_decay", "warmup"})
      if (o.contains(key)) return std::string(key) + " is a transformer option (set encoder to transformer)";
  if (transformer) {
    if (o.contains("hidden_dim")) return "hidden_dim is a BiLSTM option (a transformer's width is embedding_dim)";
    const std::string bad_shape = make_transformer_config(
        param_or_default(specs, o, "layers").get<int>(), param_or_default(specs, o, "heads").get<int>(),
        param_or_default(specs, o, "ffn_dim").get<int>(), param_or_default(specs, o, "max_len").get<int>(), &m.config,
        &m.max_tokens);
    if (!bad_shape.empty()) return bad_shape;
  }
  std::vector<std::vector<std::string>> sentences;
  for (const auto& ex : train) sentences.push_back(ex.tokens);
  m.vocab = Vocab::build(sentences, param_or_default(specs, o, "min_count").get<int>());
  m.config.vocab_size = m.vocab.size();
  m.class_names = default_text_class_names();
  out->train = train_options(specs, o);
  if (transformer) {  // the CLI's train-text --optimizer adamw recipe (models/tools/train-transformer-models.sh)
    out->train.use_adamw = true;
    out->train.adamw_options.lr = out->train.adam.lr;
    out->train.adamw_options.weight_decay = param_or_default(specs, o, "weight_decay").get<double>();
    out->train.warmup_fraction = param_or_default(specs, o, "warmup").get<double>();
    out->train.dropout = param_or_default(specs, o, "dropout").get<double>();
  }
  out->train.penalties.diversity = param_or_default(specs, o, "diversity").get<double>();
  out->train.penalties.deception = param_or_default(specs, o, "deception").get<double>();
  const std::string words = param_or_default(specs, o, "impermissible").get<std::string>();
  if (!words.empty() && out->train.penalties.deception <= 0)
    return "impermissible words are used only with a deception weight above 0";
  if (out->train.penalties.deception > 0) {
    int found = 0;
    out->train.penalties.impermissible = impermissible_flags(m.vocab, words, &found);
    if (words.empty()) return "the deception penalty needs impermissible words";
    if (found == 0) return "none of the impermissible words is in the training vocabulary";
  }
  if (const std::string bad_penalty = check_explanation_penalties(m.config, out->train.penalties); !bad_penalty.empty())
    return bad_penalty;
  Rng rng(out->train.seed);
  m.params.init(m.config, rng);
  // As the CLI's train-text: a transformer's inputs are cut to max_len (max_tokens).
  auto cut = [&](std::vector<std::string> tokens) {
    if (m.max_tokens > 0 && static_cast<int>(tokens.size()) > m.max_tokens) tokens.resize(m.max_tokens);
    return m.vocab.ids(tokens);
  };
  for (const auto& ex : train) out->train_set.push_back({ex.label, cut(ex.tokens)});
  for (const auto& ex : dev) out->dev_set.push_back({ex.label, cut(ex.tokens)});
  return "";
}

std::string encode_tsv_for(const TextModel& model, const std::string& tsv, std::vector<EncodedExample>* out) {
  std::vector<TextExample> parsed;
  std::string error;
  if (!parse_labeled_tsv(tsv, &parsed, &error)) return error;
  for (auto& ex : parsed) {
    if (ex.label < 0 || ex.label >= model.config.num_classes)
      return "label " + std::to_string(ex.label) + " is not a class of the base model";
    if (model.max_tokens > 0 && static_cast<int>(ex.tokens.size()) > model.max_tokens) ex.tokens.resize(model.max_tokens);
    out->push_back({ex.label, model.vocab.ids(ex.tokens)});
  }
  return "";
}

std::string adversary_training_setup(const TextModel& base, const std::string& train_tsv, const std::string& dev_tsv,
                                     const nlohmann::json& o, AdversarySetup* out) {
  if (base.config.attention == AttentionKind::Uniform)
    return "a model-consistent adversary needs a base model with learned attention (not uniform)";
  if (!o.is_object()) return "training options must be a JSON object";
  const auto& specs = adversary_training_specs();
  const std::string bad = check_params(specs, o);
  if (!bad.empty()) return bad;
  std::string error = encode_tsv_for(base, train_tsv, &out->train_set);
  if (!error.empty()) return "training data: " + error;
  error = encode_tsv_for(base, dev_tsv, &out->dev_set);
  if (!error.empty()) return "dev data: " + error;
  if (out->train_set.empty() || out->dev_set.empty()) return "training and dev data must not be empty";
  out->lambda = param_or_default(specs, o, "lambda").get<double>();
  out->base_name = param_or_default(specs, o, "base").get<std::string>();
  out->train = train_options(specs, o);
  Rng rng(out->train.seed);  // as the CLI: the adversary's initial weights from the seed
  out->initial.init(base.config, rng);
  return "";
}

}  // namespace attnlab
