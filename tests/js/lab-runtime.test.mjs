// lab-runtime.test.mjs — the lab runtime's protocol end to end in one process: WorkerChannel (the client)
// against createHost (web/runtime/host/host.js) through a fake Worker that structured-clones every message
// asynchronously, as a real one does. Covers results, progress, errors, cancel of a long job, a wasm abort
// (fatal → the worker is replaced, the user told, the next request works), latest-wins lanes, two labs' jobs
// interleaved in one queue, transfer of result buffers, and refusing two labs that define the same request.
import test from 'node:test';
import assert from 'node:assert/strict';
import { WorkerChannel } from '../../web/runtime/worker-channel.js';
import { createHost, transferables, startHost, fatalText } from '../../web/runtime/host/host.js';
import { labNames, LAB_MODULES } from '../../web/runtime/host/worker.js';
import { HOST_LABS } from '../../web/runtime/lab-runtime.js';

const tick = () => new Promise((r) => setImmediate(r));

// Test labs. `log` records what ran, in order.
function makeLabs(log) {
  const text = {
    name: 'text',
    handlers: {
      echo: (msg) => ({ echo: msg.value }),
      boom: () => { throw new Error('a readable failure'); },
      trap: () => { throw new WebAssembly.RuntimeError('unreachable executed'); },
      oom: () => { throw Object.assign(new Error('Aborted(OOM)'), { fatal: true }); },
      note: (msg) => { log.push(`text:${msg.value}`); return msg.value; },
      bytes: () => ({ data: new Float32Array([1, 2, 3]) }),
    },
  };
  const train = {
    name: 'train',
    handlers: {
      // a long job of `steps` queued steps, progress after each, cancel between them
      steps: {
        job: async (msg, ctx) => {
          let done = 0;
          for (let i = 0; i < msg.steps; i++) {
            await ctx.yield();
            if (ctx.cancelled()) return { cancelled: true, done };
            await ctx.step(() => { log.push(`train:${i}`); });
            done++;
            ctx.progress({ done });
          }
          return { cancelled: false, done };
        },
      },
    },
  };
  return [text, train];
}

class FakeWorker {
  static instances = [];
  static log = [];
  constructor(url, opts) {
    this.url = url;
    this.opts = opts;
    this.terminated = false;
    this.host = createHost({
      labs: makeLabs(FakeWorker.log),
      post: (msg, transfer) => {
        const data = structuredClone(msg, { transfer });
        setImmediate(() => { if (!this.terminated) this.onmessage?.({ data }); });
      },
    });
    FakeWorker.instances.push(this);
  }
  postMessage(msg, transfer = []) {
    const data = structuredClone(msg, { transfer });
    setImmediate(() => { if (!this.terminated) this.host.onMessage(data); });
  }
  terminate() { this.terminated = true; }
}

const channel = () => new WorkerChannel({ workerUrl: 'fake', WorkerImpl: FakeWorker, name: 'test', what: 'the test worker' });

test('a request gets its result; an error reply rejects with the readable message; unknown types are errors', async () => {
  const c = channel();
  assert.deepEqual(await c.request('echo', { value: 42 }), { echo: 42 });
  await assert.rejects(c.request('boom'), /a readable failure/);
  await assert.rejects(c.request('nope'), /Unknown request type "nope"/);
  assert.deepEqual(await c.request('echo', { value: 'still fine' }), { echo: 'still fine' }, 'an error does not break the worker');
  assert.equal(c.started, 1);
});

test('a long job reports progress and stops at a cancel, between its steps', async () => {
  const c = channel();
  const seen = [];
  const job = c.send('steps', { steps: 1000 }, (m) => {
    seen.push(m.done);
    if (m.done === 3) job.cancel();
  });
  const r = await job.promise;
  assert.equal(r.cancelled, true);
  assert.ok(r.done >= 3 && r.done < 1000, `stopped after ${r.done} steps`);
  assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
  const full = await c.request('steps', { steps: 4 });
  assert.deepEqual(full, { cancelled: false, done: 4 }, 'the cancel belonged to that request only');
});

