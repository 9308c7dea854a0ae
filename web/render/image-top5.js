// image-top5.js — the Image lab's prediction list: the top-5 classes with probability bars; a click picks the
// class the maps explain. Drawing only.
//
// Contract:
//   renderTop5(container, top5, { selected, onSelect })
//     top5: [{index, label, prob}] (index = model output index, 0 = background); selected: the index
//     explained now. Each row is a <button class="top5-row" data-index=… aria-pressed=…>; the first row
//     has data-top1 and data-label (the class). Probabilities as percentages with one decimal; the exact value in
//     the .top5-prob's data-value.
import { el, pct } from './dom.js';

export function renderTop5(container, top5, { selected = null, onSelect = () => {} } = {}) {
  const list = el('ol', 'top5');
  top5.forEach((t, i) => {
    const li = el('li');
    const b = el('button', 'top5-row', null, {
      type: 'button',
      'data-index': t.index,
      'aria-pressed': String(t.index === selected),
      title: `Explain “${t.label}” (output ${t.index})`,
      'data-label': t.label,
    });
    if (i === 0) b.dataset.top1 = '';
    const bar = el('span', 'top5-bar');
    bar.style.width = `${Math.max(0.5, t.prob * 100).toFixed(1)}%`;
    b.append(el('span', 'top5-label', t.label), el('span', 'top5-prob', pct(t.prob), { 'data-value': t.prob }), bar);
    b.addEventListener('click', () => onSelect(t.index));
    li.append(b);
    list.append(li);
  });
  container.replaceChildren(list);
}
