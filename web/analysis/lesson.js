// lesson.js — the guided-lesson format (docs/LESSONS.md): parse and check one lesson (pure; works in Node).
//
// Contract:
//   parseLesson(textOrObject) → { title, summary, steps: [{ title, state, text, question, highlight }] }
//     `state` is a page state in the URL-hash schema ('#view=text&model=sst2-tanh&text=…'; a leading '#' is
//     added when missing); `highlight` an optional CSS selector. Throws an Error with a message a teacher can
//     act on ("step 3: \"text\" is missing") for anything else — never returns a half-valid lesson.
//   lessonName(name) → true for a shipped lesson's name (a-z, 0-9, '-', ≤ 60 characters): the only names
//     `#lesson=NAME` / `?lesson=NAME` may load (from web/lessons/NAME.json).
//   opensLesson(state) → true when the state has a `lesson` key in any spelling (percent-encoded once or more,
//     upper case, behind ';'): parseLesson refuses such a step ("cannot open another lesson").
//   LIMITS — the size limits (steps, characters) that keep a lesson a lesson.
export const LIMITS = Object.freeze({ steps: 40, title: 120, text: 2000, question: 600, state: 4000, highlight: 200, bytes: 200_000 });

export function lessonName(name) {
  return typeof name === 'string' && /^[a-z0-9][a-z0-9-]{0,59}$/.test(name);
}

// Percent-decoding until nothing changes (at most 10 rounds; a malformed escape stops it where it is), '+' read
// as a space as URLSearchParams does.
export function decodeFully(s) {
  let cur = String(s);
  for (let i = 0; i < 10; i++) {
    let next;
    try {
      next = decodeURIComponent(cur.replace(/\+/g, ' '));
    } catch {
      break;
    }
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

// True when a page state names a `lesson` key — compared after decoding the key fully (`%6Cesson`, `%256Cesson`,
// `lesson%3Dx`, `%26lesson`), case-insensitively, with ';' as well as '&' between fields: no spelling of the key
// gets past. Values are not keys: `text=the lesson=intro` is a text.
export function opensLesson(state) {
  const body = String(state).replace(/^[#?]/, '');
  for (const field of body.split(/[&;]/)) {
    const key = decodeFully(field.split('=')[0]);
    if (key.split(/[&;?#=]/).some((k) => k.replace(/[\s\u200b-\u200d\ufeff]/g, '').toLowerCase() === 'lesson')) return true;
  }
  return false;
}

function str(v, where, key, max, required) {
  if (v === undefined || v === null || v === '') {
    if (required) throw new Error(`${where}: "${key}" is missing`);
    return '';
  }
  if (typeof v !== 'string') throw new Error(`${where}: "${key}" must be text, got ${Array.isArray(v) ? 'a list' : typeof v}`);
  if (v.length > max) throw new Error(`${where}: "${key}" is longer than ${max} characters`);
  return v;
}

export function parseLesson(input) {
  let obj = input;
  if (typeof input === 'string') {
    if (input.length > LIMITS.bytes) throw new Error(`the lesson file is larger than ${LIMITS.bytes / 1000} kB`);
    try {
      obj = JSON.parse(input);
    } catch (e) {
      throw new Error(`the lesson is not valid JSON (${e.message})`);
    }
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('a lesson is a JSON object with "title" and "steps"');
  if (obj.format !== undefined && obj.format !== 'attnlab-lesson-v1') throw new Error(`unknown lesson format "${obj.format}" (expected attnlab-lesson-v1)`);
  const title = str(obj.title, 'lesson', 'title', LIMITS.title, true);
  const summary = str(obj.summary, 'lesson', 'summary', LIMITS.text, false);
  if (!Array.isArray(obj.steps) || obj.steps.length === 0) throw new Error('lesson: "steps" must be a non-empty list');
  if (obj.steps.length > LIMITS.steps) throw new Error(`lesson: at most ${LIMITS.steps} steps`);
  const steps = obj.steps.map((s, i) => {
    const where = `step ${i + 1}`;
    if (!s || typeof s !== 'object' || Array.isArray(s)) throw new Error(`${where}: must be an object`);
    let state = str(s.state, where, 'state', LIMITS.state, true);
    if (!state.startsWith('#')) state = `#${state}`;
    if (/^#\s*$/.test(state)) throw new Error(`${where}: "state" is empty`);
    if (opensLesson(state)) throw new Error(`${where}: "state" cannot open another lesson`);
    const highlight = str(s.highlight, where, 'highlight', LIMITS.highlight, false);
    return {
      title: str(s.title, where, 'title', LIMITS.title, false) || `Step ${i + 1}`,
      state,
      text: str(s.text, where, 'text', LIMITS.text, true),
      question: str(s.question, where, 'question', LIMITS.question, false),
      highlight,
    };
  });
  return { title, summary, steps };
}
