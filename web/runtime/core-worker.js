// core-worker.js — module Web Worker that owns the WebAssembly core, the loaded text models and data sets.
//
// Contract (messages; no DOM):
//   in  {type:'manifest', id}                         → out {type:'result', id, result: manifest}
//   in  {type:'explain', id, model, text, maxTokens, igSteps}
//                                                     → out {type:'result', id, result}
//       result = the explain JSON of docs/DESIGN.md plus `model` (name) and `class_names` (from config).
//   in  {type:'experiments', id}                      → result: [{name, description}] — Module.experimentNames();
//                                                       [] for a core built without experiments.
//   in  {type:'experiment', id, model, name, text, params, seed, maxTokens}
//                                                     → result: the experiment's row for this one text (instance
//                                                       index 0) + tokens, unknown, model, class_names.
//                                                       A row may be {skipped: reason}; {error} → an error reply.
//   in  {type:'experimentRows', id, model, name, dataset, start, count, params, seed}
//                                                     → result: {rows, total, model, dataset, class_names}: rows of
//                                                       instances [start, start+count) of the manifest's data set
//                                                       `dataset`; each row gets `text` (its sentence).
//   in  {type:'experimentSummary', id, model, name, rows, params, seed}
//                                                     → result: the experiment's summary object of `rows`.
//   in  {type:'train', id, attention, seed, epochs}  → trains a model on the manifest's sst2-train (dev: sst2-dev,
//                                                       the best dev-accuracy epoch kept, test metrics on
//                                                       sst2-test) with the core's TextTrainer, in short steps;
//                                                       after each step out {type:'trainProgress', id, progress}
//                                                       (runtime/train-job.js; progress.stage 'data' | 'train' |
//                                                       'test'). result: {cancelled, model, config, weights,
//                                                       epochs_done, progress}: model = a manifest-style entry
//                                                       (trained: true) now loadable by name like a shipped
//                                                       model, config = its config.json text, weights = its
//                                                       safetensors bytes; model/config/weights are null when it
//                                                       was cancelled before one epoch finished. One training
//                                                       at a time (a second one is an error).
//   in  {type:'train', id, kind:'adversary', base, lambda, seed, epochs}
//                                                     → the same, for a Wiegreffe & Pinter model-consistent
//                                                       adversary of the shipped model `base` (an SST-2 model with
//                                                       learned attention) with the core's AdversaryTrainer on
//                                                       sst2-train; progress.dev also has tvd_mean, jsd_mean,
//                                                       kl_mean (to the base, on sst2-dev); the model kept is the
//                                                       last finished epoch, its config's metrics.test the
//                                                       comparison on sst2-test; model.provenance.kind 'adversary'.
//   in  {type:'cancelTrain'}                          → no reply; the running training stops before its next step
//                                                       (its 'train' request then resolves, cancelled: true).
//   any failure                                       → out {type:'error', id, message}  (human-readable)
//   while a model loads                               → out {type:'progress', model, stage, loaded, total}
//       stage: 'core' | 'config' | 'weights' | 'verify' | 'init' | 'ready'; total is 0 when unknown.
// params is a plain object of experiment parameters ({} = the core's defaults); seed a non-negative integer.
// Paths: ../gen/attnlab_core.mjs (+ .wasm) and ../../models/text/manifest.json, relative to this file;
// each model's files are relative to the manifest (`path` + `files.config` / `files.weights`), and so is a
// data set's `path` (manifest.datasets). When the manifest lists a sha256 for a file, the bytes are checked
// before use. Loaded sessions and data sets are cached; a failed load is not cached, so a retry can succeed.
// Requests run one at a time, in arrival order; a training is not one request but a series of steps, each
// queued like a request, so requests sent while it trains run between its steps. Trained models live in
// this worker's memory only (their bytes are kept, so they survive a core reload, not a page reload); the
// manifest reply lists them after the shipped models. If the wasm instance aborts, it is dropped and
// reloaded with the next request.
import { datasetLines } from './dataset-lines.js';
import { runTrainingJob } from './train-job.js';
import { trainedName, adversaryName, adversaryBases, MAX_SEED, MAX_EPOCHS } from '../analysis/training.js';
import { readStream, sha256Hex } from './model-cache.js';

