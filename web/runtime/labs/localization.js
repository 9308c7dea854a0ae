// localization.js — the Localization lab's handlers: the core's small CNN (CnnTrainer, wasm/cnn_bindings.cpp)
// trained step by step as a long job (progress after every step, cancel between steps, other requests between
// steps), and the one current model (trained or loaded) for probes, metrics, erasing and download. No DOM.
//
// Requests (protocol: worker-channel.js):
//   cnn.train {options, stepBatches = 2, probesEvery = 'epoch'|'never'}
//        options: CnnTrainer options (docs/DESIGN.md "Localization lab"). Progress while it runs:
//          {kind:'step', progress, imagesPerSecond}  after every step (imagesPerSecond counts only steps
//                                                      without an epoch end)
//          {kind:'epoch', progress, probes}          after each epoch (probes unless probesEvery = 'never')
//        → {cancelled, epochsDone, history:[stats…], seconds, trainSeconds, images, imagesPerSecond}
//        A cancelled run keeps its weights as they are (the model is the partly trained one).
//   cnn.probes {} → CnnTrainer.probes() · cnn.metrics {n} → metrics(n) · cnn.erase {k, threshold, n, keep}
//   cnn.download {} → {config: config.json text, weights: Uint8Array}
//   cnn.load {config, weights} → {config: parsed config.json, probes}; replaces the current model
import { loadCore, requireApi } from '../host/core.js';

let trainer = null;
const now = () => performance.now();

async function core() {
  const m = await loadCore();
  requireApi(m, 'CnnTrainer', 'CNN trainer');
  return m;
}

function needModel() {
  if (!trainer) throw new Error('No model yet: train one or load a downloaded model first.');
  return trainer;
}

function replaceTrainer(t) {
  trainer?.delete();
  trainer = t;
}

async function train(msg, ctx) {
  const m = await core();
  const t = await ctx.step(() => {
    const fresh = new m.CnnTrainer(msg.options ?? {});
    replaceTrainer(fresh);
    return fresh;
  });
  const stepBatches = Number.isInteger(msg.stepBatches) && msg.stepBatches > 0 ? msg.stepBatches : 2;
  const history = [];
  const t0 = now();
  let trainSeconds = 0, trainImages = 0, images = 0;
  let cancelledRun = false;
  for (;;) {
    await ctx.yield();
    if (ctx.cancelled()) {
      cancelledRun = true;
      break;
    }
    const out = await ctx.step(() => {
      if (trainer !== t) throw new Error('The model was replaced while it trained.');
      if (t.done()) return null;
      const s0 = now();
      const p = t.step(stepBatches);
      const dt = (now() - s0) / 1000;
      const probes = p.epoch_done && msg.probesEvery !== 'never' ? t.probes() : null;
      return { p, dt, probes };
    });
    if (!out) break;
    const { p, dt, probes } = out;
    if (!p.epoch_done) {
      trainSeconds += dt;
      trainImages += p.images - images;
    }
    images = p.images;
    const imagesPerSecond = trainSeconds > 0 ? trainImages / trainSeconds : 0;
    ctx.progress({ kind: 'step', progress: p, imagesPerSecond });
    if (p.epoch_done) {
      history.push(p.stats);
      ctx.progress({ kind: 'epoch', progress: p, probes });
    }
  }
  return {
    cancelled: cancelledRun, epochsDone: history.length, history, seconds: (now() - t0) / 1000, trainSeconds,
    images, imagesPerSecond: trainSeconds > 0 ? trainImages / trainSeconds : 0,
  };
}

async function load(msg) {
  const m = await core();
  if (typeof msg.config !== 'string') throw new Error('load: config must be the config.json text');
  if (!(msg.weights instanceof Uint8Array)) throw new Error('load: weights must be the model.safetensors bytes');
  const t = m.loadCnnModel(msg.config, msg.weights);
  replaceTrainer(t);
  return { config: JSON.parse(t.configJson()), probes: t.probes() };
}

export const localizationLab = {
  name: 'localization',
  handlers: {
    'cnn.train': { job: train },
    'cnn.probes': () => needModel().probes(),
    'cnn.metrics': (msg) => needModel().metrics(msg.n ?? 0),
    'cnn.erase': (msg) => needModel().erase(msg.k ?? 3, msg.threshold ?? 0.5, msg.n ?? 200, msg.keep ?? 4),
    'cnn.download': () => {
      const t = needModel();
      return { config: t.configJson(), weights: t.weights() };
    },
    'cnn.load': load,
  },
};
