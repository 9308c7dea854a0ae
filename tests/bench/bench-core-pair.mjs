// bench-core-pair.mjs — the wasm core of this checkout against another checkout's (e.g. the code before a change),
// in one Node process, interleaved: 30 blocks, each running every measure of both cores in turn (3 warm-up calls,
// then 20 forwards or 10 forward+backward passes of the same 50-token sentence, sst2-tanh). On this shared machine
// the load moves absolute times by ±50 % between runs (docs/BENCHMARKS.md); interleaving in one process puts both
// cores under the same load, so their ratio is the number to read. Prints a table and one JSON line.
// Usage: node tests/bench/bench-core-pair.mjs --before DIR   (DIR holds web/gen/attnlab_core.{mjs,wasm})
// Either core may be of the TextLab API (issue 9) or of the older TextSession one.
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => (args.includes(name) ? args[args.indexOf(name) + 1] : def);
const here = path.resolve(import.meta.dirname, '../..');
const beforeRoot = path.resolve(opt('--before', ''));
if (!opt('--before', '')) throw new Error('usage: node tests/bench/bench-core-pair.mjs --before DIR');
const BLOCKS = Number(opt('--blocks', '30'));

const dir = path.join(here, 'models/text/sst2-tanh');
const config = fs.readFileSync(path.join(dir, 'config.json'), 'utf8');
const weights = new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors')));
const vocab = JSON.parse(config).vocab;
const text = Array.from({ length: 50 }, (_, i) => vocab[2 + ((i * 37) % 500)]).join(' '); // as web/bench/text-bench.js

async function session(root) {
  const gen = path.join(root, 'web/gen');
  const { default: createModule } = await import(path.join(gen, 'attnlab_core.mjs'));
  const M = await createModule({ wasmBinary: fs.readFileSync(path.join(gen, 'attnlab_core.wasm')) });
  if (M.TextLab) return new M.TextLab(config, weights);
  const s = new M.TextSession();
  const err = s.load(config, weights);
  if (err) throw new Error(`${root}: ${err}`);
  return s;
}
const cores = { before: await session(beforeRoot), after: await session(here) };
const pBefore = cores.before.predict(text);
const pAfter = cores.after.predict(text);
if (Math.abs(pBefore - pAfter) > 1e-6) throw new Error(`the two cores disagree: p = ${pBefore} vs ${pAfter}`);

const measures = { forward: [20, (s) => s.predict(text)], forward_backward: [10, (s) => s.forwardBackward(text, 1)] };
const times = {};
for (let b = 0; b < BLOCKS; b++) {
  for (const [m, [n, f]] of Object.entries(measures)) {
    for (const [name, s] of Object.entries(cores)) {
      for (let i = 0; i < 3; i++) f(s);
      const t0 = performance.now();
      for (let i = 0; i < n; i++) f(s);
      (times[`${name}_${m}_ms`] ??= []).push((performance.now() - t0) / n);
    }
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const out = { blocks: BLOCKS, p: pAfter };
for (const m of Object.keys(measures)) {
  out[`before_${m}_ms`] = median(times[`before_${m}_ms`]);
  out[`after_${m}_ms`] = median(times[`after_${m}_ms`]);
  out[`${m}_after_over_before`] = out[`after_${m}_ms`] / out[`before_${m}_ms`];
  out[`${m}_min_after_over_before`] = Math.min(...times[`after_${m}_ms`]) / Math.min(...times[`before_${m}_ms`]);
}
console.log('| measure (median of blocks) | before | after | after / before (median; min) |');
console.log('| --- | ---: | ---: | ---: |');
for (const m of Object.keys(measures)) {
  console.log(`| ${m} | ${out[`before_${m}_ms`].toFixed(3)} ms | ${out[`after_${m}_ms`].toFixed(3)} ms | ${out[`${m}_after_over_before`].toFixed(3)}; ${out[`${m}_min_after_over_before`].toFixed(3)} |`);
}
console.log(JSON.stringify(out));
