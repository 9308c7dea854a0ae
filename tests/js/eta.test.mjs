// eta.test.mjs — the time left of a long job (web/analysis/eta.js). Run: node --test tests/js/eta.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { etaText, durationText, ETA_AFTER_S } from '../../web/analysis/eta.js';

test('a job says its time left from its rate so far, once it has run 5 s', () => {
  assert.equal(ETA_AFTER_S, 5);
  assert.equal(etaText(4.9, 10, 100), '', 'a short job says nothing');
  assert.equal(etaText(10, 100, 300), 'about 20 s left');
  assert.equal(etaText(6, 1, 1000), 'about 1 h 40 min left');
  assert.equal(etaText(30, 40, 200), 'about 2 min left');
  assert.equal(etaText(30, 7, 20), 'about 56 s left', '55.7 s: under a minute, seconds rounded up');
  assert.equal(etaText(10, 0, 100), '', 'no rate yet');
  assert.equal(etaText(10, 100, 100), '', 'done');
  assert.equal(etaText(NaN, 1, 2), '');
});

test('durations in words', () => {
  assert.equal(durationText(0.2), '1 s');
  assert.equal(durationText(59.2), '1 min');
  assert.equal(durationText(61), '1 min 5 s');
  assert.equal(durationText(185), '3 min 5 s');
  assert.equal(durationText(3600), '1 h 00 min');
  assert.equal(durationText(-1), '');
});
