#!/usr/bin/python3
"""tflite_int8_reference.py — an independent, integer-exact reference of the coral MobileNetV2 uint8 TFLite model.

Development-time fixture tool only (never run in CI or at run time). Needs Debian's /usr/bin/python3 with numpy.

Written from TFLite's quantised-kernel semantics (uint8 asymmetric, per-tensor or per-channel weights), not from the
JS converter: the flatbuffer is parsed here with struct (a minimal reader of the few schema fields needed) and
every op is evaluated in integers:
  CONV_2D / DEPTHWISE_CONV_2D: acc = Σ (q_in − zp_in)(q_w − zp_w) + bias (int32; out-of-image taps contribute 0,
      TF SAME padding: pad = total//2 before, the rest after); out = zp_out + MultiplyByQuantizedMultiplier(acc, M)
      with M = s_in·s_w/s_out (double) → QuantizeMultiplier (frexp, round half away from zero to Q31) →
      SaturatingRoundingDoublingHighMul then RoundingDivideByPOT; clamp to the fused activation's quantised range
      (RELU6: [max(0, zp), min(255, zp + round(6/s))]).
  ADD: TFLite's uint8 path with left_shift = 20: each input (q − zp)·2^20 rescaled by s_i/(2·max(s1,s2)), summed,
      rescaled by 2·max(s1,s2)/(2^20·s_out), + zp_out, clamped.
  AVERAGE_POOL_2D: (Σ q + count//2) // count over the in-bounds taps, clamped.
  RESHAPE: unchanged data. SOFTMAX: not evaluated (the reference stops at the uint8 logits, tensor 172).
Integer sums are computed with float64 matrix products, which is exact here (|Σ| < 2^53).

Usage:
  /usr/bin/python3 models/tools/reference/tflite_int8_reference.py --tflite MODEL.tflite --crops LIST.json
      [--out FIXTURE.json] [--eval-out EVAL.json] [--brief] [--brief-crops LIST2.json --brief-crops-name TEXT]
  LIST.json (written by models/tools/reference/write-crops.mjs): {"size":224, "items":[{"name", "source", "crop":
  {left, top, size}, "bin": path of 224·224·3 raw HWC RGB bytes, "label": optional model index}]}.
  /usr/bin/python3 models/tools/reference/tflite_int8_reference.py --self-test   (fixed-point helpers vs exact
      rational rounding)
  --out writes the commit-ready fixture (per image: name, source file, crop box, uint8 logits with their scale /
  zero point, top-5 indices by uint8 logit (ties → lower index), and the dequantised GAP of the last feature map at
  its 8 largest channels); --eval-out writes top-1/top-5 over the items that carry a label; --brief keeps only the
  top-5 per item; --brief-crops adds a second list (top-5 only, with accuracy) under "subset".
"""
import argparse
import json
import math
import os
import struct
import sys

os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')  # small matrices: one thread is faster and fair to a shared machine
import numpy as np  # noqa: E402

# ----------------------------------------------------------------------------------------------- flatbuffer reader
TENSOR_TYPES = {0: 'FLOAT32', 2: 'INT32', 3: 'UINT8', 4: 'INT64', 9: 'INT8'}
BUILTINS = {0: 'ADD', 1: 'AVERAGE_POOL_2D', 3: 'CONV_2D', 4: 'DEPTHWISE_CONV_2D', 22: 'RESHAPE', 25: 'SOFTMAX'}
PADDING = {0: 'SAME', 1: 'VALID'}
ACT = {0: 'NONE', 1: 'RELU', 3: 'RELU6'}


