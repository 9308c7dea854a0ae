// coi.js — classic script at the top of index.html: cross-origin isolation where the host cannot send
// COOP/COEP. When the page is not isolated and service workers are available (a secure context), it registers
// coi-sw.js and reloads once the worker controls the page (once per tab: sessionStorage guards against a loop).
// Otherwise it leaves a plain note for the footer: document.documentElement.dataset.isolation =
// 'isolated' | 'pending' | 'single-threaded' (views/page-tools.js shows the sentence).
(function () {
  'use strict';
  var root = document.documentElement;
  if (window.crossOriginIsolated) {
    root.dataset.isolation = 'isolated';
    return;
  }
  var KEY = 'attnlab-coi-reload';
  if (!('serviceWorker' in navigator) || !window.isSecureContext) {
    root.dataset.isolation = 'single-threaded';
    return;
  }
  if (sessionStorage.getItem(KEY)) {
    // reloaded once already and still not isolated: the browser refused; run single-threaded
    root.dataset.isolation = 'single-threaded';
    return;
  }
  root.dataset.isolation = 'pending';
  function reload() {
    sessionStorage.setItem(KEY, '1');
    location.reload();
  }
  navigator.serviceWorker.register(new URL('coi-sw.js', document.baseURI).href).then(function () {
    // controlled already (the headers were not applied to this load) → reload; else the worker's
    // clients.claim() fires controllerchange once it is active
    if (navigator.serviceWorker.controller) reload();
    else navigator.serviceWorker.addEventListener('controllerchange', reload);
  }, function () {
    root.dataset.isolation = 'single-threaded';
  });
})();
