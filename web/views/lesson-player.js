// lesson-player.js — plays a guided lesson (docs/LESSONS.md): each step sets the page state through
// location.hash (app.js listens to hashchange and applies it to the views), shows the step's text and question
// (render/lesson-panel.js) and highlights the control or figure it talks about.
//
// Contract:
//   mountLessonPlayer({ base = new URL('../lessons/', import.meta.url) }) → player
//     player.open(lesson, { step = 1, name = '' })  a parsed or raw lesson (analysis/lesson.js parseLesson);
//                                                   throws the parse error (the caller shows it)
//     player.openShipped(name, { step })            fetches base/NAME.json (names: lessonName()) and opens it
//     player.openFile(file)                         a File from a picker; resolves once opened
//     player.go(i) / next() / back() / close()      i is 0-based; Finish on the last step closes the player
//     player.state() → { name, title, index, steps } | null
//   The panel is <aside id="lesson-player" class="lesson-player" data-step data-steps>; document.body gets
//   data-lesson="open" while a lesson plays ("min" while the panel is minimised: ▾ in its head; the page CSS
//   gives the panel a column of its own on wide screens and room below the page on narrow ones, so it does not
//   cover what a step points at). Highlight: the step's selector is looked up for up to HIGHLIGHT_WAIT_MS
//   (results appear after the model runs); the element gets .lesson-highlight and is scrolled into view; while
//   the step is shown a MutationObserver moves the outline to whatever matches the selector after the views
//   redraw (a step that switches model or text re-renders what it points at), and outlines it when it first
//   appears after HIGHLIGHT_WAIT_MS (data-highlight 'missing' until then; a slow first model load); the lesson
//   goes on either way. A shipped lesson keeps `?lesson=NAME&step=N`-style
//   links: lessonLink(name, step) gives one; the URL's step= follows the step shown and close() takes
//   lesson= / step= out of the URL (a reload does not restart a closed lesson).
//   Events: window 'attnlab:lesson' ({ detail: { name, step } }, from views/lesson-early.js) opens a lesson.
import { parseLesson, lessonName } from '../analysis/lesson.js';
import { renderLessonPanel } from '../render/lesson-panel.js';

export const HIGHLIGHT_WAIT_MS = 8000;

export function lessonLink(name, step = 1) {
  const u = new URL(location.href);
  u.hash = '';
  u.search = `?lesson=${encodeURIComponent(name)}${step > 1 ? `&step=${step}` : ''}`;
  return u.href;
}

