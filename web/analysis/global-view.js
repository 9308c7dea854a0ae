// global-view.js — what the Global view shows of one computed global view (the core's GlobalView: every word /
// sentence scored against the attention layer's learned query; wasm/global_view_out.h gives it as columns).
// Pure; no DOM.
//
// Contract:
//   TRAIN_DATA                     model data set prefix → the shipped training data set whose texts give the
//                                  contextual scores and examples (models/text/manifest.json `datasets`)
//   trainDataFor(entry)            → data set name or null (entry: a manifest model / document entry)
//   supportFor(entry, level)       → '' when the model has additive attention at that level, else one sentence why not
//   item(view, i)                  → {rank (1-based), text, score, contextual_score (null when unseen), count, cls}
//   rankTables(view, n)            → {top, bottom, perClass: [{name, count, top, bottom}]}: items (as item()), the
//                                    n highest and n lowest scores overall and among the items of each predicted class
//   search(view, query, limit=8)   → items whose text equals the query (case-insensitive) first, then those that start
//                                    with it, in rank order; [] for an empty query
//   mapIndices(view, {max, keep})  → item indices to draw: the `max / 4` highest and lowest, every k-th of the rest up to
//                                    `max`, plus `keep` (e.g. the searched item), sorted
//   scoreAt(view, x, y)            → score_at_mean + x q1 + y q2 (the score is linear on the PCA plane)
//   contourLevels(view, idx, k=5)  → k round score levels spread over the drawn items' scores
//   contourSegment(view, level, box) → the line score(x, y) = level clipped to box {x0, x1, y0, y1}: [[x, y], [x, y]]
//                                    or null (perpendicular to the query direction (q1, q2))
//   findExamples(lines, word, limit=5) → [{line (0-based), label, text, spans: [[start, end]]}]: training texts that
//                                    contain the word as a whole token (case-insensitive; letters, digits and ' - form
//                                    words), with where it occurs
//   csvRows(view)                  → one row per item, in rank order: {rank, text, score, contextual_score, count,
//                                    predicted_class}
export const TRAIN_DATA = Object.freeze({ sst2: 'sst2-train', imdb: 'imdb-train-500' });

export function trainDataFor(entry) {
  const prefix = entry?.dataset ?? String(entry?.name ?? '').split('-')[0];
  return TRAIN_DATA[prefix] ?? null;
}

export function supportFor(entry, level = 'word') {
  if (!entry) return 'This model is not in the model list.';
  if (entry.kind === 'han') {
    const kind = level === 'sentence' ? entry.sentence_attention : entry.word_attention;
    if (kind === 'tanh') return '';
    return `${entry.name} has ${kind} attention at the ${level} level: uniform weights score nothing against a query, so there is nothing to rank.`;
  }
  if (level !== 'word') return `${entry.name} is a flat model: it has no sentence level (only HAN document models do).`;
  if (entry.encoder === 'transformer') {
    return `${entry.name} is a transformer: its self-attention compares tokens with each other (query · key), with no single learned query to rank words against.`;
  }
  if (entry.attention === 'tanh') return '';
  if (entry.attention === 'dot') {
    return `${entry.name} has dot attention: its score is a learned vector · h / √(2H) with no tanh layer, so the view of additive (tanh) attention does not apply here — pick a tanh model.`;
  }
  return `${entry.name} has ${entry.attention ?? 'no'} attention: uniform weights ignore every word alike, so there is no query to rank words against.`;
}

export function item(view, i) {
  const c = view.contextual_score[i];
  return {
    rank: i + 1,
    text: view.texts[i],
    score: view.score[i],
    contextual_score: Number.isFinite(c) ? c : null,
    count: view.count[i],
    cls: view.predicted_class[i],
  };
}

function topBottom(view, indices, n) {
  const top = indices.slice(0, n).map((i) => item(view, i));
  const bottom = indices.slice(Math.max(n, indices.length - n)).map((i) => item(view, i));
  return { top, bottom };
}

