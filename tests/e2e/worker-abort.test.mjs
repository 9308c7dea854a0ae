// worker-abort.test.mjs — a worker that dies is replaced, the user is told, and nothing they typed or chose is
// lost (issue 13 "Memory and endurance", issue 9 "a worker that aborts is replaced"). Real Chromium
// (tests/e2e/browser.mjs), the real wasm core, scripts/serve.mjs in-process on port 0.
//
// The worker is made to fail the way it fails in use:
//   - out of memory: its wasm heap is filled to the 2 GiB limit with malloc'd blocks (browser.mjs fillWasmHeap),
//     so the next explanation's allocations fail: the first that reaches malloc aborts the core (operator new: a
//     WebAssembly.RuntimeError, a wasm trap) or a C++ exception escapes (a std::bad_alloc from code that calls malloc
//     itself: a thrown number) — which comes first depends on what the core's per-thread block cache
//     (wasm/thread_cache_new.cpp) still holds; both are fatal and both messages say "probably out of memory";
//   - dies outright: an exception thrown in a task of the worker's own (browser.mjs crashWorker) — the page sees
//     the worker's `error` event.
// Checks, for the Text tab: #app-message says the worker stopped and that a fresh one is started; the typed
// sentence is still in the box and in the link; the next explanation runs on a new worker (one more host worker
// started, the broken one closed) and gives the probability the first worker gave for the same sentence; then
// #app-message is taken down.
// Negative control: the same edits without forcing anything show no message and start no worker.
// For the Image tab: the image worker killed after a photo was classified says so, keeps the photo, and its
// "Show it again" button classifies the same photo on a fresh worker (same top-1).
// For the Debate tab: a worker killed mid-run stops the run with a message and the rows so far; the experiment
// and N are kept; Run again completes on a fresh worker.
// Skips — with the reason printed — only when web/gen or the sst2-tanh model is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage, hostWorkers, countHostWorkers, fillWasmHeap, crashWorker } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'sst2-tanh';
const SENTENCE = 'A gripping story with superb acting.';
const TIMEOUT = 180_000;

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs'))) missing.push('web/gen (bash scripts/build-wasm.sh)');
if (!fs.existsSync(path.join(REPO, 'models/text', MODEL, 'config.json'))) missing.push(`models/text/${MODEL}`);
if (!fs.existsSync(path.join(REPO, 'models/text/data/sst2-test.tsv'))) missing.push('models/text/data/sst2-test.tsv');
const SKIP = missing.length ? `the worker-abort browser test needs ${missing.join(', ')}` : false;

const LIVE = ['adversarial', 'permutation', 'erase-max', 'erase-until-flip', 'eraser'];

