// global-view.js — the Global view: what an additive attention layer's learned query looks for, independent of
// any input. Every word (HAN: or every training sentence) is scored against the query alone and in context, ranked,
// searchable, and drawn on a 2-D map (PCA) with the query as an arrow; clicking a word shows training sentences
// that use it. Computed in the worker by the core (runtime/labs/global-view.js); a long job with progress + cancel.
//
// Contract:
//   mountGlobalView(section, { client, store, openView }) → { apply(state), progress(msg) }
//     section  #view-global of index.html; client a CoreClient (manifest, documentModels, globalView,
//              globalViewExamples); store the URL state (web/state.js: gvmodel, gvlevel, gvword, gvn);
//              openView(name) shows another view (the least-squares toy's link)
//   section.dataset.status: 'loading' | 'pending' (computing; #gv-cancel shown) | 'ready' | 'unsupported' (a model
//     without additive attention: #gv-message says why in one sentence) | 'cancelled' | 'error'
//   #gv-found: the searched word's rank, score, contextual score, count (or that it is not in the vocabulary);
//   #gv-tables: top / bottom N overall and per predicted class; #gv-map (renderGlobalMap); #gv-examples: the
//   selected item and, for a word, training texts that contain it (highlighted with <mark>); for HAN's sentence
//   level the list itself is "the training sentences closest to u_s".
//   #gv-csv downloads every ranked item as CSV (analysis/csv.js); the map (drawn into #gv-map-plot) gets SVG / PNG
//   from page-tools.js (#gv-map is a .chart: its export bar stays across redraws).
import { etaText } from '../analysis/eta.js';
import { rowsToCsv } from '../analysis/csv.js';
import { supportFor, trainDataFor, rankTables, search, mapIndices, item, csvRows } from '../analysis/global-view.js';
import { renderGlobalMap } from '../render/global-map.js';
import { download } from '../render/export.js';
import { viewStatus } from '../render/dom.js';

const fmt = (v) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(3));
const h = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