class FB:
    """Field access into one flatbuffer table at `pos` (field index i → vtable slot 4 + 2i)."""

    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self.vt = pos - struct.unpack_from('<i', buf, pos)[0]
        self.vt_size = struct.unpack_from('<H', buf, self.vt)[0]

    def _off(self, i):
        slot = 4 + 2 * i
        return struct.unpack_from('<H', self.buf, self.vt + slot)[0] if slot < self.vt_size else 0

    def scalar(self, i, fmt, default=0):
        o = self._off(i)
        return struct.unpack_from('<' + fmt, self.buf, self.pos + o)[0] if o else default

    def table(self, i):
        o = self._off(i)
        if not o:
            return None
        p = self.pos + o
        return FB(self.buf, p + struct.unpack_from('<I', self.buf, p)[0])

    def _vec(self, i):
        o = self._off(i)
        if not o:
            return None, 0
        p = self.pos + o
        v = p + struct.unpack_from('<I', self.buf, p)[0]
        return v + 4, struct.unpack_from('<I', self.buf, v)[0]

    def tables(self, i):
        start, n = self._vec(i)
        out = []
        for k in range(n):
            p = start + 4 * k
            out.append(FB(self.buf, p + struct.unpack_from('<I', self.buf, p)[0]))
        return out

    def array(self, i, fmt):
        start, n = self._vec(i)
        if start is None:
            return []
        return list(struct.unpack_from('<%d%s' % (n, fmt), self.buf, start))

    def raw(self, i):
        start, n = self._vec(i)
        return None if start is None else self.buf[start:start + n]

    def string(self, i):
        r = self.raw(i)
        return None if r is None else r.decode('utf-8')


def read_model(path):
    buf = open(path, 'rb').read()
    if buf[4:8] != b'TFL3':
        sys.exit('%s: not a TFLite flatbuffer (no TFL3 identifier)' % path)
    root = FB(buf, struct.unpack_from('<I', buf, 0)[0])
    codes = []
    for oc in root.tables(1):  # OperatorCode: deprecated_builtin_code:byte(0), builtin_code:int(3)
        codes.append(max(oc.scalar(0, 'b'), oc.scalar(3, 'i')))
    buffers = [b.raw(0) for b in root.tables(4)]
    sgs = root.tables(2)
    if len(sgs) != 1:
        sys.exit('expected one subgraph')
    sg = sgs[0]
    tensors = []
    for t in sg.tables(0):  # Tensor: shape(0) type(1) buffer(2) name(3) quantization(4)
        q = t.table(4)
        scale, zp = (q.array(2, 'f'), q.array(3, 'q')) if q else ([], [])
        tensors.append({'shape': t.array(0, 'i'), 'type': TENSOR_TYPES.get(t.scalar(1, 'b'), '?'),
                        'buffer': t.scalar(2, 'I'), 'name': t.string(3), 'scale': scale, 'zp': zp})
    ops = []
    for o in sg.tables(3):  # Operator: opcode_index(0) inputs(1) outputs(2) builtin_options_type(3) options(4)
        code = codes[o.scalar(0, 'I')]
        name = BUILTINS.get(code)
        if name is None:
            sys.exit('unsupported builtin op code %d' % code)
        opt = o.table(4)
        d = {'op': name, 'inputs': o.array(1, 'i'), 'outputs': o.array(2, 'i')}
        if name == 'CONV_2D':  # padding(0) stride_w(1) stride_h(2) activation(3) dilation_w(4) dilation_h(5)
            d.update(padding=PADDING[opt.scalar(0, 'b')], sw=opt.scalar(1, 'i'), sh=opt.scalar(2, 'i'),
                     act=ACT[opt.scalar(3, 'b')], dw=opt.scalar(4, 'i', 1), dh=opt.scalar(5, 'i', 1), mult=None)
        elif name == 'DEPTHWISE_CONV_2D':  # padding sw sh depth_multiplier activation dil_w dil_h
            d.update(padding=PADDING[opt.scalar(0, 'b')], sw=opt.scalar(1, 'i'), sh=opt.scalar(2, 'i'),
                     mult=opt.scalar(3, 'i'), act=ACT[opt.scalar(4, 'b')], dw=opt.scalar(5, 'i', 1), dh=opt.scalar(6, 'i', 1))
        elif name == 'AVERAGE_POOL_2D':  # padding sw sh filter_w filter_h activation
            d.update(padding=PADDING[opt.scalar(0, 'b')], sw=opt.scalar(1, 'i'), sh=opt.scalar(2, 'i'),
                     fw=opt.scalar(3, 'i'), fh=opt.scalar(4, 'i'), act=ACT[opt.scalar(5, 'b')])
        elif name == 'ADD':
            d.update(act=ACT[opt.scalar(0, 'b')] if opt else 'NONE')
        ops.append(d)
    return {'tensors': tensors, 'ops': ops, 'buffers': buffers, 'inputs': sg.array(1, 'i'), 'outputs': sg.array(2, 'i')}


