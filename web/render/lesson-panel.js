// lesson-panel.js — draws the lesson player: a card fixed at the bottom right (a bottom sheet on phones) with
// the lesson title, "step i of n", the step's title, text and question, and Back / Next (Finish on the last
// step) / Close. Drawing only: the controller (views/lesson-player.js) passes the callbacks.
//
// Contract:
//   renderLessonPanel(panel, { lesson, index, onBack, onNext, onClose, onMinimize, minimized, note, link }) → fills
//     `panel` (<aside class="lesson-player" data-step="i+1" data-steps="n" data-minimized="true|false">): h2
//     .lesson-title, .lesson-step-count, h3 .lesson-step-title, p .lesson-text, p .lesson-question (when there is
//     one), p .lesson-error (note), buttons .lesson-back / .lesson-next / .lesson-close, .lesson-min (with
//     onMinimize: ▾ minimise / ▴ show, aria-expanded; minimised, CSS shows the head only), and (shipped lessons)
//     a.lesson-link to this step.
//     Next gets the focus so Enter moves on.
import { el } from './dom.js';

export function renderLessonPanel(panel, { lesson, index, onBack, onNext, onClose, onMinimize = null, minimized = false, note = '', link = '' }) {
  const n = lesson.steps.length;
  const step = lesson.steps[index];
  panel.dataset.step = String(index + 1);
  panel.dataset.steps = String(n);
  panel.setAttribute('aria-label', `Lesson: ${lesson.title}`);
  const head = el('div', 'lesson-head');
  const titles = el('div');
  titles.append(el('h2', 'lesson-title', lesson.title), el('span', 'lesson-step-count', `Step ${index + 1} of ${n}`));
  const close = el('button', 'lesson-close', '✕', { type: 'button', 'aria-label': 'Close the lesson', title: 'Close the lesson' });
  close.addEventListener('click', onClose);
  const tools = el('div', 'lesson-tools');
  if (onMinimize) {
    const min = el('button', 'lesson-min', minimized ? '▴' : '▾', {
      type: 'button', 'aria-expanded': String(!minimized), 'aria-controls': panel.id || 'lesson-player',
      'aria-label': minimized ? 'Show the lesson step' : 'Minimise the lesson', title: minimized ? 'Show the lesson step' : 'Minimise the lesson',
    });
    min.addEventListener('click', onMinimize);
    tools.append(min);
  }
  tools.append(close);
  head.append(titles, tools);
  panel.dataset.minimized = String(Boolean(minimized));
  const parts = [head, el('h3', 'lesson-step-title', step.title), el('p', 'lesson-text', step.text)];
  if (step.question) {
    const q = el('p', 'lesson-question');
    q.append(el('span', 'visually-hidden', 'Question: '), step.question);
    parts.push(q);
  }
  if (note) parts.push(el('p', 'lesson-error', note));
  const nav = el('div', 'lesson-nav');
  const back = el('button', 'lesson-back', '← Back', { type: 'button' });
  back.disabled = index === 0;
  back.addEventListener('click', onBack);
  const last = index === n - 1;
  const next = el('button', 'lesson-next primary', last ? 'Finish' : 'Next →', { type: 'button' });
  next.addEventListener('click', onNext);
  nav.append(back);
  if (link) nav.append(el('a', 'lesson-link', 'link to this step', { href: link, title: 'Share this lesson at this step' }));
  nav.append(next);
  parts.push(nav);
  panel.replaceChildren(...parts);
  return { next, back };
}
