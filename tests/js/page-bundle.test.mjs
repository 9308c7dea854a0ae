// page-bundle.test.mjs — scripts/page-bundle.mjs (issue 29): the page and the host worker bundled as the server
// serves them. Every URL a module builds from its own import.meta.url still names the file it named unbundled
// (each resolved against the bundle's own URL; negative control: resolved without the rewrite, page-tools.js's
// lesson index and stylesheet are missed); the page's two module scripts are one file; a lab is still evaluated only
// when asked; a source edited after a build is served at the next request (never stale code).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundlePage, createPageBundler, ENTRIES } from '../../scripts/page-bundle.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB = path.join(ROOT, 'web');
const files = await bundlePage(WEB);
const BASE = 'http://x.test/web/';
// a served URL → the file behind it (scripts/serve.mjs MOUNTS: /vendor/ort/ is onnxruntime-web's dist/)
const toFile = (href) => path.join(ROOT, decodeURIComponent(new URL(href).pathname).replace(/^\/vendor\/ort\//, '/node_modules/onnxruntime-web/dist/'));

test('the bundled files are the entries, and the page is one file with no imports left', () => {
  assert.deepEqual([...files.keys()].sort(), [...ENTRIES].sort());
  const app = files.get('app.js').toString();
  assert.doesNotMatch(app, /^\s*import\s|from\s+"\.{1,2}\//m, 'no static import left in app.js');
  assert.match(app, /function mountImageView/);
  assert.ok(app.includes('// views/page-tools.js\n'), "page-tools.js's code is in app.js");
  assert.match(files.get('views/page-tools.js').toString(), /^\/\/ .*bundled into app\.js/);
  const worker = files.get('runtime/host/worker.js').toString();
  assert.match(worker, /image: \(\) => Promise\.resolve\(\)\.then\(\(\) => \(init_image\(\), image_exports\)\)/, 'the labs stay lazy');
});

test("every new URL(…, import.meta.url) names the file it named unbundled", () => {
  let n = 0;
  let misses = 0;
  for (const [rel, body] of files) {
    const self = new URL(rel, BASE).href;
    for (const m of body.toString().matchAll(/new URL\("([^"]+)", new URL\("([^"]+)", import\.meta\.url\)\.href\)/g)) {
      const own = new URL(m[2], self);                   // the module's own URL, as unbundled
      const target = new URL(m[1], own).href;
      assert.ok(fs.existsSync(toFile(own.href)), `${rel}: ${m[2]} is a source file`);
      const t = toFile(target);
      if (!t.includes(`${path.sep}gen${path.sep}`)) assert.ok(fs.existsSync(t), `${rel}: ${m[1]} from ${m[2]} → ${t}`);
      n++;
      // negative control: the same relative URL from the bundle's own location (no rewrite)
      if (!fs.existsSync(toFile(new URL(m[1], self).href))) misses++;
    }
  }
  assert.ok(n >= 8, `${n} URLs checked`);
  assert.ok(misses >= 2, `without the rewrite ${misses} of them miss (page-tools.js's ../lessons/index.json, ../styles.css)`);
  assert.doesNotMatch([...files.values()].join(''), /__attnlab_import_meta_url__/);
});

test('a source edited after a build is served at the next request; an unchanged one is not rebuilt', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-bundle-'));
  try {
    fs.mkdirSync(path.join(dir, 'views'));
    fs.mkdirSync(path.join(dir, 'runtime/host'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'views/page-tools.js'), 'export const tools = 1;\n');
    fs.writeFileSync(path.join(dir, 'runtime/host/worker.js'), 'self.x = 1;\n');
    fs.writeFileSync(path.join(dir, 'lib.js'), 'export const word = "first";\n');
    fs.writeFileSync(path.join(dir, 'app.js'), 'import { word } from "./lib.js";\nconsole.log(word);\n');
    const b = createPageBundler(dir);
    const a1 = await b.files();
    assert.match(a1.get('app.js').toString(), /"first"/);
    assert.equal(await b.files(), a1, 'nothing changed: the same build');
    const later = new Date(Date.now() + 2000);
    fs.writeFileSync(path.join(dir, 'lib.js'), 'export const word = "second";\n');
    fs.utimesSync(path.join(dir, 'lib.js'), later, later);
    assert.match((await b.files()).get('app.js').toString(), /"second"/);
    fs.writeFileSync(path.join(dir, 'lib.js'), 'export const = ;\n');
    fs.utimesSync(path.join(dir, 'lib.js'), new Date(later.getTime() + 2000), new Date(later.getTime() + 2000));
    await assert.rejects(b.files(), 'a source that does not parse: the server serves the sources instead');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