test('a wasm abort is fatal: open requests fail, the worker is replaced, the user told, the next request works', async () => {
  const c = channel();
  const told = [];
  let recovered = 0;
  c.onReplaced((m) => told.push(m));
  c.onRecovered(() => recovered++);
  assert.deepEqual(await c.request('echo', { value: 1 }), { echo: 1 });
  assert.equal(recovered, 0, 'nothing to recover from before a replacement');
  const first = FakeWorker.instances.at(-1);
  const long = c.request('steps', { steps: 1e6 });
  const trap = c.request('trap');
  await assert.rejects(trap, /The WebAssembly core aborted \(unreachable executed\)/);
  await assert.rejects(long, /stopped: The WebAssembly core aborted.*fresh one/);
  assert.equal(first.terminated, true, 'the aborted worker is terminated');
  assert.equal(told.length, 1);
  assert.match(told[0], /your input is kept/);
  assert.equal(recovered, 0, 'not recovered until the fresh worker answers');
  assert.deepEqual(await c.request('echo', { value: 2 }), { echo: 2 });
  assert.equal(recovered, 1, 'the fresh worker\'s first result: recovered');
  assert.deepEqual(await c.request('echo', { value: 4 }), { echo: 4 });
  assert.equal(recovered, 1, 'once per replacement');
  assert.notEqual(FakeWorker.instances.at(-1), first, 'a fresh worker answered');
  assert.equal(c.started, 2);
  // an abort flagged fatal by the lab (Emscripten's out-of-memory abort) is handled the same way
  await assert.rejects(c.request('oom'), /Aborted\(OOM\)/);
  await tick();
  assert.equal(c.started, 2, 'replaced lazily: the next request starts it');
  assert.deepEqual(await c.request('echo', { value: 3 }), { echo: 3 });
  assert.equal(c.started, 3);
  assert.equal(told.length, 2);
  assert.equal(recovered, 2);
});

test('both fatal forms read alike for the user: out of memory, the core aborted; no C++ jargon', () => {
  const thrown = fatalText(5300112);  // a C++ exception that escaped the core: its address
  const aborted = fatalText(new Error('Aborted(). Build with -s ASSERTIONS=1 for more info.'));
  for (const m of [thrown, aborted]) assert.match(m, /^The WebAssembly core aborted \(.*probably out of memory.*\)\.$/);
  assert.doesNotMatch(thrown, /C\+\+/);
  assert.doesNotMatch(aborted, /ASSERTIONS/);
  assert.equal(fatalText(new Error('unreachable executed')), 'The WebAssembly core aborted (unreachable executed).');
});

test('an instance that aborted answers every later request fatally (nothing runs on a broken core)', async () => {
  const posted = [];
  const host = createHost({ labs: makeLabs([]), post: (m) => posted.push(m) });
  host.onMessage({ type: 'trap', id: 1 });
  await tick();
  host.onMessage({ type: 'echo', id: 2, value: 1 });
  host.onMessage({ type: 'steps', id: 3, steps: 2 });
  await tick();
  await tick();
  assert.deepEqual(posted.map((m) => [m.id, m.type, m.fatal]), [[1, 'error', true], [2, 'error', true], [3, 'error', true]]);
});

test('a worker that dies (onerror) rejects everything open; the next request starts a fresh one', async () => {
  const c = channel();
  await c.request('echo', { value: 0 });
  const w = FakeWorker.instances.at(-1);
  const open = c.request('steps', { steps: 1e6 });
  w.onerror({ message: 'out of memory' });
  await assert.rejects(open, /The test worker stopped: out of memory/);
  assert.deepEqual(await c.request('echo', { value: 5 }), { echo: 5 });
});

test('two labs share one queue: requests of one run between the steps of the other lab\'s job', async () => {
  FakeWorker.log.length = 0;
  const c = channel();
  const notes = [];
  // a note of the text lab is sent after each of the first three steps of the train lab's job
  const job = c.request('steps', { steps: 6 }, (m) => { if (m.done <= 3) notes.push(c.request('note', { value: m.done - 1 })); });
  while (notes.length < 3) await tick();
  assert.deepEqual(await Promise.all(notes), [0, 1, 2]);
  assert.deepEqual(await job, { cancelled: false, done: 6 });
  const log = FakeWorker.log.slice();
  assert.ok(log.indexOf('text:0') > log.indexOf('train:0'), `interleaved: ${log.join(' ')}`);
  assert.ok(log.indexOf('text:2') < log.indexOf('train:5'), `the notes did not wait for the whole job: ${log.join(' ')}`);
  assert.deepEqual(log.filter((x) => x.startsWith('train')), ['train:0', 'train:1', 'train:2', 'train:3', 'train:4', 'train:5']);
});

test('latest-wins lanes: a newer call replaces the waiting one and makes the running one stale', async () => {
  const c = channel();
  const a = c.latest('lane', 'echo', { value: 'a' });
  const b = c.latest('lane', 'echo', { value: 'b' });
  const d = c.latest('other', 'echo', { value: 'd' });
  const e = c.latest('lane', 'echo', { value: 'e' });
  assert.equal(await b, null, 'replaced while waiting');
  assert.equal(await a, null, 'answered after a newer call: stale');
  assert.deepEqual(await e, { echo: 'e' });
  assert.deepEqual(await d, { echo: 'd' }, 'another lane is independent');
});

