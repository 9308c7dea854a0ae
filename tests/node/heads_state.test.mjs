// heads_state.test.mjs — the head view's selection in the URL (web/state.js hlayer / hheads, views/heads-view.js
// parseHeads / headsText): a link round-trips, defaults stay out of the link, bad values fall back with a notice.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parse, serialize, parseWithNotices, defaults } from '../../web/state.js';
import { parseHeads, headsText } from '../../web/views/heads-view.js';

test('parseHeads / headsText', () => {
  assert.deepEqual(parseHeads('all', 4), { heads: [0, 1, 2, 3], bad: false });
  assert.deepEqual(parseHeads('none', 4), { heads: [], bad: false });
  assert.deepEqual(parseHeads('3,1,3', 4), { heads: [0, 2], bad: false });
  assert.deepEqual(parseHeads('2,9', 4), { heads: [1], bad: true });        // head 9 does not exist
  assert.deepEqual(parseHeads('x', 4), { heads: [0, 1, 2, 3], bad: true }); // nothing usable: all heads
  assert.deepEqual(parseHeads('', 4), { heads: [0, 1, 2, 3], bad: true });
  assert.equal(headsText([0, 1, 2, 3], 4), 'all');
  assert.equal(headsText([], 4), 'none');
  assert.equal(headsText([1, 3], 4), '2,4');
  for (const t of ['all', 'none', '2,4', '1']) assert.equal(headsText(parseHeads(t, 4).heads, 4), t);
});

test('hlayer / hheads in the URL', () => {
  const s = { ...defaults(), model: 'sst2-transformer', hlayer: 2, hheads: '2,4' };
  const link = serialize(s);
  assert.match(link, /hlayer=2/);
  assert.match(link, /hheads=2%2C4/);
  const back = parse(link);
  assert.equal(back.hlayer, 2);
  assert.equal(back.hheads, '2,4');
  assert.doesNotMatch(serialize({ ...defaults(), hlayer: 1, hheads: 'all' }), /hlayer|hheads/);
  const { state, notices } = parseWithNotices('#hlayer=0&hheads=1');
  assert.equal(state.hlayer, 1);
  assert.equal(notices.length, 1);
  assert.equal(notices[0].field, 'hlayer');
});
