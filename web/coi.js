// coi.js — classic script at the top of index.html: tells the page whether it is cross-origin isolated
// (threaded WebAssembly needs the COOP / COEP headers that scripts/serve.mjs sends). On a static host that cannot
// send them (GitHub Pages, a university web space, the folder of `npm run build`) the page runs single-threaded,
// with the same results, and says so plainly: document.documentElement.dataset.isolation = 'isolated' |
// 'single-threaded'; views/page-tools.js shows the sentence in the footer.
// A service worker that adds the headers (the coi-serviceworker approach) was tried and left out: in Chromium 156
// the image model's threaded ONNX Runtime hung at start-up under it (its pthread workers never came up).
(function () {
  'use strict';
  document.documentElement.dataset.isolation = window.crossOriginIsolated ? 'isolated' : 'single-threaded';
})();
