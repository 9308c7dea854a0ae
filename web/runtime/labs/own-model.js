// own-model.js — "Your model" (issue 11): a user's ONNX image classifier, run forward AND backward by the core's
// own executor (Module.OnnxLab, wasm/onnx_bindings.cpp), in a worker of its own (a model that exhausts memory
// takes only that worker down; the shipped MobileNetV2 keeps its worker). Nothing leaves the machine. No DOM.
// A model the core cannot run only because it lacks an operator (or the model's opset is outside the core's range,
// catalogue.onnx.opsets: 1–21) but that is still a one-input image classifier is run forward by ONNX Runtime Web
// instead (wasm EP, ort.wasm.min.mjs, loaded in this worker): engine 'ort'. Then only the forward-only plans work
// (RISE, occlusion, deletion, insertion, ROAD),
// and a vision transformer's forward-only attention maps (attention, rollout): the attention the core finds in the
// graph is made graph outputs (Module.exposeAttention) so ORT returns it, and the core maps it
// (Module.vitMapFromAttention); the photo's model input comes from the core (Module.modelInput: the same scaling and
// resize as OnnxLab).
//
// Requests (protocol: worker-channel.js):
//   own.load {bytes: Uint8Array, inputSize} → {summary (Module.onnxInfo: inputs, outputs, operators, parameters,
//     unsupported, runnable, error, input_shape, classes, spatial_layers, auto_layer), runnable, engine, missing,
//     opset, error}.
//     engine 'core': the core runs it (every method); missing [], opset null, error ''.
//     engine 'ort': ONNX Runtime Web runs it; summary.input_shape / classes are ORT's (spatial_layers [],
//     auto_layer ''); missing = the operators the core lacks ['Op (n)', …] (summary.unsupported), opset = the
//     model's default-domain opset when outside what the core runs (else null); error = the core's reason.
//     A runnable model replaces the one held (its photo and maps go); a file that is not ONNX → Error; a model
//     that cannot run (not an image classifier: error "… expects INT64 [1, 64] (input ‘x’), not an image …";
//     refused by the core for another reason; or ORT refuses it too: error names both) → runnable false,
//     engine null, the one held stays.
//   own.classify {blob | rgba,width,height, scaling} → {photoId, logits, probs, top (indices by probability, ≤ 5),
//     display RGBA 224² (the crop the model sees, before its own resize), width, height, notes, ms}
//     (the image lab's decoding and 224² centre crop, runtime/image/decode.js + Module.preprocessImage; then the
//     model's scaling and size: core/image/model_input.h).
//   own.map {photoId, method, layer, classIndex, options, colormap} → {key, rgba (the colour map, 224²), raw
//     (the map at its own resolution), mapShape [h, w], layer, classIndex, peak {x, y} (224² px), completeness?,
//     attention? {tokens, classTokens, layers, heads, note} (layer 'attention': an image transformer's map),
//     conservation? {logit, pixels, unexplained} and rules (AttnLRP / CP-LRP: core/explain/onnx/vit_maps.h), ms}.
//     Methods: catalogue.onnx.methods. The 224² map is kept under key for the curves. Engine 'ort': the methods with
//     forward_only (from the attention ORT returns; summary.attention lists what the core found, [] when ORT could
//     not run the model with it as outputs); any other method an Error.
//   own.recolor {photoId, keys, colormap} → {maps: {key: rgba}} (the kept 224² maps in another colour map)
//   own.sanity {photoId, method, layer, classIndex, seed, options, colormap} → {method, layer, classIndex, spearman
//     (of the two maps at their own resolution; null when undefined), shuffled (weight tensors), randomizedClass,
//     original, randomized (colour maps, 224²), mapShape}: the weights after the layer shuffled (OnnxLab.sanity).
//     Engine 'ort': an Error.
//   own.plan {photoId, kind, classIndex, params, map?, layer?, colormap} (a job: one forward pass per step,
//     cancellable) kind scorecam (at `layer`) | rise | occlusion → a map result as own.map; deletion | insertion
//     of the kept map `map` (a key) → {x, y, auc} (core/metrics/deletion_insertion.h); road {order morf | lerf,
//     noise, seed} of the kept map → {kind, percentages, y, mean} (core/metrics/road.h; defaults: the catalogue's). Progress {stage:'plan',
//     loaded, total}. Cancelled → {cancelled: true}. Engine 'ort': every kind but scorecam (an Error: no layers),
//     the forward passes on ONNX Runtime Web (up to 8 inputs a run when the model's batch is symbolic).
import { loadCore } from '../host/core.js';
import { runPlanLoop } from '../plan-runner.js';
import { argmax, decodeBlob, describePixels, planarToRgba, topK, S } from '../image/decode.js';
import { chooseBackend, loadOrt } from '../ort-backend.js';
import { errText } from '../host/host.js';
import { coreGaps, imageInput, textModelWhy } from '../../analysis/own-model.js';
import { CATALOGUE } from '../../catalogue.js';

