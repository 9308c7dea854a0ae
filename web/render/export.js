// export.js — figures for papers: any chart SVG, heat-row set or canvas as SVG (vector) or PNG at 2×, and the
// current view as one self-contained HTML report.
//
// Contract (browser only; every function returns what it saved, so tests can read it without a download):
//   svgText(svgElement)                → standalone SVG text (xmlns set, width/height set, and the page's CSS rules for
//                                        Plot's classes as a <style>: the page strips Plot's own, plot-lib.js)
//   boxesToSvg(root, { title })        → SVG text drawing an HTML figure made of coloured boxes (token rows,
//                                        colour bars, tables of cells): every element with a non-transparent
//                                        background becomes a rect, every text node a <text>, canvases <image>
//                                        (their pixels), nested <svg> inlined — at the positions the page shows.
//   figureSvg(target)                  → svgText(target) for an <svg>, the <svg> inside a chart, else boxesToSvg
//   exportSvg(target, filename)        → saves figureSvg(target) as FILENAME.svg; resolves { text, blob }
//   exportPng(target, filename, scale = 2) → the figure rasterised at `scale` × (canvas: its pixels scaled;
//                                        else the SVG drawn into a canvas); resolves { blob, width, height }
//   buildReport(root, { title, state, data, css, links }) → HTML text of one file: the visible view cloned,
//                                        canvases as PNG data URLs, images inlined (or dropped), scripts, forms'
//                                        actions and external links removed; controls that only work in the page
//                                        left out (file pickers, drop zones, buttons, elements marked
//                                        data-report="omit" — e.g. maps never computed); a button with content
//                                        (a top-5 row) or in a table cell / list item (a Global view word) kept
//                                        as a <span>; a link whose id is in `links`
//                                        ({id: 'data:…'}, e.g. the Debate's CSV / JSON) keeps that data: URL, any
//                                        other download link is left out; the page CSS inline and `data` as
//                                        <script type="application/json" id="attnlab-report-data"> (JSON is
//                                        data, not script: it never runs).
//   download(blob, filename)           → saves a Blob through an <a download> (Blob URL, revoked later)
const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK = 'http://www.w3.org/1999/xlink';

export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob;
}

export function svgText(svg) {
  const clone = svg.cloneNode(true);
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('xmlns:xlink', XLINK);
  const r = svg.getBoundingClientRect();
  if (!clone.getAttribute('width') && r.width) clone.setAttribute('width', String(Math.round(r.width)));
  if (!clone.getAttribute('height') && r.height) clone.setAttribute('height', String(Math.round(r.height)));
  // Standing alone (a file, or an <img> for the PNG) an SVG inherits nothing: "inherit" (Plot's charts) would fall
  // back to the default serif, so the page's computed font and size are written in.
  const cs = getComputedStyle(svg);
  if (!clone.style.fontFamily || /inherit|initial|unset/.test(clone.style.fontFamily)) clone.style.fontFamily = cs.fontFamily;
  if (!clone.style.fontSize || /inherit|initial|unset/.test(clone.style.fontSize)) clone.style.fontSize = cs.fontSize;
  const rules = plotRules();
  if (rules && !clone.querySelector('style')) {
    const style = document.createElementNS(SVG_NS, 'style');
    style.textContent = rules;
    clone.prepend(style);
  }
  return new XMLSerializer().serializeToString(clone);
}

// The page's CSS rules for Observable Plot's classes (web/styles.css), as text; '' when there are none.
function plotRules() {
  const out = [];
  for (const sheet of document.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // a sheet of another origin (none on this page)
    }
    for (const r of rules) if (r.selectorText?.includes('.plot-d6a7b5')) out.push(r.cssText);
  }
  return out.join('\n');
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function visible(e) {
  const cs = getComputedStyle(e);
  return cs.display !== 'none' && cs.visibility !== 'hidden' && Number(cs.opacity) > 0;
}

function transparent(c) {
  return !c || c === 'transparent' || /rgba\([^)]*,\s*0\)$/.test(c);
}

