// plot-lib.js — access to Observable Plot (loaded by index.html from /vendor/plot/, with d3 from /vendor/d3/)
// and the chart conventions the render modules share. Drawing helpers only; no state.
//
// Contract:
//   getPlot()           → the global Plot, with plot() and legend() returning their node without the <style>
//                         elements Plot puts inside (their rules are in web/styles.css, so the page's CSP needs
//                         no 'unsafe-inline' for styles); throws a readable Error when the library did not load.
//   baseOptions(width)  → Plot options every chart starts from (width, font, margins, no background).
//   CLASS_COLORS        → colours of class 0 (negative, red) and class 1 (positive, blue), as in the page.
//   classColor(names)   → a Plot color scale option { domain: names, range, legend: true }.
//   MEASURE_COLORS      → one fixed colour per ranking / importance measure (same in every chart).
//   measureColor(keys, labelOf) → a Plot color scale option over the labels of `keys`.
//   widthOf(element, fallback = 640) → the element's content width, or fallback when it is not laid out.
//   mount(container, figure) → replaces the container's children with the Plot figure (SVG or <figure>).
// The <style> elements are removed before the node is attached, so the browser never applies (or refuses) them.
function withoutStyles(node) {
  for (const s of node.querySelectorAll?.('style') ?? []) s.remove();
  return node;
}

let wrapped = null; // { from: the global Plot, plot: the same with plot / legend unstyled }

export function getPlot() {
  const Plot = globalThis.Plot;
  if (!Plot || typeof Plot.plot !== 'function') {
    throw new Error('The chart library (Observable Plot, /vendor/plot/) did not load; install it with `npm ci` (npm run serve does).');
  }
  if (wrapped?.from !== Plot) {
    wrapped = {
      from: Plot,
      plot: { ...Plot, plot: (o) => withoutStyles(Plot.plot(o)), legend: (o) => withoutStyles(Plot.legend(o)) },
    };
  }
  return wrapped.plot;
}

export const CLASS_COLORS = Object.freeze(['#b2182b', '#2166ac', '#1b9e77', '#d95f02', '#7570b3', '#e7298a']);

export const MEASURE_COLORS = Object.freeze({
  attention: '#5b3fa0',
  gradient: '#e08214',
  attention_x_gradient: '#1b9e77',
  leave_one_out: '#2166ac',
  integrated_gradients: '#b2182b',
  random: '#8c8c8c',
});
const EXTRA = ['#66a61e', '#e7298a', '#a6761d', '#666666'];

export function baseOptions(width = 640) {
  return {
    width: Math.max(260, Math.round(width)),
    style: { fontSize: '12px', fontFamily: 'inherit', background: 'transparent', overflow: 'visible' },
    marginLeft: 48,
    marginBottom: 40,
  };
}

export function classColor(names) {
  return { domain: names, range: names.map((_, i) => CLASS_COLORS[i % CLASS_COLORS.length]), legend: true };
}

export function measureColor(keys, labelOf = (k) => k) {
  let extra = 0;
  return {
    domain: keys.map(labelOf),
    range: keys.map((k) => MEASURE_COLORS[k] ?? EXTRA[extra++ % EXTRA.length]),
    legend: true,
  };
}

export function widthOf(element, fallback = 640) {
  const w = element?.clientWidth ?? 0;
  return w > 0 ? w - 4 : fallback;
}

export function mount(container, figure) {
  container.replaceChildren(figure);
  return figure;
}