const CORE_URL = new URL('../gen/attnlab_core.mjs', import.meta.url);
const MANIFEST_URL = new URL('../../models/text/manifest.json', import.meta.url);

let corePromise = null;
let manifestPromise = null;
const sessions = new Map(); // model name → Promise<{ session, config }>
const trained = new Map(); // name of a model trained here → { entry, configText, weights }

function progress(model, stage, loaded = 0, total = 0) {
  self.postMessage({ type: 'progress', model, stage, loaded, total });
}

async function fetchOk(url, what) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`Could not fetch ${what} (${url.pathname}): ${e.message}`);
  }
  if (!res.ok) throw new Error(`Could not fetch ${what} (${url.pathname}): HTTP ${res.status}`);
  return res;
}

function loadCore() {
  corePromise ??= (async () => {
    let createModule;
    try {
      ({ default: createModule } = await import(CORE_URL.href));
    } catch (e) {
      throw new Error(
        `The WebAssembly core is missing or broken (${CORE_URL.pathname}): ${e.message}. ` +
          'Build it with `bash scripts/build-wasm.sh` (or `npm run serve`, which builds it).',
      );
    }
    return createModule({
      locateFile: (file) => new URL(file, CORE_URL).href,
    });
  })().catch((e) => {
    corePromise = null; // allow a retry after a transient failure
    throw e;
  });
  return corePromise;
}

function loadManifest() {
  manifestPromise ??= (async () => {
    const res = await fetchOk(MANIFEST_URL, 'the model list');
    let manifest;
    try {
      manifest = await res.json();
    } catch (e) {
      throw new Error(`The model list (${MANIFEST_URL.pathname}) is not valid JSON: ${e.message}`);
    }
    if (!Array.isArray(manifest?.models) || manifest.models.length === 0) {
      throw new Error(`The model list (${MANIFEST_URL.pathname}) has no models.`);
    }
    return manifest;
  })().catch((e) => {
    manifestPromise = null;
    throw e;
  });
  return manifestPromise;
}

async function checkSha256(bytes, expected, what) {
  if (typeof expected !== 'string' || !/^[0-9a-f]{64}$/i.test(expected)) return;
  if (!self.crypto?.subtle) return; // not a secure context: nothing to check with
  const hex = await sha256Hex(bytes, self.crypto.subtle);
  if (hex !== expected.toLowerCase()) {
    throw new Error(`${what} does not match its sha256 in the manifest (got ${hex.slice(0, 12)}…, expected ${expected.slice(0, 12)}…).`);
  }
}

// A model trained in this worker: a session from its kept bytes.
async function loadTrainedSession(name) {
  const { configText, weights } = trained.get(name);
  const Module = await loadCore();
  const session = new Module.TextSession();
  const err = session.load(configText, weights);
  if (err) {
    session.delete();
    throw new Error(`The core could not load the trained model ${name}: ${err}`);
  }
  return { session, config: JSON.parse(configText) };
}

function loadSession(name) {
  if (sessions.has(name)) return sessions.get(name);
  if (trained.has(name)) {
    const p = loadTrainedSession(name);
    sessions.set(name, p);
    p.catch(() => sessions.delete(name));
    return p;
  }
  const p = (async () => {
    const manifest = await loadManifest();
    const entry = manifest.models.find((m) => m.name === name);
    if (!entry) {
      throw new Error(`Unknown model "${name}". Available: ${manifest.models.map((m) => m.name).join(', ')}.`);
    }
    const base = new URL(entry.path ?? `${name}/`, MANIFEST_URL);
    const files = entry.files ?? {};
    const configUrl = new URL(files.config ?? 'config.json', base);
    const weightsUrl = new URL(files.weights ?? 'model.safetensors', base);
    const sha = entry.sha256 ?? {};

    progress(name, 'core');
    const [Module, configBytes, weights] = await Promise.all([
      loadCore(),
      fetchOk(configUrl, `the config of ${name}`).then((r) => r.arrayBuffer()).then((b) => new Uint8Array(b)),
      fetchOk(weightsUrl, `the weights of ${name}`).then((r) => readStream(r,
        Number(r.headers.get('Content-Length')) || 0, ({ loaded, total }) => progress(name, 'weights', loaded, total))),
    ]);

    progress(name, 'verify');
    await checkSha256(configBytes, sha.config ?? sha[files.config ?? 'config.json'], configUrl.pathname);
    await checkSha256(weights, sha.weights ?? sha[files.weights ?? 'model.safetensors'], weightsUrl.pathname);
    const configText = new TextDecoder().decode(configBytes);

    let config;
    try {
      config = JSON.parse(configText);
    } catch (e) {
      throw new Error(`The config of ${name} is not valid JSON: ${e.message}`);
    }

    progress(name, 'init');
    const session = new Module.TextSession();
    const err = session.load(configText, weights);
    if (err) {
      session.delete();
      throw new Error(`The core could not load ${name}: ${err}`);
    }
    progress(name, 'ready');
    return { session, config };
  })();
  sessions.set(name, p);
  p.catch(() => sessions.delete(name));
  return p;
}