export function boxesToSvg(root, { title = '' } = {}) {
  const R = root.getBoundingClientRect();
  const W = Math.ceil(R.width), H = Math.ceil(R.height);
  const out = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const t = node.textContent.replace(/\s+/g, ' ').trim();
      if (!t) return;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()];
      const cs = getComputedStyle(node.parentElement);
      // one <text> per line box; the text of a wrapped node is split by its rectangles' share of characters
      if (rects.length === 1 || !rects.length) {
        const r = rects[0] ?? range.getBoundingClientRect();
        if (!r.width) return;
        out.push(`<text x="${(r.left - R.left).toFixed(1)}" y="${(r.bottom - R.top - r.height * 0.25).toFixed(1)}" fill="${cs.color}" ` +
          `font-family="${esc(cs.fontFamily)}" font-size="${cs.fontSize}" font-weight="${cs.fontWeight}"${cs.fontStyle === 'italic' ? ' font-style="italic"' : ''}>${esc(t)}</text>`);
      } else {
        const total = rects.reduce((a, r) => a + r.width, 0) || 1;
        let at = 0;
        for (const r of rects) {
          const n = Math.round((t.length * r.width) / total);
          const part = t.slice(at, at + n);
          at += n;
          out.push(`<text x="${(r.left - R.left).toFixed(1)}" y="${(r.bottom - R.top - r.height * 0.25).toFixed(1)}" fill="${cs.color}" ` +
            `font-family="${esc(cs.fontFamily)}" font-size="${cs.fontSize}" font-weight="${cs.fontWeight}">${esc(part)}</text>`);
        }
      }
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || !visible(node)) return;
    if (node.matches('.export-bar, button, select, input, script, style')) return;
    const r = node.getBoundingClientRect();
    const x = (r.left - R.left).toFixed(1), y = (r.top - R.top).toFixed(1);
    if (node instanceof SVGSVGElement) {
      const inner = svgText(node).replace(/^<svg/, `<svg x="${x}" y="${y}"`);
      out.push(inner);
      return;
    }
    if (node instanceof HTMLCanvasElement) {
      try {
        out.push(`<image x="${x}" y="${y}" width="${r.width.toFixed(1)}" height="${r.height.toFixed(1)}" href="${node.toDataURL('image/png')}"/>`);
      } catch { /* a tainted canvas cannot be read: left out */ }
      return;
    }
    const cs = getComputedStyle(node);
    const bg = cs.backgroundImage && cs.backgroundImage !== 'none' ? cs.backgroundImage : '';
    const rx = parseFloat(cs.borderTopLeftRadius) || 0;
    if (bg.startsWith('linear-gradient')) {
      const stops = [...bg.matchAll(/rgba?\([^)]*\)|#[0-9a-f]{3,8}/gi)].map((m) => m[0]);
      const id = `g${out.length}`;
      out.push(`<defs><linearGradient id="${id}">${stops.map((c, i) => `<stop offset="${stops.length > 1 ? i / (stops.length - 1) : 0}" stop-color="${c}"/>`).join('')}</linearGradient></defs>`);
      out.push(`<rect x="${x}" y="${y}" width="${r.width.toFixed(1)}" height="${r.height.toFixed(1)}" rx="${rx}" fill="url(#${id})"/>`);
    } else if (!transparent(cs.backgroundColor) && r.width && r.height) {
      const stroke = parseFloat(cs.borderTopWidth) > 0 && !transparent(cs.borderTopColor) ? ` stroke="${cs.borderTopColor}"` : '';
      out.push(`<rect x="${x}" y="${y}" width="${r.width.toFixed(1)}" height="${r.height.toFixed(1)}" rx="${rx}" fill="${cs.backgroundColor}"${stroke}/>`);
    }
    for (const c of node.childNodes) walk(c);
  };
  walk(root);
  return `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">` +
    (title ? `<title>${esc(title)}</title>` : '') + `<rect width="${W}" height="${H}" fill="#ffffff"/>${out.join('')}</svg>`;
}

function chartSvg(target) {
  if (target instanceof SVGSVGElement) return target;
  const svgs = target.querySelectorAll?.('svg') ?? [];
  // a Plot chart: one main svg (legends are separate small svgs — then export the whole box)
  return svgs.length === 1 && !target.querySelector('canvas') ? svgs[0] : null;
}

export function figureSvg(target) {
  const svg = chartSvg(target);
  return svg ? svgText(svg) : boxesToSvg(target, { title: target.getAttribute?.('aria-label') ?? '' });
}

export async function exportSvg(target, filename) {
  const text = figureSvg(target);
  const blob = new Blob([text], { type: 'image/svg+xml' });
  download(blob, filename.endsWith('.svg') ? filename : `${filename}.svg`);
  return { text, blob };
}

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The figure could not be drawn as an image.'));
    img.src = url;
  });
}

function toBlob(canvas) {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The browser could not encode the PNG.'))), 'image/png'));
}

