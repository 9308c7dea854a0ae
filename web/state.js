// state.js — the whole UI state, kept in the URL hash through one schema, so every view is a link.
//
// Contract (pure; no DOM, works in Node). The values of `method`, `colormap`, `erasefill`, `locrecipe` and the
// range of `risen` are the core's (web/catalogue.js, generated from Module.catalogue()).
//   SCHEMA                 — field → { type: 'enum' | 'string' | 'int', values?, default, maxLength?, min?, max? }
//   defaults()             → a fresh state object with every field at its default
//   parse(hash)            → state: '#view=text&model=sst2-tanh&text=a+fine+film' (leading '#' optional).
//                             A missing key takes its default, an invalid enum value takes its default,
//                             unknown keys are ignored. An explicitly empty `text=` stays empty.
//   serialize(state)       → '#…' string ('' when everything is at its default). Fields equal to their
//                             default are left out (short links); a string longer than its maxLength is
//                             left out too (a 100k-character text never lands in the URL) — check
//                             `fitsInUrl(state)` to tell the user. parse() cuts a longer value to maxLength.
//                             An 'int' takes decimal digits only (a leading '-' where min < 0 allows it) and
//                             is clamped to [min, max]; anything else takes its default.
//   fitsInUrl(state, fields?) → true when serialize(state) keeps every non-default field (of `fields`, default
//                             all: a view asks about its own text, e.g. ['text'], not another view's).
//   parseWithNotices(hash) → { state (as parse), notices: [{field, given, used, reason}] }: one notice for every
//                             value of the link that was not used as given (not one of the values, not a
//                             number, clamped to [min, max], cut to maxLength); noticeText(notice) → a sentence.
// Fields: view; model (shared by the text and debate views); text (text view); experiment, n, seed
// (debate view: which experiment, the first n instances of the data set, the per-instance seed — the text
// view's live experiment panels use the same seed). Whether `model`/`experiment` exist is for the views to
// check (they come from the manifest / the core). Train view: attention (uniform | tanh | dot), trainseed
// (the training seed, 0 … 2^31 − 1, apart from the debate `seed`), epochs (1 … 30), trainkind, tlayers, advbase, lambda,
// divlambda, declambda, impwords. Image view: image,
// method, opacity, colormap, backend, target, risen, csteps, erasesteps, erasethr, erasefill (described next to them
// in SCHEMA); "Your model" there: omethod, oscale. Localization view: lochead, loccbam, locconf, locepochs, locseed, locrecipe. Debate runs: workers
// (the pool size; 0 = one per core). Head view (transformers): hlayer, hheads. Documents view: docmodel, doctext,
// docmeasure (attention | gradient | leave_one_out | integrated_gradients). Global view: gvmodel, gvlevel (word |
// sentence), gvword (the searched / selected word or sentence), gvn (top and bottom N). The Text tab's "Your model":
// otmodel, ottext, otnext, ottarget, otlayer, otheads, otdlayer, otdclosed, otdsteps. Fields are added here when a view needs them.

import { CATALOGUE } from './catalogue.js';

export const VIEWS = Object.freeze(['text', 'documents', 'global', 'debate', 'train', 'image', 'localization']);

// The fields whose values, defaults and ranges the core defines come from its catalogue (web/catalogue.js).
const IMAGE_MAPS = Object.freeze(CATALOGUE.image.methods.filter((m) => m.kind !== 'metric').map((m) => m.name));
const RISE_N = CATALOGUE.image.methods.find((m) => m.name === 'rise').params.find((p) => p.name === 'n');
const CURVE_STEPS = CATALOGUE.image.methods.find((m) => m.name === 'deletion').params.find((p) => p.name === 'steps');
// "Your model" (views/own-model-view.js): the executor's methods, then the image plans that make a map.
const OWN_METHODS = Object.freeze([...CATALOGUE.onnx.methods.map((m) => m.name),
  ...CATALOGUE.onnx.plans.filter((p) => CATALOGUE.image.methods.find((m) => m.name === p)?.kind === 'plan')]);
const RECIPE_NAMES = Object.freeze([CATALOGUE.cnn.default_recipe,
  ...Object.keys(CATALOGUE.cnn.recipes).filter((k) => k !== CATALOGUE.cnn.default_recipe)]);