// Runs fn(); a wasm abort (RuntimeError) leaves an instance that cannot be trusted: drop it so the next
// request starts over, and say so.
function callCore(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      corePromise = null;
      sessions.clear();
      throw new Error(`The core crashed on this input (${e.message}); it will be reloaded for the next request.`);
    }
    throw e;
  }
}

function parseCore(json) {
  let result;
  try {
    result = JSON.parse(json);
  } catch (e) {
    throw new Error(`The core returned invalid JSON: ${e.message}`);
  }
  if (result && typeof result === 'object' && !Array.isArray(result) && result.error) throw new Error(result.error);
  return result;
}

async function explain({ model, text, maxTokens = 200, igSteps = 20 }) {
  const { session, config } = await loadSession(model);
  const result = parseCore(callCore(() => session.explain(String(text ?? ''), maxTokens, igSteps)));
  result.model = model;
  result.class_names = config.class_names ?? ['negative', 'positive'];
  return result;
}

// --- experiments (core/experiments through the TextSession) ---------------------------------------------

async function experimentNames() {
  const Module = await loadCore();
  if (typeof Module.experimentNames !== 'function') return [];
  const list = parseCore(callCore(() => Module.experimentNames()));
  return Array.isArray(list) ? list.filter((e) => e && typeof e.name === 'string') : [];
}

function requireExperiments(session) {
  if (typeof session.experiment !== 'function') {
    throw new Error('This build of the WebAssembly core has no experiments; rebuild it (bash scripts/build-wasm.sh).');
  }
}

function paramsJson(params) {
  return JSON.stringify(params && typeof params === 'object' ? params : {});
}

function seedOf(seed) {
  const s = Number(seed ?? 1);
  if (!Number.isSafeInteger(s) || s < 0) throw new Error(`The seed must be a non-negative integer (got ${seed}).`);
  return s;
}

async function experiment({ model, name, text, params, seed, maxTokens = 200 }) {
  const { session, config } = await loadSession(model);
  requireExperiments(session);
  const row = parseCore(callCore(() =>
    session.experiment(String(name), String(text ?? ''), paramsJson(params), seedOf(seed), maxTokens)));
  row.model = model;
  row.class_names = config.class_names ?? ['negative', 'positive'];
  return row;
}

const datasets = new Map(); // data set name → Promise<{ tsv, lines }>

function loadDataset(name) {
  if (datasets.has(name)) return datasets.get(name);
  const p = (async () => {
    const manifest = await loadManifest();
    const list = Array.isArray(manifest.datasets) ? manifest.datasets : [];
    const entry = list.find((d) => d?.name === name);
    if (!entry) {
      throw new Error(`Unknown data set "${name}". Available: ${list.map((d) => d.name).join(', ') || 'none'}.`);
    }
    const url = new URL(entry.path ?? `data/${name}.tsv`, MANIFEST_URL);
    const bytes = new Uint8Array(await (await fetchOk(url, `the data set ${name}`)).arrayBuffer());
    await checkSha256(bytes, entry.sha256, url.pathname);
    const tsv = new TextDecoder().decode(bytes);
    let lines;
    try {
      lines = datasetLines(tsv);
    } catch (e) {
      throw new Error(`The data set ${name} (${url.pathname}) cannot be read: ${e.message}`);
    }
    return { tsv, lines };
  })();
  datasets.set(name, p);
  p.catch(() => datasets.delete(name));
  return p;
}

