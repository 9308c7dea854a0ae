#!/usr/bin/env python3
"""make_seeds.py — writes the seed corpora of the libFuzzer targets (tests/fuzz/corpus/<target>/) from real,
small files: the shipped CNN checkpoint models/cnn/gap, a tiny text checkpoint in the shipped format (written
here, dims 2/1, like `attnlab train-text --embedding-dim 2 --hidden-dim 1` would), the first lines of the
SST-2 dev set and of the 20news test set (../shared/data), and a few hand-made files (F16/F64, metadata,
scalar and zero-size tensors). Standard library only; run from the repository root:
    /usr/bin/python3 tests/fuzz/make_seeds.py
"""
import json
import os
import random
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')
DATA = os.path.join(ROOT, '..', 'shared', 'data')


def safetensors(tensors, dtype='F32', metadata=None):
    """tensors: {name: (shape, values)} -> bytes (names sorted, contiguous, header padded to 8)."""
    header, blobs, off = {}, [], 0
    if metadata:
        header['__metadata__'] = metadata
    fmt, size = {'F32': ('<f', 4), 'F64': ('<d', 8), 'F16': ('<e', 2)}[dtype]
    for name in sorted(tensors):
        shape, values = tensors[name]
        blob = b''.join(struct.pack(fmt, v) for v in values)
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - (8 + len(text)) % 8) % 8)
    return struct.pack('<Q', len(text)) + text + b''.join(blobs)


def write(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def tiny_text_model(attention):
    rnd = random.Random(1)
    V, E, H = 4, 2, 1
    r = lambda n: [round(rnd.uniform(-1, 1), 3) for _ in range(n)]
    t = {'embedding.weight': ([V, E], r(V * E)), 'decoder.weight': ([1, 2 * H], r(2 * H)), 'decoder.bias': ([1], r(1))}
    for d in ('forward', 'backward'):
        t[f'encoder.{d}.weight_ih'] = ([4 * H, E], r(4 * H * E))
        t[f'encoder.{d}.weight_hh'] = ([4 * H, H], r(4 * H * H))
        t[f'encoder.{d}.bias'] = ([4 * H], r(4 * H))
    if attention == 'tanh':
        t['attention.w1.weight'] = ([H, 2 * H], r(2 * H * H))
        t['attention.w1.bias'] = ([H], r(H))
        t['attention.v.weight'] = ([1, H], r(H))
    elif attention == 'dot':
        t['attention.v.weight'] = ([1, 2 * H], r(2 * H))
    config = {'format': 'attnlab-text-v1', 'attention': attention, 'embedding_dim': E, 'hidden_dim': H,
              'num_classes': 2, 'class_names': ['negative', 'positive'], 'max_tokens': 400,
              'vocab': ['<pad>', '<unk>', 'good', 'bad'], 'training': {'seed': 1, 'per_epoch': [{'epoch': 1}]},
              'metrics': {'dev': {'accuracy': 0.5}}, 'provenance': {'command': 'make_seeds.py'}}
    return json.dumps(config).encode(), safetensors(t, metadata={'format': 'attnlab-text-v1'})


def main():
    # text checkpoints: config NUL weights
    for att in ('tanh', 'dot', 'uniform'):
        cfg, w = tiny_text_model(att)
        write('text_checkpoint', f'tiny-{att}', cfg + b'\0' + w)
        write('safetensors', f'text-{att}.safetensors', w)
    # the shipped CNN checkpoint (4.7 KB config + 49 KB weights)
    with open(os.path.join(ROOT, 'models/cnn/gap/config.json'), 'rb') as f:
        cnn_cfg = f.read()
    with open(os.path.join(ROOT, 'models/cnn/gap/model.safetensors'), 'rb') as f:
        cnn_w = f.read()
    write('cnn_checkpoint', 'models-cnn-gap', cnn_cfg + b'\0' + cnn_w)
    write('safetensors', 'models-cnn-gap.safetensors', cnn_w)
    # hand-made safetensors: F16 / F64, metadata, scalar and zero-size tensors, empty
    write('safetensors', 'f16-scalar-empty.safetensors',
          safetensors({'s': ([], [7.25]), 'e': ([2, 0], []), 'v': ([3], [1, -2, 0.5])}, 'F16', {'k': 'v'}))
    write('safetensors', 'f64.safetensors', safetensors({'d': ([2, 2], [1, 2, 3, 4])}, 'F64'))
    write('safetensors', 'empty.safetensors', safetensors({}))
    # text: real lines
    def lines(path, n, max_len):
        with open(os.path.join(DATA, path), encoding='utf-8', errors='replace') as f:
            return [next(f)[:max_len] for _ in range(n)]
    sst = lines('sst2/dev.tsv', 20, 400)
    news = lines('20news_hockey_baseball/test.tsv', 3, 3000)
    write('tsv', 'sst2-dev-20', '\0' + ''.join(sst))
    write('tsv', 'sst2-dev-20-cut5', '\x05' + ''.join(sst))
    write('tsv', '20news-3', '\0' + ''.join(news))
    write('tsv', 'crlf-blank', '\0' + '1\ta fine film\r\n\r\n0\tbad\r\n')
    for i, line in enumerate(sst[:8]):
        write('tokenizer', f'sst2-{i}', line.split('\t', 1)[1])
    write('tokenizer', 'free-text', 'The film\u2019s \u201cbest\u201d part (really) -- isn\'t it? Mr. Smith paid $9.50 for 2,500 s&m/and/or ...')
    write('tokenizer', 'unicode', 'caf\u00e9 \u65e5\u672c\u8a9e \U0001F600 \u05e9\u05dc\u05d5\u05dd 8\u00a01/2 \u2028x\ufeff')
    write('tokenizer', 'invalid-utf8', b'bad \xff\xfe bytes \xc0\xaf \xed\xa0\x80 end')


if __name__ == '__main__':
    main()