export const DEFAULT_TEXT = "The acting is superb, but the plot is thin and the ending falls flat.";
// The Documents view's first example (an IMDB test review, views/document-view.js DOC_EXAMPLES[0]).
export const DEFAULT_DOC = 'A wonderful film - a charming, quirky family story. A cross-country journey filled with lots of ' +
  'interesting, oddball stops along the way (& several very cool cameos). Great cast led by Rod Steiger carries the film ' +
  'along and leads to a surprise ending. Well directed & shot - a really nice movie.';
export const DOC_MEASURE_KEYS = Object.freeze(['attention', 'gradient', 'leave_one_out', 'integrated_gradients']);

export const SCHEMA = Object.freeze({
  view: { type: 'enum', values: VIEWS, default: 'text' },
  model: { type: 'string', default: 'sst2-tanh', maxLength: 100 },
  text: { type: 'string', default: DEFAULT_TEXT, maxLength: 2000 },
  experiment: { type: 'string', default: 'adversarial', maxLength: 40 },
  n: { type: 'int', default: 200, min: 1, max: 1_000_000 },
  seed: { type: 'int', default: 1, min: 0, max: Number.MAX_SAFE_INTEGER },
  // Debate view on a HAN model (manifest `documents`): the level its experiment runs at (param level).
  level: { type: 'enum', values: Object.freeze(['sentence', 'word']), default: 'sentence' },
  attention: { type: 'enum', values: Object.freeze(['uniform', 'tanh', 'dot']), default: 'uniform' },
  trainseed: { type: 'int', default: 50, min: 0, max: 2147483647 },
  epochs: { type: 'int', default: 8, min: 1, max: 30 },
  // Train view, what to train: a BiLSTM classifier (model), a transformer classifier of `tlayers` blocks
  // (attention dot, or uniform: tanh is a BiLSTM's and shows as dot), or a Wiegreffe & Pinter model-consistent
  // adversary of the shipped model `advbase` with KL weight `lambda` (one of analysis/training.js LAMBDAS).
  // The debate's fourth round (issue 32): an Orthogonal LSTM (ortho), a Diversity LSTM with conicity weight `divlambda`
  // (the paper's 0.5), or deceptive attention (Pruthi et al.) with weight `declambda` (their 1) on the words `impwords`
  // ('' = the shipped strong-sentiment lexicon, models/text/data/sst2-strong-lexicon.txt; a list of one's own is kept
  // here when it fits). Their attention is tanh or dot (uniform shows as tanh). λ lists: analysis/training.js.
  trainkind: { type: 'enum', values: Object.freeze(['model', 'transformer', 'adversary', 'ortho', 'diversity', 'deceptive']), default: 'model' },
  divlambda: { type: 'enum', values: Object.freeze(['0.1', '0.25', '0.5', '1', '2']), default: '0.5' },
  declambda: { type: 'enum', values: Object.freeze(['0.01', '0.1', '0.5', '1', '2', '5']), default: '1' },
  impwords: { type: 'string', default: '', maxLength: 1500 },
  tlayers: { type: 'int', default: 2, min: 1, max: 2 },
  advbase: { type: 'string', default: 'sst2-tanh', maxLength: 100 },
  lambda: { type: 'enum', values: Object.freeze(['0', '0.001', '0.01', '0.1', '0.5', '1', '2', '5']), default: '1' },
  // Image view (views/image-view.js): the demo photo by gallery name (uploads are never in the URL), the map
  // method, overlay opacity (percent), colormap, ORT backend (auto = WebGPU on a hardware adapter, else wasm), threads (wasm threads; 0 = automatic),
  // the explained class (model output index; -1 = the top-1), RISE masks, the deletion / insertion curves' steps (the
  // Images card's and Your model's; RISE's protocol uses 50), adversarial-erasing steps /
  // threshold (percent of the map's range) / fill. RISE and the random baseline reuse `seed`.
  image: { type: 'string', default: 'cat', maxLength: 60 },
  method: { type: 'enum', values: IMAGE_MAPS, default: IMAGE_MAPS[0] },
  opacity: { type: 'int', default: 50, min: 0, max: 100 },
  colormap: { type: 'enum', values: Object.freeze([...CATALOGUE.image.colormaps]), default: CATALOGUE.image.colormaps[0] },
  backend: { type: 'enum', values: Object.freeze(['auto', 'wasm', 'webgpu']), default: 'auto' },
  threads: { type: 'int', default: 0, min: 0, max: 16 },
  target: { type: 'int', default: -1, min: -1, max: 1000 },
  risen: { type: 'int', default: RISE_N.default, min: RISE_N.min, max: RISE_N.max },
  csteps: { type: 'int', default: CURVE_STEPS.default, min: 5, max: 200 },
  erasesteps: { type: 'int', default: 3, min: 1, max: 8 },
  erasethr: { type: 'int', default: 50, min: 5, max: 95 },
  erasefill: { type: 'enum', values: Object.freeze([...CATALOGUE.image.erase_fills]), default: CATALOGUE.image.erase_fills[0] },
  // "Your model" in the Images tab (views/own-model-view.js): the method and the input scaling (the model file
  // itself is never in the URL).
  omethod: { type: 'enum', values: OWN_METHODS, default: OWN_METHODS[0] },
  oscale: { type: 'enum', values: Object.freeze([...CATALOGUE.onnx.scalings]), default: CATALOGUE.onnx.scalings[0] },
  // Localization view (views/localization-view.js): pooling head, CBAM placement, confounder p in percent,
  // epochs, training seed and the training recipe (its RECIPES: image size, widths, images per epoch).
  lochead: { type: 'enum', values: Object.freeze(['gap', 'gmp', 'lse']), default: 'gap' },
  loccbam: { type: 'enum', values: Object.freeze(['none', 'stage1', 'stage2', 'stage3', 'all']), default: 'none' },
  locconf: { type: 'int', default: 0, min: 0, max: 100 },
  locepochs: { type: 'int', default: 8, min: 1, max: 30 },
  locseed: { type: 'int', default: 1, min: 0, max: 2147483647 },
  locrecipe: { type: 'enum', values: RECIPE_NAMES, default: CATALOGUE.cnn.default_recipe },
  // Debate runs: pool workers (0 = one per core, navigator.hardwareConcurrency; runtime/pool.js).
  workers: { type: 'int', default: 0, min: 0, max: 16 },
  // Text view, transformer models (views/heads-view.js): the head view's layer (1-based; above the model's
  // count: its last layer, with a notice) and shown heads ('all', 'none' or 1-based heads such as '1,3').
  hlayer: { type: 'int', default: 1, min: 1, max: 64 },
  hheads: { type: 'string', default: 'all', maxLength: 40 },
  // Documents view (views/document-view.js): the HAN model (manifest `documents`), the document, and the measure
  // shown at both levels (sentence bars, word heat). Apart from `model` / `text`: the Text tab's models are flat.
  docmodel: { type: 'string', default: 'imdb-han', maxLength: 100 },
  doctext: { type: 'string', default: DEFAULT_DOC, maxLength: 2000 },
  docmeasure: { type: 'enum', values: DOC_MEASURE_KEYS, default: 'attention' },
  // Global view (views/global-view.js): the model (a flat text model of the manifest's `models` or a HAN model of
  // its `documents`; whether it has additive attention is for the view to say), the level (sentence: HAN only),
  // the searched / selected word (or sentence), and how many of the top and bottom to list.
  gvmodel: { type: 'string', default: 'sst2-tanh', maxLength: 100 },
  gvlevel: { type: 'enum', values: Object.freeze(['word', 'sentence']), default: 'word' },
  gvword: { type: 'string', default: '', maxLength: 300 },
  gvn: { type: 'int', default: 20, min: 5, max: 50 },
  // Text view, "Your model" (views/own-text-view.js; the user's files are never in the URL): otmodel = the shipped
  // demo shown ('stories260K'; '' = none or the user's own files), ottext = its text / prompt, otnext = greedy tokens
  // added by Next (a link replays them), ottarget = the explained token / class (−1: the greedy next token / the
  // predicted class), otlayer / otheads = its head view's layer and heads (as hlayer / hheads).
  otmodel: { type: 'string', default: '', maxLength: 60 },
  ottext: { type: 'string', default: 'Once upon a time', maxLength: 2000 },
  otnext: { type: 'int', default: 0, min: 0, max: 256 },
  ottarget: { type: 'int', default: -1, min: -1, max: 1_000_000 },
  otlayer: { type: 'int', default: 1, min: 1, max: 64 },
  otheads: { type: 'string', default: 'all', maxLength: 40 },
  // Its debate panels (views/own-text/debate.js): otdlayer = the found attention layer intervened on (1-based; 0 = the
  // last), otdclosed = the panels folded shut (comma list of experiment names; a closed panel does not run), otdsteps =
  // the adversarial search's Adam steps (that search runs on request only).
  otdlayer: { type: 'int', default: 0, min: 0, max: 64 },
  otdclosed: { type: 'string', default: '', maxLength: 80 },
  otdsteps: { type: 'int', default: 20, min: 1, max: 2000 },
});

