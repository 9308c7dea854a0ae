// core-threads.test.mjs — the wasm core's threads in the served page (issue 31): the page is cross-origin isolated,
// so the text host's core starts a pthread pool (threads= in the URL: 2 here, whatever the machine has) and says so
// in the footer; an explanation of the shipped BiLSTM and transformer, and the Text tab's step on the shipped
// stories260K (OnnxTextLab.explainStep), on 2 threads equals the one on 1 thread, value for value (JSON); the image host and a Debate pool worker stay on one thread. Without isolation the same build
// runs on one thread (static-build.test.mjs: the plain host).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, hostWorkers } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.worker.js')) ? false : 'web/gen has no threaded core (bash scripts/build-wasm.sh)';

describe('the wasm core on threads in the page', { skip: SKIP, timeout: 240_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium();
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  test('a worker\'s interrupt word reaches its core: set from the page, the next ONNX pass stops; cleared, it runs; fail() sets it', async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/?threads=2`);
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
    const r = await page.evaluate(async () => {
      const { hostChannel, hostUrl, HOST_LABS } = await import('./runtime/lab-runtime.js');
      const c = hostChannel({ name: 'attnlab-interrupt-test', what: 'the test worker', workerUrl: hostUrl(HOST_LABS.ownText) });
      await c.request('ownText.shipped', { name: 'stories260K' }); // the word is posted before any answer (host/worker.js)
      const out = { word: Boolean(c.interrupt) };
      if (!c.interrupt) return out;
      const word = new Int32Array(c.interrupt.buffer);
      const { ids } = await c.request('ownText.tokenize', { text: 'Lily and Ben went to the park.' });
      Atomics.store(word, c.interrupt.index, 1);
      out.stopped = await c.request('ownText.explain', { ids, target: 'next' }).then(() => 'ran', (e) => e.message);
      Atomics.store(word, c.interrupt.index, 0);
      const again = await c.request('ownText.explain', { ids, target: 'next' });
      out.again = again.explain.ids.length;
      const held = c.interrupt;
      c.fail('the test is over');
      out.afterFail = Atomics.load(new Int32Array(held.buffer), held.index);
      return out;
    });
    assert.equal(r.word, true, 'the worker said where its word is');
    assert.match(r.stopped, /stopped: the page asked this worker to stop/);
    assert.ok(r.again > 5, 'cleared, the same call runs');
    assert.equal(r.afterFail, 1);
    assert.deepEqual(page.errors, []);
  });

  test('threads=2: two threads in the text host, the footer says so, and the rows equal one thread\'s', async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=text&threads=2`);
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
    assert.match(await page.textContent('#isolation-note'), /core runs on 2 threads/);
    await page.waitForFunction(() => ['ready', 'empty', 'error'].includes(document.querySelector('#view-text')?.dataset.status),
      null, { timeout: 120_000 });
    assert.equal(await page.locator('#view-text').getAttribute('data-status'), 'ready');
    const [host] = hostWorkers(page);
    const r = await host.evaluate(async () => {
      const { loadCore } = await import('./core.js');
      const M = await loadCore();
      const out = { threads: M.threads(), rows: {} };
      const text = 'the performances are uniformly good , but the script is a mess and the ending drags on far too long';
      for (const name of ['sst2-tanh', 'sst2-transformer']) {
        const base = `/models/text/${name}/`;
        const config = await (await fetch(`${base}config.json`)).text();
        const weights = new Uint8Array(await (await fetch(`${base}model.safetensors`)).arrayBuffer());
        const lab = new M.TextLab(config, weights);
        const two = JSON.stringify(lab.explain(text));
        M.setThreads(1);
        const one = JSON.stringify(lab.explain(text));
        M.setThreads(2);
        out.rows[name] = { same: one === two, length: one.length, differsFromOther: null };
        lab.delete();
      }
      // a user's transformer (the shipped stories260K): from its second call on, leave-one-out's passes run beside
      // the rows (onnx_text_explain) — the page's step equals one thread's
      const read = async (f) => new Uint8Array(await (await fetch(`/models/text/stories260K/${f}`)).arrayBuffer());
      const lab = new M.OnnxTextLab(await read('model.onnx'), await read('tokenizer.bin'), '', { tokenizerName: 'tokenizer.bin' });
      const { ids } = lab.tokenize('Lily and Ben went to the park. They saw a big red ball and played with it all day long.', true);
      const step = () => JSON.stringify(lab.explainStep(ids, 'next', { leaveOneOut: true, contextMixing: false, attentionLayers: false, top: 5 }));
      step(); // the first call checks the batched passes
      const two = step();
      M.setThreads(1);
      const one = step();
      M.setThreads(2);
      out.rows.stories260K = { same: one === two, length: one.length };
      lab.delete();
      return out;
    });
    assert.equal(r.threads, 2);
    for (const [name, row] of Object.entries(r.rows)) {
      assert.ok(row.length > 500, `${name}: an explanation came back`);
      assert.ok(row.same, `${name}: the rows on 2 threads differ from 1 thread's`);
    }
    // Emscripten's pthread Workers (attnlab_core.worker.js) were started for the pool.
    assert.ok(page.workers().some((w) => w.url().endsWith('/gen/attnlab_core.worker.js')), 'no pthread worker');
    const memory = await page.evaluate(async () => {
      const { hostChannels } = await import('./runtime/lab-runtime.js');
      return Promise.all(hostChannels().map((c) => c.request('memory', {}).then((m) => ({ name: c.name, threads: m.core_threads }))));
    });
    const text = memory.find((m) => m.name === 'attnlab-core');
    assert.equal(text?.threads, 2, JSON.stringify(memory));
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Every core by default (issue 31); threads=1 opts out. The text host's core and the footer agree.
  test('no threads= in the URL: every core of the machine (at most 8); threads=1: one', async () => {
    for (const [hash, want] of [['#view=text', null], ['#view=text&threads=1', 1]]) {
      const page = await openRecordingPage(ctx, `${server.url}/web/${hash}`);
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const expected = want ?? Math.min(8, Math.max(1, cores));
      await page.waitForFunction(() => ['ready', 'empty', 'error'].includes(document.querySelector('#view-text')?.dataset.status),
        null, { timeout: 120_000 });
      const note = await page.textContent('#isolation-note');
      if (expected > 1) assert.match(note, new RegExp(`core runs on ${expected} threads here \\(every core of this machine`));
      else assert.match(note, want === 1 ? /core runs on one thread \(threads= in the URL\)/ : /core runs on one thread \(this machine reports one core\)/);
      const memory = await page.evaluate(async () => {
        const { hostChannels } = await import('./runtime/lab-runtime.js');
        return Promise.all(hostChannels().map((c) => c.request('memory', {}).then((m) => ({ name: c.name, threads: m.core_threads }))));
      });
      assert.equal(memory.find((m) => m.name === 'attnlab-core')?.threads, expected, `${hash}: ${JSON.stringify(memory)}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });
});
