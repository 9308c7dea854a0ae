// lesson.test.mjs — the lesson format checks (web/analysis/lesson.js) on the shipped lessons and on broken ones.
// Run: node --test tests/js/lesson.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLesson, lessonName } from '../../web/analysis/lesson.js';
import { parse } from '../../web/state.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/lessons');

test('shipped lessons parse, and every step state is a page state the app accepts as it is', () => {
  const idx = JSON.parse(fs.readFileSync(path.join(DIR, 'index.json'), 'utf8'));
  assert.ok(idx.lessons.length >= 3);
  for (const { name } of idx.lessons) {
    assert.ok(lessonName(name), name);
    const l = parseLesson(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8'));
    for (const s of l.steps) {
      const state = parse(s.state);
      const raw = new URLSearchParams(s.state.slice(1));
      for (const [k, v] of raw) assert.equal(String(state[k]), v, `${name}: "${k}=${v}" survives the app's parser unchanged`);
      assert.ok(s.text.length > 40 && s.question.endsWith('?'), `${name}: ${s.title} has text and a question`);
    }
  }
});

test('broken lessons get messages that name the step and the field', () => {
  assert.throws(() => parseLesson('{'), /not valid JSON/);
  assert.throws(() => parseLesson('[]'), /JSON object/);
  assert.throws(() => parseLesson({ title: 'x' }), /"steps" must be a non-empty list/);
  assert.throws(() => parseLesson({ title: 'x', steps: [{ state: '#view=text' }] }), /step 1: "text" is missing/);
  assert.throws(() => parseLesson({ title: 'x', steps: [{ state: '#view=text', text: 't' }, { text: 't' }] }), /step 2: "state" is missing/);
  assert.throws(() => parseLesson({ title: 'x', steps: [{ state: '#lesson=other', text: 't' }] }), /cannot open another lesson/);
  assert.throws(() => parseLesson({ title: 'x', steps: [{ state: '#view=text', text: 5 }] }), /"text" must be text/);
  assert.throws(() => parseLesson({ format: 'v9', title: 'x', steps: [] }), /unknown lesson format/);
  assert.throws(() => parseLesson({ title: 'x', steps: Array.from({ length: 41 }, () => ({ state: 'view=text', text: 't' })) }), /at most 40/);
  const ok = parseLesson({ title: 'x', steps: [{ state: 'view=debate', text: 't' }] });
  assert.equal(ok.steps[0].state, '#view=debate', 'a missing # is added');
  assert.equal(ok.steps[0].title, 'Step 1');
  assert.ok(!lessonName('../x') && !lessonName('A') && lessonName('my-lesson-2'));
});

test('a step cannot open another lesson however the key is encoded (issue 27)', () => {
  const refuse = (state) => assert.throws(() => parseLesson({ title: 'x', steps: [{ state, text: 't' }] }), /cannot open another lesson/, state);
  for (const state of ['#lesson=intro', '#%6Cesson=intro', '#%6c%65sson=intro', 'view=text&%6Cesson=intro', '#view=text&lesson%3Dintro',
    '#%256Cesson=intro', '#view=text;lesson=intro', '#LESSON=intro', '#view=text&%2526lesson=intro', '#%E2%80%8Blesson=x&lesson=intro']) refuse(state);
  // and what only looks like one stays a page state: a text that says "lesson=", a key that merely contains it
  for (const state of ['#view=text&text=the%20lesson%3Dintro', '#view=text&text=lesson=intro', '#view=text&lessons=2', '#view=text&text=%E0%A4%A']) {
    assert.equal(parseLesson({ title: 'x', steps: [{ state, text: 't' }] }).steps[0].state, state);
  }
});