const ORT_BASE = new URL('../../../vendor/ort/', import.meta.url);
// The attention methods that read one forward pass's attention alone (ORT can give it: catalogue forward_only).
const FORWARD_ONLY = new Set(CATALOGUE.onnx.methods.filter((m) => m.forward_only).map((m) => m.name));
// lab: the core's OnnxLab (engine 'core'); ort: {session, input, output, C, H, W, batch, scaling} (engine 'ort').
const own = { engine: null, lab: null, ort: null, info: null, photo: null, maps: new Map() };
let ortModule = null;
let nextPhotoId = 1;

function softmax(logits) {
  const m = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return Float32Array.from(e, (v) => v / z);
}

async function core() {
  const M = await loadCore();
  if (typeof M.OnnxLab !== 'function') throw new Error('This WebAssembly core has no ONNX executor (OnnxLab); rebuild it with `bash scripts/build-wasm.sh`.');
  return M;
}

function needPhoto(photoId) {
  if (!own.engine) throw new Error('No model is loaded: choose an .onnx file first.');
  if (!own.photo || own.photo.photoId !== photoId) throw new Error('That photo is no longer loaded; pick it again.');
  return own.photo;
}

function checkClass(c) {
  const n = own.info.classes;
  if (!Number.isInteger(c) || c < 0 || c >= n) throw new Error(`Class index ${c} is out of range 0…${n - 1}.`);
  return c;
}

function dropHeld() {
  own.lab?.delete();
  own.ort?.session.release?.().catch?.(() => {});
  Object.assign(own, { engine: null, lab: null, ort: null, info: null, photo: null, maps: new Map() });
}

async function load(msg) {
  const M = await core();
  if (!(msg.bytes instanceof Uint8Array)) throw new Error('own.load needs the model bytes (a Uint8Array).');
  const size = msg.inputSize | 0;
  const summary = M.onnxInfo(msg.bytes, size); // throws for a file that is not ONNX
  const refused = (error) => ({ summary, runnable: false, engine: null, missing: summary.unsupported ?? [], opset: null, error });
  if (summary.kind === 'text') return refused(textModelWhy(summary));
  if (summary.runnable) {
    const lab = new M.OnnxLab(msg.bytes, size);
    dropHeld();
    Object.assign(own, { engine: 'core', lab, info: lab.info() });
    return { summary, runnable: true, engine: 'core', missing: [], opset: null, error: '' };
  }
  const input = imageInput(summary, size);
  if (!input.ok) return refused(input.why);
  const gaps = coreGaps(summary);
  if (!gaps.missing.length && gaps.opset === null) return refused(summary.error);
  let ort = null;
  if (summary.attention?.length) { // a vision transformer: its attention as extra outputs, else the plain model
    try {
      const exposed = M.exposeAttention(msg.bytes);
      ort = await ortSession(exposed.bytes, summary, input, exposed.outputs);
    } catch {
      ort = null;
    }
  }
  try {
    ort ??= await ortSession(msg.bytes, summary, input, []);
  } catch (e) {
    return refused(`${summary.error}; ONNX Runtime Web could not run it either: ${errText(e)}`);
  }
  dropHeld();
  const info = { input_shape: [1, input.C, input.H, input.W], classes: ort.classes, spatial_layers: [], auto_layer: '' };
  Object.assign(own, { engine: 'ort', ort, info });
  const attention = ort.attention.length ? summary.attention : [];
  return { summary: { ...summary, ...info, attention }, runnable: true, engine: 'ort', missing: gaps.missing, opset: gaps.opset, error: summary.error };
}