async function experimentRows({ model, name, dataset, start = 0, count = 10, params, seed }) {
  const [{ session, config }, data] = await Promise.all([loadSession(model), loadDataset(dataset)]);
  requireExperiments(session);
  const res = parseCore(callCore(() =>
    session.experimentRows(String(name), data.tsv, start, count, paramsJson(params), seedOf(seed))));
  const rows = Array.isArray(res.rows) ? res.rows : [];
  for (const row of rows) {
    const line = Number.isInteger(row?.index) ? data.lines[row.index] : undefined;
    if (line) row.text = line.text;
  }
  return { rows, total: res.total, model, dataset, class_names: config.class_names ?? ['negative', 'positive'] };
}

async function experimentSummary({ model, name, rows, params, seed }) {
  const { session } = await loadSession(model);
  requireExperiments(session);
  const json = JSON.stringify(Array.isArray(rows) ? rows : []);
  return parseCore(callCore(() => session.experimentSummary(String(name), json, paramsJson(params), seedOf(seed))));
}

// --- training in the worker (runtime/train-job.js does the steps) ---------------------------------------

const TRAIN_SETS = { train: 'sst2-train', dev: 'sst2-dev', test: 'sst2-test' };
const ATTENTION_KINDS = ['uniform', 'tanh', 'dot'];
let trainingJob = null; // { cancel } while a training runs

function trainOptions({ attention, seed, epochs }) {
  if (!ATTENTION_KINDS.includes(attention)) throw new Error(`The attention must be one of ${ATTENTION_KINDS.join(', ')} (got ${attention}).`);
  const s = Number(seed);
  if (!Number.isSafeInteger(s) || s < 0 || s > MAX_SEED) throw new Error(`The seed must be an integer from 0 to ${MAX_SEED} (got ${seed}).`);
  const e = Number(epochs);
  if (!Number.isSafeInteger(e) || e < 1 || e > MAX_EPOCHS) throw new Error(`The epochs must be an integer from 1 to ${MAX_EPOCHS} (got ${epochs}).`);
  return { attention, seed: s, epochs: e };
}

function adversaryOptions({ base, lambda, seed, epochs }, manifest) {
  const bases = adversaryBases(manifest.models);
  if (!bases.includes(base)) throw new Error(`The adversary's base model must be one of ${bases.join(', ')} (got ${base}).`);
  const l = Number(lambda);
  if (!(typeof lambda === 'number' || typeof lambda === 'string') || !Number.isFinite(l) || l < 0 || l > 1e6) {
    throw new Error(`λ must be a number from 0 to 1e6 (got ${lambda}).`);
  }
  const { seed: s, epochs: e } = trainOptions({ attention: 'tanh', seed, epochs });
  return { base, lambda: l, seed: s, epochs: e };
}

