#!/usr/bin/env node
// build-static.mjs — `npm run build`: one folder any static host serves as it is (GitHub Pages, a university
// web space, `python3 -m http.server`), no server logic, no special headers needed.
//
// Contract: node scripts/build-static.mjs [--out DIR] (default dist/). Writes, replacing DIR:
//   DIR/index.html            a redirect to web/ (the page uses relative URLs only, so any sub-path works)
//   DIR/web/…                 the page (web/ as it is, without web/bench; app.js, views/page-tools.js and
//                             runtime/host/worker.js bundled as `npm run serve` serves them: scripts/page-bundle.mjs),
//                             incl. web/gen (the wasm core: built first
//                             if missing — run `bash scripts/build-wasm.sh`), web/lessons, web/images
//   DIR/models/{text,image,cnn}/…  the shipped models, manifests and data sets (no training logs, no tools)
//   DIR/vendor/ort/           ONNX Runtime Web: ort.wasm.min.mjs, ort.webgpu.min.mjs and the wasm / asyncify pairs
//   DIR/vendor/d3/d3.min.js, DIR/vendor/plot/plot.umd.min.js
//   DIR/.nojekyll             GitHub Pages serves the folder as files
// Hosts that cannot set COOP/COEP: the page runs single-threaded there (same results, the image model slower) and
// says so in its footer (web/coi.js). Prints one JSON line: { out, files, bytes }.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePage } from './page-bundle.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
const outArg = args.includes('--out') ? args[args.indexOf('--out') + 1] : 'dist';
if (!outArg) {
  console.error('build-static: --out needs a folder');
  process.exit(2);
}
const OUT = path.resolve(ROOT, outArg);
const inside = (dir) => OUT === path.join(ROOT, dir) || OUT.startsWith(path.join(ROOT, dir) + path.sep);
if (OUT === ROOT || ROOT.startsWith(OUT + path.sep) || ['web', 'models', 'node_modules', 'core', 'scripts', 'tests', '.git'].some(inside)) {
  console.error(`build-static: refusing to write to ${OUT}`);
  process.exit(2);
}

const ORT_FILES = ['ort.wasm.min.mjs', 'ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm',
  'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];

let files = 0;
let bytes = 0;

function copyFile(src, dst) {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.copyFileSync(src, dst);
  files++;
  bytes += fs.statSync(dst).size;
}

// Copies a tree, following no symlinks out of it and skipping dot-files and `skip(rel)`.
function copyTree(src, dst, skip = () => false, rel = '') {
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    if (ent.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (skip(r, ent)) continue;
    const s = path.join(src, ent.name);
    const d = path.join(dst, ent.name);
    const st = fs.statSync(s);
    if (st.isDirectory()) copyTree(s, d, skip, r);
    else if (st.isFile()) copyFile(s, d);
  }
}

function need(p, hint) {
  if (!fs.existsSync(path.join(ROOT, p))) {
    console.error(`build-static: ${p} is missing — ${hint}`);
    process.exit(1);
  }
}

need('web/gen/attnlab_core.mjs', 'build the wasm core first: bash scripts/build-wasm.sh');
need('web/gen/attnlab_core.wasm', 'build the wasm core first: bash scripts/build-wasm.sh');
need('web/gen/attnlab_core.worker.js', 'build the wasm core first: bash scripts/build-wasm.sh (its pthread worker)');
need('node_modules/onnxruntime-web/dist/ort.wasm.min.mjs', 'install the npm packages first: npm ci');

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

copyTree(path.join(ROOT, 'web'), path.join(OUT, 'web'), (r) => r === 'bench');
for (const [rel, body] of await bundlePage(path.join(ROOT, 'web'))) {
  const dst = path.join(OUT, 'web', ...rel.split('/'));
  if (fs.existsSync(dst)) bytes -= fs.statSync(dst).size;
  else files++;
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.writeFileSync(dst, body);
  bytes += body.length;
}
for (const m of ['text', 'image', 'cnn']) {
  const dir = path.join(ROOT, 'models', m);
  if (fs.existsSync(dir)) copyTree(dir, path.join(OUT, 'models', m), (r) => r.endsWith('.log'));
}
for (const f of ORT_FILES) {
  need(`node_modules/onnxruntime-web/dist/${f}`, 'npm ci');
  copyFile(path.join(ROOT, 'node_modules/onnxruntime-web/dist', f), path.join(OUT, 'vendor/ort', f));
}
copyFile(path.join(ROOT, 'node_modules/d3/dist/d3.min.js'), path.join(OUT, 'vendor/d3/d3.min.js'));
copyFile(path.join(ROOT, 'node_modules/@observablehq/plot/dist/plot.umd.min.js'), path.join(OUT, 'vendor/plot/plot.umd.min.js'));

fs.writeFileSync(path.join(OUT, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>attnlab</title>
<meta http-equiv="refresh" content="0; url=web/">
</head><body><p><a href="web/">Open attnlab</a> (an interpretability lab that runs in your browser).</p></body></html>
`);
fs.writeFileSync(path.join(OUT, '.nojekyll'), '');
files += 2;

console.log(JSON.stringify({ out: path.relative(ROOT, OUT) || OUT, files, bytes }));