export function rankTables(view, n) {
  const all = Array.from({ length: view.texts.length }, (_, i) => i);
  const names = view.class_names ?? [];
  const perClass = names.map((name, c) => {
    const mine = all.filter((i) => view.predicted_class[i] === c);
    return { name, count: mine.length, ...topBottom(view, mine, n) };
  });
  return { ...topBottom(view, all, n), perClass };
}

export function search(view, query, limit = 8) {
  const q = String(query ?? '').trim().toLowerCase();
  if (!q) return [];
  const exact = [];
  const prefix = [];
  for (let i = 0; i < view.texts.length; i++) {
    const t = view.texts[i].toLowerCase();
    if (t === q) exact.push(i);
    else if (t.startsWith(q) && prefix.length < limit) prefix.push(i);
  }
  return [...exact, ...prefix].slice(0, limit).map((i) => item(view, i));
}

export function mapIndices(view, { max = 1500, keep = [] } = {}) {
  const n = view.texts.length;
  const set = new Set();
  if (n <= max) for (let i = 0; i < n; i++) set.add(i);
  else {
    const end = Math.floor(max / 4);
    for (let i = 0; i < end; i++) {
      set.add(i);
      set.add(n - 1 - i);
    }
    const rest = max - set.size;
    const step = (n - 2 * end) / Math.max(1, rest);
    for (let k = 0; k < rest; k++) set.add(end + Math.floor(k * step));
  }
  for (const i of keep) if (Number.isInteger(i) && i >= 0 && i < n) set.add(i);
  return [...set].sort((a, b) => a - b);
}

export function scoreAt(view, x, y) {
  return view.score_at_mean + x * view.query[0] + y * view.query[1];
}

export function contourLevels(view, idx, k = 5) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of idx) {
    lo = Math.min(lo, view.score[i]);
    hi = Math.max(hi, view.score[i]);
  }
  if (!Number.isFinite(lo) || hi <= lo) return [];
  const raw = (hi - lo) / (k + 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

export function contourSegment(view, level, { x0, x1, y0, y1 }) {
  const [a, b] = view.query;
  const c = level - view.score_at_mean; // a x + b y = c
  const pts = [];
  const push = (x, y) => {
    if (x >= x0 - 1e-9 && x <= x1 + 1e-9 && y >= y0 - 1e-9 && y <= y1 + 1e-9) pts.push([x, y]);
  };
  if (Math.abs(b) > 1e-12) {
    push(x0, (c - a * x0) / b);
    push(x1, (c - a * x1) / b);
  }
  if (Math.abs(a) > 1e-12) {
    push((c - b * y0) / a, y0);
    push((c - b * y1) / a, y1);
  }
  if (pts.length < 2) return null;
  pts.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return [pts[0], pts[pts.length - 1]];
}

const WORD = /[\p{L}\p{N}'-]+/gu;

export function findExamples(lines, word, limit = 5) {
  const w = String(word ?? '').toLowerCase();
  const out = [];
  if (!w) return out;
  for (let li = 0; li < lines.length && out.length < limit; li++) {
    const text = lines[li].text;
    const spans = [];
    for (const m of text.matchAll(WORD)) {
      const tok = m[0].toLowerCase();
      let at = -1;
      if (tok === w) at = 0;
      // the core splits hyphens and clitics off ("well-made" → well - made, "don't" → do n't, "film's" → film 's)
      else if (/^(n't|'\w+)$/.test(w) && tok.endsWith(w)) at = tok.length - w.length;
      else if (/^[\p{L}\p{N}]+$/u.test(w)) {
        const parts = tok.split(/(?=[-'])|(?<=-)/);
        let pos = 0;
        for (const p of parts) {
          if (p === w || (p.endsWith("n't") && p.slice(0, -3) === w)) {
            at = pos;
            break;
          }
          pos += p.length;
        }
      }
      if (at >= 0) spans.push([m.index + at, m.index + at + w.length]);
    }
    if (spans.length) out.push({ line: li, label: lines[li].label, text, spans });
  }
  return out;
}

export function csvRows(view) {
  return view.texts.map((_, i) => {
    const it = item(view, i);
    return {
      rank: it.rank, text: it.text, score: it.score, contextual_score: it.contextual_score, count: it.count,
      predicted_class: view.class_names?.[it.cls] ?? it.cls,
    };
  });
}
