// faithful.js — the page side of the debate's fourth round (issue 32): conicity of a BiLSTM's hidden states
// (Mohankumar et al. 2020) and the impermissible words of a deceptive model (Pruthi et al. 2020), in words.
// Pure: no DOM, no fetch; works in Node.
//
// Contract:
//   CONICITY_HELP            the one-sentence explanation shown beside the number.
//   conicityOf(result)       the explain JSON's `conicity` (a finite number in [0, 1] for a BiLSTM model), or null
//                            (a transformer's is null; an older core has none).
//   conicityText(c)          "Conicity of the hidden states: 0.412" (3 decimals; '' for a non-number).
//   parseWordList(text)      the words of a word list (one a line, or separated by any whitespace; '#' starts a
//                            comment line), in order, each once; at most MAX_WORDS of them.
//   wordsParam(words)        the words as the core takes them (the experiment's `words`, training's
//                            `impermissible`): one string, separated by single spaces.
//   LEXICON_NAME / LEXICON_PATH  the shipped strong-sentiment lexicon (models/text/data/sst2-strong-lexicon.txt:
//                            the words SST's annotators rated very negative / very positive on their own).
//   impermissibleWords(summary) → { mass, changed, n, accuracy, accuracyWithout }: the impermissible experiment's
//                            summary read defensively (NaN where missing): the mean attention mass on the words and the
//                            fraction of predictions that change when they are deleted, over the sentences that have
//                            at least one of them (n).
//   impermissibleSentence(summary) → "attention on the impermissible words: 3.1 %; predictions that change when
//                            those words are deleted: 42.0 % (over the 120 sentences that have one)".
export const CONICITY_HELP = 'how parallel the hidden states are: near 1, permuting attention changes little (Mohankumar et al. 2020)';

export const LEXICON_NAME = 'the shipped strong-sentiment lexicon';
export const LEXICON_PATH = 'models/text/data/sst2-strong-lexicon.txt';
export const MAX_WORDS = 5000;

export function conicityOf(result) {
  const c = result?.conicity;
  return typeof c === 'number' && Number.isFinite(c) ? c : null;
}

export function conicityText(c) {
  return typeof c === 'number' && Number.isFinite(c) ? `Conicity of the hidden states: ${c.toFixed(3)}` : '';
}

export function parseWordList(text) {
  const seen = new Set();
  for (const line of String(text ?? '').split(/\r?\n/)) {
    if (/^\s*#/.test(line)) continue;
    for (const w of line.split(/\s+/)) {
      if (!w || seen.has(w)) continue;
      seen.add(w);
      if (seen.size >= MAX_WORDS) return [...seen];
    }
  }
  return [...seen];
}

export function wordsParam(words) {
  return (Array.isArray(words) ? words : parseWordList(words)).join(' ');
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);

export function impermissibleWords(summary) {
  return {
    mass: num(summary?.attention_mass_mean_where_present),
    changed: num(summary?.changed_fraction_where_present),
    n: num(summary?.instances_with_impermissible),
    accuracy: num(summary?.accuracy),
    accuracyWithout: num(summary?.accuracy_without),
  };
}

const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : 'n/a');

export function impermissibleSentence(summary) {
  const w = impermissibleWords(summary);
  const over = Number.isFinite(w.n)
    ? w.n === 0 ? ' (no sentence here has one of those words)'
      : ` (over the ${w.n.toLocaleString('en')} ${w.n === 1 ? 'sentence that has' : 'sentences that have'} one)`
    : '';
  return `attention on the impermissible words: ${pct(w.mass)}; predictions that change when those words are deleted: ${pct(w.changed)}${over}`;
}
