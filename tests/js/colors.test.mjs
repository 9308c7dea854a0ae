// colors.test.mjs — unit tests for web/render/colors.js (scales used by the token rows).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sequentialColor, divergingColor, scaleMax, SEQUENTIAL, DIVERGING } from '../../web/render/colors.js';

const rgb = (hex) => {
  const n = parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
};

test('sequential scale ends at its first and last stops and clamps', () => {
  assert.equal(sequentialColor(0).background, rgb(SEQUENTIAL[0]));
  assert.equal(sequentialColor(1).background, rgb(SEQUENTIAL.at(-1)));
  assert.equal(sequentialColor(7).background, rgb(SEQUENTIAL.at(-1)));
  assert.equal(sequentialColor(NaN).background, rgb(SEQUENTIAL[0]));
});

test('diverging scale is neutral at 0 and coloured by sign', () => {
  assert.equal(divergingColor(0).background, rgb(DIVERGING[2]));
  assert.equal(divergingColor(-1).background, rgb(DIVERGING[0]));
  assert.equal(divergingColor(1).background, rgb(DIVERGING[4]));
  assert.equal(divergingColor(-5).background, rgb(DIVERGING[0]));
});

test('text stays readable: dark backgrounds get white text', () => {
  assert.equal(sequentialColor(1).foreground, '#ffffff');
  assert.equal(sequentialColor(0).foreground, '#1a1a1a');
  assert.equal(divergingColor(0).foreground, '#1a1a1a');
});

test('scaleMax ignores non-finite values and uses |v| for signed rows', () => {
  assert.equal(scaleMax([0.1, 0.5, NaN, 0.2], false), 0.5);
  assert.equal(scaleMax([0.1, -0.9, 0.3], true), 0.9);
  assert.equal(scaleMax([], false), 0);
  assert.equal(scaleMax([0, 0], false), 0);
});