test('lanes and jobs: a superseded running job is cancelled at its next step; cancelLane stops it; progress reaches the caller', async () => {
  const c = channel();
  const seen = [];
  const trainSteps = () => FakeWorker.log.filter((x) => x.startsWith('train')).length;
  const start = trainSteps();
  const a = c.latest('doc', 'steps', { steps: 1000 }, (m) => seen.push(m.done));
  while (seen.length < 2) await tick();
  const b = c.latest('doc', 'steps', { steps: 2 });
  assert.equal(await a, null, 'superseded');
  assert.deepEqual(await b, { cancelled: false, done: 2 }, 'the newer one ran whole');
  const ran = trainSteps() - start;
  assert.ok(ran < 100, `the superseded job stopped early (${ran} steps ran, the newer job's 2 included)`);
  // cancelLane: the running job answers {cancelled: true}; the waiting one resolves null
  const progress = [];
  const run = c.latest('doc', 'steps', { steps: 1000 }, (m) => progress.push(m.done));
  while (progress.length < 1) await tick();
  const waiting = c.latest('doc', 'steps', { steps: 1000 });
  c.cancelLane('doc');
  assert.equal(await waiting, null);
  assert.equal(await run, null, 'made stale by the waiting call before the cancel');
  const alone = c.latest('doc', 'steps', { steps: 1000 }, (m) => { if (m.done === 2) c.cancelLane('doc'); });
  const r = await alone;
  assert.equal(r.cancelled, true);
  assert.ok(r.done >= 2 && r.done < 1000, `stopped after ${r.done}`);
  // a plain request is not affected by a cancel of a lane (it runs to its end)
  const p = c.latest('plain', 'echo', { value: 'p' });
  c.cancelLane('plain');
  assert.deepEqual(await p, { echo: 'p' });
  c.cancelLane('no such lane');
});

test('result buffers are transferred, not copied, when the handler owns them', () => {
  const own = new Float32Array(4);
  const view = new Float32Array(new ArrayBuffer(64), 16, 4); // a view into a larger buffer (e.g. the wasm heap)
  const list = transferables({ a: own, nested: [{ b: view }], c: own });
  assert.deepEqual(list, [own.buffer]);
});

test('a held channel starts no worker until the hold settles; its requests then go in order, a cancel after its request', async () => {
  const c = channel();
  let release;
  c.holdUntil(new Promise((r) => { release = r; }));
  const before = FakeWorker.instances.length;
  const a = c.request('echo', { value: 'a' });
  const job = c.send('steps', { steps: 1000 });
  job.cancel(); // while held: queued behind its request
  const b = c.request('echo', { value: 'b' });
  let settled = false;
  Promise.all([a, b]).then(() => { settled = true; });
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(c.held, true);
  assert.equal(c.started, 0, 'no worker while held');
  assert.equal(FakeWorker.instances.length, before);
  assert.equal(settled, false);
  release();
  assert.deepEqual(await a, { echo: 'a' });
  assert.deepEqual(await b, { echo: 'b' });
  const r = await job.promise;
  assert.equal(r.cancelled, true, 'the cancel sent while held reached its job');
  assert.equal(c.held, false);
  assert.equal(c.started, 1);
  // A hold that rejects releases the channel too; a fresh hold after it holds again.
  const d = channel();
  d.holdUntil(Promise.reject(new Error('the image load failed')));
  assert.deepEqual(await d.request('echo', { value: 'd' }), { echo: 'd' });
  // Negative control: without a hold, the worker starts with the first request.
  const e = channel();
  e.request('echo', { value: 'e' });
  assert.equal(e.started, 1);
});

test('a host whose labs are still loading keeps the messages it gets, in order, and answers them once they are there', async () => {
  const posted = [];
  const scope = { postMessage: (msg) => posted.push(msg), onmessage: null };
  let resolve;
  const ready = startHost(new Promise((r) => { resolve = r; }), scope);
  scope.onmessage({ data: { type: 'echo', id: 1, value: 'first' } });
  scope.onmessage({ data: { type: 'echo', id: 2, value: 'second' } });
  await tick();
  assert.deepEqual(posted, [], 'nothing answered before the labs are there');
  resolve(makeLabs([]));
  await ready;
  for (let i = 0; i < 5 && posted.length < 2; i++) await tick();
  assert.deepEqual(posted.map((m) => [m.id, m.result?.echo]), [[1, 'first'], [2, 'second']]);
  scope.onmessage({ data: { type: 'echo', id: 3, value: 'later' } });
  for (let i = 0; i < 5 && posted.length < 3; i++) await tick();
  assert.equal(posted[2].result.echo, 'later');
  // labs that cannot load: every request is answered fatally, with the reason (the page replaces the worker)
  const failed = [];
  const bad = { postMessage: (msg) => failed.push(msg), onmessage: null };
  const broken = startHost(Promise.reject(new Error('a module did not load')), bad);
  bad.onmessage({ data: { type: 'echo', id: 7 } });
  await broken;
  bad.onmessage({ data: { type: 'echo', id: 8 } });
  assert.deepEqual(failed.map((m) => [m.id, m.type, m.fatal]), [[7, 'error', true], [8, 'error', true]]);
  assert.match(failed[0].message, /could not load its labs: a module did not load/);
});

