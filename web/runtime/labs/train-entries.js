// train-entries.js — the manifest-style entry of a model trained in the page (a classifier or a
// model-consistent adversary): name, description, metrics, provenance with the CLI command that gives the
// same numbers. Pure; no DOM.
//
// Contract:
//   trainedEntry(name, options, configText, weights, res, manifest) → entry (trained: true). For the debate's fourth
//     round (options.kind 'ortho' | 'diversity' | 'deceptive', with the core options encoder / diversity / deception +
//     impermissible, and words_source 'lexicon' for the shipped lexicon) the entry records the kind as the shipped ones
//     do — encoder: 'ortho_bilstm', diversity: λ, or deception: λ and impermissible {words, source} — and
//     provenance.kind; its description names it and same_as gives the CLI flags.
//   adversaryEntry(name, options, configText, weights, res)         → entry (provenance.kind 'adversary')
//   res: runTrainingJob's result (status 'done' | 'cancelled').
import { CATALOGUE } from '../../catalogue.js';
import { LEXICON_PATH } from '../../analysis/faithful.js';

export const TRAIN_SETS = Object.freeze({ train: 'sst2-train', dev: 'sst2-dev', test: 'sst2-test' });

export function adversaryEntry(name, options, configText, weights, res) {
  const config = JSON.parse(configText);
  const t = config.training ?? {};
  const cancelled = res.status === 'cancelled';
  const cmd = 'build/attnlab experiment adversarial-training --model models/text/' + options.base +
    ' --data models/text/data/sst2-test.tsv --out rows.json --param train=models/text/data/sst2-train.tsv' +
    ` --param 'lambdas=[${options.lambda}]' --param epochs=${options.epochs} --seed ${options.seed}`;
  return {
    name,
    attention: config.attention,
    dataset: 'sst2',
    trained: true,
    description: `Model-consistent adversary of ${options.base} (λ ${options.lambda}) · trained in this page · ` +
      `seed ${options.seed} · epoch ${t.epochs_run} of ${options.epochs}${cancelled ? ' (cancelled)' : ''}`,
    vocab_size: Array.isArray(config.vocab) ? config.vocab.length : null,
    bytes: { config: new TextEncoder().encode(configText).length, weights: weights.length },
    metrics: config.metrics,
    provenance: {
      kind: 'adversary',
      where: 'trained in this browser tab (in memory: a reload forgets it; download it to keep it)',
      base: options.base,
      lambda: options.lambda,
      seed: options.seed,
      epochs: options.epochs,
      epochs_run: t.epochs_run,
      best_epoch: t.best_epoch,
      cancelled,
      loss: 'TVD(ŷ_adv, ŷ_base) − λ·KL(α_adv ‖ α_base) (Wiegreffe & Pinter 2019, §4); the last finished epoch is kept',
      training_data: `SST-2 sentence-level train (6,920 sentences), ${options.base}'s vocabulary`,
      same_as: cancelled ? null : cmd,
    },
  };
}

// The debate's fourth round (issue 32): the CLI flags of an Orthogonal / Diversity LSTM or deceptive attention. The CLI
// reads the impermissible words from a file: the shipped lexicon's path, or WORDS.txt for a list of one's own.
function variantFlags(options) {
  if (options.encoder === 'ortho_bilstm') return ' --encoder ortho_bilstm';
  if (options.diversity > 0) return ` --diversity ${options.diversity}`;
  if (options.deception > 0) {
    const file = options.words_source === 'lexicon' ? LEXICON_PATH : 'WORDS.txt';
    return ` --deception ${options.deception} --impermissible ${file}`;
  }
  return '';
}