// ONNX Runtime Web on the wasm EP (the page's threads when cross-origin isolated), one session per model, checked
// with an all-zero input: one float output of [1, classes] or [classes] values; with a symbolic batch, a run of two
// inputs must give [2, classes] for the plans to batch. attention: the graph outputs that are attention
// distributions (Module.exposeAttention), never the class scores.
async function ortSession(bytes, summary, input, attention) {
  if (!ortModule) {
    const choice = await chooseBackend({ override: 'wasm', crossOriginIsolated: Boolean(self.crossOriginIsolated),
      hardwareConcurrency: self.navigator?.hardwareConcurrency ?? 1 });
    ortModule = await loadOrt(choice, ORT_BASE.href);
  }
  const session = await ortModule.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  try {
    const outs = session.outputNames.filter((name) => !attention.includes(name));
    let output = outs[outs.length - 1]; // as OnnxClassifier: an output named like logits, else the last
    for (const o of outs) if (o.includes('logit') || o === 'output') output = o;
    const o = { session, ort: ortModule, input: session.inputNames[0], output, C: input.C, H: input.H, W: input.W,
      batch: input.batchFree ? 8 : 1, scaling: 'imagenet', classes: 0, attention };
    const per = input.C * input.H * input.W;
    const y = await ortRun({ ...o, batch: 1 }, new Float32Array(per), 1);
    if (!y.length) throw new Error(`output '${output}' is empty`);
    o.classes = y.length;
    if (o.batch > 1) { // a symbolic batch that the graph does not honour (a Reshape to [1, -1]) → one input a run
      try {
        if ((await ortRun(o, new Float32Array(2 * per), 2)).length !== 2 * o.classes) o.batch = 1;
      } catch {
        o.batch = 1;
      }
    }
    return o;
  } catch (e) {
    session.release?.().catch?.(() => {});
    throw e;
  }
}

// n model inputs [n·C·H·W] → logits [n·classes]: one run when the batch is free (≤ o.batch at a time), else one per input.
async function ortRun(o, x, n) {
  const per = o.C * o.H * o.W;
  const parts = [];
  for (let i = 0; i < n;) {
    const k = o.batch > 1 ? Math.min(o.batch, n - i) : 1;
    const t = new o.ort.Tensor('float32', x.slice(i * per, (i + k) * per), [k, o.C, o.H, o.W]); // fresh each run
    const out = await o.session.run({ [o.input]: t }, [o.output]);
    const y = out[o.output];
    if (y.type !== 'float32') throw new Error(`output '${o.output}' is ${y.type}, not float32 class scores`);
    const dims = y.dims;
    if (dims.length > 2 || (dims.length === 2 && dims[0] !== k) || (dims.length < 2 && k !== 1)) {
      throw new Error(`output '${o.output}' has shape [${dims.join(', ')}]; class scores are [batch, classes]`);
    }
    parts.push(Float32Array.from(y.data));
    for (const v of Object.values(out)) v.dispose?.();
    i += k;
  }
  const all = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return all;
}

// The core's conversion of n planar 224² crops into this model's input (Module.modelInput), then ORT.
function ortLogits(M, planar, n) {
  const o = own.ort;
  return ortRun(o, M.modelInput(planar, n, o.scaling, o.H, o.C), n);
}

function coreOnly(what) {
  if (own.engine !== 'ort') return;
  throw new Error(`${what} needs the model's gradients or layers, which the core cannot compute for this model; ` +
    'RISE, occlusion and the deletion / insertion / ROAD curves run through ONNX Runtime Web.');
}

async function classify(msg) {
  const M = await core();
  if (!own.engine) throw new Error('No model is loaded: choose an .onnx file first.');
  const t0 = performance.now();
  let img;
  if (msg.blob) img = await decodeBlob(msg.blob);
  else img = { rgba: new Uint8Array(msg.rgba.buffer ?? msg.rgba), width: msg.width, height: msg.height, notes: [] };
  describePixels(img.rgba, img.width, img.height, img.notes);
  const planar = M.preprocessImage(img.rgba, img.width, img.height);
  let logits;
  if (own.engine === 'ort') {
    const o = own.ort;
    const scaling = msg.scaling ?? 'imagenet';
    logits = await ortRun(o, M.modelInput(planar, 1, scaling, o.H, o.C), 1); // an unknown scaling: the core's Error
    o.scaling = scaling; // for the plans, as OnnxLab keeps the last setPhoto's
  } else {
    logits = own.lab.setPhoto(planar, msg.scaling ?? 'imagenet');
  }
  const probs = softmax(logits);
  own.photo = { photoId: nextPhotoId++, planar, logits, probs };
  own.maps = new Map();
  return {
    photoId: own.photo.photoId, logits, probs, top: topK(probs, Math.min(5, probs.length)),
    display: planarToRgba(planar), width: img.width, height: img.height, notes: img.notes, ms: performance.now() - t0,
  };
}

