// worker-channel.js — the request/response plumbing the image and CNN clients share: one module worker,
// one promise per request (matched by id), progress messages, cancel, and a readable failure when the worker
// dies. No DOM.
//
// Contract:
//   new WorkerChannel({ workerUrl, WorkerImpl = globalThis.Worker, name, what })
//     name: the worker's name (DevTools); what: how messages call it ("the image worker").
//   channel.send(type, body, onProgress, transfer) → { id, promise, cancel() }
//     posts {...body, type, id}; the worker answers {type:'progress', id, …} (→ onProgress(msg)),
//     {type:'result', id, result} (resolves) or {type:'error', id, message} (rejects with an Error).
//     cancel() posts {type:'cancel', target: id}.
//   channel.fail(message): terminates the worker and rejects every open request with Error(message); the next
//     send() starts a fresh worker. A worker that cannot start, crashes or sends an unreadable message fails
//     this way. channel.onFail (optional) is called after a failure (clients reset their own state there).
export class WorkerChannel {
  constructor({ workerUrl, WorkerImpl = globalThis.Worker, name, what }) {
    this.workerUrl = workerUrl;
    this.WorkerImpl = WorkerImpl;
    this.name = name;
    this.what = what;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map(); // id → {resolve, reject, onProgress}
    this.onFail = null;
  }

  ensureWorker() {
    if (this.worker) return this.worker;
    const w = new this.WorkerImpl(this.workerUrl, { type: 'module', name: this.name });
    w.onmessage = (e) => this.handle(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.fail(`${cap(this.what)} stopped: ${e.message || 'it could not start (see the browser console)'}`);
    };
    w.onmessageerror = () => this.fail(`${cap(this.what)} sent a message that could not be read.`);
    this.worker = w;
    return w;
  }

  fail(message) {
    const err = new Error(message);
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.onFail?.();
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
    else p.reject(new Error(msg.message ?? `${cap(this.what)} failed.`));
  }

  send(type, body = {}, onProgress = null, transfer = []) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      try {
        this.ensureWorker().postMessage({ ...body, type, id }, transfer);
      } catch (e) {
        this.pending.delete(id);
        reject(new Error(`Could not reach ${this.what}: ${e.message}`));
      }
    });
    return { id, promise, cancel: () => this.worker?.postMessage({ type: 'cancel', target: id }) };
  }
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
