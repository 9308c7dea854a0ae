// faithful.test.mjs — web/analysis/faithful.js (issue 32): the conicity line of the Text tab, the word lists (the
// shipped strong-sentiment lexicon parses to its 454 words), and the impermissible experiment's summary in words.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  conicityOf, conicityText, CONICITY_HELP, parseWordList, wordsParam, impermissibleSentence, impermissibleWords, LEXICON_PATH, MAX_WORDS,
} from '../../web/analysis/faithful.js';
import { EXPERIMENT_INFO } from '../../web/experiments-info.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('conicity: a BiLSTM result\'s number, none for a transformer (null) or an older core (absent)', () => {
  assert.equal(conicityOf({ conicity: 0.4123 }), 0.4123);
  for (const r of [{ conicity: null }, {}, null, { conicity: 'x' }, { conicity: NaN }]) assert.equal(conicityOf(r), null);
  assert.equal(conicityText(0.4123), 'Conicity of the hidden states: 0.412');
  assert.equal(conicityText(null), '');
  assert.match(CONICITY_HELP, /near 1, permuting attention changes little \(Mohankumar et al\. 2020\)/);
});

test('word lists: one a line or spaced, each once, comments skipped; the shipped lexicon has 454 words', () => {
  assert.deepEqual(parseWordList('awful\nsuperb  bad\r\n# a comment\n\nawful\tgreat '), ['awful', 'superb', 'bad', 'great']);
  assert.deepEqual(parseWordList(''), []);
  assert.equal(wordsParam(['a', 'b']), 'a b');
  assert.equal(wordsParam('a\nb\n'), 'a b');
  assert.equal(parseWordList(Array.from({ length: MAX_WORDS + 10 }, (_, i) => `w${i}`).join(' ')).length, MAX_WORDS);
  const lexicon = parseWordList(fs.readFileSync(path.join(REPO, LEXICON_PATH), 'utf8'));
  assert.equal(lexicon.length, 454);
  for (const w of ['awful', 'superb', 'masterpiece', 'worst']) assert.ok(lexicon.includes(w), w);
});

test('the impermissible experiment in words; its headline and the conicity headline', () => {
  const s = { attention_mass_mean_where_present: 0.0312, changed_fraction_where_present: 0.5, instances_with_impermissible: 120,
    accuracy: 0.81, accuracy_without: 0.62, attention_mass_mean: 0.01 };
  assert.equal(impermissibleSentence(s),
    'attention on the impermissible words: 3.1 %; predictions that change when those words are deleted: 50.0 % (over the 120 sentences that have one)');
  assert.match(impermissibleSentence({ ...s, instances_with_impermissible: 1 }), /\(over the 1 sentence that has one\)$/);
  assert.match(impermissibleSentence({ instances_with_impermissible: 0 }), /: n\/a; .*: n\/a \(no sentence here has one of those words\)/);
  assert.deepEqual(impermissibleWords(null), { mass: NaN, changed: NaN, n: NaN, accuracy: NaN, accuracyWithout: NaN });
  const info = EXPERIMENT_INFO.impermissible;
  assert.match(info.sentence(s), /^Attention on the impermissible words: 3\.1 %/);
  assert.deepEqual(info.headline(s).map((h) => h.value), [0.0312, 0.5, 0.81, 0.62, 120]);
  const c = EXPERIMENT_INFO.conicity;
  assert.deepEqual(c.headline({ conicity_mean: 0.5, conicity_std: 0.1, conicity_median: 0.49, n_used: 6 }).map((h) => h.value), [[0.5, 0.1], 0.49, 6]);
  assert.match(c.sentence({ conicity_mean: 0.505 }), /mean conicity is 0\.505/);
  assert.equal(c.sentence({}), '');
});