test('a worker imports the labs its URL names, or all of them; every lab module defines its lab', async () => {
  assert.deepEqual(labNames('?labs=image,runtime'), ['image', 'runtime']);
  assert.deepEqual(labNames('?meter=1&labs=image'), ['image']);
  assert.deepEqual(labNames(''), Object.keys(LAB_MODULES));
  const types = new Set();
  for (const [name, load] of Object.entries(LAB_MODULES)) {
    const lab = await load();
    assert.ok(lab?.name && Object.keys(lab.handlers).length, `${name} → a lab with handlers`);
    for (const t of Object.keys(lab.handlers)) types.add(t);
  }
  // each client's host imports the labs that answer every request the client sends (lab-runtime HOST_LABS)
  const fsm = await import('node:fs');
  const handled = async (names) => {
    const set = new Set();
    for (const n of names) for (const t of Object.keys((await LAB_MODULES[n]()).handlers)) set.add(t);
    return set;
  };
  const CLIENTS = { 'core-client.js': 'text', 'cnn-client.js': 'text', 'image-client.js': 'image', 'own-model-client.js': 'ownModel', 'own-text-client.js': 'ownText' };
  for (const [file, host] of Object.entries(CLIENTS)) {
    const src = fsm.readFileSync(new URL(`../../web/runtime/${file}`, import.meta.url), 'utf8');
    const sent = [...src.matchAll(/(?:request|send)\('([\w.]+)'|latest\('\w+', '([\w.]+)'/g)].map((m) => m[1] ?? m[2]);
    assert.ok(sent.length >= 5, `${file}: ${sent.join(' ')}`);
    const set = await handled(HOST_LABS[host]);
    for (const t of sent) assert.ok(set.has(t), `${file}'s host (${host}) handles ${t}`);
    assert.ok(set.has('memory'), `${host} answers the diagnostics`);
  }
  assert.ok(!(await handled(HOST_LABS.image)).has('explain'), 'the image host does not import the text lab (negative control)');
  assert.ok(!(await handled(HOST_LABS.text)).has('image.load'), 'the text host does not import the image lab (negative control)');
  for (const names of Object.values(HOST_LABS)) for (const n of names) assert.ok(LAB_MODULES[n], n);
});

test('two labs may not define the same request type', () => {
  const lab = { name: 'a', handlers: { x: () => 1 } };
  assert.throws(() => createHost({ labs: [lab, { name: 'b', handlers: { x: () => 2 } }], post: () => {} }), /"x" is defined by two labs \(a, b\)/);
});

test('fail() writes the worker\'s interrupt word before terminating it; a replaced worker\'s late word is not kept', async () => {
  const c = channel();
  await c.request('echo', { value: 1 });
  const w = FakeWorker.instances.at(-1);
  const memory = new SharedArrayBuffer(64);
  w.onmessage({ data: { type: 'progress', id: 0, interrupt: { buffer: memory, index: 5 } } });
  assert.equal(new Int32Array(memory)[5], 0, 'only kept');
  c.fail('stop');
  assert.equal(new Int32Array(memory)[5], 1, 'the word is set');
  assert.equal(w.terminated, true);
  assert.deepEqual(new Int32Array(memory).filter((v, i) => i !== 5 && v !== 0), new Int32Array(0), 'no other word');
  // the old worker's word arriving after its replacement started is dropped; the new one's is kept
  await c.request('echo', { value: 2 });
  const fresh = FakeWorker.instances.at(-1);
  assert.notEqual(fresh, w);
  const late = new SharedArrayBuffer(16);
  w.onmessage({ data: { type: 'progress', id: 0, interrupt: { buffer: late, index: 1 } } });
  assert.equal(c.interrupt, null);
  const mine = new SharedArrayBuffer(16);
  let events = 0;
  c.onEvent = () => { events++; };
  fresh.onmessage({ data: { type: 'progress', id: 0, interrupt: { buffer: mine, index: 2 } } });
  assert.equal(events, 0, 'the word is the channel\'s, not an event for the view');
  c.fail('stop again');
  assert.equal(new Int32Array(late)[1], 0);
  assert.equal(new Int32Array(mine)[2], 1);
});

