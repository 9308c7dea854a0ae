// csv.js — experiment rows as CSV (RFC 4180) for download. Pure; no DOM.
//
// Contract:
//   csvCell(value) → one field: numbers as JavaScript writes them (full precision; NaN/±Infinity as-is),
//     null/undefined → empty, booleans → true/false, arrays → their values joined by ';' (nested values
//     as JSON), objects → JSON; a field holding , " CR or LF is quoted, with " doubled.
//   rowsToCsv(rows, { first = ['index', 'label', 'predicted'], last = ['text'] } = {}) → string
//     One header line, then one line per row, lines ended by '\r\n'. Columns: the union of the rows'
//     flattened keys (nested objects become dotted names, e.g. attention.fraction or
//     measures.gradient.aopc_comprehensiveness); those named in `first` lead and those in `last` trail
//     (when present), the rest keep their first-seen order. A row without a column gets an empty field.
import { flatten } from './flatten.js';

export function csvCell(value) {
  let s;
  if (value === null || value === undefined) s = '';
  else if (typeof value === 'number' || typeof value === 'boolean') s = String(value);
  else if (Array.isArray(value)) {
    s = value.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v === null || v === undefined ? '' : String(v))).join(';');
  } else if (typeof value === 'object') s = JSON.stringify(value);
  else s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function rowsToCsv(rows, { first = ['index', 'label', 'predicted'], last = ['text'] } = {}) {
  const flat = (Array.isArray(rows) ? rows : []).map((r) => flatten(r));
  const seen = new Set();
  for (const r of flat) for (const k of Object.keys(r)) seen.add(k);
  const head = first.filter((k) => seen.has(k));
  const tail = last.filter((k) => seen.has(k) && !head.includes(k));
  const middle = [...seen].filter((k) => !head.includes(k) && !tail.includes(k));
  const columns = [...head, ...middle, ...tail];
  const lines = [columns.map(csvCell).join(',')];
  for (const r of flat) lines.push(columns.map((c) => csvCell(r[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}
