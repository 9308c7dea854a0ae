// document.js — what the Documents view shows of a HAN explanation (pure; no DOM, works in Node).
//
// Contract:
//   DOC_MEASURES  — [{ key, label, signed, sentenceKey, wordKey, kendallKey, help }]: attention, gradient,
//                   leave_one_out, integrated_gradients, in that order. sentenceKey / wordKey name the fields of
//                   the explain-text object (docs/DESIGN.md "HAN explain"); kendallKey the τ pair with attention
//                   (null for attention itself).
//   COLLAPSE_AT, COLLAPSED_SHOWN — a document of more than COLLAPSE_AT sentences shows its first COLLAPSED_SHOWN
//                   until expanded.
//   documentModel(result, measureKey) → {
//       measure,                        the DOC_MEASURES entry (an unknown key: attention)
//       sentences: [{ index, words: [{ text, unknown, value, heat }], value, bar }],
//       sentenceMax, wordMax,           normalisers (max |value| over the sentences / all words; 0 when none)
//       missing,                        true when the result lacks this measure (e.g. igSteps = 0)
//       completeness,                   integrated gradients only: [{ level, sum, target, off }] (sum of the
//                                       attributions vs p(x) − p(baseline); off: more than 5 % apart), else null
//     }
//     value = the explain-text number itself (for attention: α_it within its sentence and β_i); heat (words, in
//     −1…1 for signed measures, 0…1 otherwise) = the shown quantity ÷ the document's max |.|. For attention the
//     shown word quantity is β_i·α_it (the word's share of the document vector, the same weights the word-level
//     Kendall τ uses), so words of a sentence the model ignores stay pale; every other measure is already one
//     distribution over the document's words. bar = sentence value ÷ sentenceMax (signed for IG).
//   kendallTable(result) → [{ level: 'sentence' | 'word', pairs: [{ key, label, tau, p, n }] }]: τ between
//     attention and each other measure, per level (null where the core gave null).
//   documentNotices(result) → [string]: the splitter's notes (cuts: sentences / tokens kept of how many; no
//     sentence boundary found; markup removed) and what a short document means for τ (one sentence: no
//     sentence-level ranking).
//   markupNotice(text) → '' or a sentence saying that line-break markup (<br />, <p>, …) was read as a paragraph
//     break (core/text/sentence_splitter.h rule 1), so a student sees why "<br />" is not among the words.
//   totalWords(result) → number of words analysed.
//   documentRows(result) → the CSV rows of the Documents view (analysis/csv.js rowsToCsv): one per sentence
//     {level: 'sentence', sentence, word: '', text (its tokens joined by spaces), attention (β_i), gradient,
//     leave_one_out, integrated_gradients}, then one per word {level: 'word', sentence, word (position in the
//     sentence), text (the token), attention (α_it within the sentence), attention_in_document (β_i·α_it),
//     gradient, leave_one_out, integrated_gradients}: the explain-text numbers as the CLI prints them; a measure
//     the result lacks is left out.

export const DOC_MEASURES = Object.freeze([
  Object.freeze({
    key: 'attention', label: 'Attention', signed: false, sentenceKey: 'sentence_attention', wordKey: 'word_attention',
    kendallKey: null,
    help: 'Sentence bars: β, the weights the model averages its sentence states with (they sum to 1). Word heat: β·α, ' +
      'each word\'s share of the document vector (α = its weight within its sentence).',
  }),
  Object.freeze({
    key: 'gradient', label: 'Gradient', signed: false, sentenceKey: 'sentence_gradient', wordKey: 'word_gradient',
    kendallKey: 'attention_gradient',
    help: '|gradient × input| of the predicted class’s probability with attention held fixed, on the sentence vectors ' +
      'and on the word embeddings; each level sums to 1 (Jain & Wallace).',
  }),
  Object.freeze({
    key: 'leave_one_out', label: 'Leave-one-out', signed: false, sentenceKey: 'sentence_leave_one_out',
    wordKey: 'word_leave_one_out', kendallKey: 'attention_leave_one_out',
    help: 'How much the predicted class’s probability moves when the sentence (or the word) is removed.',
  }),
  Object.freeze({
    key: 'integrated_gradients', label: 'Integrated gradients', signed: true,
    sentenceKey: 'sentence_integrated_gradients', wordKey: 'word_integrated_gradients',
    kendallKey: 'attention_integrated_gradients',
    help: 'Signed attribution from a zero baseline: blue raises the predicted class’s probability, red lowers it. ' +
      'Its τ uses |value|.',
  }),
]);

export const COLLAPSE_AT = 12;
export const COLLAPSED_SHOWN = 8;

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
const maxAbs = (values) => values.reduce((m, v) => (finite(v) && Math.abs(v) > m ? Math.abs(v) : m), 0);

export function measureOf(key) {
  return DOC_MEASURES.find((m) => m.key === key) ?? DOC_MEASURES[0];
}