// A 224² map → what crosses to the page (the colour image and the peak); the map itself stays here under key.
function pageMap(M, key, map224, colormap, extra) {
  own.maps.set(key, map224);
  const peak = argmax(map224);
  const rgba = new Uint8ClampedArray(M.colorizeMap(M.normalizeMap(map224), S, S, colormap ?? 'viridis'));
  return { key, rgba, peak: { x: peak % S, y: Math.floor(peak / S) }, ...extra };
}

// A forward-only attention map of a model ORT runs: one run that fetches the attention outputs, mapped by the core.
async function ortAttentionMap(M, p, msg, c) {
  const o = own.ort;
  const t0 = performance.now();
  const x = M.modelInput(p.planar, 1, o.scaling, o.H, o.C);
  const out = await o.session.run({ [o.input]: new o.ort.Tensor('float32', x, [1, o.C, o.H, o.W]) }, [o.output, ...o.attention]);
  const tensors = o.attention.map((name) => ({ name, dims: out[name].dims, data: Float32Array.from(out[name].data) }));
  for (const v of Object.values(out)) v.dispose?.();
  const r = M.vitMapFromAttention(String(msg.method), tensors);
  const [h, w] = r.map_shape;
  const map224 = M.upsampleMap(r.map, h, w, S, S);
  const key = `${msg.method}|attention|${c}|{}`;
  if (p !== own.photo) throw new Error('That photo is no longer loaded; pick it again.');
  return pageMap(M, key, map224, msg.colormap, {
    raw: r.map, mapShape: [h, w], layer: 'attention', classIndex: c, ms: performance.now() - t0,
    attention: { tokens: r.tokens, classTokens: r.class_tokens, layers: r.layers, heads: r.heads, note: r.note ?? '' },
  });
}

async function map(msg) {
  const M = await core();
  const p = needPhoto(msg.photoId);
  if (own.engine === 'ort' && own.ort.attention.length && FORWARD_ONLY.has(String(msg.method))) {
    return ortAttentionMap(M, p, msg, checkClass(msg.classIndex));
  }
  coreOnly(`“${msg.method}”`);
  const c = checkClass(msg.classIndex);
  const t0 = performance.now();
  const options = msg.options ?? {};
  const r = own.lab.explain(String(msg.method), msg.layer ?? 'auto', c, options);
  const [h, w] = r.map_shape;
  const map224 = M.upsampleMap(r.map, h, w, S, S);
  const key = `${msg.method}|${r.layer}|${c}|${JSON.stringify(options)}`;
  if (p !== own.photo) throw new Error('That photo is no longer loaded; pick it again.');
  return pageMap(M, key, map224, msg.colormap, {
    raw: r.map, mapShape: [h, w], layer: r.layer, classIndex: c, ms: performance.now() - t0,
    ...(r.completeness ? { completeness: r.completeness } : {}),
    ...(r.conservation ? { conservation: r.conservation, rules: r.rules ?? [] } : {}),
    ...(r.layer === 'attention' ? { attention: { tokens: r.tokens, classTokens: r.class_tokens, layers: r.layers, heads: r.heads, note: r.note ?? '' } } : {}),
  });
}

async function recolor(msg) {
  const M = await core();
  needPhoto(msg.photoId);
  const maps = {};
  for (const key of msg.keys ?? []) {
    const m = own.maps.get(key);
    if (m) maps[key] = new Uint8ClampedArray(M.colorizeMap(M.normalizeMap(m), S, S, msg.colormap ?? 'viridis'));
  }
  return { maps };
}

