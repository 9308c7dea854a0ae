// training.js — the pure side of training in the page: the choices offered, the name a trained model gets,
// progress arithmetic, the loss / dev history drawn while it trains, and the comparison with the shipped
// models. No DOM, works in Node.
//
// Contract:
//   ATTENTIONS            → [{value, label}]: uniform (the Wiegreffe & Pinter baseline), tanh, dot.
//   WP_SEEDS              → the seeds Wiegreffe & Pinter (2019) report: 50, 257, 500231, 100078, 12504,
//                           90754789, 8988812, 2.
//   MAX_SEED, MAX_EPOCHS  → the largest seed the core takes (2^31 − 1) and the most epochs the page offers.
//   parseSeed(text)       → an integer in [0, MAX_SEED], or null for anything else (no rounding, no clamping).
//   parseEpochs(text)     → an integer in [1, MAX_EPOCHS], or null.
//   trainedName(attention, seed, taken, layers) → 'trained-ATTENTION-seedSEED' (a BiLSTM), or with layers (a
//                           transformer of that many blocks) 'trained-transformerL-ATTENTION-seedSEED'; '-2', '-3', …
//                           appended when that name is in `taken` (an iterable of names).
// The transformer trained in the page (the shipped sst2-transformer's recipe, core/train/text_options):
//   TRANSFORMER_ATTENTIONS → [{value, label}]: dot (learned scaled dot-product), uniform (frozen rows, the baseline).
//   TRANSFORMER_LAYERS    → [1, 2]: the blocks offered (4 heads, d 128, FFN 256, max 64 tokens each).
//   transformerAttention(a) → a when it is one of TRANSFORMER_ATTENTIONS, else 'dot' (tanh is a BiLSTM's).
//   progressFraction(p)   → the share of the whole run done, in [0, 1], from a TextTrainer.step() progress
//                           object {epoch (1-based), epochs, batch, batches, epoch_done}.
//   epochFraction(p)      → the share of the current epoch's batches done, in [0, 1].
//   secondsLeft(p, s)     → estimated seconds left after `s` seconds (NaN before any progress).
//   createHistory()       → { loss: [], epochs: [] }
//   addProgress(h, p)     → h, with {x (epochs done, fractional), loss, epoch} appended to h.loss and, when
//                           p.epoch_done, {epoch, train_loss, dev_accuracy, dev_f1, dev_n} appended to
//                           h.epochs; h.best_epoch = p.best_epoch. Returns h (mutated).
//   comparisonRows(trained, shipped) → rows for the "next to the shipped models" table: the trained
//                           entries (one entry or an array, in the order given) first, then the shipped ones
//                           (entries marked trained or named like a trained one are not repeated; shipped models of
//                           another data set than SST-2 are left out: their test set is not SST-2's); each {name, attention
//                           (a transformer's reads e.g. 'dot (transformer)'), trained, training, dev_accuracy,
//                           dev_f1, test_accuracy, test_f1, test_n} (NaN where a number is missing).
// The model-consistent adversary (Wiegreffe & Pinter 2019 §4; the core's AdversaryTrainer):
//   TRAIN_KINDS           → [{value, label}]: 'model' (a BiLSTM classifier, attention as chosen), 'transformer'
//                           (a self-attention classifier) and 'adversary'.
//   LAMBDAS               → the λ offered, as strings: '0', '0.001', '0.01', '0.1', '0.5', '1', '2', '5' (the
//                           CLI's sweep 0 … 5, and two small ones: with KL up to ~14 a sentence against TVD ≤ 1,
//                           any λ ≥ 0.1 already drives the attention to the JSD bound — docs/RESULTS.md).
//   parseLambda(text)     → a finite number in [0, 1e6], or null.
//   adversaryBases(models) → names of the models an adversary can be trained against here: SST-2 BiLSTM models
//                           with learned attention (not uniform, not a transformer: W&P's adversary replaces one
//                           attention distribution), shipped (not trained in the page), in manifest order.
//   adversaryName(base, lambda, seed, taken) → 'trained-adversary-BASE-lambdaL-seedS' ('-2', … when taken).
//   addProgress(h, p) also records, when p.dev has them, dev_tvd / dev_jsd / dev_kl (the adversary's mean
//                           TVD of outputs and JSD / KL of attention to the base's, on dev).
//   adversaryPoints(entries) → one point per adversary entry (entries with provenance.kind === 'adversary',
//                           others skipped): {name, base, lambda, seed, epochs_run, tvd, jsd, kl, accuracy, f1,
//                           split} from metrics.test (split 'test'), else metrics.dev ('dev'); sorted by base,
//                           then λ. The TVD-vs-JSD plot of W&P's Figure 4.

