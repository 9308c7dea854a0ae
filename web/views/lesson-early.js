// lesson-early.js — a classic (non-module) script that runs before app.js: it catches a lesson request in the
// link (`#lesson=NAME[&step=N]` or `?lesson=NAME[&step=N]`) before app.js rewrites the hash to its schema, and
// on every later hashchange before app.js sees it. The request is kept in window.__attnlabLesson and announced
// with a window event 'attnlab:lesson' (detail { name, step }); views/lesson-player.js plays it.
(function () {
  'use strict';
  function read(s) {
    var p = new URLSearchParams(String(s || '').replace(/^[#?]/, ''));
    var name = p.get('lesson');
    if (!name) return null;
    var step = parseInt(p.get('step') || '1', 10);
    return { name: name, step: isFinite(step) && step > 0 ? step : 1 };
  }
  var req = read(location.hash) || read(location.search);
  if (req) window.__attnlabLesson = req;
  window.addEventListener('hashchange', function () {
    var r = read(location.hash);
    if (!r) return;
    window.__attnlabLesson = r;
    window.dispatchEvent(new CustomEvent('attnlab:lesson', { detail: r }));
  });
})();
