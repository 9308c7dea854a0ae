// Shared by the browser tests and benchmarks: headless Debian Chromium through playwright-core, with the
// flags this machine needs (no sandbox as root, no background networking — the network is closed), a fresh
// profile each time, and pages that record uncaught errors and console errors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// A persistent context in a fresh profile; close() also removes the profile.
export async function launchChromium(options = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    headless: true, executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options,
  });
  ctx.closeAndClean = async () => {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return ctx;
}

// A new page at url whose page.errors collects uncaught exceptions and console errors.
export async function openRecordingPage(ctx, url, { before = null } = {}) {
  const page = await ctx.newPage();
  if (before) await before(page); // listeners and init scripts in place before the page loads (an init script added
  // without waiting could lose the race with goto under load: cold-open-order once read window.__workers as undefined)
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.errors = errors;
  await page.goto(url);
  return page;
}

// Why an image-lab browser test cannot run in the checkout at repo (false when it can): the wasm core must have
// the image API (its Embind names live in the .wasm's data section) and models/image/manifest.json must exist.
export function imageLabMissing(repo) {
  const missing = [];
  const wasm = path.join(repo, 'web/gen/attnlab_core.wasm');
  if (!fs.existsSync(wasm) || !fs.readFileSync(wasm).includes('ImageLab')) missing.push('web/gen with the image API');
  if (!fs.existsSync(path.join(repo, 'models/image/manifest.json'))) missing.push('models/image/manifest.json');
  return missing.length ? `needs ${missing.join(' and ')}` : false;
}

// The page's lab-runtime host workers (web/runtime/host/worker.js) that are running now, in start order.
export function hostWorkers(page) {
  return page.workers().filter((w) => new URL(w.url()).pathname.endsWith('/runtime/host/worker.js'));
}

// Counts the host workers a page starts and closes (page.hostWorkerCounts() → {started, closed}): the ones
// running now and every one started later.
export function countHostWorkers(page) {
  const counts = { started: 0, closed: 0 };
  const track = (w) => {
    counts.started++;
    w.on('close', () => counts.closed++);
  };
  hostWorkers(page).forEach(track);
  page.on('worker', (w) => { if (new URL(w.url()).pathname.endsWith('/runtime/host/worker.js')) track(w); });
  page.hostWorkerCounts = () => ({ ...counts });
  return counts;
}

// Fills a host worker's wasm heap (2 GiB, the most the core may grow to) with malloc'd blocks until malloc
// fails, the way a too-big job would: the worker's next request that allocates aborts (a wasm trap).
// → {blocks, heapBytes}.
export function fillWasmHeap(worker) {
  return worker.evaluate(async () => {
    const { loadCore } = await import('./core.js');
    const M = await loadCore();
    let blocks = 0;
    for (let size = 16 << 20; size >= 16; size >>= 1) while (M._malloc(size)) blocks++;
    return { blocks, heapBytes: (M.wasmMemory ?? M.HEAPU8).buffer.byteLength };
  });
}

// Makes a worker die outright: an exception thrown from a task of its own (not from a request), which the
// page sees as the worker's `error` event.
export function crashWorker(worker, message = 'simulated crash of the worker') {
  return worker.evaluate((m) => { setTimeout(() => { throw new Error(m); }, 0); }, message);
}

// A Playwright download's name and bytes, read from a temporary folder that is removed afterwards.
export async function downloadBytes(download) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-dl-'));
  try {
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    return { name: download.suggestedFilename(), bytes: fs.readFileSync(file) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
