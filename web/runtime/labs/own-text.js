// own-text.js — "Your model" on the Text tab (issue 28): a user's ONNX text transformer (an encoder classifier or a
// causal language model) with its tokenizer, run forward and backward by the core's executor (Module.OnnxTextLab,
// wasm/onnx_text_bindings.cpp), in a worker of its own (runtime/own-text-client.js: a model that exhausts memory takes
// only that worker down). Nothing leaves the machine; the shipped demo (stories260K) is read from models/. No DOM.
//
// Requests (protocol: worker-channel.js):
//   ownText.load {model: Uint8Array, tokenizer: Uint8Array, config: string ('' = none), names: {model, tokenizer,
//     config}} → {info (OnnxTextLab.info()), name, bytes}. A model that cannot be read → Error with the core's message
//     (the files named); the model held so far stays.
//   ownText.shipped {name: 'stories260K'} → the same for the shipped demo: models/text/NAME/manifest.json, its model
//     and tokenizer fetched from models/ and checked against the manifest's sha256 (progress {stage: 'fetch', loaded,
//     total}).
//   ownText.tokenize {text} → {ids, tokens, offsets, special, texts (each id decoded alone)}
//   ownText.explain {ids, target ('next' | index)} → {explain (OnnxTextLab.explainIds without attention_layers; with
//     leave_one_out up to LOO_INLINE_TOKENS tokens, else without it: then it comes from the ownText.loo job), top ({top [{id, token, text, logit,
//     probability}] ≤ 5, greedy, stop}), maps (OnnxTextLab.attentionMaps, or null without attention), pieces {tokens,
//     texts}, ms, parts_ms {rows (explanation, top and maps: one OnnxTextLab.explainStep call, the same values as the
//     three calls), pieces} (the worker's time of each call: the benches read it)}. A text longer than the model's
//     positions is cut (explain.truncated says where).
//   ownText.loo {ids, target, p} (a job: a few tokens a step, cancellable) → {values (one per token, null where
//     undefined), ms} or {cancelled: true}; progress {stage: 'loo', done, total}.
//   ownText.ig {ids, target, special?} (a job; cancellable before it starts) → {values (integrated gradients, one per
//     token, IG_STEPS segments to start, from the baseline the core's `auto` picks: the zero token embeddings, or where
//     that path cannot be integrated the tokenizer's padding / unknown token with the template's `special` tokens
//     kept), completeness {sum, target}, baseline {kind, token?, piece?, zero_completeness?}, steps, ms} or
//     {cancelled: true}.
//   ownText.mixing {ids, method: 'value_zeroing' | 'alti'} (a job: one layer a step, cancellable) → {values (the method
//     rolled out, one per token, null where undefined), found {post_norm, layer_outputs: the block outputs found in the
//     graph}, ms} or {cancelled: true}; progress {stage: 'mixing', done, total} (layers). OnnxTextLab.contextMixingLayer
//     per layer, then contextMixingRollout.
//   ownText.generate {ids, steps} (a job: one greedy step per queue step, cancellable) → {ids, added, stop: 'steps' |
//     'end' (the model's end-of-text id) | 'model_limit' (a forward refused after
//     shorter ones ran: past the model's positions) | 'cancelled'} ; progress {stage: 'generate', done, total}.
//   ownText.experiment {name, ids, special, params, seed, layer} → {row (OnnxTextLab.experiment: the core's row, as
//     `attnlab experiment NAME --model DIR --data` on a one-line TSV), ms}. One call into the core: the debate panels
//     (views/own-text/debate.js) send them one at a time to a second worker holding the same model, so the explanation
//     never waits behind them and Cancel stops that worker.
//   ownText.adversarial {ids, special, params, seed, layer} (a job) → {row, ms, estimate_ms}: the adversarial search is
//     one call into the core with no steps of its own to report, so one Adam step is run first (its row dropped) and
//     its time × params.steps is sent as progress {stage: 'adversarial', estimate_ms}; the view shows elapsed / estimate.
//     Cancelled before the long call → {cancelled: true}; during it only by stopping the worker (the view does).
import { loadCore, fetchOk, checkSha256, warmHeap } from '../host/core.js';
import { isFatal } from '../host/host.js';

const MODELS = new URL('../../../models/text/', import.meta.url);
const held = { lab: null, name: '' };
// the leave-one-out forwards of one step: ~0.1–0.3 s of work on a short model, fewer as the text grows
const looChunk = (T) => Math.max(1, Math.min(16, Math.floor(4096 / Math.max(1, T))));

