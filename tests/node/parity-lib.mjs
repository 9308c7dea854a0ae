// parity-lib.mjs — shared helpers for the Node parity tests and the text benchmark (not a test file itself).
// Contract: paths are resolved from the repository root (independent of the cwd); the wasm core is loaded
// from web/gen/attnlab_core.{mjs,wasm} by passing the bytes (createModule({ wasmBinary })); SST sentences come
// from ../shared/data/sst2/test.tsv ("label<TAB>sentence"); token → id uses the checkpoint's config.vocab
// (index = id, unknown → 1), applied to the tokens the core itself returns.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WASM_MJS = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.mjs');
export const WASM_BIN = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.wasm');
export const CLI = path.join(ROOT, 'build/attnlab');
export const SST_TEST = process.env.ATTNLAB_SST_TEST
  || path.resolve(ROOT, '../shared/data/sst2/test.tsv');
export const TEXT_MODELS = ['sst2-tanh', 'sst2-dot', 'sst2-uniform'];

// ATTNLAB_TEXT_MODELS overrides the folder holding sst2-* (e.g. to check freshly trained models before shipping).
export const TEXT_MODELS_DIR = process.env.ATTNLAB_TEXT_MODELS
  ? path.resolve(process.env.ATTNLAB_TEXT_MODELS) : path.join(ROOT, 'models/text');
export const modelDir = (name) => path.join(TEXT_MODELS_DIR, name);
export const hasModel = (dir) =>
  fs.existsSync(path.join(dir, 'config.json')) && fs.existsSync(path.join(dir, 'model.safetensors'));
export const hasWasm = () => fs.existsSync(WASM_MJS) && fs.existsSync(WASM_BIN);

let modulePromise = null;
/** The wasm core's Emscripten module (loaded once per process). */
export function loadCore() {
  if (!modulePromise) {
    modulePromise = import(pathToFileURL(WASM_MJS).href)
      .then(({ default: createModule }) => createModule({ wasmBinary: fs.readFileSync(WASM_BIN) }));
  }
  return modulePromise;
}

/** A loaded TextLab for a checkpoint folder (caller deletes it). Throws on a load error. */
export async function openSession(dir) {
  const Module = await loadCore();
  try {
    return new Module.TextLab(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'),
      new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))));
  } catch (e) {
    throw new Error(`TextLab(${dir}): ${e.message}`);
  }
}

/** First n sentences of the SST test split (text only). */
export function sstSentences(n) {
  return fs.readFileSync(SST_TEST, 'utf8').split('\n').filter((l) => l.trim())
    .slice(0, n).map((l) => l.slice(l.indexOf('\t') + 1));
}

export function vocabIndex(config) {
  const m = new Map();
  config.vocab.forEach((w, i) => { if (!m.has(w)) m.set(w, i); });
  return m;
}
export const tokenIds = (index, tokens) => tokens.map((w) => (index.has(w) ? index.get(w) : 1));

/** Max |a_i − b_i| over two equal-length numeric arrays; throws on a length mismatch. */
export function maxAbsDiff(a, b, what = 'arrays') {
  if (a.length !== b.length) throw new Error(`${what}: length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return Infinity;
    if (d > m) m = d;
  }
  return m;
}
