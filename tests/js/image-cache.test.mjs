// image-cache.test.mjs — web/runtime/model-cache.js with a fake Cache API and fake fetch: verified bytes are
// cached under url+sha256, a cached hit needs no fetch, a corrupt cached entry is evicted and re-fetched, a
// wrong or truncated download is an error and is not cached, progress is reported, old versions are dropped.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, webcrypto } from 'node:crypto';
import { fetchVerified, cacheKey, sha256Hex, cacheWritten } from '../../web/runtime/model-cache.js';

const sha = (b) => createHash('sha256').update(b).digest('hex');
const BYTES = new Uint8Array(700_000).map((_, i) => (i * 7) & 255);
const SHA = sha(BYTES);
const URL_ = 'http://x.test/models/image/mobilenet_v2.onnx';

class FakeCache {
  constructor() { this.map = new Map(); }
  async match(k) { const v = this.map.get(String(k)); return v ? new Response(v.slice()) : undefined; }
  async put(k, res) { this.map.set(String(k), new Uint8Array(await res.arrayBuffer())); }
  async delete(k) { return this.map.delete(typeof k === 'string' ? k : k.url); }
  async keys() { return [...this.map.keys()].map((u) => ({ url: u })); }
}
function fakeCaches() {
  const c = new FakeCache();
  return { cache: c, caches: { open: async () => c } };
}
function fakeFetch(body, { status = 200, length = body.byteLength } = {}) {
  const f = async () => {
    f.calls++;
    return new Response(body.slice(), { status, headers: { 'Content-Length': String(length) } });
  };
  f.calls = 0;
  return f;
}
const opts = (o) => ({ sha256: SHA, bytes: BYTES.byteLength, subtle: webcrypto.subtle, ...o });

test('sha256Hex matches node:crypto', async () => {
  assert.equal(await sha256Hex(BYTES, webcrypto.subtle), SHA);
});

test('download, verify, cache; the second call reads the cache without fetching', async () => {
  const { cache, caches } = fakeCaches();
  const fetch = fakeFetch(BYTES);
  const seen = [];
  const a = await fetchVerified(URL_, opts({ caches, fetch, onProgress: (p) => seen.push(p) }));
  assert.deepEqual(a, BYTES);
  assert.equal(fetch.calls, 1);
  await cacheWritten();
  assert.ok(cache.map.has(cacheKey(URL_, SHA)));
  assert.ok(seen.length >= 2, 'progress during the download');
  assert.equal(seen.at(-1).loaded, BYTES.byteLength);
  assert.equal(seen.at(-1).total, BYTES.byteLength);
  const seen2 = [];
  const b = await fetchVerified(URL_, opts({ caches, fetch, onProgress: (p) => seen2.push(p) }));
  assert.deepEqual(b, BYTES);
  assert.equal(fetch.calls, 1, 'served from the cache');
  assert.equal(seen2.at(-1).cached, true);
});

// Issue 29: the cache write (≈ 0.3 s for the 3.5 MB model on a cold profile) is not on the model's way to ORT.
test('the bytes are returned before the cache write ends, and the bytes handed on do not change what is stored', async () => {
  const { cache, caches } = fakeCaches();
  let release;
  const gate = new Promise((r) => { release = r; });
  const put = cache.put.bind(cache);
  cache.put = async (k, res) => { await gate; return put(k, res); };
  const got = await fetchVerified(URL_, opts({ caches, fetch: fakeFetch(BYTES) }));
  assert.deepEqual(got, BYTES);
  assert.equal(cache.map.size, 0, 'not written yet: the caller did not wait for it');
  got.fill(0); // the caller may reuse or transfer its bytes
  release();
  await cacheWritten();
  assert.deepEqual(cache.map.get(cacheKey(URL_, SHA)), BYTES);
});

test('a corrupt or truncated cached entry is evicted and fetched again', async () => {
  for (const bad of [BYTES.slice(0, 1000), BYTES.map((v, i) => (i === 5 ? v ^ 1 : v))]) {
    const { cache, caches } = fakeCaches();
    cache.map.set(cacheKey(URL_, SHA), bad);
    const fetch = fakeFetch(BYTES);
    const got = await fetchVerified(URL_, opts({ caches, fetch }));
    assert.deepEqual(got, BYTES);
    assert.equal(fetch.calls, 1);
    await cacheWritten();
    assert.deepEqual(cache.map.get(cacheKey(URL_, SHA)), BYTES, 'the good bytes replace the bad entry');
  }
});

test('a truncated or wrong download is a clear error and is not cached', async () => {
  const { cache, caches } = fakeCaches();
  await assert.rejects(fetchVerified(URL_, opts({ caches, fetch: fakeFetch(BYTES.slice(0, 5000)) })),
    /mobilenet_v2\.onnx is corrupt or not the expected file: 5000 bytes instead of 700000/);
  const other = BYTES.map((v) => v ^ 3);
  await assert.rejects(fetchVerified(URL_, opts({ caches, fetch: fakeFetch(other) })), /sha256 .* instead of/);
  assert.equal(cache.map.size, 0);
});

test('HTTP errors and network errors name the file', async () => {
  await assert.rejects(fetchVerified(URL_, opts({ caches: null, fetch: fakeFetch(new Uint8Array(0), { status: 404 }) })), /mobilenet_v2\.onnx: HTTP 404/);
  await assert.rejects(fetchVerified(URL_, opts({ caches: null, fetch: async () => { throw new TypeError('offline'); } })), /Could not download .*offline/);
});

test('a missing or malformed sha256 is refused', async () => {
  await assert.rejects(fetchVerified(URL_, { sha256: 'abc', caches: null, fetch: fakeFetch(BYTES) }), /no valid sha256/);
});

test('works without the Cache API (and when opening it fails)', async () => {
  assert.deepEqual(await fetchVerified(URL_, opts({ caches: undefined, fetch: fakeFetch(BYTES) })), BYTES);
  const broken = { open: async () => { throw new Error('quota'); } };
  assert.deepEqual(await fetchVerified(URL_, opts({ caches: broken, fetch: fakeFetch(BYTES) })), BYTES);
});

test('a new version replaces the entry of the old version', async () => {
  const { cache, caches } = fakeCaches();
  const oldKey = cacheKey(URL_, 'f'.repeat(64));
  cache.map.set(oldKey, new Uint8Array([1, 2, 3]));
  await fetchVerified(URL_, opts({ caches, fetch: fakeFetch(BYTES) }));
  await cacheWritten();
  assert.equal(cache.map.has(oldKey), false);
  assert.equal(cache.map.size, 1);
});

test('the cache key is a query (the Cache API ignores fragments)', () => {
  assert.equal(cacheKey('http://a/b.onnx', 'ab'), 'http://a/b.onnx?sha256=ab');
  assert.equal(cacheKey('http://a/b.onnx?v=1', 'ab'), 'http://a/b.onnx?v=1&sha256=ab');
});
