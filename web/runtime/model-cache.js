// model-cache.js — fetch a model file with streaming progress, verify its sha256, keep it in the Cache API.
//
// Contract (no DOM; works in a worker, and in Node with injected fakes):
//   fetchVerified(url, { sha256, bytes, what, onProgress, caches, fetch, subtle, cacheName })
//       → Promise<Uint8Array>  the file's bytes, whose sha256 (hex, lower case) equals `sha256`.
//     url        absolute URL of the file.
//     sha256     the expected digest from models/image/manifest.json (required: an unverifiable file is refused).
//     bytes      the expected size (for the progress total when the server sends no Content-Length, and for
//                a clearer error); optional.
//     onProgress({ loaded, total, cached }) — during the download (≈ every 256 KB and at the end), and once
//                with cached: true when the bytes came from the cache.
//     caches     a CacheStorage (default globalThis.caches; when absent, e.g. an insecure origin, nothing is cached).
//   The cache key is `url` + '?sha256=' + sha256 (a Request URL; a query, because the Cache API ignores
//   fragments when matching), so a new model version never reads an old entry. A cached entry whose bytes do not hash to sha256 (corrupt or truncated) is deleted and the file
//   fetched again. Other entries for the same url (older versions) are deleted when a new one is stored.
//   A downloaded file with the wrong size or digest is NOT cached and gives an Error naming the file, the
//   expected and actual size / digest. Network and HTTP errors give an Error naming the file.
//   The new entry is written after the bytes are returned; cacheWritten() → a Promise that settles when the last
//   write started has (tests; a second visit long after needs nothing).
//   cacheKey(url, sha256) → the key string.
//   sha256Hex(bytes, subtle) → Promise<hex string>.
//   readStream(res, total, onProgress) → Promise<Uint8Array> the body of a fetch Response, read in chunks with
//     onProgress({ loaded, total, cached: false }) ≈ every 256 KB and at the end (the text worker uses it too).

export const CACHE_NAME = 'attnlab-models-v1';
let lastWrite = Promise.resolve();
export const cacheWritten = () => lastWrite;
const REPORT_EVERY = 256 * 1024;

export function cacheKey(url, sha256) {
  const base = String(url).split('#')[0];
  return `${base}${base.includes('?') ? '&' : '?'}sha256=${sha256}`;
}

export async function sha256Hex(bytes, subtle = globalThis.crypto?.subtle) {
  if (!subtle) throw new Error('This browser cannot compute SHA-256 (crypto.subtle is missing; is the page served over http://localhost or https?).');
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

export async function readStream(res, total, onProgress) {
  if (!res.body || typeof res.body.getReader !== 'function') {
    const buf = new Uint8Array(await res.arrayBuffer());
    onProgress({ loaded: buf.byteLength, total: total || buf.byteLength, cached: false });
    return buf;
  }
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  let reported = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    if (loaded - reported >= REPORT_EVERY) {
      reported = loaded;
      onProgress({ loaded, total, cached: false });
    }
  }
  const out = new Uint8Array(loaded);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  onProgress({ loaded, total: total || loaded, cached: false });
  return out;
}

function short(hex) {
  return hex ? `${hex.slice(0, 12)}…` : '?';
}

export async function fetchVerified(url, {
  sha256,
  bytes: expectedBytes = 0,
  what = 'model file',
  onProgress = () => {},
  caches = globalThis.caches,
  fetch: fetchImpl = globalThis.fetch,
  subtle = globalThis.crypto?.subtle,
  cacheName = CACHE_NAME,
} = {}) {
  const name = String(url).split('/').pop();
  if (!/^[0-9a-f]{64}$/.test(String(sha256 ?? ''))) {
    throw new Error(`The ${what} ${name} has no valid sha256 in the manifest, so it cannot be verified.`);
  }
  const key = cacheKey(url, sha256);
  let cache = null;
  if (caches && typeof caches.open === 'function') {
    try {
      cache = await caches.open(cacheName);
    } catch {
      cache = null; // storage disabled (private mode, quota): just fetch
    }
  }

  if (cache) {
    try {
      const hit = await cache.match(key);
      if (hit) {
        const buf = new Uint8Array(await hit.arrayBuffer());
        if ((await sha256Hex(buf, subtle)) === sha256) {
          onProgress({ loaded: buf.byteLength, total: buf.byteLength, cached: true });
          return buf;
        }
        await cache.delete(key); // corrupt or truncated entry: evict and fetch again
      }
    } catch {
      // an unreadable entry is treated as a miss
      try { await cache.delete(key); } catch { /* ignore */ }
    }
  }

  let res;
  try {
    res = await fetchImpl(url);
  } catch (e) {
    throw new Error(`Could not download the ${what} ${name}: ${e?.message ?? e}`);
  }
  if (!res.ok) throw new Error(`Could not download the ${what} ${name}: HTTP ${res.status}`);
  const total = Number(res.headers?.get?.('Content-Length')) || expectedBytes || 0;
  let buf;
  try {
    buf = await readStream(res, total, onProgress);
  } catch (e) {
    throw new Error(`The download of the ${what} ${name} broke off: ${e?.message ?? e}`);
  }
  const got = await sha256Hex(buf, subtle);
  if (got !== sha256 || (expectedBytes && buf.byteLength !== expectedBytes)) {
    const sizeNote = expectedBytes && buf.byteLength !== expectedBytes
      ? `${buf.byteLength} bytes instead of ${expectedBytes} (truncated or wrong file)`
      : `${buf.byteLength} bytes`;
    throw new Error(
      `The ${what} ${name} is corrupt or not the expected file: ${sizeNote}, sha256 ${short(got)} instead of ${short(sha256)}. ` +
        'Rebuild or re-download the models (models/image/), then reload.',
    );
  }
  if (cache) {
    // Written after the bytes are returned (a cold open's 3.5 MB write took ≈ 0.3 s before the model could start;
    // issue 29): the Response copies the bytes now, so the caller may hand `buf` on (ORT, a transfer).
    const body = new Response(buf, { headers: { 'Content-Type': 'application/octet-stream' } });
    lastWrite = (async () => {
      try {
        const base = cacheKey(url, '');
        for (const req of await cache.keys()) {
          const u = typeof req === 'string' ? req : req.url;
          if (u.startsWith(base) && u !== key) await cache.delete(req);
        }
        await cache.put(key, body);
      } catch {
        // quota exceeded or storage disabled: the bytes are still good
      }
    })();
  }
  return buf;
}