function adversaryEntry(name, options, configText, weights, res) {
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

function trainedEntry(name, options, configText, weights, res, manifest) {
  const config = JSON.parse(configText);
  const t = config.training ?? {};
  const sets = Object.fromEntries(Object.entries(TRAIN_SETS).map(([k, n]) => {
    const d = (manifest.datasets ?? []).find((x) => x?.name === n);
    return [k, { dataset: n, sha256: d?.sha256 ?? null }];
  }));
  const cancelled = res.status === 'cancelled';
  return {
    name,
    attention: config.attention,
    dataset: 'sst2',
    trained: true,
    description: `Trained in this page · SST-2 sentences · ${config.attention} attention · seed ${options.seed} · ` +
      `best epoch ${t.best_epoch} of ${t.epochs_run}${cancelled ? ` (cancelled; ${options.epochs} asked)` : ''}`,
    vocab_size: Array.isArray(config.vocab) ? config.vocab.length : null,
    bytes: { config: new TextEncoder().encode(configText).length, weights: weights.length },
    metrics: config.metrics,
    provenance: {
      where: 'trained in this browser tab (in memory: a reload forgets it; download it to keep it)',
      seed: options.seed,
      epochs: options.epochs,
      epochs_run: t.epochs_run,
      best_epoch: t.best_epoch,
      cancelled,
      training_data: 'SST-2 sentence-level train (6,920 sentences), vocabulary: every training word (min count 1)',
      data: sets,
      same_as: cancelled ? null : 'build/attnlab train-text --train ../shared/data/sst2/train.tsv --dev ../shared/data/sst2/dev.tsv ' +
        `--test ../shared/data/sst2/test.tsv --out DIR --attention ${options.attention} --seed ${options.seed} ` +
        `--epochs ${options.epochs} --min-count 1 --storage f32`,
    },
  };
}

async function train(msg) {
  if (trainingJob) throw new Error('A model is already being trained in this page; wait for it to finish or cancel it.');
  const job = (trainingJob = { cancel: false });
  const post = (progress) => self.postMessage({ type: 'trainProgress', id: msg.id, progress });
  try {
    const adversary = msg.kind === 'adversary';
    const options = adversary ? adversaryOptions(msg, await loadManifest()) : trainOptions(msg);
    post({ stage: 'data' });
    const [Module, manifest, trainSet, devSet, testSet] = await Promise.all([
      loadCore(), loadManifest(), loadDataset(TRAIN_SETS.train), loadDataset(TRAIN_SETS.dev), loadDataset(TRAIN_SETS.test),
    ]);
    let createTrainer = null;
    if (adversary) {
      // The base is loaded like any model (sha256-checked); the trainer copies it at construction.
      const { session } = await serial(() => loadSession(options.base));
      if (typeof Module.AdversaryTrainer !== 'function') {
        throw new Error('This build of the WebAssembly core cannot train an adversary; rebuild it (bash scripts/build-wasm.sh).');
      }
      const trainer = await serial(() => callCore(() => new Module.AdversaryTrainer(session)));
      createTrainer = () => trainer;
    }
    const res = await runTrainingJob({
      Module,
      trainTsv: trainSet.tsv,
      devTsv: devSet.tsv,
      testTsv: testSet.tsv,
      options,
      createTrainer,
      run: (fn) => serial(() => callCore(fn)),
      isCancelled: () => job.cancel,
      onProgress: post,
    });
    if (!res.configText) {
      return { cancelled: true, model: null, config: null, weights: null, epochs_done: res.epochsDone, progress: res.progress };
    }
    const taken = [...manifest.models.map((m) => m.name), ...trained.keys()];
    const name = adversary
      ? adversaryName(options.base, options.lambda, options.seed, taken)
      : trainedName(options.attention, options.seed, taken);
    const entry = adversary
      ? adversaryEntry(name, options, res.configText, res.weights, res)
      : trainedEntry(name, options, res.configText, res.weights, res, manifest);
    trained.set(name, { entry, configText: res.configText, weights: res.weights });
    try {
      await serial(() => loadSession(name)); // check it loads; the session is cached for the first explain
    } catch (e) {
      trained.delete(name);
      throw e;
    }
    return {
      cancelled: res.status === 'cancelled', model: entry, config: res.configText, weights: res.weights,
      epochs_done: res.epochsDone, progress: res.progress,
    };
  } finally {
    trainingJob = null;
  }
}

async function manifestWithTrained() {
  const manifest = await loadManifest();
  if (trained.size === 0) return manifest;
  return { ...manifest, models: [...manifest.models, ...Array.from(trained.values(), (t) => t.entry)] };
}

const HANDLERS = {
  manifest: () => manifestWithTrained(),
  explain,
  experiments: () => experimentNames(),
  experiment,
  experimentRows,
  experimentSummary,
};

// Requests run one at a time, in arrival order (the client keeps at most one waiting per channel).
// serial(fn) queues fn behind everything queued so far and resolves / rejects with its result.
let queue = Promise.resolve();
function serial(fn) {
  const result = queue.then(fn);
  queue = result.catch(() => {});
  return result;
}

async function reply(msg, work) {
  try {
    self.postMessage({ type: 'result', id: msg.id, result: await work() });
  } catch (e) {
    self.postMessage({ type: 'error', id: msg.id, message: e?.message ?? String(e) });
  }
}

self.onmessage = (event) => {
  const msg = event.data ?? {};
  if (msg.type === 'cancelTrain') {
    if (trainingJob) trainingJob.cancel = true;
    return;
  }
  if (msg.type === 'train') {
    reply(msg, () => train(msg)); // its steps are queued one by one
    return;
  }
  reply(msg, () => serial(() => {
    const handler = Object.hasOwn(HANDLERS, msg.type) ? HANDLERS[msg.type] : null;
    if (!handler) throw new Error(`Unknown request type "${msg.type}"`);
    return handler(msg);
  }));
};

// Start fetching what every page needs right away; errors surface with the first request.
loadManifest().catch(() => {});
loadCore().catch(() => {});
