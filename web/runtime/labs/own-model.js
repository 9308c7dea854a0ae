// own-model.js — "Your model" (issue 11): a user's ONNX image classifier, run forward AND backward by the core's
// own executor (Module.OnnxLab, wasm/onnx_bindings.cpp), in a worker of its own (a model that exhausts memory
// takes only that worker down; the shipped MobileNetV2 keeps its worker). Nothing leaves the machine. No DOM.
//
// Requests (protocol: worker-channel.js):
//   own.load {bytes: Uint8Array, inputSize} → {summary (Module.onnxInfo: inputs, outputs, operators, parameters,
//     unsupported, runnable, error, input_shape, classes, spatial_layers, auto_layer), runnable, error}.
//     A runnable model replaces the one held (its photo and maps go); a file that is not ONNX → Error; a model
//     that cannot run (unsupported operators, not an image classifier) → runnable false, the one held stays.
//   own.classify {blob | rgba,width,height, scaling} → {photoId, logits, probs, top (indices by probability, ≤ 5),
//     display RGBA 224² (the crop the model sees, before its own resize), width, height, notes, ms}
//     (the image lab's decoding and 224² centre crop, runtime/image/decode.js + Module.preprocessImage; then the
//     model's scaling and size: core/image/model_input.h).
//   own.map {photoId, method, layer, classIndex, options, colormap} → {key, rgba (the colour map, 224²), raw
//     (the map at its own resolution), mapShape [h, w], layer, classIndex, peak {x, y} (224² px), completeness?,
//     ms}. Methods: catalogue.onnx.methods. The 224² map is kept under key for the curves.
//   own.recolor {photoId, keys, colormap} → {maps: {key: rgba}} (the kept 224² maps in another colour map)
//   own.sanity {photoId, method, layer, classIndex, seed, options, colormap} → {method, layer, classIndex, spearman
//     (of the two maps at their own resolution; null when undefined), shuffled (weight tensors), randomizedClass,
//     original, randomized (colour maps, 224²), mapShape}: the weights after the layer shuffled (OnnxLab.sanity).
//   own.plan {photoId, kind, classIndex, params, map?, layer?, colormap} (a job: one forward pass per step,
//     cancellable) kind scorecam (at `layer`) | rise | occlusion → a map result as own.map; deletion | insertion
//     of the kept map `map` (a key) → {x, y, auc} (core/metrics/deletion_insertion.h); road {order morf | lerf,
//     noise, seed} of the kept map → {kind, percentages, y, mean} (core/metrics/road.h; defaults: the catalogue's). Progress {stage:'plan',
//     loaded, total}. Cancelled → {cancelled: true}.
import { loadCore } from '../host/core.js';
import { runPlanLoop } from '../plan-runner.js';
import { argmax, decodeBlob, describePixels, planarToRgba, topK, S } from '../image/decode.js';

const own = { lab: null, info: null, photo: null, maps: new Map() };
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
  if (!own.lab) throw new Error('No model is loaded: choose an .onnx file first.');
  if (!own.photo || own.photo.photoId !== photoId) throw new Error('That photo is no longer loaded; pick it again.');
  return own.photo;
}

function checkClass(c) {
  const n = own.info.classes;
  if (!Number.isInteger(c) || c < 0 || c >= n) throw new Error(`Class index ${c} is out of range 0…${n - 1}.`);
  return c;
}

async function load(msg) {
  const M = await core();
  if (!(msg.bytes instanceof Uint8Array)) throw new Error('own.load needs the model bytes (a Uint8Array).');
  const size = msg.inputSize | 0;
  const summary = M.onnxInfo(msg.bytes, size); // throws for a file that is not ONNX
  if (!summary.runnable) return { summary, runnable: false, error: summary.error };
  const lab = new M.OnnxLab(msg.bytes, size);
  own.lab?.delete();
  own.lab = lab;
  own.info = lab.info();
  own.photo = null;
  own.maps = new Map();
  return { summary, runnable: true, error: '' };
}

async function classify(msg) {
  const M = await core();
  if (!own.lab) throw new Error('No model is loaded: choose an .onnx file first.');
  const t0 = performance.now();
  let img;
  if (msg.blob) img = await decodeBlob(msg.blob);
  else img = { rgba: new Uint8Array(msg.rgba.buffer ?? msg.rgba), width: msg.width, height: msg.height, notes: [] };
  describePixels(img.rgba, img.width, img.height, img.notes);
  const planar = M.preprocessImage(img.rgba, img.width, img.height);
  const logits = own.lab.setPhoto(planar, msg.scaling ?? 'imagenet');
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

async function map(msg) {
  const M = await core();
  const p = needPhoto(msg.photoId);
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
      batch: 1,
      forward: (input, n) => ctx.step(() => {
        if (p !== own.photo) throw new Error('That photo is no longer loaded; pick it again.');
        return own.lab.logitsOf(input, n);
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
