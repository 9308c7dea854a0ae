// cnn-worker.js — dedicated module worker of the Localization lab: trains the small CNN of the WebAssembly
// core (CnnTrainer, wasm/cnn_bindings.cpp) step by step, so progress is reported and a cancel is honoured
// between steps; holds the one current model (trained or loaded) for probes, metrics, erasing and download.
//
// Contract (messages; no DOM). Every request {type, id, …} gets exactly one reply: {type:'result', id, result}
// or {type:'error', id, message}. Requests run one at a time, in arrival order; 'cancel' is handled at once.
//   train {options, stepBatches = 2, probesEvery = 'epoch'|'never'}
//        options: CnnTrainer options (see wasm/cnn_bindings.cpp). Progress messages while it runs:
//          {type:'progress', id, kind:'step', progress, imagesPerSecond}   after every step (progress as
//             CnnTrainer.step returns it); imagesPerSecond counts only steps without an epoch end
//          {type:'progress', id, kind:'epoch', progress, probes}          after each epoch (probes as
//             CnnTrainer.probes returns them, unless probesEvery = 'never')
//        → {cancelled, epochsDone, history:[stats…], seconds, trainSeconds, images, imagesPerSecond}
//        A cancelled run keeps its weights as they are (the model is the partly trained one).
//   probes {}                    → CnnTrainer.probes() of the current model
//   metrics {n}                  → CnnTrainer.metrics(n)
//   erase {k, threshold, n, keep} → CnnTrainer.erase(…)
//   download {}                  → {config: config.json text, weights: Uint8Array (model.safetensors)}
//   load {config, weights}       → {config: parsed config.json, probes}; replaces the current model
//   cancel {target}              → no reply; the train request `target` stops before its next step.
// Errors are readable messages (bad options, no model yet, a broken model file, a missing core).
const CORE_URL = new URL('../gen/attnlab_core.mjs', import.meta.url);

let corePromise = null;
let trainer = null;
const cancelled = new Set();
let queue = Promise.resolve();

function errText(e) {
  if (e instanceof Error) return e.message;
  if (typeof e === 'number') return `internal error in the WebAssembly core (${e})`;
  return String(e);
}

export function yieldToEvents() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function core() {
  if (!corePromise) {
    corePromise = (async () => {
      let createModule;
      try {
        ({ default: createModule } = await import(CORE_URL.href));
      } catch (e) {
        throw new Error(`The WebAssembly core is missing or broken (${CORE_URL.pathname}): ${e.message}. Build it with \`bash scripts/build-wasm.sh\`.`);
      }
      const m = await createModule({ locateFile: (f) => new URL(f, CORE_URL).href });
      if (typeof m.CnnTrainer !== 'function') {
        throw new Error('This WebAssembly core has no CnnTrainer; rebuild it with `bash scripts/build-wasm.sh`.');
      }
      return m;
    })();
    corePromise.catch(() => { corePromise = null; });
  }
  return corePromise;
}

function needModel() {
  if (!trainer) throw new Error('No model yet: train one or load a downloaded model first.');
  return trainer;
}

function replaceTrainer(t) {
  trainer?.delete();
  trainer = t;
}

const now = () => performance.now();

const HANDLERS = {
  async train(msg, post) {
    const m = await core();
    const t = new m.CnnTrainer(msg.options ?? {});
    replaceTrainer(t);
    const stepBatches = Number.isInteger(msg.stepBatches) && msg.stepBatches > 0 ? msg.stepBatches : 2;
    const history = [];
    const t0 = now();
    let trainSeconds = 0, trainImages = 0, images = 0;
    let cancelledRun = false;
    while (!t.done()) {
      await yieldToEvents();
      if (cancelled.has(msg.id)) {
        cancelledRun = true;
        break;
      }
      const s0 = now();
      const p = t.step(stepBatches);
      const dt = (now() - s0) / 1000;
      if (!p.epoch_done) {
        trainSeconds += dt;
        trainImages += p.images - images;
      }
      images = p.images;
      const imagesPerSecond = trainSeconds > 0 ? trainImages / trainSeconds : 0;
      post({ kind: 'step', progress: p, imagesPerSecond });
      if (p.epoch_done) {
        history.push(p.stats);
        post({ kind: 'epoch', progress: p, probes: msg.probesEvery === 'never' ? null : t.probes() });
      }
    }
    return {
      cancelled: cancelledRun, epochsDone: history.length, history, seconds: (now() - t0) / 1000, trainSeconds,
      images, imagesPerSecond: trainSeconds > 0 ? trainImages / trainSeconds : 0,
    };
  },
  async probes() {
    return needModel().probes();
  },
  async metrics(msg) {
    return needModel().metrics(msg.n ?? 0);
  },
  async erase(msg) {
    return needModel().erase(msg.k ?? 3, msg.threshold ?? 0.5, msg.n ?? 200, msg.keep ?? 4);
  },
  async download() {
    const t = needModel();
    return { config: t.configJson(), weights: t.weights() };
  },
  async load(msg) {
    const m = await core();
    if (typeof msg.config !== 'string') throw new Error('load: config must be the config.json text');
    if (!(msg.weights instanceof Uint8Array)) throw new Error('load: weights must be the model.safetensors bytes');
    const t = m.loadCnnModel(msg.config, msg.weights);
    replaceTrainer(t);
    return { config: JSON.parse(t.configJson()), probes: t.probes() };
  },
};

function transferables(result) {
  const out = [];
  const visit = (v, depth) => {
    if (!v || depth > 4) return;
    if (ArrayBuffer.isView(v)) {
      if (!out.includes(v.buffer)) out.push(v.buffer);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (typeof v === 'object') Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(result, 0);
  return out;
}

function onMessage(event) {
  const msg = event.data ?? {};
  if (msg.type === 'cancel') {
    cancelled.add(msg.target);
    return;
  }
  const post = (body) => self.postMessage({ type: 'progress', id: msg.id, ...body });
  const run = async () => {
    const handler = Object.hasOwn(HANDLERS, msg.type) ? HANDLERS[msg.type] : null;
    if (!handler) throw new Error(`Unknown request type "${msg.type}"`);
    return handler(msg, post);
  };
  queue = queue.then(run).then(
    (result) => {
      cancelled.delete(msg.id);
      self.postMessage({ type: 'result', id: msg.id, result }, transferables(result));
    },
    (e) => {
      cancelled.delete(msg.id);
      self.postMessage({ type: 'error', id: msg.id, message: errText(e) });
    },
  );
}

if (typeof WorkerGlobalScope !== 'undefined' && typeof self !== 'undefined' && self instanceof WorkerGlobalScope) {
  self.onmessage = onMessage;
}