async function core() {
  const M = await loadCore();
  if (typeof M.OnnxTextLab !== 'function') {
    throw new Error('This WebAssembly core has no text-transformer executor (OnnxTextLab); rebuild it with `bash scripts/build-wasm.sh`.');
  }
  return M;
}

function lab() {
  if (!held.lab) throw new Error('No text model is loaded: choose its files, or try the shipped stories260K.');
  return held.lab;
}

// The heap written once after a model loads (host/core.js warmHeap): stories260K's first explanations touch ≈ 30 MB of
// fresh pages; written at load (≈ 10–25 ms beside the fetch), not during the reader's first "next".
const WARM_HEAP_BYTES = 32 << 20;

function open(M, model, tokenizer, config, names = {}) {
  const lab = new M.OnnxTextLab(model, tokenizer, config ?? '', { tokenizerName: names.tokenizer ?? 'tokenizer' });
  held.lab?.delete();
  held.lab = lab;
  held.name = names.model ?? 'model.onnx';
  warmHeap(M, WARM_HEAP_BYTES);
  return { info: lab.info(), name: held.name, bytes: model.length };
}

async function load(msg) {
  const M = await core();
  if (!(msg.model instanceof Uint8Array)) throw new Error('ownText.load needs the model’s bytes (a Uint8Array).');
  if (!(msg.tokenizer instanceof Uint8Array)) throw new Error('A tokenizer file is needed: tokenizer.json (Hugging Face) or tokenizer.bin (llama2.c).');
  return open(M, msg.model, msg.tokenizer, typeof msg.config === 'string' ? msg.config : '', msg.names ?? {});
}

async function shipped(msg, ctx) {
  const M = await core();
  const name = String(msg.name ?? 'stories260K');
  if (!/^[A-Za-z0-9_.-]{1,60}$/.test(name)) throw new Error(`“${name}” is not a shipped model name.`);
  const base = new URL(`${name}/`, MODELS);
  const manifest = await (await fetchOk(new URL('manifest.json', base), `the manifest of ${name}`)).json();
  const entry = manifest.models?.find((m) => m.name === name) ?? manifest.models?.[0];
  const files = entry?.files;
  if (!files?.model?.path || !files?.tokenizer?.path) throw new Error(`The manifest of ${name} names no model and tokenizer.`);
  const total = (files.model.bytes ?? 0) + (files.tokenizer.bytes ?? 0);
  ctx.progress({ stage: 'fetch', loaded: 0, total });
  const read = async (f, what) => {
    const bytes = new Uint8Array(await (await fetchOk(new URL(f.path, base), what)).arrayBuffer());
    await checkSha256(bytes, f.sha256, what);
    return bytes;
  };
  const model = await read(files.model, `${name}’s model`);
  ctx.progress({ stage: 'fetch', loaded: model.length, total });
  const tokenizer = await read(files.tokenizer, `${name}’s tokenizer`);
  const r = open(M, model, tokenizer, '', { model: name, tokenizer: files.tokenizer.path });
  return { ...r, shipped: name, description: entry.description ?? '', license: entry.provenance?.source?.license ?? '' };
}

function tokenize(msg) {
  const l = lab();
  const t = l.tokenize(String(msg.text ?? ''), true);
  const texts = t.ids.length ? l.pieces(t.ids).texts : [];
  return { ...t, texts };
}

// Leave-one-out runs inside explain up to this many tokens (a few ms each on a small model: one answer, no job). 64,
// not 48: on the BERT-shaped fixture at 51 tokens the separate job (chunks of 16 deletions) took 244–263 ms where the
// inline rows with leave-one-out take 108–136 ms (docs/BENCHMARKS.md, issue 28's 50-token target).
export const LOO_INLINE_TOKENS = 64;

function explain(msg) {
  const l = lab();
  const t0 = performance.now();
  const inline = (msg.ids?.length ?? 0) <= LOO_INLINE_TOKENS;
  const k = Math.min(5, Math.max(1, l.info().outputs));
  const { explain: e, top, maps } = l.explainStep(msg.ids, msg.target ?? 'next', { leaveOneOut: inline, contextMixing: false, attentionLayers: false, top: k });
  const t1 = performance.now();
  const pieces = l.pieces(e.ids);
  const t2 = performance.now();
  return { explain: e, top, maps, pieces, ms: t2 - t0, parts_ms: { rows: t1 - t0, pieces: t2 - t1 } };
}