export function defaults() {
  const s = {};
  for (const [key, spec] of Object.entries(SCHEMA)) s[key] = spec.default;
  return s;
}

function coerce(spec, raw, notes = null, key = '') {
  if (raw === null || raw === undefined) return spec.default;
  if (notes) {
    const v = coerce(spec, raw);
    const reason = noticeFor(spec, raw, v);
    if (reason) notes.push({ field: key, given: raw, used: v, reason });
    return v;
  }
  if (spec.type === 'enum') return spec.values.includes(raw) ? raw : spec.default;
  if (spec.type === 'string') {
    if (spec.maxLength !== undefined && raw.length > spec.maxLength) return raw.slice(0, spec.maxLength);
    return raw;
  }
  if (spec.type === 'int') return parseInt10(spec, raw);
  return spec.default;
}

function clampInt(spec, v) {
  if (spec.min !== undefined && v < spec.min) return spec.min;
  if (spec.max !== undefined && v > spec.max) return spec.max;
  return v;
}

function parseInt10(spec, raw) {
  const allowNegative = spec.min === undefined || spec.min < 0;
  if (!(allowNegative ? /^-?\d{1,16}$/ : /^\d{1,16}$/).test(raw)) return spec.default;
  const v = Number(raw);
  return Number.isSafeInteger(v) ? clampInt(spec, v) : spec.default;
}

