// worker-channel.js — the one client of the lab runtime (web/runtime/host/): every view talks to a host
// worker through a WorkerChannel. One module worker, one promise per request (matched by id), progress,
// cancel, latest-wins lanes, and a worker that dies or aborts is replaced (the views are told). No DOM.
//
// Protocol (the same for every lab; docs/DESIGN.md "Lab runtime"):
//   page → worker  {type: <request name>, id, …body}     a request (the host's handlers are named by type)
//                  {type: 'cancel', target: id}           stop request `target` before its next step
//   worker → page  {type: 'progress', id, …}              any number, while request `id` runs
//                  {type: 'result', id, result}           exactly one of these two per request
//                  {type: 'error', id, message, fatal?}   fatal: the core aborted (out of memory, a wasm trap);
//                                                         the worker is unusable and gets replaced
//                  {type: 'progress', id: 0, …}           load progress not tied to a request (onEvent)
//                  {type: 'progress', id: 0, interrupt: {buffer, index}}  the core's interrupt word in the worker's
//                                                         shared memory (host/core.js interruptWord; kept, not an event)
//
// Contract:
//   new WorkerChannel({ workerUrl, WorkerImpl = globalThis.Worker, name, what })
//     name: the worker's name (DevTools); what: how messages call it ("the image worker").
//   channel.send(type, body, onProgress, transfer) → { id, promise, cancel() }
//     promise resolves with the result, rejects with an Error(message) on an error reply.
//   channel.request(type, body, onProgress) → promise (send(...).promise)
//   channel.latest(lane, type, body, onProgress) → Promise<result | null>: at most one request of the lane runs and
//     one waits; a newer call replaces the waiting one (resolves null) and a running one whose answer arrives
//     after a newer call was made resolves null too ("superseded": fast typing never builds a backlog). The
//     superseded running request is also sent a cancel, so a job (host.js) stops at its next step.
//     onProgress gets that request's progress messages.
//   channel.cancelLane(lane): the waiting request resolves null and the running one is cancelled (a job answers
//     {cancelled: true} at its next step; a plain request runs to its end and resolves as usual).
//   channel.fail(message): sets the worker's interrupt word when it sent one (its core stops the call in flight at
//     its next check: Chromium's terminate() lets a running task go on for up to 2 s, on the cores the next request
//     needs), terminates the worker and rejects every open request with Error(message); the next
//     send() starts a fresh worker. A worker that cannot start, crashes, sends an unreadable message or
//     reports a fatal error fails this way; then channel.onFail?.(message) and every listener added with
//     channel.onReplaced(fn) is called with the message (views tell the user there; their inputs are theirs
//     and are kept). onEvent(msg) (optional) gets the messages that belong to no request.
//   channel.onRecovered(fn): fn() is called once after each replacement, when the fresh worker answers its first
//     request with a result (views take the "stopped" message down there).
//   channel.started: the number of workers this channel has started (1 after the first send; +1 per
//     replacement).
//   channel.busy: true while a request is open (sent or queued and not yet answered).
export class WorkerChannel {
  constructor({ workerUrl, WorkerImpl = globalThis.Worker, name, what }) {
    this.workerUrl = workerUrl;
    this.WorkerImpl = WorkerImpl;
    this.name = name;
    this.what = what;
    this.worker = null;
    this.nextId = 1;
    this.started = 0;
    this.pending = new Map(); // id → {resolve, reject, onProgress}
    this.lanes = new Map(); // lane → {running: {id, resolve, reject, stale}, waiting: {type, body, resolve, reject}}
    this.onFail = null;
    this.onEvent = null;
    this.replacedListeners = [];
    this.recoveredListeners = [];
    this.recovering = false; // a worker was replaced and its successor has not answered a request yet
    this.hold = null; // the promise the channel waits for (holdUntil), or null
    this.queued = []; // [{msg, transfer, id}] sent while held
    this.interrupt = null; // {buffer, index}: the worker's interrupt word, once it said where
  }

  get held() {
    return this.hold !== null;
  }

  get busy() {
    return this.pending.size > 0 || this.queued.length > 0;
  }

  holdUntil(promise) {
    const hold = Promise.all([this.hold, promise]).then(() => {}, () => {});
    this.hold = hold;
    hold.then(() => {
      if (this.hold !== hold) return; // a later hold took over
      this.hold = null;
      const queued = this.queued;
      this.queued = [];
      for (const q of queued) this.post(q.msg, q.transfer, q.id);
    });
  }

