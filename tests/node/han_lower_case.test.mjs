// A lower-case review on a HAN model (issue 29): the CLI (`attnlab explain-text --model DIR --text …`) reads
// "i loved it. it was great! would watch again?" as the model's recorded rule says —
//   - a shipped model (imdb-han: trained with the capital-letter rule, no split_lower_case in its config.json): one
//     sentence, and a note that says two lower-case starts were read as part of the sentence before;
//   - the same weights with split_lower_case: true in config.json: three sentences, no note;
//   - negative control: capitalised, both read three sentences and neither notes anything.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT } from './parity-lib.mjs';

const skip = fs.existsSync(CLI) ? false : 'build/attnlab missing';
const explain = (dir, text) => JSON.parse(execFileSync(CLI, ['explain-text', '--model', dir, '--text', text, '--ig-steps', '0'],
  { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n').at(-1));

test('lower-case sentences: the shipped model says what it did not split; split_lower_case splits them', { skip }, () => {
  const shipped = path.join(ROOT, 'models/text/imdb-han');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'han-lc-'));
  const cfg = JSON.parse(fs.readFileSync(path.join(shipped, 'config.json'), 'utf8'));
  assert.equal(cfg.split_lower_case, undefined, 'the shipped model keeps its training rule');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...cfg, split_lower_case: true }));
  fs.copyFileSync(path.join(shipped, 'model.safetensors'), path.join(dir, 'model.safetensors'));

  const lower = 'i loved it. it was great! would watch again?';
  const a = explain(shipped, lower);
  assert.equal(a.sentences.length, 1);
  assert.ok(a.notes.some((n) => /^2 sentence\(s\) starting in lower case/.test(n)), a.notes.join(' | '));
  const b = explain(dir, lower);
  assert.deepEqual(b.sentences, [['i', 'loved', 'it', '.'], ['it', 'was', 'great', '!'], ['would', 'watch', 'again', '?']]);
  assert.ok(!b.notes.some((n) => /lower case/.test(n)));

  const capital = 'I loved it. It was great! Would watch again?';
  for (const d of [shipped, dir]) {
    const c = explain(d, capital);
    assert.equal(c.sentences.length, 3);
    assert.ok(!c.notes.some((n) => /lower case/.test(n)));
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
