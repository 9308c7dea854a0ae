// display.js — what the page shows for the model-side strings (pure; no DOM, works in Node).
//
// Contract:
//   displayToken(tok)          the original characters of a PTB-style token: -lrb- → "(", -rrb- → ")",
//                              -lsb-/-rsb- → [ ], -lcb-/-rcb- → { }, \/ → /, \* → *, `` → “, '' → ”.
//                              Everything else is returned unchanged (the data keeps the model's token).
//   classNamesFor(model, names) the real class names of a model's output. The shipped 20news and AG News
//                              checkpoints carry the SST default ["negative", "positive"] in config.json;
//                              their data sets say label 0 = rec.sport.baseball, 1 = rec.sport.hockey
//                              (../shared/data README §6) and 0 = World, 1 = Business (§5). `model` is the
//                              model name (or a manifest entry with `name` / `dataset`).
//   positiveName(model, names)  names[1] of classNamesFor (the class whose probability a binary model outputs).
//   modelKind(entry)           the architecture of a manifest entry in a few words, for the model pickers:
//                              "transformer, 2 layers × 4 heads" (layers / heads when the entry has them;
//                              " · uniform attention" for a frozen one) or "BiLSTM + tanh attention"; the
//                              Orthogonal / Diversity LSTM (entry.encoder 'ortho_bilstm' / entry.diversity > 0,
//                              Mohankumar et al. 2020) name their cell, and a deceptive model (entry.deception > 0,
//                              Pruthi et al. 2020) adds " · deceptive (Pruthi et al.)".
//   summaryLabel(key)          a dotted summary key in words with its unit ("mean_max_jsd" → "mean of the
//                              largest JSD (nats, ≤ ln 2 ≈ 0.693)"); unknown parts are de-underscored.
const TOKENS = Object.freeze({
  '-lrb-': '(', '-rrb-': ')', '-lsb-': '[', '-rsb-': ']', '-lcb-': '{', '-rcb-': '}',
  '``': '“', "''": '”', '`': '‘',
});

export function displayToken(tok) {
  const t = String(tok ?? '');
  const lower = t.toLowerCase();
  if (Object.hasOwn(TOKENS, lower)) return TOKENS[lower];
  return t.replace(/\\([/*])/g, '$1');
}

export const DATASET_CLASSES = Object.freeze({
  '20news': Object.freeze(['baseball', 'hockey']),
  agnews: Object.freeze(['World', 'Business']),
});

function datasetOf(model) {
  if (model && typeof model === 'object') {
    if (typeof model.dataset === 'string' && DATASET_CLASSES[model.dataset]) return model.dataset;
    model = model.name;
  }
  const m = /^(20news|agnews)-/.exec(String(model ?? ''));
  return m ? m[1] : null;
}

const GENERIC = ['negative', 'positive'];

export function classNamesFor(model, names) {
  const given = Array.isArray(names) && names.length >= 2 ? names.map(String) : null;
  const ds = datasetOf(model);
  // Only replace the generic SST default; a checkpoint with its own names keeps them.
  if (ds && (!given || (given.length === 2 && given[0] === GENERIC[0] && given[1] === GENERIC[1]))) return [...DATASET_CLASSES[ds]];
  return given ?? [...GENERIC];
}

export function modelKind(m) {
  const att = m?.attention ? String(m.attention) : '';
  if ((m?.encoder ?? 'bilstm') === 'transformer') {
    const shape = Number.isInteger(m.layers) && Number.isInteger(m.heads)
      ? `, ${m.layers} layer${m.layers === 1 ? '' : 's'} × ${m.heads} heads` : '';
    return `transformer${shape}${att === 'uniform' ? ' · uniform attention' : ''}`;
  }
  // the debate's fourth round (issue 32): the recipe that changed the BiLSTM, from the entry's encoder /
  // diversity / deception fields (models/tools/build-text-manifest.mjs; a model trained in the page has them too)
  const cell = m?.encoder === 'ortho_bilstm' ? 'Orthogonal LSTM' : Number(m?.diversity) > 0 ? 'Diversity LSTM' : 'BiLSTM';
  const deceptive = Number(m?.deception) > 0 ? ' · deceptive (Pruthi et al.)' : '';
  return `${cell}${att ? ` + ${att} attention` : ''}${deceptive}`;
}

export function positiveName(model, names) {
  return classNamesFor(model, names)[1];
}

// --- summary keys in words --------------------------------------------------------------------------
const UNITS = Object.freeze({
  jsd: 'nats, ≤ ln 2 ≈ 0.693',
  tvd: '0 … 1',
  kl: 'nats',
  seconds: 's',
});

const WORDS = Object.freeze({
  n: 'sentences',
  n_used: 'sentences used',
  n_defined: 'sentences where it is defined',
  mean: 'mean',
  median: 'median',
  std: 'standard deviation',
  max: 'largest',
  min: 'smallest',
  jsd: 'JSD',
  tvd: 'TVD',
  kl: 'KL',
  aopc: 'AOPC',
  loo: 'leave-one-out',
  fraction: 'share',
  found: 'found',
  flip: 'flip',
  flipped: 'flipped',
  rate: 'rate',
  spearman: 'Spearman ρ',
  kendall: 'Kendall τ',
  tau: 'τ',
  rho: 'ρ',
  p: 'p',
  per: 'per',
  by: 'by',
  seed: 'seed',
  bin: 'bin',
  upper: 'upper',
  bound: 'bound',
  x: '×',
  delta: '|Δŷ|',
  below: 'below',
  skipped: 'skipped',
  seconds: 'time',
});

export function summaryLabel(key) {
  // '.' separates the levels of a dotted key, except inside a number of a word ("below_0.01")
  const parts = String(key ?? '').replace(/(_\d+)\.(\d)/g, '$1\u0000$2').split('.').map((p) => p.replace(/\u0000/g, '.'));
  let unit = '';
  const words = parts.map((part) => {
    if (/^\d+$/.test(part)) return `#${Number(part) + 1}`;
    if (/^\d+(\.\d+)?$/.test(part)) return part;
    return part.split('_').filter(Boolean).map((w) => {
      const lw = w.toLowerCase();
      if (UNITS[lw] && !unit) unit = UNITS[lw];
      return WORDS[lw] ?? lw;
    }).join(' ');
  });
  const text = words.filter(Boolean).join(' · ');
  return unit ? `${text} (${unit})` : text;
}
