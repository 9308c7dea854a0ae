// lexicon.js — the shipped strong-sentiment lexicon (models/text/data/sst2-strong-lexicon.txt: the words SST's
// annotators rated very negative / very positive on their own, one a line; models/tools/sst-strong-lexicon.sh), the
// impermissible words of the Debate tab's `impermissible` experiment and of the Train tab's deceptive attention.
// Fetched at most once, on first use (the app never reads ../shared). No DOM.
//
// Contract:
//   strongLexicon() → Promise<string[]> (the words, in file order, each once; analysis/faithful.js parseWordList);
//     rejects with a readable Error when the file cannot be fetched or holds no word (a later call tries again).
import { parseWordList } from '../analysis/faithful.js';

const URL_ = new URL('../../models/text/data/sst2-strong-lexicon.txt', import.meta.url);
let pending = null;

export function strongLexicon() {
  pending ??= fetch(URL_)
    .then(async (r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const words = parseWordList(await r.text());
      if (!words.length) throw new Error('the file holds no word');
      return words;
    })
    .catch((e) => {
      pending = null;
      throw new Error(`The strong-sentiment lexicon (models/text/data/sst2-strong-lexicon.txt) could not be loaded: ${e.message}`);
    });
  return pending;
}
