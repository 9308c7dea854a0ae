// lessons.test.mjs — the teaching tools in headless Chromium (issue 15): play a shipped lesson to the end from
// a link (and the faithful-or-deceptive lesson of issue 32), load a lesson from a file, tab to a token and read its value, export a figure as SVG and PNG 2×, save
// a report and re-open it offline (no network request at all). Run: node --test tests/e2e/lessons.test.mjs
// (≈ 30–60 s on the 2-core machine).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { parseLesson } from '../../web/analysis/lesson.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 120_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';

async function waitText(page, status = 'ready') {
  await page.waitForFunction((s) => document.getElementById('view-text').dataset.status === s, status, { timeout: TIMEOUT });
}

if (SKIP) test('lessons and export in the browser', { skip: SKIP }, () => {});
else describe('lessons and export in the browser', { timeout: 10 * 60_000 }, () => {
  let server;
  let ctx;
  let tmp;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-lessons-'));
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('every shipped lesson parses and the index lists them all', () => {
    const idx = JSON.parse(fs.readFileSync(path.join(REPO, 'web/lessons/index.json'), 'utf8'));
    const files = fs.readdirSync(path.join(REPO, 'web/lessons')).filter((f) => f.endsWith('.json') && f !== 'index.json');
    assert.deepEqual(idx.lessons.map((l) => `${l.name}.json`).sort(), files.sort());
    // every text model a step names is shipped (a missing one would fall back to sst2-tanh with a notice, and the step
    // would talk about another model)
    const shipped = new Set(JSON.parse(fs.readFileSync(path.join(REPO, 'models/text/manifest.json'), 'utf8')).models.map((m) => m.name));
    for (const l of idx.lessons) {
      const lesson = parseLesson(fs.readFileSync(path.join(REPO, 'web/lessons', `${l.name}.json`), 'utf8'));
      assert.equal(lesson.steps.length, l.steps, l.name);
      for (const s of lesson.steps) {
        assert.match(s.state, /^#view=(text|debate|train|image|localization)(&|$)/, `${l.name}: ${s.state}`);
        const st = new URLSearchParams(s.state.slice(1));
        if (['text', 'debate'].includes(st.get('view')) && st.get('model')) assert.ok(shipped.has(st.get('model')), `${l.name}: ${st.get('model')} is shipped`);
      }
    }
  });

  test('a lesson link plays to the end: each step sets the page state and highlights its target', { timeout: TIMEOUT }, async () => {
    const lesson = parseLesson(fs.readFileSync(path.join(REPO, 'web/lessons/attention-explanation.json'), 'utf8'));
    const page = await openRecordingPage(ctx, `${server.url}/web/#lesson=attention-explanation`);
    await page.waitForSelector('#lesson-player:not([hidden])', { timeout: TIMEOUT });
    for (let i = 0; i < lesson.steps.length; i++) {
      const step = lesson.steps[i];
      assert.equal(await page.getAttribute('#lesson-player', 'data-step'), String(i + 1));
      assert.equal(await page.textContent('#lesson-player .lesson-step-title'), step.title);
      if (step.question) assert.match(await page.textContent('#lesson-player .lesson-question'), /\?/);
      const view = new URLSearchParams(step.state.slice(1)).get('view');
      await page.waitForFunction((v) => !document.getElementById(`view-${v}`).hidden, view, { timeout: TIMEOUT });
      if (step.highlight) {
        await page.waitForFunction(() => document.getElementById('lesson-player').dataset.highlight !== 'waiting', null, { timeout: TIMEOUT });
        assert.equal(await page.getAttribute('#lesson-player', 'data-highlight'), 'found', `step ${i + 1}: ${step.highlight}`);
        assert.equal(await page.locator('.lesson-highlight').count(), 1);
      }
      await page.click('#lesson-player .lesson-next');
    }
    assert.equal(await page.isHidden('#lesson-player'), true, 'Finish closes the player');
    assert.equal(await page.locator('.lesson-highlight').count(), 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Issue 32: "Can attention be made faithful — or made to lie?" plays to the end; its text steps show the conicity of
  // sst2-tanh and of sst2-ortho (the Orthogonal LSTM's lower), and sst2-deceptive's rows.
  test('the faithful-or-deceptive lesson plays to the end: conicity of sst2-tanh vs sst2-ortho, sst2-deceptive\'s rows', { timeout: TIMEOUT }, async () => {
    const lesson = parseLesson(fs.readFileSync(path.join(REPO, 'web/lessons/faithful-or-deceptive.json'), 'utf8'));
    const page = await openRecordingPage(ctx, `${server.url}/web/?lesson=faithful-or-deceptive`);
    await page.waitForSelector('#lesson-player:not([hidden])', { timeout: TIMEOUT });
    const conicity = {};
    for (let i = 0; i < lesson.steps.length; i++) {
      const step = lesson.steps[i];
      const st = new URLSearchParams(step.state.slice(1));
      assert.equal(await page.getAttribute('#lesson-player', 'data-step'), String(i + 1));
      assert.equal(await page.textContent('#lesson-player .lesson-step-title'), step.title);
      await page.waitForFunction((v) => !document.getElementById(`view-${v}`).hidden, st.get('view'), { timeout: TIMEOUT });
      if (st.get('view') === 'text') {
        // the step's own model has explained the step's text
        await page.waitForFunction((m) => document.getElementById('view-text').dataset.status === 'ready' &&
          document.getElementById('text-status').textContent.startsWith(m), st.get('model'), { timeout: TIMEOUT });
        assert.equal(await page.inputValue('#model-select'), st.get('model'));
        assert.equal(await page.locator('.measure-row[data-measure=attention] .tok').count() > 0, true);
        const c = Number(await page.getAttribute('#token-rows .conicity-line', 'data-conicity'));
        assert.ok(c >= 0 && c <= 1, `step ${i + 1}: conicity ${c} of ${st.get('model')}`);
        conicity[st.get('model')] = c;
      } else if (st.get('view') === 'debate') {
        await page.waitForFunction(() => !document.getElementById('debate-run').disabled, null, { timeout: TIMEOUT });
        assert.equal(await page.inputValue('#debate-experiment'), st.get('experiment'));
        assert.equal(await page.inputValue('#debate-model'), st.get('model'));
      }
      await page.waitForFunction(() => document.getElementById('lesson-player').dataset.highlight !== 'waiting', null, { timeout: TIMEOUT });
      assert.equal(await page.getAttribute('#lesson-player', 'data-highlight'), 'found', `step ${i + 1}: ${step.highlight}`);
      await page.click('#lesson-player .lesson-next');
    }
    assert.equal(await page.isHidden('#lesson-player'), true, 'Finish closes the player');
    assert.deepEqual(Object.keys(conicity).sort(), ['sst2-deceptive', 'sst2-ortho', 'sst2-tanh']);
    assert.ok(conicity['sst2-ortho'] < conicity['sst2-tanh'], `the Orthogonal LSTM's states are less parallel: ${JSON.stringify(conicity)}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a lesson from a file; Back works; a broken file gets a readable message', { timeout: TIMEOUT }, async () => {
    const file = path.join(tmp, 'my-lesson.json');
    fs.writeFileSync(file, JSON.stringify({
      title: 'My class', steps: [
        { title: 'One', state: 'view=text&text=a+fine+film', text: 'Look at the rows.', question: 'Which word?', highlight: '#token-rows' },
        { title: 'Two', state: '#view=debate', text: 'Now the debate.', highlight: '#debate-run' },
      ],
    }));
    const page = await openRecordingPage(ctx, `${server.url}/web/`);
    await page.setInputFiles('#lesson-file', file);
    await page.waitForSelector('#lesson-player:not([hidden])');
    assert.equal(await page.textContent('#lesson-player .lesson-title'), 'My class');
    await waitText(page);
    assert.equal(await page.inputValue('#text-input'), 'a fine film');
    await page.click('#lesson-player .lesson-next');
    await page.waitForFunction(() => !document.getElementById('view-debate').hidden);
    await page.click('#lesson-player .lesson-back');
    await page.waitForFunction(() => !document.getElementById('view-text').hidden);
    assert.equal(await page.getAttribute('#lesson-player', 'data-step'), '1');
    await page.click('#lesson-player .lesson-close');
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ title: 'x', steps: [{ state: '#view=text' }] }));
    await page.setInputFiles('#lesson-file', bad);
    await page.waitForSelector('#app-message:not([hidden])');
    assert.match(await page.textContent('#app-message'), /step 1: "text" is missing/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a step that switches model keeps its highlight after the view re-renders (issue 29)', { timeout: TIMEOUT }, async () => {
    const file = path.join(tmp, 'switch-model.json');
    const sel = '.measure-row[data-measure=gradient]';
    fs.writeFileSync(file, JSON.stringify({
      title: 'Two models', steps: [
        { title: 'One', state: 'view=text&model=sst2-tanh&text=a+fine+film', text: 'The gradient row.', highlight: sel },
        { title: 'Two', state: 'view=text&model=sst2-dot&text=a+fine+film', text: 'The same row, another model.', highlight: sel },
        { title: 'Three', state: 'view=text&model=sst2-dot&text=a+dull+film', text: 'Another text.', highlight: sel },
      ],
    }));
    const page = await openRecordingPage(ctx, `${server.url}/web/`);
    await waitText(page);
    await page.setInputFiles('#lesson-file', file);
    await page.waitForSelector('#lesson-player:not([hidden])');
    const outlined = () => page.evaluate((s) => {
      const h = [...document.querySelectorAll('.lesson-highlight')];
      return { n: h.length, same: h.length === 1 && h[0] === document.querySelector(s) && h[0].isConnected,
        model: document.querySelector('#token-rows')?.closest('.view')?.querySelector('#model-select')?.value };
    }, sel);
    for (const [i, model, text] of [[1, 'sst2-tanh', 'a fine film'], [2, 'sst2-dot', 'a fine film'], [3, 'sst2-dot', 'a dull film']]) {
      if (i > 1) await page.click('#lesson-player .lesson-next');
      assert.equal(await page.getAttribute('#lesson-player', 'data-step'), String(i));
      // the view has run the step's model on the step's text and drawn its rows
      await page.waitForFunction(([m, t]) => {
        const s = document.getElementById('view-text');
        return s.dataset.status === 'ready' && document.getElementById('model-select').value === m && document.getElementById('text-input').value === t &&
          document.getElementById('text-status').textContent.startsWith(m);
      }, [model, text], { timeout: TIMEOUT });
      await page.waitForFunction(() => document.getElementById('lesson-player').dataset.highlight !== 'waiting', null, { timeout: TIMEOUT });
      const o = await outlined();
      assert.deepEqual([o.n, o.same], [1, true], `step ${i}: the row drawn for ${model} is outlined`);
    }
    await page.click('#lesson-player .lesson-close');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a highlight that appears only after the wait (a slow first model load) is still outlined', { timeout: TIMEOUT }, async () => {
    const file = path.join(tmp, 'late.json');
    fs.writeFileSync(file, JSON.stringify({ title: 'Late', steps: [{ title: 'One', state: 'view=text', text: 'Wait for it.', highlight: '#late-target' }] }));
    const page = await openRecordingPage(ctx, `${server.url}/web/`);
    await waitText(page);
    await page.setInputFiles('#lesson-file', file);
    await page.waitForFunction(() => document.getElementById('lesson-player').dataset.highlight === 'missing', null, { timeout: TIMEOUT });
    await page.evaluate(() => {
      const d = document.createElement('div');
      d.id = 'late-target';
      d.textContent = 'a result that came late';
      document.querySelector('main').append(d);
    });
    await page.waitForFunction(() => document.getElementById('late-target').classList.contains('lesson-highlight'), null, { timeout: TIMEOUT });
    assert.equal(await page.getAttribute('#lesson-player', 'data-highlight'), 'found');
    await page.click('#lesson-player .lesson-close');
    assert.equal(await page.locator('.lesson-highlight').count(), 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the lesson panel minimises, leaves the highlighted result uncovered, and closing takes ?lesson= out of the URL', { timeout: TIMEOUT }, async () => {
    const small = await ctx.newPage();
    await small.setViewportSize({ width: 1280, height: 700 });
    small.errors = [];
    small.on('pageerror', (e) => small.errors.push(e.message));
    await small.goto(`${server.url}/web/?lesson=attention-explanation&step=5`);
    await small.waitForSelector('#lesson-player:not([hidden])', { timeout: TIMEOUT });
    assert.equal(await small.getAttribute('#lesson-player', 'data-step'), '5');
    await small.waitForFunction(() => document.getElementById('lesson-player').dataset.highlight === 'found', null, { timeout: TIMEOUT });
    await small.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready', null, { timeout: TIMEOUT });
    // the highlighted element and the panel do not overlap on screen (the page scrolls it above the panel)
    const overlap = () => small.evaluate(() => {
      const a = document.querySelector('.lesson-highlight').getBoundingClientRect();
      const b = document.getElementById('lesson-player').getBoundingClientRect();
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      return w > 0 && h > 0 ? Math.round(w * h) : 0;
    });
    assert.equal(await overlap(), 0, 'the panel does not cover the highlighted result');
    // minimise: only the head stays; restore brings the step back
    const tall = (await small.locator('#lesson-player').boundingBox()).height;
    await small.click('#lesson-player .lesson-min');
    assert.equal(await small.getAttribute('#lesson-player', 'data-minimized'), 'true');
    assert.equal(await small.isVisible('#lesson-player .lesson-text'), false);
    const low = (await small.locator('#lesson-player').boundingBox()).height;
    assert.ok(low < tall / 2, `minimised ${low} px vs ${tall} px`);
    assert.equal(await small.getAttribute('#lesson-player .lesson-min', 'aria-expanded'), 'false');
    await small.click('#lesson-player .lesson-min');
    assert.equal(await small.isVisible('#lesson-player .lesson-text'), true);
    // Next keeps the URL's step in line (a reload stays at this step); closing takes the lesson out of the URL
    await small.click('#lesson-player .lesson-next');
    assert.equal(new URL(small.url()).searchParams.get('step'), '6');
    await small.click('#lesson-player .lesson-close');
    const u = new URL(small.url());
    assert.equal(u.searchParams.get('lesson'), null);
    assert.equal(u.searchParams.get('step'), null);
    assert.ok(!/lesson=/.test(u.hash));
    await small.reload();
    await small.waitForFunction(() => window.attnlabLessons && !document.getElementById('view-debate').hidden, null, { timeout: TIMEOUT });
    assert.equal(await small.evaluate(() => window.__attnlabLesson ?? null), null, 'the reloaded link asks for no lesson');
    assert.equal(await small.isHidden('#lesson-player'), true, 'a reload after closing does not restart the lesson');
    assert.deepEqual(small.errors, []);
    await small.close();
  });

  test('keyboard: Tab to a token, arrows move, its values are read out', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#text=${encodeURIComponent('a gorgeous , witty , seductive movie .')}`);
    await waitText(page);
    await page.focus('#model-select');
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.classList.contains('tok'))) break;
    }
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.measure-row')?.dataset.measure), 'attention', 'Tab reaches the first row');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => ({ i: document.activeElement.dataset.index, row: document.activeElement.closest('.measure-row').dataset.measure,
      label: document.activeElement.getAttribute('aria-label') }));
    assert.deepEqual([focused.i, focused.row], ['1', 'gradient']);
    assert.match(focused.label, /^gorgeous: Gradient \d/);
    const readout = await page.textContent('.token-readout');
    assert.match(readout, /“gorgeous” \(token 2\): Attention [\d.]+ \(rank \d+ of 8\) · Gradient/);
    // the readout shows the same rounded numbers as the cells' exact values
    const att = Number(await page.getAttribute('.measure-row[data-measure=attention] .tok[data-index="1"]', 'data-value'));
    assert.ok(readout.includes(`Attention ${Number(att.toPrecision(3))}`) || readout.includes(`Attention ${att.toFixed(3)}`), `${readout} vs ${att}`);
    // the log / rank switch re-colours without losing the values
    await page.click('.scale-btn[data-scale=rank]');
    assert.equal(await page.getAttribute('.measure-rows', 'data-scale'), 'rank');
    assert.equal(Number(await page.getAttribute('.measure-row[data-measure=attention] .tok[data-index="1"]', 'data-value')), att);
    await page.click('.scale-btn[data-scale=linear]');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('export SVG + PNG 2× of the token rows; a report that opens offline with its data', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#text=${encodeURIComponent('a gorgeous , witty , seductive movie .')}`);
    await waitText(page);
    await page.waitForSelector('.export-bar .export-svg');
    const [svgDl] = await Promise.all([page.waitForEvent('download'), page.click('.rows-card .export-bar .export-svg')]);
    const svgFile = path.join(tmp, 'rows.svg');
    await svgDl.saveAs(svgFile);
    const svg = fs.readFileSync(svgFile, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const w of ['gorgeous', 'witty', 'seductive', 'Attention', 'Integrated gradients']) assert.ok(svg.includes(w), `the SVG has "${w}"`);
    assert.ok((svg.match(/<rect /g) ?? []).length >= 8 * 4, 'a coloured rect per cell');
    const [pngDl] = await Promise.all([page.waitForEvent('download'), page.click('.rows-card .export-bar .export-png')]);
    const png = fs.readFileSync(await pngDl.path());
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    const box = await page.locator('.rows-card .measure-rows').boundingBox();
    assert.equal(png.readUInt32BE(16), Math.round(Math.ceil(box.width) * 2), 'PNG at 2× the width on screen');

    // the live panels draw their charts after the explanation, one experiment after another: the report is
    // saved once the first of them has drawn (under load it can come seconds after the token rows)
    await page.waitForSelector('.live-panel[data-status=ready] svg', { timeout: TIMEOUT });
    const [repDl] = await Promise.all([page.waitForEvent('download'), page.click('#report-export')]);
    const report = path.join(tmp, 'report.html');
    await repDl.saveAs(report);
    const html = fs.readFileSync(report, 'utf8');
    assert.ok(!/<script(?![^>]*type="application\/json")/i.test(html), 'no executable script in the report');
    // offline: a fresh context with the network off; nothing may be requested
    const off = await launchChromium();
    try { // closed even when an assertion fails: a browser left open keeps the test process alive
      await off.setOffline(true);
      const requests = [];
      const p2 = await off.newPage();
      p2.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
      await p2.goto(`file://${report}`);
      const data = JSON.parse(await p2.textContent('#attnlab-report-data'));
      assert.equal(data.format, 'attnlab-report-v1');
      assert.deepEqual(data.tokens, ['a', 'gorgeous', ',', 'witty', ',', 'seductive', 'movie', '.']);
      assert.equal(data.measures.attention.length, 8);
      assert.ok(Math.abs(data.measures.attention.reduce((a, b) => a + b, 0) - 1) < 1e-4, 'attention sums to 1');
      assert.ok(Number.isFinite(data.probability));
      assert.equal(await p2.locator('.measure-row').count(), 4, 'the rows are in the report');
      assert.ok(await p2.locator('svg').count() >= 1, 'the charts are inline SVG');
      const bg = await p2.$eval('.measure-row .tok', (c) => getComputedStyle(c).backgroundColor);
      assert.notEqual(bg, 'rgba(0, 0, 0, 0)', 'the page CSS is inline');
      assert.deepEqual(requests, [], 'the report requests nothing');
    } finally {
      await off.closeAndClean();
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
