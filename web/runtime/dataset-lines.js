// dataset-lines.js — the instances of a label<TAB>text data set, numbered exactly as the core numbers them
// (core/text/dataset.cpp parse_labeled_tsv), so a row's `index` finds its sentence. Pure; no DOM.
//
// Contract:
//   datasetLines(tsv) → [{ label, text }]: one entry per non-empty line ('\n' separated, one trailing '\r'
//                       removed), label = the integer before the first tab, text = everything after it.
//                       A UTF-8 byte-order mark (U+FEFF) at the very start is skipped (a spreadsheet's export).
//                       A line without a tab or with a non-numeric label throws (the core rejects the file too);
//                       the message writes the label's invisible characters out (<U+FEFF>, \r) as the core's
//                       escape_invisible does.
//   escapeInvisible(s, maxChars = 40) → s with characters that print as nothing written as <U+XXXX>, \t, \r, \n,
//                       cut to maxChars characters (then '…').
export function datasetLines(tsv) {
  const out = [];
  let all = String(tsv);
  if (all.charCodeAt(0) === 0xFEFF) all = all.slice(1); // a spreadsheet's byte-order mark
  const lines = all.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') return;
    const tab = line.indexOf('\t');
    if (tab < 0) throw new Error(`line ${i + 1}: no tab between label and text`);
    const label = line.slice(0, tab);
    if (!/^\d{1,5}$/.test(label)) throw new Error(`line ${i + 1}: label '${escapeInvisible(label)}' is not a non-negative integer`);
    out.push({ label: Number(label), text: line.slice(tab + 1) });
  });
  return out;
}

// Code points that print as nothing (or as a plain space) and so hide in a message: core/text/dataset.cpp's list.
function invisible(cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp === 0xAD || cp === 0x34F || cp === 0x61C ||
    cp === 0x115F || cp === 0x1160 || cp === 0x17B4 || cp === 0x17B5 || cp === 0x180E ||
    (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
    cp === 0x3000 || cp === 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp === 0xFEFF || cp === 0xFFA0 ||
    (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0xE0000 && cp <= 0xE0FFF);
}

export function escapeInvisible(s, maxChars = 40) {
  let out = '';
  let chars = 0;
  for (const ch of String(s)) {
    if (chars++ >= maxChars) return `${out}…`;
    const cp = ch.codePointAt(0);
    if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\n') out += '\\n';
    else if (invisible(cp)) out += `<U+${cp.toString(16).toUpperCase().padStart(cp > 0xFFFF ? 5 : 4, '0')}>`;
    else out += ch;
  }
  return out;
}