if (SKIP) test('a worker that dies is replaced', { skip: SKIP }, () => {});
else describe('a worker that dies is replaced, the user is told, input kept', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;

  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1200, height: 900 } });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (hash) => openRecordingPage(ctx, `${server.url}/web/${hash}`, { before: countHostWorkers });

  const textStatus = (page) => page.locator('#view-text').getAttribute('data-status');

  async function waitText(page, statuses) {
    await page.waitForFunction((st) => st.includes(document.querySelector('#view-text')?.dataset.status), statuses, { timeout: 120_000 });
    return textStatus(page);
  }

  // Every live panel has finished with the shown result (the worker's queue is empty).
  async function waitIdle(page) {
    await page.waitForFunction(
      (names) => document.querySelector('#view-text')?.dataset.status === 'ready' && names.every((n) => {
        const s = document.querySelector(`.live-panel[data-experiment="${n}"]`)?.dataset.status;
        return s && s !== 'pending';
      }),
      LIVE,
      { timeout: 120_000 },
    );
  }

  // The replaced worker's `close` reaches Playwright once Chromium has ended it and its core's pthread Workers
  // (≈ 2 s after terminate() where the core runs on threads, the page's default): wait for the counts, up to 60 s.
  async function countsBecome(page, want) {
    const end = Date.now() + 60_000;
    while (Date.now() < end && JSON.stringify(page.hostWorkerCounts()) !== JSON.stringify(want)) await new Promise((r) => setTimeout(r, 100));
    return page.hostWorkerCounts();
  }

  const probability = async (page) => Number(await page.locator('#probability').getAttribute('data-probability'));
  const linkText = (page) => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('text'));

  test('Text tab: the wasm heap runs out mid-explanation — message, sentence kept, next explanation on a fresh worker', { timeout: TIMEOUT }, async () => {
    const page = await openPage(`#model=${MODEL}&text=`);
    assert.equal(await waitText(page, ['empty', 'error']), 'empty');
    await page.locator('#text-input').fill(SENTENCE);
    await waitIdle(page);
    const p0 = await probability(page);
    assert.ok(p0 > 0 && p0 < 1, `probability ${p0}`);

    // Negative control: an edit and its explanation without anything forced — no message, no new worker.
    await page.locator('#text-input').pressSequentially(' Loved it.', { delay: 5 });
    await waitIdle(page);
    assert.equal(await page.isVisible('#app-message'), false);
    assert.deepEqual(page.hostWorkerCounts(), { started: 1, closed: 0 });

    const [worker] = hostWorkers(page);
    const filled = await fillWasmHeap(worker);
    assert.ok(filled.heapBytes >= 2 ** 31 - 2 ** 24, `heap filled to ${filled.heapBytes} bytes`);

    const typed = `${SENTENCE} Loved it. Truly.`;
    // One edit, so one explanation meets the full heap: typed key by key, a later key's request could go to the
    // fresh worker after the first one aborted and end "ready" (seen in CI once the core ran on 2 threads).
    await page.locator('#text-input').fill(typed);
    await page.waitForFunction(() => !document.querySelector('#app-message').hidden, null, { timeout: 60_000 });
    const message = await page.locator('#app-message').textContent();
    assert.match(message, /stopped/i);
    assert.match(message, /WebAssembly core (aborted|failed)/);
    assert.match(message, /A fresh one is started for the next request; your input is kept/);
    assert.equal(await page.inputValue('#text-input'), typed, 'the typed sentence is still in the box');
    assert.equal(await linkText(page), typed, 'and in the link');
    assert.equal(await page.inputValue('#model-select'), MODEL);
    assert.match(message, /probably out of memory/);
    assert.doesNotMatch(message, /ASSERTIONS/, 'no build hint for developers in the message');
    // The explanation that hit the abort says why, in words (never a bare number).
    assert.equal(await waitText(page, ['ready', 'error']), 'error');
    {
      assert.match(await page.locator('#text-message').textContent(),
        /Could not explain this text with sst2-tanh: The WebAssembly core (aborted \(Aborted\(\): probably out of memory\)|aborted \(probably out of memory: an exception escaped it, at \d+\))/);
    }

    // The next explanation (the user edits the text back) runs on a new worker and gives the first worker's value.
    await page.locator('#text-input').fill(SENTENCE);
    await waitIdle(page);
    assert.equal(await probability(page), p0);
    assert.equal(await page.isVisible('#text-message'), false);
    assert.equal(await page.isVisible('#app-message'), false, 'the "stopped" message is taken down once the fresh worker answers');
    const counts = await countsBecome(page, { started: 2, closed: 1 });
    assert.equal(counts.started, 2, `host workers started: ${JSON.stringify(counts)}`);
    assert.equal(counts.closed, 1, 'the broken worker was closed');
    const errs = page.errors.filter((e) => !/Aborted\(/.test(e)); // the core's own abort line on the console
    assert.deepEqual(errs, []);
    await page.close();
  });

  test('Text tab: a worker that dies outright is replaced; the result and the sentence stay', { timeout: TIMEOUT }, async () => {
    const page = await openPage(`#model=${MODEL}&text=${encodeURIComponent(SENTENCE)}`);
    await waitIdle(page);
    const p0 = await probability(page);
    await crashWorker(hostWorkers(page)[0]);
    await page.waitForFunction(() => !document.querySelector('#app-message').hidden, null, { timeout: 60_000 });
    assert.match(await page.locator('#app-message').textContent(), /background worker stopped: .*simulated crash of the worker/);
    assert.equal(await page.inputValue('#text-input'), SENTENCE);
    assert.equal(await textStatus(page), 'ready', 'the shown result stays');
    await page.locator('#text-input').pressSequentially(' Yes.', { delay: 5 });
    await waitIdle(page);
    await page.locator('#text-input').fill(SENTENCE);
    await waitIdle(page);
    assert.equal(await probability(page), p0);
    assert.equal(await page.isVisible('#app-message'), false, 'recovered: the message is taken down');
    assert.deepEqual(await countsBecome(page, { started: 2, closed: 1 }), { started: 2, closed: 1 });
    assert.deepEqual(page.errors.filter((e) => !/simulated crash/.test(e)), []);
    await page.close();
  });

  test('Image tab: the image worker dies; the photo is kept and "Show it again" classifies it on a fresh worker', { timeout: TIMEOUT }, async () => {
    const page = await openPage('#view=image&image=bird&backend=wasm');
    const waitImage = async (st) => {
      await page.waitForFunction((s) => s.includes(document.querySelector('#view-image')?.dataset.status), st, { timeout: 150_000 });
      return page.locator('#view-image').getAttribute('data-status');
    };
    assert.equal(await waitImage(['ready', 'error']), 'ready');
    const top1 = await page.locator('#view-image').getAttribute('data-top1');
    let imageWorker = null;
    for (const w of hostWorkers(page)) if (await w.evaluate(() => self.name) === 'attnlab-image') imageWorker = w;
    assert.ok(imageWorker, 'the image tab runs in a host worker of its own');
    await crashWorker(imageWorker);
    assert.equal(await waitImage(['error']), 'error');
    const message = await page.locator('#image-message').textContent();
    assert.match(message, /image worker stopped: .*simulated crash of the worker/);
    assert.match(message, /Your photo \(Bird\) is kept/);
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('image'), 'bird', 'the photo stays in the link');
    await page.click('#image-retry');
    assert.equal(await waitImage(['ready', 'error']), 'ready');
    assert.equal(await page.locator('#view-image').getAttribute('data-photo'), 'bird');
    assert.equal(await page.locator('#view-image').getAttribute('data-top1'), top1, 'the fresh worker gives the same top-1');
    assert.equal(await page.isVisible('#image-message'), false);
    assert.deepEqual(page.errors.filter((e) => !/simulated crash/.test(e)), []);
    await page.close();
  });

  test('Debate tab: a worker killed mid-run stops the run with a message and its rows; Run again completes', { timeout: TIMEOUT }, async () => {
    const N = 60;
    const page = await openPage(`#view=debate&experiment=kendall&model=${MODEL}&n=${N}&workers=1`);
    const waitDebate = async (st) => {
      await page.waitForFunction((s) => s.includes(document.querySelector('#view-debate')?.dataset.status), st, { timeout: 150_000 });
      return page.locator('#view-debate').getAttribute('data-status');
    };
    assert.equal(await waitDebate(['idle', 'error']), 'idle');
    await page.click('#debate-run');
    await page.waitForFunction(() => Number(document.querySelector('#debate-result')?.dataset.rows) >= 10, null, { timeout: 120_000 });
    await crashWorker(hostWorkers(page)[0]);
    assert.equal(await waitDebate(['error', 'done', 'cancelled']), 'error');
    assert.match(await page.locator('#debate-message').textContent(), /The run stopped: .*stopped: .*simulated crash of the worker/);
    const rows = Number(await page.locator('#debate-result').getAttribute('data-rows'));
    assert.ok(rows >= 10 && rows < N, `rows kept: ${rows}`);
    assert.equal(await page.locator('#debate-result').getAttribute('data-partial'), 'true');
    // #app-message says it too, until a fresh worker has answered a request (the view's own requests may already
    // have started one and been answered: then it is down and the Debate message above carries the news)
    if (await page.isVisible('#app-message')) assert.match(await page.locator('#app-message').textContent(), /stopped/);
    else assert.equal(page.hostWorkerCounts().started, 2, '#app-message is down only once a fresh worker answered');
    assert.equal(await page.inputValue('#debate-experiment'), 'kendall');
    assert.equal(await page.inputValue('#debate-n'), String(N));
    assert.equal(await page.isEnabled('#debate-run'), true);
    await page.click('#debate-run');
    assert.equal(await waitDebate(['done', 'error', 'cancelled']), 'done');
    assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), String(N));
    assert.equal(await page.isVisible('#debate-message'), false);
    assert.equal(await page.isVisible('#app-message'), false, 'recovered: the message is taken down');
    assert.deepEqual(await countsBecome(page, { started: 2, closed: 1 }), { started: 2, closed: 1 });
    assert.deepEqual(page.errors.filter((e) => !/simulated crash/.test(e)), []);
    await page.close();
  });
});
