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
// The debate's fourth round (issue 32): the Orthogonal LSTM and the Diversity LSTM (Mohankumar et al. 2020) and a
// deceptive model (Pruthi et al. 2020), each a BiLSTM + learned attention trained like 'model':
//   TRAIN_KINDS also has 'ortho', 'diversity' and 'deceptive'; FAITHFUL_KINDS lists those three.
//   FAITHFUL_ATTENTIONS   → tanh, dot (learned attention: uniform cannot move, so it cannot deceive);
//                           faithfulAttention(a) → a when it is one of them, else 'tanh'.
//   DIVERSITY_LAMBDAS / DECEPTION_LAMBDAS → the λ offered (strings), with the papers' 0.5 and 1 (and Pruthi's 0.1).
//   variantName(kind, attention, lambda, seed, taken) → 'trained-ortho-tanh-seed50', 'trained-diversity0.5-tanh-seed50',
//                           'trained-deceptive1-tanh-seed50' ('-2', … when taken).
//   variantOptions(kind, {lambda, words}) → the core's text.training options of the kind: {encoder: 'ortho_bilstm'},
//                           {diversity: λ} or {deception: λ, impermissible: 'w1 w2 …'}; throws a readable Error for a
//                           bad λ (not in (0, 100]) or no words.
//   variantLabel(kind)    → 'Orthogonal LSTM' | 'Diversity LSTM' | 'deceptive attention' ('' for another kind).
//   comparisonRows' attention column names the variant: 'tanh (Orthogonal LSTM)', 'tanh (Diversity LSTM, λ 0.5)',
//                           'tanh (deceptive, λ 1)', from an entry's encoder / diversity / deception.

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
    attention: (m.encoder ?? 'bilstm') === 'transformer' ? `${m.attention ?? ''} (transformer)`
      : m.encoder === 'ortho_bilstm' ? `${m.attention ?? ''} (Orthogonal LSTM)`
      : Number(m.diversity) > 0 ? `${m.attention ?? ''} (Diversity LSTM, λ ${m.diversity})`
      : Number(m.deception) > 0 ? `${m.attention ?? ''} (deceptive, λ ${m.deception})`
      : m.attention ?? '',
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
  Object.freeze({ value: 'ortho', label: 'an Orthogonal LSTM (Mohankumar et al. 2020)' }),
  Object.freeze({ value: 'diversity', label: 'a Diversity LSTM (Mohankumar et al. 2020: conicity penalty)' }),
  Object.freeze({ value: 'deceptive', label: 'deceptive attention (Pruthi et al. 2020: hide words from attention)' }),
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

// --- the debate's fourth round (issue 32): attention made faithful by design, or trained to deceive ----------------

export const FAITHFUL_KINDS = Object.freeze(['ortho', 'diversity', 'deceptive']);
export const FAITHFUL_ATTENTIONS = Object.freeze([
  Object.freeze({ value: 'tanh', label: 'additive (tanh)' }),
  Object.freeze({ value: 'dot', label: 'scaled dot product' }),
]);
export const DIVERSITY_LAMBDAS = Object.freeze(['0.1', '0.25', '0.5', '1', '2']);
export const DECEPTION_LAMBDAS = Object.freeze(['0.01', '0.1', '0.5', '1', '2', '5']);

export function faithfulAttention(a) {
  return FAITHFUL_ATTENTIONS.some((x) => x.value === a) ? a : 'tanh';
}

export function variantName(kind, attention, lambda, seed, taken = []) {
  const names = new Set(taken);
  const what = kind === 'ortho' ? 'ortho' : `${kind}${lambda}`;
  const stem = `trained-${what}-${attention}-seed${seed}`;
  if (!names.has(stem)) return stem;
  for (let i = 2; ; i++) if (!names.has(`${stem}-${i}`)) return `${stem}-${i}`;
}

export function variantOptions(kind, { lambda, words } = {}) {
  if (kind === 'ortho') return { encoder: 'ortho_bilstm' };
  const l = typeof lambda === 'number' || typeof lambda === 'string' ? parseLambda(String(lambda)) : null;
  if (kind === 'diversity') {
    if (l === null || l <= 0 || l > 100) throw new Error(`The Diversity LSTM's λ must be a number above 0, at most 100 (got ${lambda}).`);
    return { diversity: l };
  }
  if (kind === 'deceptive') {
    if (l === null || l <= 0 || l > 100) throw new Error(`The deception λ must be a number above 0, at most 100 (got ${lambda}).`);
    const w = typeof words === 'string' ? words.trim().split(/\s+/).filter(Boolean).join(' ') : '';
    if (!w) throw new Error('Deceptive attention needs the impermissible words (the words its attention must not show).');
    return { deception: l, impermissible: w };
  }
  throw new Error(`Unknown kind of model: ${kind}.`);
}

export function variantLabel(kind) {
  return kind === 'ortho' ? 'Orthogonal LSTM' : kind === 'diversity' ? 'Diversity LSTM' : kind === 'deceptive' ? 'deceptive attention' : '';
}