def const(model, idx):
    t = model['tensors'][idx]
    raw = model['buffers'][t['buffer']]
    dt = {'UINT8': np.uint8, 'INT32': np.int32, 'INT8': np.int8}[t['type']]
    a = np.frombuffer(raw, dtype=np.dtype(dt).newbyteorder('<'))
    return a.reshape(t['shape']).astype(np.int64)


# ----------------------------------------------------------------------------------------------- fixed-point math
def quantize_multiplier(m):
    """TFLite QuantizeMultiplier: m (double) → (q31 multiplier, shift) with m ≈ q·2^(shift−31)."""
    if m == 0.0:
        return 0, 0
    q, shift = math.frexp(m)
    qf = int(math.floor(abs(q) * (1 << 31) + 0.5)) * (1 if q >= 0 else -1)  # std::round: half away from zero
    if qf == (1 << 31):
        qf //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return qf, shift


def _trunc_div(v, d):
    """C++ integer division (toward zero) of int64 array v by positive d."""
    return np.where(v >= 0, v // d, -((-v) // d))


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul(int32 a (array), int32 b (scalar))."""
    a = a.astype(np.int64)
    ab = a * np.int64(b)
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    r = _trunc_div(ab + nudge, np.int64(1) << 31)
    if b == -(1 << 31):
        r = np.where(a == -(1 << 31), (1 << 31) - 1, r)
    return r


def rdbypot(x, exponent):
    """RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero."""
    if exponent == 0:
        return x
    mask = np.int64((1 << exponent) - 1)
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0).astype(np.int64)
    return (x >> exponent) + (remainder > threshold).astype(np.int64)


def mbqm(x, qm, shift):
    """MultiplyByQuantizedMultiplier(x, qm, shift)."""
    left = shift if shift > 0 else 0
    right = 0 if shift > 0 else -shift
    return rdbypot(srdhm(x * np.int64(1 << left), qm), right)


def act_range(act, scale, zp):
    lo, hi = 0, 255

    def q(f):  # zero_point + TfLiteRound(f / scale), computed in float32 as TFLite's CalculateActivationRangeQuantized
        v = float(np.float32(f) / np.float32(scale))
        return zp + int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)
    if act == 'RELU6':
        lo, hi = max(lo, q(0.0)), min(hi, q(6.0))
    elif act == 'RELU':
        lo = max(lo, q(0.0))
    elif act != 'NONE':
        sys.exit('unsupported activation ' + act)
    return lo, hi


def same_pad(size, k, stride, dil):
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + (k - 1) * dil + 1 - size, 0)
    return out, total // 2


def f32(x):
    return float(np.float32(x))


# ----------------------------------------------------------------------------------------------- ops (NHWC, N = 1)
def conv(model, op, x):
    T = model['tensors']
    ti, tw, tb, to = (T[i] for i in (op['inputs'][0], op['inputs'][1], op['inputs'][2], op['outputs'][0]))
    w = const(model, op['inputs'][1])  # conv: [O,KH,KW,I]; depthwise: [1,KH,KW,C·mult]
    b = const(model, op['inputs'][2])
    H, W, C = x.shape
    KH, KW = w.shape[1], w.shape[2]
    O = w.shape[0] if op['mult'] is None else w.shape[3]
    s_in, zp_in = f32(ti['scale'][0]), ti['zp'][0]
    s_out, zp_out = f32(to['scale'][0]), to['zp'][0]
    ws = [f32(s) for s in tw['scale']]
    wz = list(tw['zp'])
    per_ch = len(ws) > 1
    wzv = np.array(wz if per_ch else wz * O, dtype=np.int64)
    if op['padding'] == 'SAME':
        OH, pt = same_pad(H, KH, op['sh'], op['dh'])
        OW, pl = same_pad(W, KW, op['sw'], op['dw'])
    else:
        OH = (H - (KH - 1) * op['dh'] - 1) // op['sh'] + 1
        OW = (W - (KW - 1) * op['dw'] - 1) // op['sw'] + 1
        pt = pl = 0
    xc = x.astype(np.int64) - zp_in  # out-of-image taps: 0 after the offset, as TFLite skips them
    big_h = (OH - 1) * op['sh'] + (KH - 1) * op['dh'] + 1
    big_w = (OW - 1) * op['sw'] + (KW - 1) * op['dw'] + 1
    xp = np.zeros((max(big_h, pt + H), max(big_w, pl + W), C), dtype=np.int64)
    xp[pt:pt + H, pl:pl + W] = xc
    acc = np.zeros((OH, OW, O), dtype=np.int64)
    wc = w - (wzv.reshape(-1, 1, 1, 1) if op['mult'] is None else wzv.reshape(1, 1, 1, -1))
    for kh in range(KH):
        for kw in range(KW):
            h0, w0 = kh * op['dh'], kw * op['dw']
            patch = xp[h0:h0 + (OH - 1) * op['sh'] + 1:op['sh'], w0:w0 + (OW - 1) * op['sw'] + 1:op['sw']]
            if op['mult'] is None:
                prod = patch.reshape(-1, C).astype(np.float64) @ wc[:, kh, kw, :].T.astype(np.float64)
                acc += np.rint(prod).astype(np.int64).reshape(OH, OW, O)
            else:
                m = op['mult']
                pm = np.repeat(patch, m, axis=2) if m > 1 else patch
                acc += pm * wc[0, kh, kw, :]
    acc += b
    out = np.empty_like(acc)
    for o in range(O) if per_ch else [None]:
        sw = ws[o] if per_ch else ws[0]
        qm, sh = quantize_multiplier(s_in * sw / s_out)  # double, as GetQuantizedConvolutionMultipler
        if per_ch:
            out[..., o] = mbqm(acc[..., o], qm, sh)
        else:
            out = mbqm(acc, qm, sh)
    lo, hi = act_range(op['act'], s_out, zp_out)
    return np.clip(out + zp_out, lo, hi)


def add(model, op, a, b):
    T = model['tensors']
    t1, t2, to = T[op['inputs'][0]], T[op['inputs'][1]], T[op['outputs'][0]]
    s1, s2, so = f32(t1['scale'][0]), f32(t2['scale'][0]), f32(to['scale'][0])
    left_shift = 20
    twice_max = 2.0 * max(s1, s2)
    m1, sh1 = quantize_multiplier(s1 / twice_max)
    m2, sh2 = quantize_multiplier(s2 / twice_max)
    mo, sho = quantize_multiplier(twice_max / ((1 << left_shift) * so))
    v1 = mbqm((a.astype(np.int64) - t1['zp'][0]) * (1 << left_shift), m1, sh1)
    v2 = mbqm((b.astype(np.int64) - t2['zp'][0]) * (1 << left_shift), m2, sh2)
    out = mbqm(v1 + v2, mo, sho) + to['zp'][0]
    lo, hi = act_range(op['act'], so, to['zp'][0])
    return np.clip(out, lo, hi)


def avg_pool(model, op, x):
    T = model['tensors']
    ti, to = T[op['inputs'][0]], T[op['outputs'][0]]
    H, W, C = x.shape
    if not (op['padding'] == 'VALID' and op['fh'] == H and op['fw'] == W):
        sys.exit('only a global AVERAGE_POOL_2D is implemented')
    if ti['scale'] != to['scale'] or ti['zp'] != to['zp']:
        sys.exit('AVERAGE_POOL_2D: input and output quantisation differ')
    count = H * W
    acc = x.astype(np.int64).sum(axis=(0, 1))
    out = (acc + count // 2) // count
    lo, hi = act_range(op['act'], f32(to['scale'][0]), to['zp'][0])
    return np.clip(out, lo, hi).reshape(1, 1, C)


def run(model, img_hwc_u8):
    """Runs the graph on one uint8 HWC image → dict of tensor index → int64 array (batch dim dropped)."""
    vals = {model['inputs'][0]: img_hwc_u8.astype(np.int64)}
    for op in model['ops']:
        i, o = op['inputs'], op['outputs'][0]
        if op['op'] in ('CONV_2D', 'DEPTHWISE_CONV_2D'):
            vals[o] = conv(model, op, vals[i[0]])
        elif op['op'] == 'ADD':
            vals[o] = add(model, op, vals[i[0]], vals[i[1]])
        elif op['op'] == 'AVERAGE_POOL_2D':
            vals[o] = avg_pool(model, op, vals[i[0]])
        elif op['op'] == 'RESHAPE':
            vals[o] = vals[i[0]].reshape(-1)
        elif op['op'] == 'SOFTMAX':
            break  # not needed: the fixture holds the uint8 logits
    return vals


def self_test(seed=1):
    """Checks the numpy fixed-point helpers against exact rational arithmetic for random x and multipliers M in
    (2^-20, 2^4): MultiplyByQuantizedMultiplier(x, M) must equal the two-stage rounding TFLite specifies —
    SaturatingRoundingDoublingHighMul = floor(x·2^left·q/2^31 + 1/2) (ties toward +inf), then RoundingDivideByPOT =
    round half away from zero of that / 2^right — and lie within 1 of x·M (the double rounding can cost up to 1)."""
    from fractions import Fraction
    rng = np.random.default_rng(seed)
    bad = 0
    for _ in range(3000):
        m = float(2.0 ** rng.uniform(-20, 4))
        qm, sh = quantize_multiplier(m)
        if abs(qm * 2.0 ** (sh - 31) - m) > m * 2.0 ** -30:
            bad += 1
        x = np.array(rng.integers(-(1 << 22), 1 << 22, size=8), dtype=np.int64)
        if sh > 0:
            x = x >> sh  # keep x·2^shift inside int32, as TFLite requires
        got = mbqm(x, qm, sh)
        left, right = max(sh, 0), max(-sh, 0)
        for xi, gi in zip(x.tolist(), got.tolist()):
            stage1 = math.floor(Fraction(xi * (1 << left) * qm, 1 << 31) + Fraction(1, 2))
            v = Fraction(stage1, 1 << right)
            want = math.floor(v + Fraction(1, 2)) if v >= 0 else -math.floor(-v + Fraction(1, 2))
            exact = Fraction(xi) * Fraction(qm, 1 << 31) * (Fraction(2) ** sh)
            if gi != want or abs(gi - exact) > 1:
                bad += 1
    print('self-test: %d mismatches' % bad)
    return bad == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    if '--self-test' in sys.argv:
        sys.exit(0 if self_test() else 1)
    ap.add_argument('--tflite', required=True)
    ap.add_argument('--crops', required=True)
    ap.add_argument('--out')
    ap.add_argument('--eval-out')
    ap.add_argument('--brief', action='store_true', help='store only top-5 per item')
    ap.add_argument('--brief-crops', help='a second crop list, stored (top-5 only) under "subset"')
    ap.add_argument('--brief-crops-name', default='the second crop list')
    a = ap.parse_args()
    model = read_model(a.tflite)
    T = model['tensors']
    ops = model['ops']
    pool = next(op for op in ops if op['op'] == 'AVERAGE_POOL_2D')
    feat_idx = pool['inputs'][0]
    reshape = next(op for op in ops if op['op'] == 'RESHAPE')
    logit_idx = reshape['outputs'][0]
    tl, tf = T[logit_idx], T[feat_idx]
    def evaluate(crops_file, brief):
        spec = json.load(open(crops_file))
        size = spec['size']
        items, top1, top5, n_lab = [], 0, 0, 0
        for k, it in enumerate(spec['items']):
            raw = np.fromfile(it['bin'], dtype=np.uint8)
            if raw.size != size * size * 3:
                sys.exit('%s: %d bytes, expected %d' % (it['bin'], raw.size, size * size * 3))
            vals = run(model, raw.reshape(size, size, 3))
            logits = vals[logit_idx].astype(int)
            order = sorted(range(len(logits)), key=lambda c: (-logits[c], c))
            if it.get('label') is not None:
                n_lab += 1
                top1 += order[0] == it['label']
                top5 += it['label'] in order[:5]
            if brief:
                items.append({'name': it['name'], 'label': it.get('label'), 'top5': order[:5],
                              'top5_uint8': [int(logits[c]) for c in order[:5]]})
            else:
                feats = vals[feat_idx].astype(np.float64) * f32(tf['scale'][0]) - tf['zp'][0] * f32(tf['scale'][0])
                gap = feats.mean(axis=(0, 1))
                top_ch = sorted(range(gap.size), key=lambda c: (-gap[c], c))[:8]
                items.append({
                    'name': it['name'], 'source': it['source'], 'crop': it['crop'],
                    'logits_uint8': logits.tolist(),
                    'top5': order[:5],
                    'features_gap_top8': {'channels': top_ch, 'values': [round(float(gap[c]), 6) for c in top_ch]},
                })
            if (k + 1) % 50 == 0:
                print('%d/%d' % (k + 1, len(spec['items'])), file=sys.stderr)
        acc = {'n': n_lab, 'top1': top1 / n_lab if n_lab else None, 'top5': top5 / n_lab if n_lab else None}
        return items, acc

    items, acc = evaluate(a.crops, a.brief)
    print(json.dumps(acc))
    fixture = {
        'description': 'Integer-exact TFLite-semantics reference of mobilenet_v2_1.0_224_quant.tflite '
                       '(models/tools/reference/tflite_int8_reference.py): uint8 logits (tensor %d, before softmax) '
                       'on exact centre 224x224 crops (no resampling)' % logit_idx,
        'model': 'mobilenet_v2_1.0_224_quant.tflite',
        'crop': 'left = floor((width - 224) / 2), top = floor((height - 224) / 2), 224x224 window, HWC RGB uint8',
        'logits': {'tensor': logit_idx, 'scale': f32(tl['scale'][0]), 'zero_point': tl['zp'][0],
                   'dequantize': '(q - zero_point) * scale; q = 0 or 255 is saturated'},
        'features': {'tensor': feat_idx, 'scale': f32(tf['scale'][0]), 'zero_point': tf['zp'][0],
                     'gap': 'mean over 7x7 of the dequantised uint8 feature map; the 8 largest channels'},
        'items': items,
    }
    if a.brief_crops:
        sub, sub_acc = evaluate(a.brief_crops, True)
        print(json.dumps(sub_acc))
        fixture['subset'] = {'description': 'reference top-5 (model indices) and their uint8 logits on the photos of '
                                            + a.brief_crops_name, 'accuracy': sub_acc, 'items': sub}
    if a.out:
        with open(a.out, 'w') as f:
            json.dump(fixture, f, separators=(',', ':'))
            f.write('\n')
    if a.eval_out:
        json.dump(acc, open(a.eval_out, 'w'))


if __name__ == '__main__':
    main()
