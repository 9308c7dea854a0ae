// image-plans.js — the Image lab's long jobs: a perturbation plan (Score-CAM, RISE, occlusion, deletion,
// insertion, explanation mask) fed to the network through the one loop (runtime/plan-runner.js), each batch a
// queued step; and adversarial erasing (Wei et al. 2017), each erase-and-rerun a step. Cancel between steps.
// No DOM.
//
// Contract (handlers):
//   image.plan {kind, imageId, classIndex, params, colormap, map?}
//     kind scorecam | rise | occlusion → a page result (image-maps.js; the map is kept in the ImageLab under its
//     key `kind|class|params`) with `passes` (the network passes run) and, for Score-CAM, `channels` (all of them:
//     the channels that are zero on the photo add nothing to its map and have no pass); deletion | insertion | explanationMask → the plan's resultJson parsed ({x, y, auc}
//     / {original, masked, drop, increase}) of the kept map `map` (a key of an earlier result: the saliency never
//     crosses back). params: rise {n, cells, p, seed}; occlusion {window, stride}; deletion / insertion {steps};
//     defaults from the core's catalogue. Progress {stage:'plan', loaded, total} after every batch (batch size
//     batchSizeFor(backend)). Cancelled → {cancelled: true}.
//   image.erase {imageId, classIndex, method, steps, threshold, fill, colormap}
//     → {steps:[{step, display, mapRgba, top1, target, nextMap?}], method, threshold, fill}: step 0 is the photo;
//     each next step erases (core eraseRegion) where the previous map01 > threshold and re-runs the CNN.
//     Progress {stage:'erase', loaded, total}. Cancelled → {cancelled: true, steps}.
import { runPlanLoop } from '../plan-runner.js';
import { argmax, planarToRgba, S } from '../image/decode.js';
import { ready, need, checkClass, forward } from './image-model.js';
import { FEATURE_METHODS, PLAN_MAPS, ensureKept, pageResult } from './image-maps.js';

const METRIC_PLANS = Object.freeze(['deletion', 'insertion', 'explanationMask']);

// The map of method for class c on one (erased) image, upsampled to 224² (not normalised).
function featureMap(L, method, state, c) {
  const raw = L.lab.map(method, state.features, state.fh, state.fw, c, 1);
  return L.core.upsampleMap(raw, state.fh, state.fw, S, S);
}

async function plan(msg, ctx) {
  const L = await ready();
  const params = { ...(msg.params ?? {}) };
  const key = `${msg.kind}|${msg.classIndex}|${JSON.stringify(params)}`;
  const p = await ctx.step(() => {
    const cur = need(msg.imageId);
    const c = checkClass(L, msg.classIndex);
    if (METRIC_PLANS.includes(msg.kind)) {
      if (typeof msg.map !== 'string') throw new Error(`The ${msg.kind} plan needs the key of a map.`);
      params.map = ensureKept(L, cur, msg.map, msg.colormap ?? 'viridis');
    }
    return L.lab.plan(msg.kind, c, params);
  });
  try {
    const finished = await runPlanLoop(p, {
      batch: L.batch,
      // inputs, the network and accept() of one batch form one step of the queue
      forward: (input, n) => ctx.step(async () => (await forward(L, input, n, false)).logits),
      isCancelled: ctx.cancelled,
      onProgress: (done, total) => ctx.progress({ stage: 'plan', loaded: done, total }),
    });
    if (!finished) return { cancelled: true };
    return await ctx.step(() => {
      if (!p.done()) throw new Error(`The ${msg.kind} plan did not finish.`);
      if (PLAN_MAPS.includes(msg.kind)) {
        const r = L.lab.putMap(key, p.result(), msg.colormap ?? 'viridis', 1);
        need(msg.imageId).kept.set(key, key);
        const { count, channels } = JSON.parse(p.resultJson());
        return { ...pageResult(key, r), passes: count, ...(channels ? { channels } : {}) };
      }
      return JSON.parse(p.resultJson());
    });
  } finally {
    p.delete();
  }
}

async function erase(msg, ctx) {
  const L = await ready();
  const cur = need(msg.imageId);
  const c = checkClass(L, msg.classIndex);
  const method = FEATURE_METHODS.includes(msg.method) ? msg.method : 'cam';
  const k = Math.max(1, Math.min(8, msg.steps | 0));
  const threshold = Number(msg.threshold);
  const fill = ['mean', 'blur', 'grey'].includes(msg.fill) ? msg.fill : 'mean';
  let state = { input: cur.input, features: cur.features, fh: cur.fh, fw: cur.fw, probs: cur.probs };
  const steps = [];
  const record = (step, mapRgba) => {
    const t = argmax(state.probs);
    steps.push({ step, display: planarToRgba(state.input), mapRgba, top1: { index: t, label: L.labels[t], prob: state.probs[t] }, target: state.probs[c] });
  };
  record(0, null);
  ctx.progress({ stage: 'erase', loaded: 0, total: k });
  for (let s = 1; s <= k; s++) {
    await ctx.yield();
    if (ctx.cancelled()) return { cancelled: true, steps };
    const next = await ctx.step(async () => {
      const map01 = L.core.normalizeMap(featureMap(L, method, state, c));
      const mapRgba = new Uint8ClampedArray(L.core.colorizeMap(map01, S, S, msg.colormap ?? 'viridis'));
      const input = L.core.eraseRegion(state.input, map01, threshold, fill);
      const { features, logits, fh, fw } = await forward(L, input, 1);
      return { mapRgba, state: { input, features, fh, fw, probs: L.lab.softmax(logits, 1) } };
    });
    state = next.state;
    steps[steps.length - 1].nextMap = next.mapRgba; // the map that was erased after this step
    record(s, next.mapRgba);
    ctx.progress({ stage: 'erase', loaded: s, total: k });
  }
  return { steps, method, threshold, fill };
}

export const planHandlers = { 'image.plan': { job: plan }, 'image.erase': { job: erase } };
