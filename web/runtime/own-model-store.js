// own-model-store.js — keeps a user's .onnx model (and its labels) in this browser for the next visit, only
// when the user asks (the "Keep it in this browser" box), in the Cache API under one fixed key; nothing is
// uploaded. No DOM.
//
// Contract (caches injectable for tests; without the Cache API every call is a no-op / null):
//   keepModel({ name, bytes, labels }, { caches }) → Promise<void>   (replaces what was kept)
//   keptModel({ caches }) → Promise<{ name, bytes: Uint8Array, labels: string[] | null } | null>
//   forgetModel({ caches }) → Promise<void>
export const OWN_CACHE = 'attnlab-own-model-v1';
const BASE = globalThis.location?.href ?? 'http://localhost/';
const KEY = new URL('own-model/kept.onnx', BASE).href;
const LABELS_KEY = new URL('own-model/kept-labels.json', BASE).href;

function store(caches) {
  return caches ?? globalThis.caches ?? null;
}

export async function keepModel({ name, bytes, labels = null }, { caches } = {}) {
  const c = store(caches);
  if (!c) return;
  const cache = await c.open(OWN_CACHE);
  await cache.put(KEY, new Response(bytes, {
    headers: {
      'content-type': 'application/octet-stream',
      'x-attnlab-name': encodeURIComponent(name),
    },
  }));
  if (labels) await cache.put(LABELS_KEY, new Response(JSON.stringify(labels), { headers: { 'content-type': 'application/json' } }));
  else await cache.delete(LABELS_KEY);
}

export async function keptModel({ caches } = {}) {
  const c = store(caches);
  if (!c) return null;
  const cache = await c.open(OWN_CACHE);
  const res = await cache.match(KEY);
  if (!res) return null;
  const lab = await cache.match(LABELS_KEY);
  let labels = null;
  try {
    labels = lab ? await lab.json() : null;
  } catch {
    labels = null; // unreadable labels: the model without them
  }
  return {
    name: decodeURIComponent(res.headers.get('x-attnlab-name') ?? 'model.onnx'),
    bytes: new Uint8Array(await res.arrayBuffer()),
    labels: Array.isArray(labels) ? labels.map(String) : null,
  };
}

export async function forgetModel({ caches } = {}) {
  const c = store(caches);
  if (c) await c.delete(OWN_CACHE);
}