export const ATTENTIONS = Object.freeze([
  Object.freeze({ value: 'uniform', label: 'uniform (1/T) — Wiegreffe & Pinter baseline' }),
  Object.freeze({ value: 'tanh', label: 'additive (tanh)' }),
  Object.freeze({ value: 'dot', label: 'scaled dot product' }),
]);

export const WP_SEEDS = Object.freeze([50, 257, 500231, 100078, 12504, 90754789, 8988812, 2]);
export const MAX_SEED = 2147483647;
export const MAX_EPOCHS = 30;

function parseIntIn(text, lo, hi) {
  const s = String(text ?? '').trim();
  if (!/^\d{1,16}$/.test(s)) return null;
  const v = Number(s);
  return Number.isSafeInteger(v) && v >= lo && v <= hi ? v : null;
}

export function parseSeed(text) {
  return parseIntIn(text, 0, MAX_SEED);
}

export function parseEpochs(text) {
  return parseIntIn(text, 1, MAX_EPOCHS);
}

export const TRANSFORMER_ATTENTIONS = Object.freeze([
  Object.freeze({ value: 'dot', label: 'scaled dot-product self-attention (learned)' }),
  Object.freeze({ value: 'uniform', label: 'uniform rows (1/n) — the frozen baseline' }),
]);
export const TRANSFORMER_LAYERS = Object.freeze([1, 2]);

export function transformerAttention(a) {
  return TRANSFORMER_ATTENTIONS.some((x) => x.value === a) ? a : 'dot';
}

export function trainedName(attention, seed, taken = [], layers = 0) {
  const names = new Set(taken);
  const base = layers > 0 ? `trained-transformer${layers}-${attention}-seed${seed}` : `trained-${attention}-seed${seed}`;
  if (!names.has(base)) return base;
  for (let i = 2; ; i++) if (!names.has(`${base}-${i}`)) return `${base}-${i}`;
}

const clamp01 = (v) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

export function epochFraction(p) {
  if (!p || !(p.batches > 0)) return 0;
  return clamp01(p.batch / p.batches);
}

export function progressFraction(p) {
  if (!p || !(p.epochs > 0) || !(p.epoch > 0)) return 0;
  if (p.done) return 1;
  return clamp01((p.epoch - 1 + (p.epoch_done ? 1 : epochFraction(p))) / p.epochs);
}

export function secondsLeft(p, seconds) {
  const f = progressFraction(p);
  if (!(f > 0) || !Number.isFinite(seconds)) return NaN;
  return (seconds / f) * (1 - f);
}

export function createHistory() {
  return { loss: [], epochs: [], best_epoch: 0 };
}