// What the entry records of the kind (as the shipped entries: models/tools/build-text-manifest.mjs), and in words.
function variantFields(options) {
  if (options.encoder === 'ortho_bilstm') return { fields: { encoder: 'ortho_bilstm' }, what: 'Orthogonal LSTM (Mohankumar et al. 2020)' };
  if (options.diversity > 0) {
    return { fields: { diversity: options.diversity }, what: `Diversity LSTM (Mohankumar et al. 2020, conicity penalty λ = ${options.diversity})` };
  }
  if (options.deception > 0) {
    const n = options.impermissible.split(' ').length;
    const words = options.words_source === 'lexicon' ? `the ${n} words of the shipped strong-sentiment lexicon` : `${n} words of your own`;
    return {
      fields: { deception: options.deception, impermissible: { words: n, source: options.words_source === 'lexicon' ? LEXICON_PATH : 'your list' } },
      what: `deceptive attention (Pruthi et al. 2020: −λ·log(1 − attention on ${words}), λ = ${options.deception})`,
    };
  }
  return { fields: {}, what: '' };
}

// The CLI command that trains the same model as the page did (same recipe, data and seed; f32 weights). A
// transformer's sizes and optimizer settings are read from the trained config.json; its warm-up (not in the config)
// is the catalogue's default, which the page never overrides.
const WARMUP = CATALOGUE.text.training.find((p) => p.name === 'warmup')?.default;

function sameAsCommand(options, config) {
  const data = 'build/attnlab train-text --train ../shared/data/sst2/train.tsv --dev ../shared/data/sst2/dev.tsv ' +
    '--test ../shared/data/sst2/test.tsv --out DIR';
  const t = config.training ?? {};
  const recipe = config.encoder === 'transformer'
    ? ` --encoder transformer --layers ${config.layers} --heads ${config.heads} --embedding-dim ${config.embedding_dim} ` +
      `--ffn-dim ${config.ffn_dim} --max-len ${config.max_len} --attention ${config.attention} --optimizer adamw ` +
      `--lr ${t.lr} --weight-decay ${t.weight_decay} --warmup ${WARMUP} --dropout ${t.dropout}`
    : ` --attention ${options.attention}${variantFlags(options)}`;
  return `${data}${recipe} --seed ${options.seed} --epochs ${options.epochs} --min-count 1 --storage f32`;
}

export function trainedEntry(name, options, configText, weights, res, manifest) {
  const config = JSON.parse(configText);
  const t = config.training ?? {};
  const sets = Object.fromEntries(Object.entries(TRAIN_SETS).map(([k, n]) => {
    const d = (manifest.datasets ?? []).find((x) => x?.name === n);
    return [k, { dataset: n, sha256: d?.sha256 ?? null }];
  }));
  const cancelled = res.status === 'cancelled';
  const transformer = config.encoder === 'transformer';
  const variant = variantFields(options);
  const what = transformer
    ? `transformer (${config.layers} layer${config.layers === 1 ? '' : 's'} × ${config.heads} heads) · ${config.attention} self-attention`
    : variant.what ? `${config.attention} attention · ${variant.what}` : `${config.attention} attention`;
  return {
    name,
    attention: config.attention,
    ...(transformer ? { encoder: 'transformer', layers: config.layers, heads: config.heads } : {}),
    ...variant.fields,
    dataset: 'sst2',
    trained: true,
    description: `Trained in this page · SST-2 sentences · ${what} · seed ${options.seed} · ` +
      `best epoch ${t.best_epoch} of ${t.epochs_run}${cancelled ? ` (cancelled; ${options.epochs} asked)` : ''}`,
    vocab_size: Array.isArray(config.vocab) ? config.vocab.length : null,
    bytes: { config: new TextEncoder().encode(configText).length, weights: weights.length },
    metrics: config.metrics,
    provenance: {
      ...(options.kind ? { kind: options.kind } : {}),
      where: 'trained in this browser tab (in memory: a reload forgets it; download it to keep it)',
      seed: options.seed,
      epochs: options.epochs,
      epochs_run: t.epochs_run,
      best_epoch: t.best_epoch,
      cancelled,
      training_data: 'SST-2 sentence-level train (6,920 sentences), vocabulary: every training word (min count 1)',
      data: sets,
      same_as: cancelled ? null : sameAsCommand(options, config),
    },
  };
}
