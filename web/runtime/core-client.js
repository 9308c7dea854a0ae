// core-client.js — main-thread wrapper around core-worker.js: one promise per request, latest text wins.
//
// Contract (no DOM):
//   const client = new CoreClient({ onProgress })   // onProgress({model, stage, loaded, total})
//   client.manifest()                → Promise<manifest>
//   client.explain({model, text, maxTokens, igSteps})
//                                    → Promise<result | null>. null means "superseded": a newer explain()
//                                      was made before this one's answer arrived, so it must not be shown.
//                                      Rejects with an Error (human-readable message) on failure.
//   client.terminate()
// At most one explain runs in the worker and at most one waits; a newer call replaces the waiting one,
// so fast typing never builds a backlog. If the worker itself dies, every open request is rejected and
// the next call starts a fresh worker.

const WORKER_URL = new URL('./core-worker.js', import.meta.url);

export class CoreClient {
  constructor({ onProgress = () => {}, workerUrl = WORKER_URL } = {}) {
    this.onProgress = onProgress;
    this.workerUrl = workerUrl;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map(); // id → { resolve, reject }
    this.running = null; // { id, resolve, reject } explain in the worker
    this.waiting = null; // { msg, resolve, reject } explain not sent yet
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
    this.running?.reject(err);
    this.running = null;
    this.waiting?.reject(err);
    this.waiting = null;
  }

  handle(msg) {
    if (msg?.type === 'progress') {
      this.onProgress(msg);
      return;
    }
    if (this.running && msg.id === this.running.id) {
      const done = this.running;
      this.running = null;
      if (this.waiting) {
        done.resolve(null); // stale: a newer text is waiting
        this.startWaiting();
      } else if (msg.type === 'result') done.resolve(msg.result);
      else done.reject(new Error(msg.message));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.type === 'result') p.resolve(msg.result);
    else p.reject(new Error(msg.message));
  }

  startWaiting() {
    const { msg, resolve, reject } = this.waiting;
    this.waiting = null;
    const id = this.nextId++;
    this.running = { id, resolve, reject };
    this.ensureWorker().postMessage({ ...msg, type: 'explain', id });
  }

  manifest() {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.ensureWorker().postMessage({ type: 'manifest', id });
    });
  }

  explain({ model, text, maxTokens = 200, igSteps = 20 }) {
    return new Promise((resolve, reject) => {
      this.waiting?.resolve(null);
      this.waiting = { msg: { model, text, maxTokens, igSteps }, resolve, reject };
      if (!this.running) this.startWaiting();
    });
  }

  terminate() {
    this.fail('The core client was closed.');
  }
}