export function totalWords(result) {
  return (result?.sentences ?? []).reduce((n, s) => n + (Array.isArray(s) ? s.length : 0), 0);
}

export function documentModel(result, measureKey) {
  const measure = measureOf(measureKey);
  const sentences = Array.isArray(result?.sentences) ? result.sentences : [];
  const sentValues = Array.isArray(result?.[measure.sentenceKey]) ? result[measure.sentenceKey] : null;
  const wordValues = Array.isArray(result?.[measure.wordKey]) ? result[measure.wordKey] : null;
  const missing = sentences.length > 0 && (!sentValues || !wordValues || sentValues.length !== sentences.length);
  const beta = Array.isArray(result?.sentence_attention) ? result.sentence_attention : [];
  const shown = (i, t) => {
    const v = wordValues?.[i]?.[t];
    if (!finite(v)) return NaN;
    return measure.key === 'attention' ? v * (finite(beta[i]) ? beta[i] : 0) : v;
  };
  const shownAll = [];
  sentences.forEach((s, i) => s.forEach((_, t) => shownAll.push(shown(i, t))));
  const wordMax = maxAbs(shownAll);
  const sentenceMax = maxAbs(sentValues ?? []);
  const scale = (v, max) => (finite(v) && max > 0 ? (measure.signed ? v / max : Math.abs(v) / max) : 0);
  const comp = result?.integrated_gradients_completeness;
  const completeness = measure.key !== 'integrated_gradients' || !comp ? null
    : ['word', 'sentence'].filter((l) => finite(comp[l]?.sum) && finite(comp[l]?.target)).map((level) => {
      const { sum, target } = comp[level];
      return { level, sum, target, off: Math.abs(sum - target) > 0.05 * Math.max(Math.abs(target), 1e-12) };
    });
  return {
    measure,
    missing,
    completeness,
    sentenceMax,
    wordMax,
    sentences: sentences.map((words, i) => {
      const value = finite(sentValues?.[i]) ? sentValues[i] : NaN;
      return {
        index: i,
        value,
        bar: scale(value, sentenceMax),
        words: words.map((text, t) => ({
          text: String(text),
          unknown: Boolean(result?.unknown?.[i]?.[t]),
          value: finite(wordValues?.[i]?.[t]) ? wordValues[i][t] : NaN,
          shown: shown(i, t),
          heat: scale(shown(i, t), wordMax),
        })),
      };
    }),
  };
}

export function kendallTable(result) {
  return ['sentence', 'word'].map((level) => ({
    level,
    pairs: DOC_MEASURES.filter((m) => m.kendallKey).map((m) => {
      const k = result?.kendall?.[level]?.[m.kendallKey];
      return {
        key: m.kendallKey,
        label: m.label,
        tau: finite(k?.tau) ? k.tau : null,
        p: finite(k?.p) ? k.p : null,
        n: finite(k?.n) ? k.n : level === 'sentence' ? (result?.sentences?.length ?? 0) : totalWords(result),
      };
    }),
  }));
}

export function documentNotices(result) {
  const out = [];
  for (const note of Array.isArray(result?.notes) ? result.notes : []) {
    const s = String(note);
    if (s) out.push(s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.'));
  }
  const n = result?.sentences?.length ?? 0;
  if (n === 1) {
    out.push('One sentence: the sentence level has nothing to rank (its bar is the whole document, τ is n/a); ' +
      'the word level still compares the measures.');
  }
  return out;
}

export function markupNotice(text) {
  return /<\s*\/?\s*(br|p|hr|div)\b[^>]*>/i.test(String(text ?? ''))
    ? 'Markup such as <br /> was read as a paragraph break (as in the IMDB reviews the model was trained on), not as words.'
    : '';
}

export function documentRows(result) {
  const sentences = Array.isArray(result?.sentences) ? result.sentences : [];
  const at = (key, i, t) => {
    const v = t === undefined ? result?.[key]?.[i] : result?.[key]?.[i]?.[t];
    return finite(v) ? v : undefined;
  };
  const values = (level, i, t) => Object.fromEntries(DOC_MEASURES
    .map((m) => [m.key, at(level === 'sentence' ? m.sentenceKey : m.wordKey, i, t)])
    .filter(([, v]) => v !== undefined));
  const rows = sentences.map((tokens, i) => ({
    level: 'sentence', sentence: i, word: '', text: (Array.isArray(tokens) ? tokens : []).join(' '), ...values('sentence', i),
  }));
  sentences.forEach((tokens, i) => (Array.isArray(tokens) ? tokens : []).forEach((token, t) => {
    const row = { level: 'word', sentence: i, word: t, text: token, ...values('word', i, t) };
    const beta = at('sentence_attention', i);
    if (beta !== undefined && row.attention !== undefined) row.attention_in_document = beta * row.attention;
    rows.push(row);
  }));
  return rows;
}
