#!/usr/bin/env python3
"""make_hf_tokenizer_seeds.py — writes the seed corpus of tests/fuzz/fuzz_hf_tokenizer.cpp
(tests/fuzz/corpus/hf_tokenizer/) from the real files in ../shared/data, trimmed to a few KB each so the fuzzer
mutates structure, not a 700 KB vocabulary: the bert-base-uncased WordPiece tokenizer.json with ~150 entries,
the roberta-base byte-level BPE tokenizer.json with its first 150 merges (and the 256 byte characters), a BERT
variant with a BertProcessing post-processor, a WordLevel file (the exporter's) and an unsupported-model file, and stories260K's tok512.bin (6 KB)
for the llama2.c reader. Standard library only; run from the repository root:
    /usr/bin/python3 tests/fuzz/make_hf_tokenizer_seeds.py
"""
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'tests', 'fuzz', 'corpus', 'hf_tokenizer')
DATA = os.path.join(ROOT, '..', 'shared', 'data')
WORDS = ['hello', 'world', 'the', 'you', 'how', 'are', 'cafe', 'naive', 'all', 'y', 'x', 'cp', '##p', '##ing',
         '##s', '##re', '3', '333', '##3', '.', ',', '!', '?', "'", '[', ']', '<', '>', '/', '#', 'a', 'b', 'c', 'd',
         'e', 'h', 'i', 'l', 'n', 'o', 'r', 's', 't', 'u', 'w', '##a', '##e', '##l', '##o', '##t', '我', '想']


def write(name, data):
    with open(os.path.join(OUT, name), 'w', encoding='utf-8') as f:
        f.write(json.dumps(data, ensure_ascii=False, separators=(',', ':')))


def main():
    os.makedirs(OUT, exist_ok=True)
    bert = json.load(open(os.path.join(DATA, 'tokenizers', 'bert-wordpiece-uncased', 'tokenizer.json'), encoding='utf-8'))
    keep = [t for t in list(bert['model']['vocab'])[:110] if t.startswith('[')] + WORDS
    bert['model']['vocab'] = {t: i for i, t in enumerate(dict.fromkeys(keep))}
    vocab = bert['model']['vocab']
    for a in bert['added_tokens']:
        a['id'] = vocab[a['content']]
    for name, sp in bert['post_processor']['special_tokens'].items():
        sp['ids'] = [vocab[t] for t in sp['tokens']]
    bert['truncation'] = bert['padding'] = None
    write('bert-wordpiece-trimmed.json', bert)
    bert['post_processor'] = {'type': 'BertProcessing', 'sep': ['[SEP]', vocab['[SEP]']], 'cls': ['[CLS]', vocab['[CLS]']]}
    bert['normalizer'] = {'type': 'Sequence', 'normalizers': [{'type': 'NFD'}, {'type': 'Lowercase'}, {'type': 'StripAccents'}]}
    write('bert-processing-sequence.json', bert)

    rob = json.load(open(os.path.join(DATA, 'tokenizers', 'roberta-bytelevel-bpe', 'tokenizer.json'), encoding='utf-8'))
    full = rob['model']['vocab']
    merges = rob['model']['merges'][:150]
    toks = [a['content'] for a in rob['added_tokens'][:4]]
    toks += sorted((t for t, i in full.items() if len(t) == 1), key=lambda t: full[t])
    for m in merges:
        a, b = m.split(' ')
        toks.append(a + b)
    rob['model']['vocab'] = {t: i for i, t in enumerate(dict.fromkeys(toks))}
    rob['model']['merges'] = merges
    v = rob['model']['vocab']
    rob['added_tokens'] = [dict(a, id=v[a['content']]) for a in rob['added_tokens'][:4]]
    rob['post_processor']['sep'][1] = v['</s>']
    rob['post_processor']['cls'][1] = v['<s>']
    write('roberta-bytelevel-trimmed.json', rob)
    rob['pre_tokenizer']['add_prefix_space'] = True
    rob['model']['merges'] = [m.split(' ') for m in merges[:40]]
    write('roberta-prefix-space-array-merges.json', rob)

    write('unsupported-unigram.json', {'model': {'type': 'Unigram', 'vocab': [['a', 0.0]]}})
    # WordLevel over whitespace-split, lower-cased words: what models/tools/export-transformer-onnx.mjs writes.
    write('wordlevel-whitespace.json', {'model': {'type': 'WordLevel', 'unk_token': '<unk>',
                                                  'vocab': {w: i for i, w in enumerate(['<pad>', '<unk>'] + WORDS)}},
                                        'normalizer': {'type': 'Lowercase'}, 'pre_tokenizer': {'type': 'WhitespaceSplit'},
                                        'post_processor': None})
    shutil.copy(os.path.join(DATA, 'stories260K', 'tok512.bin'), os.path.join(OUT, 'llama2c-tok512.bin'))


if __name__ == '__main__':
    main()
