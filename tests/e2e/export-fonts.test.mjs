// export-fonts.test.mjs — an exported chart keeps the page's font (issue 29): a Plot chart's SVG (and so its PNG,
// drawn from that SVG) names the page's sans-serif font at its root, never "inherit" — which, standing alone,
// falls back to the browser's default serif. Run: node --test tests/e2e/export-fonts.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen';

test('a Plot chart exported as SVG carries the page font', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=text`);
    const bar = '.live-permutation .export-bar .export-svg';
    await page.waitForSelector(`.live-permutation[data-status=ready] svg`, { timeout: TIMEOUT });
    await page.waitForSelector(bar, { timeout: TIMEOUT });
    await Promise.all([page.waitForEvent('download'), page.click(bar)]);
    const svg = await page.evaluate(() => window.__attnlabLastSvg);
    const root = /^<svg[^>]*>/.exec(svg)[0];
    const family = /font-family:\s*([^;"]+)/.exec(root)?.[1] ?? '';
    const pageFont = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    assert.ok(family && !/inherit/.test(family), `the root names a font: ${root.slice(0, 300)}`);
    assert.ok(/sans-serif|system-ui/.test(family) && /sans-serif|system-ui/.test(pageFont), `${family} vs the page's ${pageFont}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
