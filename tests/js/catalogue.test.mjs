// catalogue.test.mjs — web/catalogue.js is the core's catalogue (Module.catalogue(): methods, experiments with
// their parameters, defaults and ranges, pass counts, recipes, class names), written out so the page's URL schema
// can be built synchronously. This test fails when the two differ (and rewrites the file with
// ATTNLAB_WRITE_CATALOGUE=1), and checks what the page builds from it (web/state.js, the image methods).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILE = path.join(REPO, 'web/catalogue.js');
const GEN = path.join(REPO, 'web/gen/attnlab_core.mjs');

async function coreCatalogue() {
  const { default: createModule } = await import(GEN);
  const Module = await createModule({ wasmBinary: fs.readFileSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) });
  return typeof Module.catalogue === 'function' ? Module.catalogue() : null;
}

const render = (cat) => `// catalogue.js — GENERATED from the WebAssembly core's Module.catalogue() (core/catalogue; the same as
// \`build/attnlab catalogue\`). Do not edit: tests/js/catalogue.test.mjs fails when it differs from the core and
// rewrites it with ATTNLAB_WRITE_CATALOGUE=1 node --test tests/js/catalogue.test.mjs.
export const CATALOGUE = Object.freeze(${JSON.stringify(cat, null, 1)});
`;

test('web/catalogue.js equals the core catalogue', async (t) => {
  if (!fs.existsSync(GEN)) return t.skip('web/gen is not built (bash scripts/build-wasm.sh)');
  const cat = await coreCatalogue();
  if (!cat) return t.skip('this core has no catalogue');
  if (process.env.ATTNLAB_WRITE_CATALOGUE === '1') fs.writeFileSync(FILE, render(cat));
  const { CATALOGUE } = await import(`${FILE}?t=${Date.now()}`);
  assert.deepEqual(JSON.parse(JSON.stringify(CATALOGUE)), cat, 'web/catalogue.js is stale: regenerate it (see its header)');
});

test('the URL schema and the image methods come from the catalogue', async () => {
  const { CATALOGUE } = await import(FILE);
  const { SCHEMA } = await import('../../web/state.js');
  const { METHODS } = await import('../../web/views/image/methods.js');
  const maps = CATALOGUE.image.methods.filter((m) => m.kind !== 'metric');
  assert.deepEqual(SCHEMA.method.values, maps.map((m) => m.name));
  assert.deepEqual(METHODS.map((m) => m.key), maps.map((m) => m.name));
  assert.deepEqual(METHODS.map((m) => m.about), maps.map((m) => m.description));
  assert.deepEqual(SCHEMA.colormap.values, CATALOGUE.image.colormaps);
  assert.deepEqual(SCHEMA.erasefill.values, CATALOGUE.image.erase_fills);
  const n = CATALOGUE.image.methods.find((m) => m.name === 'rise').params.find((p) => p.name === 'n');
  assert.deepEqual([SCHEMA.risen.default, SCHEMA.risen.min, SCHEMA.risen.max], [n.default, n.min, n.max]);
  assert.deepEqual([...SCHEMA.locrecipe.values].sort(), Object.keys(CATALOGUE.cnn.recipes).sort());
  assert.equal(SCHEMA.locrecipe.default, CATALOGUE.cnn.default_recipe);
});
