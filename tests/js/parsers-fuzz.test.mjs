// The page's parsers of outside input under seeded random mutation (issue 27: "through Node, the page's JS parsers"):
// the URL state (web/state.js parseWithNotices), a lesson file (web/analysis/lesson.js parseLesson), an image file's
// header (web/runtime/image/decode.js readImageHeader), a labels file (web/analysis/own-model.js parseLabels) and the
// image head's safetensors reader (web/runtime/image-head.js parseSafetensors). Each mutant — bytes flipped, cut,
// repeated, spliced with hostile pieces (%-escapes, U+FEFF, lone surrogates, huge numbers, deep nesting) — must give
// a result of the parser's shape or an Error with a message: never a TypeError / RangeError from inside the parser,
// never a hang. The stream is seeded (xorshift), so a failure is reproducible from its iteration number.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseWithNotices, SCHEMA } from '../../web/state.js';
import { parseLesson } from '../../web/analysis/lesson.js';
import { readImageHeader } from '../../web/runtime/image/decode.js';
import { parseLabels } from '../../web/analysis/own-model.js';
import { parseSafetensors } from '../../web/runtime/image-head.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const N = 3000;

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}
const PIECES = ['%', '%25', '%6C', '%00', '%ff', '\uFEFF', '\uD800', '\u0000', '"', '{', '[', ']', '}', '=', '&', '#',
  ';', '1e309', '-0', 'NaN', '99999999999999999999', 'lesson=intro', '\\u0000', '[['.repeat(50), '\n', '\r\n'];
function mutateString(s, r) {
  let out = s;
  const k = 1 + Math.floor(r() * 4);
  for (let i = 0; i < k; i++) {
    const at = Math.floor(r() * (out.length + 1));
    const op = Math.floor(r() * 4);
    if (op === 0) out = out.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)] + out.slice(at);
    else if (op === 1) out = out.slice(0, at);
    else if (op === 2) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(r() * 8));
    else out = out.slice(0, at) + String.fromCharCode(Math.floor(r() * 0x10000)) + out.slice(at);
  }
  return out;
}
function mutateBytes(b, r) {
  const out = Uint8Array.from(b);
  const k = 1 + Math.floor(r() * 6);
  for (let i = 0; i < k && out.length; i++) out[Math.floor(r() * out.length)] = Math.floor(r() * 256);
  return r() < 0.3 ? out.subarray(0, Math.floor(r() * out.length)) : out;
}
// Runs f; "" when it returned or threw an Error with a message of its own, else what went wrong.
function wellBehaved(f) {
  try {
    f();
    return '';
  } catch (e) {
    if (!(e instanceof Error) || !e.message) return `threw a non-Error: ${e}`;
    if (e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError) return `${e.name}: ${e.message}`;
    return '';
  }
}
function fuzz(name, seeds, mutate, run) {
  const r = rng(0x5eed + name.length);
  const failures = [];
  for (let i = 0; i < N && failures.length < 5; i++) {
    const input = mutate(seeds[i % seeds.length], r);
    const why = wellBehaved(() => run(input));
    if (why) failures.push(`${name} #${i}: ${why}`);
  }
  return failures;
}

test('the URL state parser answers every mutated link with a state and notices', () => {
  const seeds = ['#view=text&model=sst2-tanh&text=a%20fine%20film', '#view=debate&n=1821&seed=1&lesson=intro&step=2',
    '#view=image&image=cat&method=gradcam&backend=webgpu', `#${Object.keys(SCHEMA).map((k) => `${k}=1`).join('&')}`];
  const failures = fuzz('state', seeds, mutateString, (h) => {
    const { state, notices } = parseWithNotices(h);
    assert.ok(state && typeof state === 'object' && Array.isArray(notices));
  });
  assert.deepEqual(failures, []);
});

test('the lesson parser answers every mutated lesson with a lesson or a message', () => {
  const lessons = path.join(ROOT, 'web/lessons');
  const seeds = fs.existsSync(lessons)
    ? fs.readdirSync(lessons).filter((f) => f.endsWith('.json')).map((f) => fs.readFileSync(path.join(lessons, f), 'utf8'))
    : [];
  seeds.push(JSON.stringify({ format: 'attnlab-lesson-v1', title: 't', steps: [{ text: 'x', state: '#view=text' }] }));
  assert.deepEqual(fuzz('lesson', seeds, mutateString, (s) => parseLesson(s)), []);
});

test('the image header reader answers every mutated header with a size or null', () => {
  const dir = path.join(ROOT, 'tests/fixtures/image/files');
  const seeds = ['photo.png', 'photo.jpg', 'photo_exif6.jpg']
    .filter((f) => fs.existsSync(path.join(dir, f))).map((f) => new Uint8Array(fs.readFileSync(path.join(dir, f))));
  seeds.push(new Uint8Array(fs.readFileSync(path.join(ROOT, 'web/images/cat.png')).subarray(0, 4096)));
  assert.deepEqual(fuzz('image header', seeds, mutateBytes, (b) => {
    const h = readImageHeader(b);
    if (h !== null) assert.ok(Number.isFinite(h.width) && Number.isFinite(h.height), JSON.stringify(h));
  }), []);
});

test('the labels parser gives one label per class for any text', () => {
  const seeds = ['background\ntench\ngoldfish\n', 'cat\r\ndog\r\n', '\uFEFFa\nb\nc'];
  assert.deepEqual(fuzz('labels', seeds, mutateString, (t) => {
    const { labels } = parseLabels(t, 3);
    assert.equal(labels.length, 3);
  }), []);
});

test('the image head safetensors reader answers every mutated file with tensors or a message', () => {
  const file = ['models/image/head.safetensors', 'models/image/mobilenet_v2/head.safetensors']
    .map((f) => path.join(ROOT, f)).find((f) => fs.existsSync(f));
  const header = JSON.stringify({ w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] } });
  const small = new Uint8Array(8 + header.length + 16);
  new DataView(small.buffer).setBigUint64(0, BigInt(header.length), true);
  small.set(new TextEncoder().encode(header), 8);
  const seeds = [small];
  if (file) seeds.push(new Uint8Array(fs.readFileSync(file)).subarray(0, 1 << 16));
  assert.deepEqual(fuzz('safetensors', seeds, mutateBytes, (b) => parseSafetensors(b)), []);
});