export function mountLessonPlayer({ base = new URL('../lessons/', import.meta.url) } = {}) {
  let lesson = null;
  let name = '';
  let index = 0;
  let highlighted = null;
  let seq = 0;
  let minimized = false;
  let stepStarted = 0;
  const panel = document.createElement('aside');
  panel.id = 'lesson-player';
  panel.className = 'lesson-player';
  panel.hidden = true;
  panel.setAttribute('role', 'region');
  document.body.append(panel);

  // The outline follows the step's selector while the step is shown: views redraw what a step points at (a new
  // model or text re-renders the token rows after the player found them), so a MutationObserver looks the
  // selector up again after every change of the page and moves the outline to the element that matches now
  // (scrolling to it when the one outlined was replaced).
  let observer = null;
  let selectorNow = '';

  function unhighlight() {
    observer?.disconnect();
    observer = null;
    selectorNow = '';
    highlighted?.classList.remove('lesson-highlight');
    highlighted = null;
  }

  function outline(e, scroll) {
    if (highlighted && highlighted !== e) highlighted.classList.remove('lesson-highlight');
    highlighted = e;
    if (!e.classList.contains('lesson-highlight')) e.classList.add('lesson-highlight');
    if (scroll) e.scrollIntoView({ block: 'start' }); // the top of the screen; the panel has its own column / space
    panel.dataset.highlight = 'found';
  }

  function inView(e) {
    const r = e.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  }

  function find(selector) {
    const e = document.querySelector(selector);
    return e && e.getClientRects().length ? e : null;
  }

  function follow() {
    if (!selectorNow) return;
    let e = null;
    try {
      e = find(selectorNow);
    } catch {
      return;
    }
    if (!e) return;
    // scroll to a replacement only while the step's own results are arriving, never after the user scrolled on
    const early = performance.now() - stepStarted < HIGHLIGHT_WAIT_MS;
    // first found late (a model that loads slowly): outline it and scroll to it once
    if (!highlighted) outline(e, true);
    else if (e !== highlighted || !e.classList.contains('lesson-highlight')) outline(e, early && !highlighted.isConnected);
    else if (early && !inView(e)) e.scrollIntoView({ block: 'start' }); // pushed off screen by results drawn above it
  }

  function highlight(selector, my) {
    unhighlight();
    if (!selector) {
      delete panel.dataset.highlight;
      return;
    }
    const t0 = performance.now();
    stepStarted = t0;
    const tryFind = () => {
      if (my !== seq) return;
      let e = null;
      try {
        e = find(selector);
      } catch {
        draw(`The highlight "${selector}" is not a valid CSS selector.`);
        return;
      }
      const watch = () => {
        selectorNow = selector;
        observer = new MutationObserver(follow);
        observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['class', 'hidden'] });
      };
      if (e) {
        outline(e, true);
        watch();
        return;
      }
      if (performance.now() - t0 > HIGHLIGHT_WAIT_MS) {
        panel.dataset.highlight = 'missing';
        watch(); // it may still come (a slow first model load): outlined when it does
        return;
      }
      setTimeout(tryFind, 150);
    };
    panel.dataset.highlight = 'waiting';
    tryFind();
  }

  function draw(note = '') {
    const { next } = renderLessonPanel(panel, {
      lesson, index, note, link: name ? lessonLink(name, index + 1) : '', minimized,
      onBack: () => back(),
      onNext: () => (index === lesson.steps.length - 1 ? close() : go(index + 1)),
      onClose: () => close(),
      onMinimize: () => minimize(!minimized),
    });
    return next;
  }

  // Minimised, the panel keeps its head (title, step count, ▴ / ✕) and gives the page its room back.
  function minimize(on) {
    minimized = Boolean(on);
    document.body.dataset.lesson = minimized ? 'min' : 'open';
    draw(panel.querySelector('.lesson-error')?.textContent ?? '');
    panel.querySelector('.lesson-min')?.focus({ preventScroll: true });
  }

  // The link's `?lesson=NAME&step=N` (views/lesson-early.js) follows the step shown, so a reload stays there, and
  // goes when the lesson is closed, so a reload does not start it again; `#lesson=` never stays (app.js rewrites
  // the hash to its schema).
  function syncSearch(step) {
    const u = new URL(location.href);
    if (!u.searchParams.has('lesson') && !u.searchParams.has('step')) return;
    if (step && name && u.searchParams.get('lesson') === name) u.searchParams.set('step', String(step));
    else {
      u.searchParams.delete('lesson');
      u.searchParams.delete('step');
    }
    const url = u.pathname + (u.searchParams.size ? `?${u.searchParams}` : '') + u.hash;
    history.replaceState(history.state, '', url);
    if (!step) delete window.__attnlabLesson;
  }

  function go(i) {
    if (!lesson) return;
    index = Math.max(0, Math.min(lesson.steps.length - 1, i));
    const my = ++seq;
    const step = lesson.steps[index];
    panel.hidden = false;
    document.body.dataset.lesson = minimized ? 'min' : 'open';
    const next = draw();
    syncSearch(index + 1);
    if (location.hash !== step.state) location.hash = step.state; // app.js applies it (hashchange)
    highlight(step.highlight, my);
    next.focus({ preventScroll: true });
  }

  function open(raw, { step = 1, name: n = '' } = {}) {
    lesson = parseLesson(raw);
    name = n;
    go(step - 1);
  }

  async function openShipped(n, { step = 1 } = {}) {
    if (!lessonName(n)) throw new Error(`"${n}" is not a lesson name (letters, digits and "-")`);
    const res = await fetch(new URL(`${n}.json`, base));
    if (!res.ok) throw new Error(`there is no shipped lesson "${n}" (HTTP ${res.status})`);
    open(await res.text(), { step, name: n });
  }

  async function openFile(file) {
    const text = await file.text();
    open(text, { name: '' });
  }

  function back() {
    go(index - 1);
  }

  function next() {
    if (lesson && index === lesson.steps.length - 1) close();
    else go(index + 1);
  }

  function close() {
    ++seq;
    unhighlight();
    lesson = null;
    panel.hidden = true;
    panel.replaceChildren();
    delete document.body.dataset.lesson;
    syncSearch(0);
  }

  const state = () => (lesson ? { name, title: lesson.title, index, steps: lesson.steps.length } : null);
  return { open, openShipped, openFile, go, next, back, close, state, panel };
}
