// text-models.js — what the text labs of one worker hold: the model list (models/text/manifest.json), one
// TextLab per model (loaded once, sha256-checked), the data sets (fetched once), and the models trained in
// this worker (their bytes kept). No DOM. Used by labs/text.js, labs/experiments.js and labs/train.js.
//
// Contract:
//   loadManifest() → Promise<manifest>            (the shipped list; manifestWithTrained() adds trained ones)
//   loadSession(name, onProgress?) → Promise<{ session (text-core.js), config, classNames }>; onProgress({model, stage,
//     loaded, total}) with stage 'core' | 'weights' | 'verify' | 'init' | 'ready' while it loads.
//   loadDataset(name, { trees } = {}) → Promise<{ name, tsv, lines, trees? }>  (lines: datasetLines(tsv), numbered as
//     the core does); trees: true → also the data set's SST PTB trees (manifest `trees`, sha256-checked: human
//     rationales for `plausibility`), as the data set `${name}+trees` (the core keeps the two apart)
//   documentModels() → Promise<[entry]>            (the manifest's `documents`: HAN models; [] when none)
//   loadDocumentSession(name, onProgress?) → Promise<{ lab (the core's HanLab), config, classNames }>: one per
//     document model, loaded once, the same sha256-checked files as the text models
//   registerTrained(name, { entry, configText, weights }) / trained: Map name → the same
//   A failed load is not cached, so a retry can succeed.
import { datasetLines } from '../dataset-lines.js';
import { readStream } from '../model-cache.js';
import { loadCore, fetchOk, checkSha256 } from '../host/core.js';
import { openTextModel } from './text-core.js';

const MANIFEST_URL = new URL('../../../models/text/manifest.json', import.meta.url);

let manifestPromise = null;
const sessions = new Map(); // model name → Promise<{ session, config, classNames }>
const documentSessions = new Map(); // document (HAN) model name → Promise<{ lab (HanLab), config, classNames }>
const datasets = new Map(); // data set name → Promise<{ name, tsv, lines }>
export const trained = new Map(); // name of a model trained here → { entry, configText, weights }

export const classNamesOf = (config) => config?.class_names ?? ['negative', 'positive'];

export function loadManifest() {
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

export async function manifestWithTrained() {
  const manifest = await loadManifest();
  if (trained.size === 0) return manifest;
  return { ...manifest, models: [...manifest.models, ...Array.from(trained.values(), (t) => t.entry)] };
}

function newSession(Module, name, configText, weights) {
  const session = openTextModel(Module, name, configText, weights);
  const config = JSON.parse(configText);
  return { session, config, classNames: classNamesOf(config) };
}

// The files of a shipped model entry (models: `models`, documents: `documents` of the manifest), fetched and
// sha256-checked: { Module, configText, weights }.
async function fetchShipped(name, entry, progress) {
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
  try {
    JSON.parse(configText);
  } catch (e) {
    throw new Error(`The config of ${name} is not valid JSON: ${e.message}`);
  }
  return { Module, configText, weights };
}

async function loadShipped(name, progress) {
  const manifest = await loadManifest();
  const entry = manifest.models.find((m) => m.name === name);
  if (!entry) {
    throw new Error(`Unknown model "${name}". Available: ${manifest.models.map((m) => m.name).join(', ')}.`);
  }
  const { Module, configText, weights } = await fetchShipped(name, entry, progress);
  progress(name, 'init');
  const s = newSession(Module, name, configText, weights);
  progress(name, 'ready');
  return s;
}

// The document models (manifest `documents`: HAN, docs/DESIGN.md "HAN"); [] when the list has none.
export async function documentModels() {
  const manifest = await loadManifest();
  return Array.isArray(manifest.documents) ? manifest.documents : [];
}

// One HanLab per document model, loaded once (same files check as the text models); a failed load is forgotten.
export function loadDocumentSession(name, onProgress = () => {}) {
  if (documentSessions.has(name)) return documentSessions.get(name);
  const progress = (model, stage, loaded = 0, total = 0) => onProgress({ model, stage, loaded, total });
  const p = (async () => {
    const list = await documentModels();
    const entry = list.find((m) => m?.name === name);
    if (!entry) {
      throw new Error(`Unknown document model "${name}". Available: ${list.map((m) => m.name).join(', ') || 'none'}.`);
    }
    const { Module, configText, weights } = await fetchShipped(name, entry, progress);
    progress(name, 'init');
    if (typeof Module.HanLab !== 'function') {
      throw new Error('This build of the WebAssembly core has no document (HAN) models; rebuild it (bash scripts/build-wasm.sh).');
    }
    let lab;
    try {
      lab = new Module.HanLab(configText, weights);
    } catch (e) {
      throw new Error(`The core could not load ${name}: ${e.message}`);
    }
    const config = JSON.parse(configText);
    progress(name, 'ready');
    return { lab, config, classNames: classNamesOf(config) };
  })();
  documentSessions.set(name, p);
  p.catch(() => documentSessions.delete(name));
  return p;
}

export function loadSession(name, onProgress = () => {}) {
  if (sessions.has(name)) return sessions.get(name);
  const progress = (model, stage, loaded = 0, total = 0) => onProgress({ model, stage, loaded, total });
  const p = trained.has(name)
    ? loadCore().then((Module) => newSession(Module, `the trained model ${name}`, trained.get(name).configText, trained.get(name).weights))
    : loadShipped(name, progress);
  sessions.set(name, p);
  p.catch(() => sessions.delete(name));
  return p;
}

export function registerTrained(name, record) {
  trained.set(name, record);
}

export function forgetTrained(name) {
  trained.delete(name);
  sessions.delete(name);
}

// One promise per key; a failed load is forgotten, so a retry can succeed.
function cachedDataset(key, load) {
  if (datasets.has(key)) return datasets.get(key);
  const p = load();
  datasets.set(key, p);
  p.catch(() => datasets.delete(key));
  return p;
}

export function loadDataset(name, { trees = false } = {}) {
  if (trees) return loadDatasetWithTrees(name);
  return cachedDataset(name, async () => {
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
    return { name, tsv, lines };
  });
}

function loadDatasetWithTrees(name) {
  const key = `${name}+trees`;
  return cachedDataset(key, async () => {
    const [manifest, base] = await Promise.all([loadManifest(), loadDataset(name)]);
    const entry = manifest.datasets.find((d) => d?.name === name);
    if (!entry?.trees?.path) {
      throw new Error(`The data set ${name} has no human rationales (no SST trees in the model list), so plausibility cannot be scored on it.`);
    }
    const url = new URL(entry.trees.path, MANIFEST_URL);
    const bytes = new Uint8Array(await (await fetchOk(url, `the trees of ${name}`)).arrayBuffer());
    await checkSha256(bytes, entry.trees.sha256, url.pathname);
    return { ...base, name: key, trees: new TextDecoder().decode(bytes) };
  });
}
