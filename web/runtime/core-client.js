// core-client.js — main-thread wrapper around core-worker.js: one promise per request, latest text wins.
//
// Contract (no DOM):
//   const client = new CoreClient({ onProgress })   // onProgress({model, stage, loaded, total})
//   client.manifest()                → Promise<manifest>
//   client.experimentNames()         → Promise<[{name, description}]>  ([] for a core without experiments)
//   client.explain({model, text, maxTokens, igSteps})
//                                    → Promise<result | null>. null means "superseded": a newer explain()
//                                      was made before this one's answer arrived, so it must not be shown.
//                                      Rejects with an Error (human-readable message) on failure.
//   client.experiment({model, name, text, params, seed, maxTokens})
//                                    → Promise<row | null>: the live (one-text) experiment row; superseded
//                                      (null) like explain, on its own channel, so experiments never
//                                      replace a waiting explain or the other way round.
//   client.experimentRows({model, name, dataset, start, count, params, seed}) → Promise<{rows, total, …}>
//   client.experimentSummary({model, name, rows, params, seed})           → Promise<summary>
//                                    (plain requests: never superseded; the caller chunks and cancels)
//   client.train({attention, seed, epochs}, onProgress)
//   client.train({kind: 'adversary', base, lambda, seed, epochs}, onProgress)   (a model-consistent adversary)
//                                    → Promise<{cancelled, model, config, weights, epochs_done, progress}>
//                                      (see core-worker.js); onProgress(progress) after every training step.
//                                      Never superseded; other requests made meanwhile run between its steps.
//   client.cancelTrain()             asks the running training to stop before its next step (no answer: the
//                                      train() promise resolves with cancelled: true).
//   client.terminate()
// Per channel (explain, experiment) at most one request runs in the worker and at most one waits; a newer
// call replaces the waiting one, so fast typing never builds a backlog. If the worker itself dies, every
// open request is rejected and the next call starts a fresh worker.

const WORKER_URL = new URL('./core-worker.js', import.meta.url);

export class CoreClient {
  constructor({ onProgress = () => {}, workerUrl = WORKER_URL } = {}) {
    this.onProgress = onProgress;
    this.workerUrl = workerUrl;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map(); // id → { resolve, reject } plain requests
    this.channels = new Map(); // type → { running: {id, resolve, reject} | null, waiting: {msg, resolve, reject} | null }
    this.trainListeners = new Map(); // id of a train request → onProgress
  }

  ensureWorker() {
    if (this.worker) return this.worker;
    const w = new Worker(this.workerUrl, { type: 'module', name: 'attnlab-core' });
    w.onmessage = (e) => this.handle(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.fail(`The background worker stopped: ${e.message || 'could not start (see the browser console)'}`);
    };
    w.onmessageerror = () => this.fail('The background worker sent a message that could not be read.');
    this.worker = w;
    return w;
  }

  fail(message) {
    const err = new Error(message);
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.trainListeners.clear();
    for (const ch of this.channels.values()) {
      ch.running?.reject(err);
      ch.waiting?.reject(err);
      ch.running = null;
      ch.waiting = null;
    }
  }

  channel(type) {
    let ch = this.channels.get(type);
    if (!ch) this.channels.set(type, (ch = { running: null, waiting: null }));
    return ch;
  }

  handle(msg) {
    if (msg?.type === 'progress') {
      this.onProgress(msg);
      return;
    }
    if (msg?.type === 'trainProgress') {
      this.trainListeners.get(msg.id)?.(msg.progress);
      return;
    }
    for (const [type, ch] of this.channels) {
      if (!ch.running || msg.id !== ch.running.id) continue;
      const done = ch.running;
      ch.running = null;
      if (ch.waiting) {
        done.resolve(null); // stale: a newer request is waiting
        this.startWaiting(type);
      } else if (msg.type === 'result') done.resolve(msg.result);
      else done.reject(new Error(msg.message));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    this.trainListeners.delete(msg.id);
    if (msg.type === 'result') p.resolve(msg.result);
    else p.reject(new Error(msg.message));
  }

  startWaiting(type) {
    const ch = this.channel(type);
    const { msg, resolve, reject } = ch.waiting;
    ch.waiting = null;
    const id = this.nextId++;
    ch.running = { id, resolve, reject };
    this.ensureWorker().postMessage({ ...msg, type, id });
  }

  // Latest-wins request on the channel `type`.
  latest(type, msg) {
    return new Promise((resolve, reject) => {
      const ch = this.channel(type);
      ch.waiting?.resolve(null);
      ch.waiting = { msg, resolve, reject };
      if (!ch.running) this.startWaiting(type);
    });
  }

  request(type, msg = {}, onProgress = null) {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      if (onProgress) this.trainListeners.set(id, onProgress);
      this.ensureWorker().postMessage({ ...msg, type, id });
    });
  }

  manifest() {
    return this.request('manifest');
  }

  experimentNames() {
    return this.request('experiments');
  }

  explain({ model, text, maxTokens = 200, igSteps = 20 }) {
    return this.latest('explain', { model, text, maxTokens, igSteps });
  }

  experiment({ model, name, text, params = {}, seed = 1, maxTokens = 200 }) {
    return this.latest('experiment', { model, name, text, params, seed, maxTokens });
  }

  experimentRows({ model, name, dataset, start, count, params = {}, seed = 1 }) {
    return this.request('experimentRows', { model, name, dataset, start, count, params, seed });
  }

  experimentSummary({ model, name, rows, params = {}, seed = 1 }) {
    return this.request('experimentSummary', { model, name, rows, params, seed });
  }

  train({ kind = 'model', attention, base, lambda, seed, epochs }, onProgress = () => {}) {
    const msg = kind === 'adversary' ? { kind, base, lambda, seed, epochs } : { attention, seed, epochs };
    return this.request('train', msg, onProgress);
  }

  cancelTrain() {
    this.worker?.postMessage({ type: 'cancelTrain' });
  }

  terminate() {
    this.fail('The core client was closed.');
  }
}
