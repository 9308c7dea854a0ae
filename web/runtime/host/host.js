// host.js — the lab runtime's worker host: one job queue, one protocol (worker-channel.js has the table), the
// labs' handlers plugged in by name. No DOM; no worker globals unless startHost() is called (Node tests drive
// createHost directly).
//
// Contract:
//   createHost({ labs, post }) → { onMessage(msg), handlers }
//     labs: [{ name, handlers: { [type]: fn | { job: fn } } }]; a type may be defined once (an Error otherwise).
//       fn(msg, ctx)        a plain request: queued, runs alone from start to end (its awaits included).
//       { job: fn }         a long job (a training, a perturbation plan): fn(msg, ctx) starts at once and queues
//                           each of its pieces with ctx.step(piece), so other requests (of any lab) run between
//                           its steps; it checks ctx.cancelled() between steps.
//     post(msg, transfer) posts to the page.
//   ctx (one per request): { id, progress(body) → posts {type:'progress', id, …body},
//     event(body) → posts {type:'progress', id: 0, …body} (progress that belongs to no single request, e.g. a
//     shared model load), cancelled() → true after {type:'cancel', target: id}, step(fn) → Promise of fn()
//     run in its turn in the queue, yield() → a macrotask (lets a queued 'cancel' in) }.
//   Replies: {type:'result', id, result} — the typed arrays in result are transferred when they own a plain
//     ArrayBuffer (a view of the wasm heap or a SharedArrayBuffer is copied instead); {type:'error', id,
//     message} with a readable message. A WebAssembly.RuntimeError (wasm trap, out-of-memory abort), a thrown
//     number (a C++ exception that escaped the core) or an error with `fatal: true` answers {type:'error', id, message, fatal: true}: the instance cannot be
//     trusted, so every later request gets the same fatal answer and the client replaces the worker.
//   startHost(labs, scope = self) installs createHost on the worker (the entry, host/worker.js). labs may be a
//     Promise of the list (the labs' modules still loading): messages received meanwhile are kept, in order, and
//     handed to the host once it exists; a rejected list answers every request fatally, with the reason.
// A thrown number is a C++ exception that escaped the core (built without exception catching: e.g. a
// std::bad_alloc when the heap is full); it unwound wasm frames without running their destructors, so the
// instance leaked what they held and cannot be trusted either.
export function isFatal(e) {
  return Boolean(e?.fatal) || typeof e === 'number' ||
    (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError);
}

export function errText(e) {
  if (e instanceof Error) return e.message;
  if (typeof e === 'number') return `internal error in the WebAssembly core (${e})`;
  return String(e);
}

// The words for a fatal error: Emscripten's "Aborted(). Build with -s ASSERTIONS=1 for more info." is for
// developers; the user reads what probably happened, the core's own words after it.
export function fatalText(e) {
  // a thrown number: both fatal forms read alike (the number is the exception's address, for a developer)
  if (typeof e === 'number') return `The WebAssembly core aborted (probably out of memory: an exception escaped it, at ${e}).`;
  const raw = errText(e).replace(/\.?\s*Build with -s ASSERTIONS=1 for more info\.?/g, '').trim();
  const why = !raw || /^Aborted\((OOM)?\)$/.test(raw) ? `${raw || 'Aborted()'}: probably out of memory` : raw;
  return `The WebAssembly core aborted (${why}).`;
}

export function yieldToEvents() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export function transferables(result) {
  const out = [];
  const visit = (v, depth) => {
    if (!v || typeof v !== 'object' || depth > 5) return;
    if (ArrayBuffer.isView(v)) {
      const b = v.buffer;
      const shared = typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer;
      if (!shared && v.byteOffset === 0 && v.byteLength === b.byteLength && !out.includes(b)) out.push(b);
    } else if (v instanceof ArrayBuffer) {
      if (!out.includes(v)) out.push(v);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(result, 0);
  return out;
}

export function createHost({ labs, post }) {
  const handlers = new Map();
  for (const lab of labs) {
    for (const [type, h] of Object.entries(lab.handlers)) {
      if (handlers.has(type)) throw new Error(`Request type "${type}" is defined by two labs (${handlers.get(type).lab}, ${lab.name}).`);
      handlers.set(type, { lab: lab.name, fn: typeof h === 'function' ? h : h.job, job: typeof h !== 'function' });
    }
  }
  const cancelled = new Set();
  const open = new Set(); // the requests in flight (a cancel for one that has ended is dropped)
  let queue = Promise.resolve();
  let broken = null; // the message of a fatal error: the instance is unusable

  function step(fn) {
    const p = queue.then(() => {
      if (broken) throw Object.assign(new Error(broken), { fatal: true });
      return fn();
    });
    queue = p.catch(() => {});
    return p;
  }

  function reply(id, result) {
    let list = [];
    try { list = transferables(result); } catch { list = []; }
    try {
      post({ type: 'result', id, result }, list);
    } catch {
      post({ type: 'result', id, result }, []);
    }
  }

  function fail(id, e) {
    const fatal = isFatal(e);
    const message = fatal && !e?.fatal ? fatalText(e) : errText(e);
    if (fatal) broken ??= message;
    post(fatal ? { type: 'error', id, message, fatal: true } : { type: 'error', id, message }, []);
  }

  function onMessage(msg = {}) {
    if (msg.type === 'cancel') {
      if (open.has(msg.target)) cancelled.add(msg.target);
      return;
    }
    const { id } = msg;
    open.add(id);
    const h = handlers.get(msg.type);
    const ctx = {
      id,
      progress: (body) => post({ ...body, type: 'progress', id }, []),
      event: (body) => post({ ...body, type: 'progress', id: 0 }, []),
      cancelled: () => cancelled.has(id),
      step,
      yield: yieldToEvents,
    };
    let run;
    if (!h) run = step(() => { throw new Error(`Unknown request type "${msg.type}"`); });
    else if (h.job) run = broken ? step(() => {}) : Promise.resolve().then(() => h.fn(msg, ctx));
    else run = step(() => h.fn(msg, ctx));
    run.then((result) => reply(id, result), (e) => fail(id, e)).finally(() => {
      cancelled.delete(id);
      open.delete(id);
    });
  }

  return { onMessage, handlers };
}

export function startHost(labs, scope = self) {
  const post = (msg, transfer) => scope.postMessage(msg, transfer);
  if (!(labs instanceof Promise)) {
    const host = createHost({ labs, post });
    scope.onmessage = (event) => host.onMessage(event.data ?? {});
    return host;
  }
  // The labs are still loading: messages wait, in order, and then go to the host. Labs that cannot load (a module
  // that failed) answer every request with that error, fatally: the worker is useless and the page replaces it.
  const waiting = [];
  scope.onmessage = (event) => waiting.push(event.data ?? {});
  return labs.then((list) => createHost({ labs: list, post }), (e) => {
    const message = `The worker could not load its labs: ${errText(e)}`;
    return { onMessage: (msg) => { if (msg.type !== 'cancel') post({ type: 'error', id: msg.id, message, fatal: true }, []); } };
  }).then((host) => {
    scope.onmessage = (event) => host.onMessage(event.data ?? {});
    for (const msg of waiting.splice(0)) host.onMessage(msg);
    return host;
  });
}