async function loo(msg, ctx) {
  const ids = msg.ids;
  const T = ids?.length ?? 0;
  const t0 = performance.now();
  const values = [];
  const n = looChunk(T);
  for (let b = 0; b < T; b += n) {
    await ctx.yield(); // a macrotask: a queued 'cancel' is seen here
    if (ctx.cancelled()) return { cancelled: true };
    const r = await ctx.step(() => lab().leaveOneOut(ids, msg.target, msg.p, b, Math.min(n, T - b)));
    values.push(...r.values);
    ctx.progress({ stage: 'loo', done: values.length, total: T });
  }
  return { values, ms: performance.now() - t0 };
}

// Integrated gradients (OnnxTextLab.integratedGradients): one call into the core, so a job only to be cancellable
// before it starts and to run after the rows the explanation answered with.
export const IG_STEPS = 50;
async function ig(msg, ctx) {
  await ctx.yield();
  if (ctx.cancelled()) return { cancelled: true };
  const t0 = performance.now();
  const r = await ctx.step(() => lab().integratedGradients(msg.ids, msg.target, IG_STEPS, Array.isArray(msg.special) ? { special: msg.special } : {}));
  return { ...r, steps: IG_STEPS, ms: performance.now() - t0 };
}

async function mixing(msg, ctx) {
  const ids = msg.ids;
  const t0 = performance.now();
  const L = lab().info().layers;
  const layers = [];
  let found = null;
  for (let l = 0; l < L; l++) {
    await ctx.yield();
    if (ctx.cancelled()) return { cancelled: true };
    const r = await ctx.step(() => lab().contextMixingLayer(ids, msg.method, l));
    layers.push(r.values);
    found = r.found;
    ctx.progress({ stage: 'mixing', done: l + 1, total: L });
  }
  const r = await ctx.step(() => lab().contextMixingRollout(ids, layers));
  return { values: r.values, found, ms: performance.now() - t0 };
}

async function generate(msg, ctx) {
  const ids = [...(msg.ids ?? [])];
  const steps = Math.max(0, Math.min(1024, msg.steps | 0));
  let stop = 'steps';
  for (let k = 0; k < steps; k++) {
    await ctx.yield();
    if (ctx.cancelled()) {
      stop = 'cancelled';
      break;
    }
    let s;
    try {
      s = await ctx.step(() => lab().greedyStep(ids));
    } catch (e) {
      if (k === 0 || isFatal(e)) throw e;
      stop = 'model_limit'; // a longer text than the model's positions: the text so far is kept (as attnlab generate)
      break;
    }
    if (s.stop) {
      stop = 'end';
      break;
    }
    ids.push(s.id);
    ctx.progress({ stage: 'generate', done: k + 1, total: steps });
  }
  return { ids, added: ids.length - (msg.ids?.length ?? 0), stop };
}

function experimentArgs(msg) {
  return [{ ids: msg.ids, special: msg.special ?? null }, { params: msg.params ?? {}, seed: msg.seed ?? 1, layer: msg.layer ?? -1 }];
}

function experiment(msg) {
  const t0 = performance.now();
  const [input, options] = experimentArgs(msg);
  const row = lab().experiment(String(msg.name ?? ''), input, options);
  return { row, ms: performance.now() - t0 };
}

async function adversarial(msg, ctx) {
  const [input, options] = experimentArgs(msg);
  const steps = Number.isInteger(options.params.steps) ? options.params.steps : 500;
  const t0 = performance.now();
  await ctx.step(() => lab().experiment('adversarial', input, { ...options, params: { ...options.params, steps: 1 } }));
  const estimate = (performance.now() - t0) * steps;
  ctx.progress({ stage: 'adversarial', estimate_ms: estimate });
  await ctx.yield();
  if (ctx.cancelled()) return { cancelled: true };
  const t1 = performance.now();
  const row = await ctx.step(() => lab().experiment('adversarial', input, options));
  return { row, ms: performance.now() - t1, estimate_ms: estimate };
}

export const ownTextLab = {
  name: 'own-text',
  handlers: {
    'ownText.load': load, 'ownText.shipped': shipped, 'ownText.tokenize': tokenize, 'ownText.explain': explain,
    'ownText.loo': { job: loo }, 'ownText.ig': { job: ig }, 'ownText.mixing': { job: mixing }, 'ownText.generate': { job: generate },
    'ownText.experiment': experiment, 'ownText.adversarial': { job: adversarial },
  },
};