  // Posts to the worker (started if need be); a failure rejects request id (when still open).
  post(msg, transfer, id = 0) {
    try {
      this.ensureWorker().postMessage(msg, transfer);
    } catch (e) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.reject(new Error(`Could not reach ${this.what}: ${e.message}`));
    }
  }

  ensureWorker() {
    if (this.worker) return this.worker;
    const w = new this.WorkerImpl(this.workerUrl, { type: 'module', name: this.name });
    w.onmessage = (e) => this.handle(e.data, w);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.fail(`${cap(this.what)} stopped: ${e.message || 'it could not start (see the browser console)'}`);
    };
    w.onmessageerror = () => this.fail(`${cap(this.what)} sent a message that could not be read.`);
    this.worker = w;
    this.started++;
    return w;
  }

  onReplaced(fn) {
    this.replacedListeners.push(fn);
  }

  onRecovered(fn) {
    this.recoveredListeners.push(fn);
  }

  fail(message) {
    const err = new Error(message);
    this.queued = [];
    if (this.interrupt) Atomics.store(new Int32Array(this.interrupt.buffer), this.interrupt.index, 1);
    this.interrupt = null;
    this.worker?.terminate();
    this.worker = null;
    const open = [...this.pending.values()];
    this.pending.clear();
    const lanes = [...this.lanes.values()];
    this.lanes.clear();
    for (const p of open) p.reject(err);
    for (const l of lanes) {
      l.waiting?.reject(err);
      l.waiting = null;
    }
    this.recovering = true;
    this.onFail?.(message);
    for (const fn of this.replacedListeners) fn(message);
  }

  handle(msg, from = this.worker) {
    if (msg?.id === 0 && msg.interrupt) {
      if (from === this.worker) this.interrupt = msg.interrupt; // not a replaced worker's late word
      return;
    }
    const p = this.pending.get(msg?.id);
    if (!p) {
      if (!msg?.id) this.onEvent?.(msg); // id 0: belongs to no request; an answer to a settled request is dropped
      return;
    }
    if (msg.type === 'progress') {
      p.onProgress?.(msg);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.type === 'result') {
      p.resolve(msg.result);
      if (this.recovering) {
        this.recovering = false;
        for (const fn of this.recoveredListeners) fn();
      }
    } else if (msg.type === 'error' && msg.fatal) {
      p.reject(new Error(msg.message));
      this.fail(`${cap(this.what)} stopped: ${msg.message} A fresh one is started for the next request; your input is kept.`);
    } else p.reject(new Error(msg.message ?? `${cap(this.what)} failed.`));
  }

  send(type, body = {}, onProgress = null, transfer = []) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      const msg = { ...body, type, id };
      if (this.hold) this.queued.push({ msg, transfer, id });
      else this.post(msg, transfer, id);
    });
    if (this.hold) {
      const cancel = () => {
        if (this.queued.some((q) => q.id === id)) this.queued.push({ msg: { type: 'cancel', target: id }, transfer: [] });
        else if (this.worker) this.worker.postMessage({ type: 'cancel', target: id });
      };
      return { id, promise, cancel };
    }
    const worker = this.worker;
    return { id, promise, cancel: () => { if (this.worker === worker) worker?.postMessage({ type: 'cancel', target: id }); } };
  }

  request(type, body = {}, onProgress = null) {
    return this.send(type, body, onProgress).promise;
  }

  latest(lane, type, body = {}, onProgress = null) {
    return new Promise((resolve, reject) => {
      let l = this.lanes.get(lane);
      if (!l) this.lanes.set(lane, (l = { running: null, waiting: null }));
      l.waiting?.resolve(null);
      l.waiting = { type, body, onProgress, resolve, reject };
      if (l.running) {
        if (!l.running.stale) l.running.cancel();
        l.running.stale = true;
      } else this.startWaiting(lane, l);
    });
  }

  cancelLane(lane) {
    const l = this.lanes.get(lane);
    if (!l) return;
    l.waiting?.resolve(null);
    l.waiting = null;
    l.running?.cancel();
  }

  startWaiting(lane, l) {
    const { type, body, onProgress, resolve, reject } = l.waiting;
    l.waiting = null;
    const sent = this.send(type, body, onProgress);
    const run = { stale: false, cancel: sent.cancel };
    l.running = run;
    sent.promise.then(
      (result) => this.laneDone(lane, l, run, () => resolve(run.stale ? null : result)),
      (err) => this.laneDone(lane, l, run, () => (run.stale && l.waiting ? resolve(null) : reject(err))),
    );
  }

  laneDone(lane, l, run, settle) {
    if (l.running === run) l.running = null;
    settle();
    if (l.waiting && !l.running && this.lanes.get(lane) === l) this.startWaiting(lane, l);
  }
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
