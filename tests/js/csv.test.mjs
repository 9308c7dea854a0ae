// csv.test.mjs — web/analysis/csv.js and flatten.js: CSV export of experiment rows (columns, quoting,
// nested objects, arrays, missing fields).
import test from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, rowsToCsv } from '../../web/analysis/csv.js';
import { flatten } from '../../web/analysis/flatten.js';

// A small RFC 4180 reader, to check that what we write reads back.
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') q = false;
      else cell += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

test('flatten: dotted keys, arrays kept or indexed, leaves', () => {
  const o = { a: 1, b: { c: 'x', d: { e: null } }, f: [1, 2], g: {} , 'fraction_jsd_above_0.4': 0.5 };
  assert.deepEqual(flatten(o), { a: 1, 'b.c': 'x', 'b.d.e': null, f: [1, 2], 'fraction_jsd_above_0.4': 0.5 });
  assert.deepEqual(flatten({ f: [1, { z: 2 }] }, { arrays: 'index' }), { 'f.0': 1, 'f.1.z': 2 });
  assert.deepEqual(flatten({ s: [{ a: 1 }, { a: 2 }], k: [1, 5] }, { arrays: 'objects' }), { 's.0.a': 1, 's.1.a': 2, k: [1, 5] });
  assert.deepEqual(flatten(null), {});
  assert.deepEqual(flatten([1, 2]), {});
});

test('csvCell: numbers at full precision, quoting, arrays, null', () => {
  assert.equal(csvCell(0.6894039961125519), '0.6894039961125519');
  assert.equal(csvCell(1e-12), '1e-12');
  assert.equal(csvCell(-3), '-3');
  assert.equal(csvCell(true), 'true');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(undefined), '');
  assert.equal(csvCell(NaN), 'NaN');
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a, b'), '"a, b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell([0.1, 0.2, null]), '0.1;0.2;');
  assert.equal(csvCell([{ a: 1 }]), '"{""a"":1}"');
  assert.equal(csvCell({ a: 1 }), '"{""a"":1}"');
});

test('rowsToCsv: header = union of flattened keys, index/label/predicted first, text last', () => {
  const rows = [
    { max_jsd: 0.5, index: 0, label: 1, predicted: 1, text: 'a "fine", film', attention: [0.2, 0.8] },
    { index: 1, label: 0, skipped: 'single token', text: 'ok' },
    { index: 2, label: 0, predicted: 0, attention: { removed: 2, fraction: 0.5 }, text: 'x' },
  ];
  const csv = rowsToCsv(rows);
  assert.ok(csv.endsWith('\r\n'));
  const t = parseCsv(csv);
  assert.deepEqual(t[0], ['index', 'label', 'predicted', 'max_jsd', 'attention', 'skipped', 'attention.removed', 'attention.fraction', 'text']);
  assert.equal(t.length, 4);
  assert.deepEqual(t[1], ['0', '1', '1', '0.5', '0.2;0.8', '', '', '', 'a "fine", film']);
  assert.deepEqual(t[2], ['1', '0', '', '', '', 'single token', '', '', 'ok']);
  assert.deepEqual(t[3], ['2', '0', '0', '', '', '', '2', '0.5', 'x']);
  for (const r of t) assert.equal(r.length, t[0].length, 'every line has every column');
});

test('rowsToCsv: numbers read back exactly; empty input gives an empty header line', () => {
  const rows = [{ index: 0, v: 0.1 + 0.2 }, { index: 1, v: 123456789.123456789 }];
  const t = parseCsv(rowsToCsv(rows));
  assert.equal(Number(t[1][1]), 0.1 + 0.2);
  assert.equal(Number(t[2][1]), 123456789.123456789);
  assert.equal(rowsToCsv([]), '\r\n');
  assert.equal(rowsToCsv(null), '\r\n');
});

test('rowsToCsv: eraser-style nested measures become dotted columns', () => {
  const rows = [{ index: 0, measures: { attention: { aopc_comprehensiveness: 0.1, comprehensiveness: [1, 2, 3, 4, 5] } } }];
  const t = parseCsv(rowsToCsv(rows));
  assert.deepEqual(t[0], ['index', 'measures.attention.aopc_comprehensiveness', 'measures.attention.comprehensiveness']);
  assert.deepEqual(t[1], ['0', '0.1', '1;2;3;4;5']);
});
