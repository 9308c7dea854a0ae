// lab-runtime.js — where the page gets its workers: every lab talks to the same worker script
// (host/worker.js) through a WorkerChannel. No DOM.
//
// Contract:
//   HOST_URL                      the worker script
//   hostUrl(labs) → HOST_URL naming the labs the worker imports (`labs=a,b`; host/worker.js LAB_MODULES' names), and
//                                 the page's threads= when given (host/core.js coreThreads)
//   HOST_LABS: which labs each client's own host imports (text: the text, debate, train, localization, documents
//                                 and global-view views' shared host; image; ownModel; ownText) — a cold open loads
//                                 only those modules (tests/js/lab-runtime.test.mjs checks every request a client
//                                 sends is handled by its set)
//   hostChannel({ name, what, workerUrl, WorkerImpl }) → a WorkerChannel to a fresh host worker (started
//                                 on its first request)
//   hostChannels() → the WorkerChannels made by hostChannel that are still referenced (the page's, the pool's;
//                                 for diagnostics and tests: e.g. channel.request('memory'), labs/runtime.js)
// The page (app.js) opens one host for the text, debate, train and localization labs and one for the image lab
// (ONNX Runtime Web's backend and thread count are fixed per worker at its first load, so a backend change
// means a fresh worker, which must not take the text sessions with it); a data-set run adds pool workers
// (pool.js). Each host loads the core once and keeps its sessions until it is closed or replaced.
import { WorkerChannel } from './worker-channel.js';

export const HOST_URL = new URL('./host/worker.js', import.meta.url);
// meter=1 in the page's URL (measurement only): the workers count the bytes they exchange (host/meter.js).
if (/[?&#]meter=1\b/.test(`${globalThis.location?.search ?? ''}${globalThis.location?.hash ?? ''}`)) HOST_URL.searchParams.set('meter', '1');
// threads=N in the page's URL: the core's threads in each host (host/core.js coreThreads; ONNX Runtime reads the same).
{
  const m = /[?&#]threads=(\d+)\b/.exec(`${globalThis.location?.search ?? ''}${globalThis.location?.hash ?? ''}`);
  if (m && Number(m[1]) > 0) HOST_URL.searchParams.set('threads', m[1]);
}

export const HOST_LABS = Object.freeze({
  text: ['text', 'experiments', 'train', 'localization', 'documents', 'globalView', 'runtime'],
  image: ['image', 'runtime'],
  ownModel: ['ownModel', 'runtime'],
  ownText: ['ownText', 'runtime'],
});

export function hostUrl(labs) {
  const url = new URL(HOST_URL);
  url.searchParams.set('labs', labs.join(','));
  return url;
}

// WeakRefs: a dropped channel is not kept alive by this list. One list per page, kept on globalThis: the served
// page's modules are bundled (scripts/page-bundle.mjs), and a test that imports this file into the page gets a second
// instance of the module, which must still see the page's channels.
const made = (globalThis[Symbol.for('attnlab.hostChannels')] ??= []);

export function hostChannel({ name = 'attnlab-core', what = 'the background worker', workerUrl = HOST_URL, WorkerImpl = globalThis.Worker } = {}) {
  const channel = new WorkerChannel({ workerUrl, WorkerImpl, name, what });
  for (let i = made.length - 1; i >= 0; i--) if (!made[i].deref()) made.splice(i, 1);
  if (typeof WeakRef === 'function') made.push(new WeakRef(channel));
  return channel;
}

export function hostChannels() {
  return made.map((r) => r.deref()).filter(Boolean);
}