// The sanity check (Adebayo et al. 2018): the map again on the network whose weights after the map's layer (every
// weight, for an input method) are shuffled; Spearman ρ of the two maps at their own resolution.
async function sanity(msg) {
  const M = await core();
  const p = needPhoto(msg.photoId);
  coreOnly('The sanity check');
  const c = checkClass(msg.classIndex);
  const r = own.lab.sanity(String(msg.method), msg.layer ?? 'auto', c, msg.seed ?? 1, msg.options ?? {});
  if (p !== own.photo) throw new Error('That photo is no longer loaded; pick it again.');
  const [h, w] = r.map_shape;
  const colour = (m) => new Uint8ClampedArray(M.colorizeMap(M.normalizeMap(M.upsampleMap(m, h, w, S, S)), S, S, msg.colormap ?? 'viridis'));
  return {
    method: msg.method, layer: r.layer, classIndex: c, spearman: r.spearman, shuffled: r.shuffled,
    randomizedClass: r.randomized_class, original: colour(r.map), randomized: colour(r.randomized_map), mapShape: [h, w],
  };
}

const PLAN_MAPS = ['scorecam', 'rise', 'occlusion'];
const CURVES = ['deletion', 'insertion', 'road'];

function makePlan(M, msg, p, c) {
  const params = msg.params ?? {};
  switch (msg.kind) {
    case 'scorecam': {
      coreOnly('Score-CAM');
      const a = own.lab.layerActivation(msg.layer === 'auto' || !msg.layer ? own.info.auto_layer : msg.layer);
      return M.planScoreCam(p.planar, a.data, a.h, a.w, c);
    }
    case 'rise':
      return M.planRise(p.planar, c, params.n ?? 1000, params.cells ?? 7, params.p ?? 0.5, params.seed ?? 1);
    case 'occlusion':
      return M.planOcclusion(p.planar, c, params.window ?? 32, params.stride ?? 16);
    case 'deletion':
    case 'insertion':
    case 'road': {
      const saliency = own.maps.get(msg.map);
      if (!saliency) throw new Error('That map is no longer held by the worker; compute it again.');
      if (msg.kind === 'road') return M.planRoad(p.planar, saliency, c, params.order, params.noise, params.seed);
      return (msg.kind === 'deletion' ? M.planDeletion : M.planInsertion)(p.planar, saliency, c, params.steps ?? 50);
    }
    default:
      throw new Error(`Unknown plan "${msg.kind}" (${[...PLAN_MAPS, ...CURVES].join(', ')}).`);
  }
}

async function plan(msg, ctx) {
  const M = await core();
  const { p, c, pl } = await ctx.step(() => {
    const photo = needPhoto(msg.photoId);
    const cls = checkClass(msg.classIndex);
    return { p: photo, c: cls, pl: makePlan(M, msg, photo, cls) };
  });
  try {
    const C = own.info.classes;
    const loop = { count: () => pl.count(), inputs: (s, n) => pl.inputs(s, n), accept: (s, logits) => pl.acceptN(s, logits.length / C, logits) };
    const finished = await runPlanLoop(loop, {
      batch: own.engine === 'ort' ? own.ort.batch : 1,
      forward: (input, n) => ctx.step(() => {
        if (p !== own.photo) throw new Error('That photo is no longer loaded; pick it again.');
        return own.engine === 'ort' ? ortLogits(M, input, n) : own.lab.logitsOf(input, n);
      }),
      isCancelled: ctx.cancelled,
      onProgress: (done, total) => ctx.progress({ stage: 'plan', loaded: done, total }),
    });
    if (!finished) return { cancelled: true };
    if (CURVES.includes(msg.kind)) return JSON.parse(pl.resultJson());
    const key = `${msg.kind}|${c}|${JSON.stringify(msg.params ?? {})}${msg.kind === 'scorecam' ? `|${msg.layer ?? 'auto'}` : ''}`;
    return pageMap(M, key, pl.result(), msg.colormap, { classIndex: c, layer: msg.kind === 'scorecam' ? (msg.layer ?? own.info.auto_layer) : 'input' });
  } finally {
    pl.delete();
  }
}

export const ownModelLab = {
  name: 'own-model',
  handlers: { 'own.load': load, 'own.classify': classify, 'own.map': map, 'own.recolor': recolor, 'own.sanity': sanity, 'own.plan': { job: plan } },
};
