// flatten.js — nested JSON objects as flat {dotted.key: leaf} maps, for tables and CSV. Pure; no DOM.
//
// Contract:
//   flatten(obj, { arrays = 'keep' | 'index' | 'objects' } = {}) → { 'a.b.c': leaf, … } in first-seen key order.
//     Objects are walked (keys joined with '.'); numbers, strings, booleans and null are leaves.
//     arrays: 'keep' (default) leaves each array whole as one value; 'index' walks it ('a.0', 'a.1', …);
//     'objects' walks arrays that hold an object (e.g. per-stage or per-bin records) and keeps arrays of
//     plain values whole.
//     An empty object gives no key; a top-level non-object gives {}.
export function flatten(obj, { arrays = 'keep' } = {}) {
  const out = {};
  const walk = (value, prefix) => {
    if (Array.isArray(value)) {
      const walkIt = arrays === 'index' || (arrays === 'objects' && value.some((v) => v !== null && typeof v === 'object'));
      if (walkIt) value.forEach((v, i) => walk(v, prefix ? `${prefix}.${i}` : String(i)));
      else out[prefix] = value;
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k);
      return;
    }
    out[prefix] = value;
  };
  if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) walk(obj, '');
  return out;
}
