// coi-sw.js — a service worker that makes the page cross-origin isolated on hosts that cannot send the
// headers themselves (GitHub Pages, plain static servers): it answers every request of its scope (web/) from the
// network and adds Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp and
// Cross-Origin-Resource-Policy: same-origin, so SharedArrayBuffer and threaded wasm work. Registered by
// web/coi.js only when the page is not isolated already; the same approach as gzuidhof/coi-serviceworker,
// written here. Everything the page loads is same-origin, so require-corp blocks nothing.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.cache === 'only-if-cached' && req.mode !== 'same-origin') return;
  if (new URL(req.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(req).then((res) => {
      if (res.status === 0 || res.type === 'opaque') return res;
      const headers = new Headers(res.headers);
      headers.set('Cross-Origin-Opener-Policy', 'same-origin');
      headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
      headers.set('Cross-Origin-Resource-Policy', 'same-origin');
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }),
  );
});
