// meter.js — measurement only (docs/BENCHMARKS.md "Bytes across the boundaries"): counts the bytes that cross
// the worker boundary (messages in and out of this worker) and the Embind boundary (arguments into and results
// out of the core's functions and methods). Off unless the worker's URL has meter=1 (lab-runtime.js adds it
// when the page's URL has it). The counters go to the page on BroadcastChannel 'attnlab-meter' as
// {worker: self.name, counters: {worker_in, worker_out, embind_in, embind_out, embind_calls}}.
//
// Contract:
//   meterOn() → boolean; sizeOf(value) → bytes (typed arrays: byteLength; strings: UTF-8 length; numbers 8;
//   objects and arrays: the sum of their parts; a Blob: its size)
//   meterWorker(): counts this worker's messages; meterModule(Module) → Module with every function and
//   class method counted (in place).
export const meterOn = () => /[?&]meter=1\b/.test(String(globalThis.location?.search ?? ''));

const enc = new TextEncoder();
export function sizeOf(v, depth = 0) {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'string') return v.length < 4096 ? enc.encode(v).length : v.length + (enc.encode(v).length - v.length);
  if (typeof v === 'number' || typeof v === 'boolean') return 8;
  if (ArrayBuffer.isView(v)) return v.byteLength;
  if (v instanceof ArrayBuffer) return v.byteLength;
  if (typeof Blob !== 'undefined' && v instanceof Blob) return v.size;
  if (depth > 8 || typeof v !== 'object') return 0;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n += sizeOf(x, depth + 1);
  else for (const k of Object.keys(v)) n += k.length + sizeOf(v[k], depth + 1);
  return n;
}

const counters = { worker_in: 0, worker_out: 0, embind_in: 0, embind_out: 0, embind_calls: 0 };
let bc = null;
let timer = null;
function publish() {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    bc ??= new BroadcastChannel('attnlab-meter');
    bc.postMessage({ worker: globalThis.name ?? '', counters: { ...counters } });
  }, 50);
}

export function meterWorker() {
  const post = self.postMessage.bind(self);
  self.postMessage = (msg, transfer) => {
    counters.worker_out += sizeOf(msg);
    publish();
    return post(msg, transfer);
  };
  self.addEventListener('message', (e) => {
    counters.worker_in += sizeOf(e.data);
    publish();
  });
}

function counted(fn, self) {
  return function (...args) {
    counters.embind_calls++;
    for (const a of args) counters.embind_in += sizeOf(a);
    const r = fn.apply(this ?? self, args);
    counters.embind_out += sizeOf(r);
    publish();
    return r;
  };
}

export function meterModule(Module) {
  const wrapped = new WeakSet();
  for (const name of Object.keys(Module)) {
    const f = Module[name];
    if (typeof f !== 'function' || /^(_|dynCall|stack|get|set|UTF|HEAP|ccall|cwrap|add|remove|__)/.test(name)) continue;
    const proto = f.prototype;
    const methods = proto ? Object.getOwnPropertyNames(proto).filter((m) => m !== 'constructor' && m !== 'delete' && typeof proto[m] === 'function') : [];
    if (methods.length) {
      for (const m of methods) {
        if (wrapped.has(proto[m])) continue;
        const w = counted(proto[m]);
        wrapped.add(w);
        proto[m] = w;
      }
      Module[name] = new Proxy(f, {
        construct(target, args, newTarget) {
          counters.embind_calls++;
          for (const a of args) counters.embind_in += sizeOf(a);
          publish();
          return Reflect.construct(target, args, newTarget === Module[name] ? target : newTarget);
        },
      });
    } else if (!/^[A-Z]/.test(name)) {
      Module[name] = counted(f, Module);
    }
  }
  return Module;
}
