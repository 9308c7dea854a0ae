// cnn-client.js — main-thread wrapper around cnn-worker.js: one promise per request, progress callbacks,
// cancel. No DOM.
//
// Contract:
//   const client = new CnnClient({ workerUrl?, WorkerImpl? })
//   client.train(options, { stepBatches, probesEvery }, onProgress) → { id, promise, cancel() }
//       onProgress(msg): msg.kind 'step' {progress, imagesPerSecond} | 'epoch' {progress, probes}
//       promise → {cancelled, epochsDone, history, seconds, trainSeconds, images, imagesPerSecond}
//   client.probes() / client.metrics(n) / client.erase({k, threshold, n, keep}) / client.download()
//   client.load(configText, weightsBytes) → Promise (see cnn-worker.js)
//   client.terminate()
// Errors reject with an Error carrying the worker's message. If the worker dies, every open request is
// rejected with a readable message and the next call starts a fresh worker (with no model).
const WORKER_URL = new URL('./cnn-worker.js', import.meta.url);

export class CnnClient {
  constructor({ workerUrl = WORKER_URL, WorkerImpl = globalThis.Worker } = {}) {
    this.workerUrl = workerUrl;
    this.WorkerImpl = WorkerImpl;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
  }

  ensureWorker() {
    if (this.worker) return this.worker;
    const w = new this.WorkerImpl(this.workerUrl, { type: 'module', name: 'attnlab-cnn' });
    w.onmessage = (e) => this.handle(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.fail(`The training worker stopped: ${e.message || 'it could not start (see the browser console)'}`);
    };
    w.onmessageerror = () => this.fail('The training worker sent a message that could not be read.');
    this.worker = w;
    return w;
  }

  fail(message) {
    const err = new Error(message);
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  handle(msg) {
    const p = this.pending.get(msg?.id);
    if (!p) return;
    if (msg.type === 'progress') {
      p.onProgress?.(msg);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.type === 'result') p.resolve(msg.result);
    else p.reject(new Error(msg.message ?? 'The training worker failed.'));
  }

  send(type, body = {}, onProgress = null, transfer = []) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      try {
        this.ensureWorker().postMessage({ ...body, type, id }, transfer);
      } catch (e) {
        this.pending.delete(id);
        reject(new Error(`Could not reach the training worker: ${e.message}`));
      }
    });
    return { id, promise, cancel: () => this.worker?.postMessage({ type: 'cancel', target: id }) };
  }

  train(options, { stepBatches = 2, probesEvery = 'epoch' } = {}, onProgress = null) {
    return this.send('train', { options, stepBatches, probesEvery }, onProgress);
  }

  probes() { return this.send('probes').promise; }
  metrics(n = 0) { return this.send('metrics', { n }).promise; }
  erase({ k = 3, threshold = 0.5, n = 200, keep = 4 } = {}) { return this.send('erase', { k, threshold, n, keep }).promise; }
  download() { return this.send('download').promise; }
  load(config, weights) { return this.send('load', { config, weights }).promise; }

  terminate() {
    this.fail('The training client was closed.');
  }
}
