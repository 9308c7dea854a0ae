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
//   data-lesson="open" while a lesson plays. Highlight: the step's selector is looked up for up to
//   HIGHLIGHT_WAIT_MS (results appear after the model runs); the element gets .lesson-highlight and is
//   scrolled into view; a selector that never matches leaves a small note in the panel, the lesson goes on.
//   A shipped lesson keeps `?lesson=NAME&step=N`-style links: link(name, step) gives one.
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
  const panel = document.createElement('aside');
  panel.id = 'lesson-player';
  panel.className = 'lesson-player';
  panel.hidden = true;
  panel.setAttribute('role', 'region');
  document.body.append(panel);

  function unhighlight() {
    highlighted?.classList.remove('lesson-highlight');
    highlighted = null;
  }

  function highlight(selector, my) {
    unhighlight();
    if (!selector) return;
    const t0 = performance.now();
    const tryFind = () => {
      if (my !== seq) return;
      let e = null;
      try {
        e = document.querySelector(selector);
      } catch {
        draw(`The highlight "${selector}" is not a valid CSS selector.`);
        return;
      }
      if (e && e.getClientRects().length) {
        highlighted = e;
        e.classList.add('lesson-highlight');
        e.scrollIntoView({ block: 'start' }); // the top of the screen: the player sits at the bottom
        panel.dataset.highlight = 'found';
        return;
      }
      if (performance.now() - t0 > HIGHLIGHT_WAIT_MS) {
        panel.dataset.highlight = 'missing';
        return;
      }
      setTimeout(tryFind, 150);
    };
    panel.dataset.highlight = 'waiting';
    tryFind();
  }

  function draw(note = '') {
    const { next } = renderLessonPanel(panel, {
      lesson, index, note, link: name ? lessonLink(name, index + 1) : '',
      onBack: () => back(),
      onNext: () => (index === lesson.steps.length - 1 ? close() : go(index + 1)),
      onClose: () => close(),
    });
    return next;
  }

  function go(i) {
    if (!lesson) return;
    index = Math.max(0, Math.min(lesson.steps.length - 1, i));
    const my = ++seq;
    const step = lesson.steps[index];
    panel.hidden = false;
    document.body.dataset.lesson = 'open';
    const next = draw();
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
  }

  const state = () => (lesson ? { name, title: lesson.title, index, steps: lesson.steps.length } : null);
  return { open, openShipped, openFile, go, next, back, close, state, panel };
}