// Why a link's value was not used as given ('' when it was).
function noticeFor(spec, raw, used) {
  if (spec.type === 'enum' && !spec.values.includes(raw)) return `not one of ${spec.values.join(', ')}`;
  if (spec.type === 'string' && used !== raw) return `longer than ${spec.maxLength} characters: cut`;
  if (spec.type === 'int') {
    if (String(used) === raw) return '';
    if (used === spec.default && !/^-?\d{1,16}$/.test(raw)) return 'not a whole number';
    if (spec.min !== undefined && used === spec.min) return `below the smallest value, ${spec.min}`;
    if (spec.max !== undefined && used === spec.max) return `above the largest value, ${spec.max}`;
    return used === spec.default ? 'not a usable number' : '';
  }
  return '';
}

export function parse(hash) {
  return parseWithNotices(hash).state;
}

export function parseWithNotices(hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  const s = {};
  const notices = [];
  for (const [key, spec] of Object.entries(SCHEMA)) s[key] = coerce(spec, params.get(key), notices, key);
  return { state: s, notices };
}

// One sentence per notice, for a view to show ("workers=99 in the link is above the largest value, 16: 16 is used.").
export function noticeText({ field, given, used, reason }) {
  const shown = String(given).length > 40 ? `${String(given).slice(0, 40)}…` : String(given);
  const value = typeof used === 'string' && used.length > 40 ? `${used.slice(0, 40)}…` : used;
  return `${field}=${shown} in the link is ${reason}: ${field === 'text' ? 'the start of it' : `${value === '' ? '(empty)' : value}`} is used.`;
}

function keep(spec, value) {
  if (value === undefined || value === null || value === spec.default) return false;
  if (spec.type === 'enum' && !spec.values.includes(value)) return false;
  if (spec.type === 'int' && !(Number.isSafeInteger(value) && value === clampInt(spec, value))) return false;
  if (spec.maxLength !== undefined && String(value).length > spec.maxLength) return false;
  return true;
}

export function serialize(state) {
  const params = new URLSearchParams();
  for (const [key, spec] of Object.entries(SCHEMA)) {
    if (keep(spec, state[key])) params.set(key, String(state[key]));
  }
  const q = params.toString();
  return q ? '#' + q : '';
}

export function fitsInUrl(state, fields = Object.keys(SCHEMA)) {
  for (const key of fields) {
    const spec = SCHEMA[key];
    if (!spec) continue;
    const v = state[key];
    if (spec.maxLength !== undefined && typeof v === 'string' && v !== spec.default && v.length > spec.maxLength) {
      return false;
    }
  }
  return true;
}
