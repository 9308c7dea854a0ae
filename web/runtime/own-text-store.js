// own-text-store.js — keeps the files of a user's text transformer (model.onnx, its tokenizer, config.json) in this
// browser for the next visit, only when the user asks (the "Keep this model in this browser" box of the Text tab's
// "Your model"), in the Cache API under fixed keys; nothing is uploaded. No DOM.
//
// Contract (caches injectable for tests; without the Cache API every call is a no-op / null):
//   keepTextModel({ model, tokenizer, config, names }, { caches }) → Promise<void> (replaces what was kept)
//     model, tokenizer: Uint8Array; config: string ('' = none); names: {model, tokenizer, config}
//   keptTextModel({ caches }) → Promise<{ model, tokenizer, config, names } | null>
//   forgetTextModel({ caches }) → Promise<void>
export const OWN_TEXT_CACHE = 'attnlab-own-text-v1';
const BASE = globalThis.location?.href ?? 'http://localhost/';
const key = (part) => new URL(`own-text/${part}`, BASE).href;

const store = (caches) => caches ?? globalThis.caches ?? null;

export async function keepTextModel({ model, tokenizer, config = '', names = {} }, { caches } = {}) {
  const c = store(caches);
  if (!c) return;
  await c.delete(OWN_TEXT_CACHE);
  const cache = await c.open(OWN_TEXT_CACHE);
  const headers = { 'content-type': 'application/octet-stream' };
  await cache.put(key('model'), new Response(model, { headers }));
  await cache.put(key('tokenizer'), new Response(tokenizer, { headers }));
  await cache.put(key('meta.json'), new Response(JSON.stringify({ config, names }), { headers: { 'content-type': 'application/json' } }));
}

export async function keptTextModel({ caches } = {}) {
  const c = store(caches);
  if (!c) return null;
  const cache = await c.open(OWN_TEXT_CACHE);
  const [m, t, meta] = await Promise.all(['model', 'tokenizer', 'meta.json'].map((k) => cache.match(key(k))));
  if (!m || !t || !meta) return null;
  let info = {};
  try {
    info = await meta.json();
  } catch {
    return null;
  }
  return {
    model: new Uint8Array(await m.arrayBuffer()),
    tokenizer: new Uint8Array(await t.arrayBuffer()),
    config: typeof info.config === 'string' ? info.config : '',
    names: info.names && typeof info.names === 'object' ? info.names : {},
  };
}

export async function forgetTextModel({ caches } = {}) {
  const c = store(caches);
  if (c) await c.delete(OWN_TEXT_CACHE);
}