export function mountGlobalView(section, { client, store, openView }) {
  const $ = (sel) => section.querySelector(sel);
  const select = $('#gv-model-select');
  const levelBox = $('#gv-level');
  const info = $('#gv-model-info');
  const searchInput = $('#gv-search');
  const nSelect = $('#gv-n');
  const cancelButton = $('#gv-cancel');
  const found = $('#gv-found');
  const statusEl = $('#gv-status');
  const messageEl = $('#gv-message');
  const results = $('#gv-results');
  const mapEl = $('#gv-map');
  const tip = $('#gv-tip');
  const examplesEl = $('#gv-examples');
  const tables = $('#gv-tables');

  let entries = null; // [{entry, kind}]
  let listError = '';
  let job = null;
  let shown = null; // the view drawn
  let active = false;
  let seq = 0;

  const { setStatus, showMessage } = viewStatus(section, statusEl, messageEl);
  const entryOf = (name) => entries?.find((e) => e.name === name) ?? null;
  const noun = () => (store.get().gvlevel === 'sentence' ? 'sentence' : 'word');

  // --- controls --------------------------------------------------------------------------------------------
  select.addEventListener('change', () => {
    const e = entryOf(select.value);
    store.update({ gvmodel: select.value, gvlevel: e?.kind === 'han' ? store.get().gvlevel : 'word', gvword: '' });
    searchInput.value = '';
    run();
  });
  for (const r of levelBox.querySelectorAll('input')) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      store.update({ gvlevel: r.value, gvword: '' });
      searchInput.value = '';
      run();
    });
  }
  nSelect.addEventListener('change', () => {
    store.update({ gvn: Number(nSelect.value) });
    drawTables();
  });
  searchInput.addEventListener('input', () => {
    store.update({ gvword: searchInput.value });
    drawFound();
    drawMap();
    drawExamples();
  });
  cancelButton.addEventListener('click', () => job?.cancel());
  $('#gv-toy-link').addEventListener('click', (e) => {
    e.preventDefault();
    openView('localization');
    document.getElementById('loc-toy-card')?.scrollIntoView({ block: 'start' });
  });
  $('#gv-csv').addEventListener('click', () => {
    if (!shown) return;
    const text = rowsToCsv(csvRows(shown), { first: ['rank', 'text'], last: [] });
    window.__attnlabLastCsv = text;
    download(new Blob([text], { type: 'text/csv' }), `attnlab-global-view-${shown.model}-${shown.level}.csv`);
  });

  // --- the selected / searched item ------------------------------------------------------------------------
  function selectedIndex() {
    if (!shown) return -1;
    const q = store.get().gvword.trim().toLowerCase();
    if (!q) return -1;
    return shown.texts.findIndex((t) => t.toLowerCase() === q);
  }

  function drawFound() {
    found.replaceChildren();
    if (!shown) return;
    const q = store.get().gvword.trim();
    if (!q) return;
    const hits = search(shown, q, 6);
    if (!hits.length) {
      found.append(h('p', 'gv-none', `“${q}” is not among the ${shown.count_total.toLocaleString('en')} ${noun()}s of ${shown.model}${shown.level === 'word' ? ' (not in its vocabulary: it reads as <unk>)' : ''}.`));
      return;
    }
    const ul = h('ul', 'gv-hits');
    for (const it of hits) {
      const li = h('li', it.text.toLowerCase() === q.toLowerCase() ? 'gv-hit gv-exact' : 'gv-hit');
      const b = h('button', 'link-button', it.text);
      b.type = 'button';
      b.addEventListener('click', () => choose(it.text));
      li.append(b, ` — rank ${it.rank.toLocaleString('en')} of ${shown.count_total.toLocaleString('en')}, score ${fmt(it.score)}, ` +
        `contextual ${fmt(it.contextual_score)}, seen ${it.count} time${it.count === 1 ? '' : 's'}` +
        `${shown.dataset ? '' : ' (no training data here)'}, alone predicted ${shown.class_names[it.cls] ?? it.cls}`);
      li.dataset.rank = String(it.rank);
      li.dataset.score = String(it.score);
      ul.append(li);
    }
    found.append(ul);
  }

  function choose(text) {
    searchInput.value = text;
    store.update({ gvword: text });
    drawFound();
    drawMap();
    drawExamples();
  }

  let exampleSeq = 0;
  async function drawExamples() {
    const my = ++exampleSeq;
    examplesEl.replaceChildren();
    const i = selectedIndex();
    if (i < 0) return;
    const it = item(shown, i);
    examplesEl.append(h('h3', '', `${shown.level === 'sentence' ? 'Sentence' : 'Word'} “${it.text.length > 80 ? `${it.text.slice(0, 80)}…` : it.text}”: rank ${it.rank}, score ${fmt(it.score)}, contextual ${fmt(it.contextual_score)}, count ${it.count}`));
    if (shown.level === 'sentence') {
      examplesEl.append(h('p', 'card-sub', 'A training sentence as the model splits and reads it (unknown words read <unk>).'));
      return;
    }
    if (!shown.dataset) {
      examplesEl.append(h('p', 'card-sub', 'No training texts are shipped for this model, so there are no example sentences.'));
      return;
    }
    let res;
    try {
      res = await client.globalViewExamples({ dataset: shown.dataset, word: it.text, limit: 5 });
    } catch (e) {
      if (my === exampleSeq) examplesEl.append(h('p', 'message error', `Could not read the training texts: ${e.message}`));
      return;
    }
    if (my !== exampleSeq) return;
    if (!res.examples.length) {
      examplesEl.append(h('p', 'card-sub', `No training text of ${shown.dataset} contains “${it.text}” as written (the tokenizer may have split it from a longer word).`));
      return;
    }
    const ol = h('ol', 'gv-example-list');
    for (const ex of res.examples) {
      const li = h('li', 'gv-example');
      let at = 0;
      const text = ex.text.length > 600 ? ex.text.slice(0, 600) : ex.text;
      for (const [a, b] of ex.spans) {
        if (a >= text.length) break;
        li.append(text.slice(at, a), h('mark', '', text.slice(a, b)));
        at = b;
      }
      li.append(text.slice(at) + (text.length < ex.text.length ? '…' : ''));
      li.append(h('span', 'gv-example-meta', ` (${shown.dataset} line ${ex.line + 1}, label ${shown.class_names[ex.label] ?? ex.label})`));
      ol.append(li);
    }
    examplesEl.append(h('p', 'card-sub', `Training texts of ${shown.dataset} with “${it.text}” (the first ${res.examples.length}):`), ol);
  }

  // --- map and tables ---------------------------------------------------------------------------------------
  let tipView = null; // the view whose dot the hover readout describes
  function drawMap() {
    if (!shown) return;
    // a map of another model or level: the dot under the pointer went with the old map (no pointerout comes), so its
    // readout goes too (a redraw of the same map — a word selected — keeps it)
    if (tipView !== shown) {
      tip.hidden = true;
      tip.textContent = '';
      tipView = null;
    }
    const sel = selectedIndex();
    const indices = mapIndices(shown, { max: 1500, keep: sel >= 0 ? [sel] : [] });
    renderGlobalMap($('#gv-map-plot'), { view: shown, indices, selected: sel, width: Math.min(900, mapEl.clientWidth || 640), noun: noun() });
    $('#gv-map-sub').textContent = `Each dot is a ${noun()}'s representation u = tanh(W h + b), projected on its two main directions (PCA; ` +
      `${indices.length.toLocaleString('en')} of ${shown.count_total.toLocaleString('en')} drawn: the highest and lowest scores and an even sample of the rest). ` +
      'The arrow is the query; the score is linear on this plane, so the equal-score lines (grey) run across the query ' +
      '(perpendicular when both axes have the same scale; here PC1 is stretched to fill the width). Red = high score, blue = low. Hover a dot for its ' +
      `${noun()}; click it${shown.level === 'word' ? ' for training sentences that use it' : ''}.`;
  }

  function row(it) {
    const tr = h('tr');
    const b = h('button', 'link-button', it.text.length > 90 ? `${it.text.slice(0, 90)}…` : it.text);
    b.type = 'button';
    b.title = it.text;
    b.addEventListener('click', () => choose(it.text));
    const td = h('td', 'gv-text');
    td.append(b);
    tr.append(h('td', 'num', String(it.rank)), td, h('td', 'num', fmt(it.score)), h('td', 'num', fmt(it.contextual_score)), h('td', 'num', String(it.count)));
    tr.dataset.text = it.text;
    return tr;
  }

  function table(title, list, cls) {
    const wrap = h('div', `gv-table ${cls}`);
    wrap.append(h('h3', '', title));
    const t = h('table', 'summary-table');
    const head = h('tr');
    for (const c of ['rank', noun(), 'score', 'in context', 'count']) head.append(h('th', '', c));
    t.append(head, ...list.map(row));
    wrap.append(t);
    return wrap;
  }

  function drawTables() {
    if (!shown) return;
    const n = store.get().gvn;
    nSelect.value = String(n);
    const r = rankTables(shown, n);
    const s = noun();
    tables.replaceChildren(
      table(`Top ${n}: the ${s}s closest to the query`, r.top, 'gv-top'),
      table(`Bottom ${n}: the ${s}s attention avoids`, r.bottom, 'gv-bottom'),
      ...r.perClass.flatMap((c) => [
        table(`Top ${Math.min(n, c.count)} among ${s}s that alone predict ${c.name} (${c.count.toLocaleString('en')})`, c.top, 'gv-class-top'),
      ]),
    );
    const data = shown.dataset
      ? `contextual scores (“in context”): the mean over the ${s}’s uses in ${shown.data_n.toLocaleString('en')} training texts of ${shown.dataset}` +
        `${shown.dataset === 'imdb-train-500' ? ' — a sample: the first 500 of the 5,000 IMDB training reviews' : ''}`
      : 'no training texts are shipped for this model, so there are no contextual scores or counts';
    $('#gv-rank-sub').textContent = `score = q · u for the ${s} alone (${shown.level === 'word' ? 'a one-word text' : 'a one-sentence document'}); ${data}. ` +
      `${shown.level === 'sentence' ? 'The top of this list are the training sentences closest to u_s. ' : ''}Click a ${s} to find it on the map.`;
  }

  // hover and click on the map (one listener for all dots)
  mapEl.addEventListener('pointerover', (e) => {
    const i = Number(e.target?.dataset?.i);
    if (!shown || !Number.isInteger(i) || e.target.tagName !== 'circle') return;
    const it = item(shown, i);
    tip.textContent = `${it.text.length > 120 ? `${it.text.slice(0, 120)}…` : it.text} — score ${fmt(it.score)}, in context ${fmt(it.contextual_score)}, count ${it.count}, rank ${it.rank}`;
    tip.hidden = false;
    tipView = shown;
  });
  mapEl.addEventListener('pointerout', (e) => {
    if (e.target?.tagName === 'circle') tip.hidden = true;
  });
  mapEl.addEventListener('click', (e) => {
    const i = Number(e.target?.dataset?.i);
    if (!shown || !Number.isInteger(i) || e.target.tagName !== 'circle') return;
    choose(shown.texts[i]);
  });

  // --- computing -----------------------------------------------------------------------------------------
  function describe(e) {
    if (!e) return '';
    const data = trainDataFor(e);
    return `${e.description ?? e.name}${data ? ` · contextual scores from ${data}` : ' · no training texts shipped: scores of words alone only'}`;
  }

  function syncControls() {
    const s = store.get();
    if (entries && !entryOf(s.gvmodel)) {
      showMessage(`The model "${s.gvmodel}" from the link is not available here.`);
    }
    select.value = s.gvmodel;
    const e = entryOf(s.gvmodel);
    levelBox.hidden = e?.kind !== 'han';
    for (const r of levelBox.querySelectorAll('input')) r.checked = r.value === s.gvlevel;
    info.textContent = describe(e);
    nSelect.value = String(s.gvn);
    if (searchInput.value !== s.gvword) searchInput.value = s.gvword;
  }

  async function run() {
    if (!active) return;
    job?.cancel();
    job = null;
    const my = ++seq;
    if (listError) {
      setStatus('error');
      return;
    }
    if (!entries) {
      setStatus('loading', 'Loading the model list…');
      return;
    }
    syncControls();
    const s = store.get();
    const e = entryOf(s.gvmodel);
    const level = e?.kind === 'han' ? s.gvlevel : 'word';
    const why = e ? supportFor(e, level) : `The model "${s.gvmodel}" is not in the model list.`;
    if (why) {
      shown = null;
      results.hidden = true;
      found.replaceChildren();
      showMessage(`${why} The Global view needs additive (tanh) attention: one learned query that every position is scored against.`);
      setStatus('unsupported');
      return;
    }
    if (shown && shown.model === s.gvmodel && shown.level === level) {
      showMessage('');
      drawAll();
      setStatus('ready', statusEl.textContent);
      return;
    }
    showMessage('');
    setStatus('pending', `Scoring every ${level} of ${s.gvmodel} against its query…`);
    cancelButton.hidden = false;
    const started = performance.now();
    job = client.globalView({ model: s.gvmodel, level }, (p) => {
      if (my !== seq || p.stage !== 'global') return;
      const left = etaText((performance.now() - started) / 1000, p.done, p.total);
      setStatus('pending', `Scoring every ${level} of ${s.gvmodel}: step ${p.done} of ${p.total} (${Math.round((100 * p.done) / Math.max(1, p.total))} %)${left ? ` · ${left}` : ''}…`);
    });
    let view;
    try {
      view = await job.promise;
    } catch (err) {
      if (my !== seq) return;
      cancelButton.hidden = true;
      showMessage(`Could not compute the global view of ${s.gvmodel}: ${err.message}`);
      setStatus('error');
      return;
    }
    if (my !== seq) return;
    cancelButton.hidden = true;
    job = null;
    if (view.cancelled) {
      setStatus('cancelled', 'Cancelled. Pick the model again (or reload) to compute its global view.');
      return;
    }
    shown = view;
    drawAll();
    results.hidden = false;
    setStatus('ready', `${view.model} · ${view.count_total.toLocaleString('en')} ${level}s ranked · ${Math.round(performance.now() - started)} ms`);
  }

  function drawAll() {
    drawFound();
    drawTables();
    drawMap();
    drawExamples();
  }

  function progress(msg) {
    if (!active || section.dataset.status !== 'pending' || msg.stage === 'ready') return;
    if (msg.stage === 'weights' && msg.total > 0) {
      statusEl.textContent = `Loading ${msg.model}: ${Math.round((100 * msg.loaded) / msg.total)} %…`;
    }
  }

  let listRequested = false;
  function loadList() {
    if (listRequested) return;
    listRequested = true;
    setStatus('loading', 'Loading the model list…');
    Promise.all([client.manifest(), client.documentModels()])
      .then(([manifest, docs]) => {
        const flat = (manifest.models ?? []).filter((m) => !m.trained);
        entries = [...flat.map((m) => ({ ...m, kind: 'text' })), ...docs.map((m) => ({ ...m, kind: 'han' }))];
        const groups = [['Additive (tanh) attention', entries.filter((m) => !supportFor(m, 'word') || (m.kind === 'han' && !supportFor(m, 'sentence')))],
          ['Other attention (no global view)', entries.filter((m) => supportFor(m, 'word') && !(m.kind === 'han' && !supportFor(m, 'sentence')))]];
        select.replaceChildren(...groups.filter(([, l]) => l.length).map(([label, list]) => {
          const og = document.createElement('optgroup');
          og.label = label;
          og.append(...list.map((m) => new Option(`${m.name} — ${m.kind === 'han' ? 'HAN' : m.encoder === 'transformer' ? 'transformer' : 'BiLSTM'} · ${m.attention ?? `${m.word_attention} / ${m.sentence_attention}`}`, m.name)));
          return og;
        }));
        select.disabled = false;
        run();
      })
      .catch((e) => {
        listError = `Could not load the model list: ${e.message}`;
        showMessage(listError);
        setStatus('error');
      });
  }

  function apply(state) {
    active = true;
    syncControls();
    loadList();
    if (shown && shown.model === state.gvmodel && shown.level === state.gvlevel) {
      drawAll();
      return;
    }
    run();
  }

  return { apply, progress };
}
