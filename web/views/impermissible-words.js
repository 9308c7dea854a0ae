// impermissible-words.js — the impermissible-words field (Pruthi et al. 2020), one component for the Train tab's
// deceptive attention and the Debate tab's `impermissible` experiment: the words attention must not show, in a
// textarea; state.impwords holds a list of one's own (kept in the link when it fits), '' means the shipped
// strong-sentiment lexicon (runtime/lexicon.js, fetched when first needed). Both tabs read the same state, so a list
// typed in one is the list of the other.
//
// Contract:
//   mountImpermissibleWords({ input, info, reset, store, onNotice }) → { show(), words(), notice() }
//     input  the textarea; info  the line that says which list it is ("N words of your own" | "N words: the shipped
//     strong-sentiment lexicon (path)" | the lexicon's load error); reset  the button back to the lexicon (hidden while
//     the lexicon is the list).
//     show()   fills the field from the state (not while the user types in it).
//     words()  → Promise<{ words: string[], source: 'own' | 'lexicon' }>: the list a run uses.
//     notice() → '' or a sentence about the last edit: an emptied field means the lexicon; a list too long for the
//                link is used here only; onNotice(text) gets it after each edit and reset.
//   An edit ('change') updates state.impwords: '' when the field is emptied or holds exactly the lexicon.
import { parseWordList, wordsParam, LEXICON_PATH } from '../analysis/faithful.js';
import { strongLexicon } from '../runtime/lexicon.js';
import { fitsInUrl } from '../state.js';

export function mountImpermissibleWords({ input, info, reset, store, onNotice = () => {} }) {
  let lexicon = null; // the lexicon's words, once fetched
  let notice = '';

  function show() {
    const own = store.get().impwords;
    if (own) {
      const words = parseWordList(own);
      if (document.activeElement !== input) input.value = words.join(' ');
      info.textContent = `${words.length.toLocaleString('en')} word${words.length === 1 ? '' : 's'} of your own`;
      reset.hidden = false;
      return;
    }
    reset.hidden = true;
    if (lexicon) {
      if (document.activeElement !== input) input.value = lexicon.join(' ');
      info.textContent = `${lexicon.length.toLocaleString('en')} words: the shipped strong-sentiment lexicon (${LEXICON_PATH})`;
      return;
    }
    info.textContent = 'Loading the shipped strong-sentiment lexicon…';
    strongLexicon().then((words) => {
      lexicon = words;
      if (!store.get().impwords) show();
    }, (e) => {
      info.textContent = e.message;
    });
  }

  input.addEventListener('change', () => {
    const words = parseWordList(input.value);
    const same = lexicon && words.length === lexicon.length && words.every((w, i) => w === lexicon[i]);
    store.update({ impwords: !words.length || same ? '' : wordsParam(words) });
    notice = !words.length ? 'No impermissible word given: the shipped strong-sentiment lexicon is used.'
      : fitsInUrl(store.get(), ['impwords']) ? ''
      : 'This word list is too long to keep in the link: it is used here, but a copied link will use the shipped lexicon.';
    onNotice(notice);
    show();
    if (!words.length) input.value = lexicon ? lexicon.join(' ') : '';
  });
  reset.addEventListener('click', () => {
    store.update({ impwords: '' });
    notice = '';
    onNotice('');
    input.value = '';
    show();
  });

  async function words() {
    const own = parseWordList(store.get().impwords);
    if (own.length) return { words: own, source: 'own' };
    lexicon ??= await strongLexicon();
    return { words: lexicon, source: 'lexicon' };
  }

  return { show, words, notice: () => notice };
}