export async function exportPng(target, filename, scale = 2) {
  let canvas;
  if (target instanceof HTMLCanvasElement) {
    const r = target.getBoundingClientRect();
    const w = Math.max(target.width, Math.round(r.width)), h = Math.max(target.height, Math.round(r.height));
    canvas = document.createElement('canvas');
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(target, 0, 0, canvas.width, canvas.height);
  } else {
    const text = figureSvg(target);
    const m = /<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"/.exec(text);
    const r = target.getBoundingClientRect();
    const w = m ? Number(m[1]) : r.width, h = m ? Number(m[2]) : r.height;
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    try {
      const img = await loadImage(url);
      canvas = document.createElement('canvas');
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  const blob = await toBlob(canvas);
  download(blob, filename.endsWith('.png') ? filename : `${filename}.png`);
  return { blob, width: canvas.width, height: canvas.height };
}

function imageDataUrl(img) {
  try {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    c.getContext('2d').drawImage(img, 0, 0);
    return c.toDataURL('image/png');
  } catch {
    return null;
  }
}

export function buildReport(root, { title = 'attnlab report', state = '', data = {}, css = '', links = {} } = {}) {
  const clone = root.cloneNode(true);
  // canvases keep their pixels as images (cloneNode copies no pixels)
  const src = [...root.querySelectorAll('canvas')];
  [...clone.querySelectorAll('canvas')].forEach((c, i) => {
    const img = document.createElement('img');
    try {
      img.src = src[i].toDataURL('image/png');
    } catch {
      c.remove();
      return;
    }
    img.alt = src[i].getAttribute('aria-label') ?? '';
    img.className = c.className;
    img.width = src[i].width;
    img.height = src[i].height;
    c.replaceWith(img);
  });
  const imgs = [...root.querySelectorAll('img')];
  [...clone.querySelectorAll('img')].forEach((im) => {
    if (im.src.startsWith('data:')) return;
    const orig = imgs.find((o) => o.src === im.src);
    const url = orig ? imageDataUrl(orig) : null;
    if (url) im.src = url;
    else im.remove();
  });
  // form controls show their current values as text; nothing in the report can run or fetch
  const srcControls = [...root.querySelectorAll('textarea, select, input')];
  [...clone.querySelectorAll('textarea, select, input')].forEach((c, i) => {
    const o = srcControls[i];
    if (!o || o.type === 'file' || o.type === 'hidden') {
      c.remove();
      return;
    }
    const span = document.createElement('span');
    span.className = 'report-value';
    span.textContent = o instanceof HTMLSelectElement ? (o.selectedOptions[0]?.textContent ?? o.value)
      : o.type === 'checkbox' ? (o.checked ? 'yes' : 'no') : o.value;
    c.replaceWith(span);
  });
  // what only works in the page goes: pickers (a label around a file input, a drop zone), maps never computed
  // ([data-report="omit"]), buttons. A button that carries content (a top-5 row: a label, a value, a bar) stays
  // as a <span> of the same class; a download link keeps a working href only when `links` gives it a data: URL.
  for (const e of clone.querySelectorAll('[data-report="omit"], .image-drop, label.button-link')) e.remove();
  for (const b of clone.querySelectorAll('button')) {
    // a control goes; content stays: a button with parts (a top-5 row) or one that is a table cell's or list
    // item's text (the Global view's words)
    if (!b.children.length && !b.closest('td, th, li')) {
      b.remove();
      continue;
    }
    const span = document.createElement('span');
    for (const { name, value } of b.attributes) if (!/^on|^type$|^disabled$|^tabindex$/.test(name)) span.setAttribute(name, value);
    span.append(...b.childNodes);
    b.replaceWith(span);
  }
  for (const e of clone.querySelectorAll('script, .export-bar, progress, link, iframe, object, embed')) e.remove();
  for (const a of clone.querySelectorAll('a')) {
    const url = a.id ? links[a.id] : undefined;
    if (typeof url === 'string' && url.startsWith('data:')) {
      a.setAttribute('href', url);
      continue;
    }
    a.removeAttribute('href');
    if (a.hasAttribute('download') || a.classList.contains('button-link')) a.remove(); // a dead button
  }
  for (const e of clone.querySelectorAll('[hidden], .examples')) e.remove();
  for (const e of clone.querySelectorAll('.lesson-highlight')) e.classList.remove('lesson-highlight');
  for (const d of clone.querySelectorAll('details')) d.setAttribute('open', '');
  const json = JSON.stringify({ format: 'attnlab-report-v1', title, state, created: new Date().toISOString(), ...data }, null, 1)
    .replace(/</g, '\\u003c');
  const safeCss = String(css).replace(/<\/style/gi, '<\\/style').replace(/@import[^;]*;/g, '').replace(/url\((?!["']?data:)[^)]*\)/g, 'none');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>${esc(title)}</title>
<style>${safeCss}
.report-head { max-width: 1240px; margin: 16px auto 0; padding: 0 20px; font-size: 0.9rem; color: #5d6475; }
.report-value { font-weight: 600; }
main img { max-width: 100%; height: auto; }
.image-tile img { width: 100%; aspect-ratio: 1; display: block; border-radius: 5px; }
</style></head>
<body><header class="report-head"><h1>${esc(title)}</h1>
<p>Saved from attnlab (an interpretability lab in the browser) on ${esc(new Date().toUTCString())}. Page state: <code>${esc(state || '(defaults)')}</code>.
The figures are inline; the numbers are in the JSON block <code>#attnlab-report-data</code> of this file.</p></header>
<main>${clone.outerHTML}</main>
<script type="application/json" id="attnlab-report-data">${json}</script>
</body></html>`;
}
