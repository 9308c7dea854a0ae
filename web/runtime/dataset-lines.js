// dataset-lines.js — the instances of a label<TAB>text data set, numbered exactly as the core numbers them
// (core/text/dataset.cpp parse_labeled_tsv), so a row's `index` finds its sentence. Pure; no DOM.
//
// Contract:
//   datasetLines(tsv) → [{ label, text }]: one entry per non-empty line ('\n' separated, one trailing '\r'
//                       removed), label = the integer before the first tab, text = everything after it.
//                       A line without a tab or with a non-numeric label throws (the core rejects the file too).
export function datasetLines(tsv) {
  const out = [];
  const lines = String(tsv).split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') return;
    const tab = line.indexOf('\t');
    if (tab < 0) throw new Error(`line ${i + 1}: no tab between label and text`);
    const label = line.slice(0, tab);
    if (!/^\d{1,5}$/.test(label)) throw new Error(`line ${i + 1}: label '${label.slice(0, 20)}' is not a non-negative integer`);
    out.push({ label: Number(label), text: line.slice(tab + 1) });
  });
  return out;
}