export function addProgress(h, p) {
  if (!p || !(p.epoch > 0)) return h;
  const x = p.epoch - 1 + (p.epoch_done ? 1 : epochFraction(p));
  if (Number.isFinite(p.train_loss) && (h.loss.length === 0 || h.loss.at(-1).x < x)) {
    h.loss.push({ x, loss: p.train_loss, epoch: p.epoch });
  }
  if (p.epoch_done && !h.epochs.some((e) => e.epoch === p.epoch)) {
    h.epochs.push({
      epoch: p.epoch,
      train_loss: p.train_loss,
      dev_accuracy: p.dev?.accuracy ?? NaN,
      dev_f1: p.dev?.f1 ?? NaN,
      dev_n: p.dev?.n ?? NaN,
      ...(p.dev && 'tvd_mean' in p.dev
        ? { dev_tvd: p.dev.tvd_mean ?? NaN, dev_jsd: p.dev.jsd_mean ?? NaN, dev_kl: p.dev.kl_mean ?? NaN }
        : {}),
    });
  }
  if (Number.isInteger(p.best_epoch)) h.best_epoch = p.best_epoch;
  return h;
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);

function row(m, trained) {
  return {
    name: m.name,
    attention: (m.encoder ?? 'bilstm') === 'transformer' ? `${m.attention ?? ''} (transformer)` : m.attention ?? '',
    trained,
    training: trained ? 'SST-2 sentences, in this page' : 'SST-2 phrases, shipped',
    dev_accuracy: num(m.metrics?.dev?.accuracy),
    dev_f1: num(m.metrics?.dev?.f1),
    test_accuracy: num(m.metrics?.test?.accuracy),
    test_f1: num(m.metrics?.test?.f1),
    test_n: num(m.metrics?.test?.n),
  };
}

export function comparisonRows(trained, shipped = []) {
  const mine = (Array.isArray(trained) ? trained : [trained]).filter(Boolean);
  const names = new Set(mine.map((m) => m.name));
  const rows = mine.map((m) => row(m, true));
  for (const m of shipped) {
    if (!m || m.trained || names.has(m.name) || (m.dataset && m.dataset !== 'sst2')) continue;
    rows.push(row(m, false));
  }
  return rows;
}

// --- the model-consistent adversary ----------------------------------------------------------------------

export const TRAIN_KINDS = Object.freeze([
  Object.freeze({ value: 'model', label: 'a BiLSTM classifier (uniform baseline or a new seed)' }),
  Object.freeze({ value: 'transformer', label: 'a transformer classifier (self-attention, 1 or 2 layers)' }),
  Object.freeze({ value: 'adversary', label: 'a model-consistent adversary (Wiegreffe & Pinter §4)' }),
]);

export const LAMBDAS = Object.freeze(['0', '0.001', '0.01', '0.1', '0.5', '1', '2', '5']);

export function parseLambda(text) {
  const s = String(text ?? '').trim();
  if (!/^\d{1,7}(\.\d{1,6})?$/.test(s)) return null;
  const v = Number(s);
  return Number.isFinite(v) && v >= 0 && v <= 1e6 ? v : null;
}

export function adversaryBases(models = []) {
  return models
    .filter((m) => m && !m.trained && (m.dataset ?? 'sst2') === 'sst2' && m.attention && m.attention !== 'uniform' &&
      (m.encoder ?? 'bilstm') !== 'transformer')
    .map((m) => m.name);
}

export function adversaryName(base, lambda, seed, taken = []) {
  const names = new Set(taken);
  const stem = `trained-adversary-${base}-lambda${lambda}-seed${seed}`;
  if (!names.has(stem)) return stem;
  for (let i = 2; ; i++) if (!names.has(`${stem}-${i}`)) return `${stem}-${i}`;
}

export function adversaryPoints(entries = []) {
  const points = [];
  for (const e of entries) {
    if (!e || e.provenance?.kind !== 'adversary') continue;
    const split = e.metrics?.test ? 'test' : 'dev';
    const m = e.metrics?.[split] ?? {};
    points.push({
      name: e.name,
      base: e.provenance.base ?? '',
      lambda: num(e.provenance.lambda),
      seed: e.provenance.seed,
      epochs_run: e.provenance.epochs_run,
      tvd: num(m.tvd_mean),
      jsd: num(m.jsd_mean),
      kl: num(m.kl_mean),
      accuracy: num(m.accuracy),
      f1: num(m.f1),
      split,
    });
  }
  return points.sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : a.lambda - b.lambda));
}
