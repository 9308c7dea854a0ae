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
export async function openRecordingPage(ctx, url) {
  const page = await ctx.newPage();
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
