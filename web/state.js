// state.js — the whole UI state, kept in the URL hash through one schema, so every view is a link.
//
// Contract (pure; no DOM, works in Node):
//   SCHEMA                 — field → { type: 'enum' | 'string', values?, default, maxLength? }
//   defaults()             → a fresh state object with every field at its default
//   parse(hash)            → state: '#view=text&model=sst2-tanh&text=a+fine+film' (leading '#' optional).
//                             A missing key takes its default, an invalid enum value takes its default,
//                             unknown keys are ignored. An explicitly empty `text=` stays empty.
//   serialize(state)       → '#…' string ('' when everything is at its default). Fields equal to their
//                             default are left out (short links); a string longer than its maxLength is
//                             left out too (a 100k-character text never lands in the URL) — check
//                             `fitsInUrl(state)` to tell the user. parse() cuts a longer value to maxLength.
//   fitsInUrl(state)       → true when serialize(state) keeps every non-default field.
// Fields are added here when a view needs them (the image and localization labs come later).

export const VIEWS = Object.freeze(['text', 'image', 'localization']);

export const DEFAULT_TEXT = "The acting is superb, but the plot is thin and the ending falls flat.";

export const SCHEMA = Object.freeze({
  view: { type: 'enum', values: VIEWS, default: 'text' },
  model: { type: 'string', default: 'sst2-tanh', maxLength: 100 },
  text: { type: 'string', default: DEFAULT_TEXT, maxLength: 2000 },
});

export function defaults() {
  const s = {};
  for (const [key, spec] of Object.entries(SCHEMA)) s[key] = spec.default;
  return s;
}

function coerce(spec, raw) {
  if (raw === null || raw === undefined) return spec.default;
  if (spec.type === 'enum') return spec.values.includes(raw) ? raw : spec.default;
  if (spec.type === 'string') {
    if (spec.maxLength !== undefined && raw.length > spec.maxLength) return raw.slice(0, spec.maxLength);
    return raw;
  }
  return spec.default;
}

export function parse(hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  const s = {};
  for (const [key, spec] of Object.entries(SCHEMA)) s[key] = coerce(spec, params.get(key));
  return s;
}

function keep(spec, value) {
  if (value === undefined || value === null || value === spec.default) return false;
  if (spec.type === 'enum' && !spec.values.includes(value)) return false;
  if (spec.maxLength !== undefined && String(value).length > spec.maxLength) return false;
  return true;
}

export function serialize(state) {
  const params = new URLSearchParams();
  for (const [key, spec] of Object.entries(SCHEMA)) {
    if (keep(spec, state[key])) params.set(key, String(state[key]));
  }
  const q = params.toString();
  return q ? '#' + q : '';
}

export function fitsInUrl(state) {
  for (const [key, spec] of Object.entries(SCHEMA)) {
    const v = state[key];
    if (spec.maxLength !== undefined && typeof v === 'string' && v !== spec.default && v.length > spec.maxLength) {
      return false;
    }
  }
  return true;
}
