#!/usr/bin/python3
"""Regenerates tests/fixtures/onnx-text/<name>/: three small text transformers shaped like Hugging Face's BERT,
RoBERTa and GPT-2 (written here in plain torch: no `transformers` package exists on this machine), trained briefly
on SST-2, exported with torch.onnx.export under Hugging Face's input / output names, with torch reference tensors
for the core's parity tests (tests/node/onnx_text_fixtures.test.mjs).

Run:  /usr/bin/python3 models/tools/make-text-fixtures.py [--data ../shared/data] [--out tests/fixtures/onnx-text]
      [--only bert-sst2,roberta-sst2,gpt2-sst2]          (about 10 minutes of CPU in all, 1 thread)

Deterministic by construction: fixed seeds, torch.set_num_threads(1), torch.use_deterministic_algorithms, no
data-loader workers (torch 1.13, Debian python3-torch); a byte-for-byte rerun has not been checked (one run of the
three took about an hour of wall time on the loaded shared machine). The tests compare against reference.json,
not against a rerun, so a regenerated set stays self-consistent.

Models (hidden 32, 4 layers x 4 heads of 8, FFN 128, dropout 0.1 in training):
  * bert-sst2: BertForSequenceClassification's shape — word + position + token-type embeddings, LayerNorm (eps
    1e-12), post-LN blocks (x = LN(x + Attn(x)); x = LN(x + FFN(x))), exact (erf) GELU, the [CLS] pooler (dense +
    tanh) and a classifier to 2 logits. Inputs input_ids, attention_mask, token_type_ids -> logits [B, 2]. The
    real bert-base-uncased WordPiece vocabulary (30,522) from ../shared/data/tokenizers/bert-wordpiece-uncased.
  * roberta-sst2: RobertaForSequenceClassification's shape — position ids from the ids as RoBERTa computes them
    (cumsum of id != pad, times that mask, + pad = 1: the first token has position 2), a one-row token-type table
    read through the model's own zero buffer (no token_type_ids input), LayerNorm eps 1e-5, post-LN blocks, the
    classification head (dense + tanh + out_proj on <s>). Inputs input_ids, attention_mask -> logits [B, 2].
    roberta-base's byte-level BPE (50,265) from ../shared/data/tokenizers/roberta-bytelevel-bpe.
  * gpt2-sst2: GPT2LMHeadModel's shape — learned positions (arange in the graph), pre-LN blocks, tanh-approximated
    GELU ("gelu_new"), the causal mask as GPT-2 writes it (a lower-triangular bool buffer sliced to T x T and
    torch.where(mask, w, finfo.min)), final LayerNorm, head tied to the token embeddings (one initializer:
    MatMul(wte, h^T) then a Transpose). Inputs input_ids, attention_mask -> logits [B, T, V]. The same byte-level BPE vocabulary
    (GPT-2's own 50,257-token file is not here); its tokenizer.json is roberta-base's with the template <s> A
    (a BOS, no </s>), so the explained position is the text's last token.
Attention is written the usual way: scores = q k^T / sqrt(8) (+ the mask), softmax over the keys, then times v —
nothing else is exported; the executor has to find it.

Training (classifiers): SST-2 phrase-level training set (../shared/data/sst2/phrases_train.tsv, 76,961 phrases),
length-bucketed batches of 128, AdamW (lr 1e-3, weight decay 0.01, 5 % warm-up then linear decay; SparseAdam for the
token embeddings), BERT 3 epochs, RoBERTa 1 (the shared 2-core machine ran at a load of 13-16 while these were
made: one RoBERTa epoch took 25 minutes of wall time), the epoch with the best dev accuracy kept (dev.tsv, 872 sentences), test accuracy on test.tsv (1,821). The causal LM:
the 6,920 training sentences as "<s> sentence </s>", next-token cross-entropy over the whole vocabulary, 3 epochs; only the rows of
tokens seen at least 5 times in those sentences are trained (the others are read as zero vectors and get logit 0).

Size: the vocabularies are large. Rows of tokens that never occur in the training text start at zero and stay
there (no gradient reaches them: only seen rows are looked up, and the LM's softmax is computed exactly as the
seen rows' logits plus (V - seen) logits of value 0), so they compress to almost nothing. After training every
weight is rounded to bfloat16 precision and stored as float32 (the low 16 bits zero): the references and the
reported accuracies are of the rounded weights, i.e. of exactly the weights in model.onnx.

Per model folder: model.onnx, tokenizer.json, config.json (Hugging Face fields incl. id2label), reference.json:
for a few fixed sentences, torch's (float64, the same weights) ids, logits of the explained position (a causal
LM: 200 sampled entries + sum / sum of squares / arg-max of all V), target, attention probabilities
[layer][head][query][key] read from the module (not from the ONNX), the gradient of the target logit w.r.t. the
token embeddings (the word-embedding lookup's output, [T][d]) with its per-token norm and grad x input, and Chefer
et al. 2021's relevance re-implemented here (R = I; per layer R <- R + mean_h((dA * A)^+) R; the explained row —
the core's core/explain/relevance_importance.cpp convention — with null at the explained position), plus the same
with the positive part taken after the head mean (another reading of the rule; a negative control).
manifest.json beside the folders: sizes, sha256, accuracies, the recipe.
"""
import argparse
import collections
import hashlib
import json
import math
import os
import random
import time
import unicodedata

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
HIDDEN, LAYERS, HEADS, FFN, MAX_POS = 32, 4, 4, 128, 128
OPSET = 17
EPOCHS = {'bert-sst2': 3, 'roberta-sst2': 1, 'gpt2-sst2': 3}
LM_MIN_COUNT = 5  # the causal LM trains the rows of tokens seen at least 5 times (its softmax is the cost)


# ---------------------------------------------------------------------------------------------------- tokenizers
# Written from the Hugging Face `tokenizers` definitions, independent of the core's C++ tokenizer (the tests check
# that the two give the same ids). Both reproduce all 46 strings of ../shared/data/tokenizers/test-vectors
# (checked at the start of every run).

class WordPiece:
    """BertNormalizer (clean_text, CJK spacing, strip accents, lowercase) + BertPreTokenizer + WordPiece (greedy
    longest match, '##', at most 100 characters a word) + [CLS] ... [SEP]."""

    def __init__(self, path):
        j = json.load(open(path, encoding='utf-8'))
        self.vocab = j['model']['vocab']
        self.unk = self.vocab[j['model']['unk_token']]
        self.cls, self.sep, self.pad = self.vocab['[CLS]'], self.vocab['[SEP]'], self.vocab['[PAD]']
        self.inv = {v: k for k, v in self.vocab.items()}

    @staticmethod
    def _ws(c):
        return c in ' \t\n\r' or unicodedata.category(c) == 'Zs'

    @staticmethod
    def _ctrl(c):
        return c not in '\t\n\r' and unicodedata.category(c).startswith('C')

    @staticmethod
    def _punct(c):
        o = ord(c)
        return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or unicodedata.category(c).startswith('P')

    @staticmethod
    def _cjk(o):
        return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2A6DF or 0x2A700 <= o <= 0x2B73F or
                0x2B740 <= o <= 0x2B81F or 0x2B820 <= o <= 0x2CEAF or 0xF900 <= o <= 0xFAFF or 0x2F800 <= o <= 0x2FA1F)

    def _normalize(self, text):
        out = []
        for c in text:
            o = ord(c)
            if o == 0 or o == 0xFFFD or self._ctrl(c):
                continue
            out.append(' ' if self._ws(c) else (' ' + c + ' ' if self._cjk(o) else c))
        s = unicodedata.normalize('NFD', ''.join(out))
        return ''.join(c for c in s if unicodedata.category(c) != 'Mn').lower()

    def _words(self, s):
        words, cur = [], []
        for c in s:
            if c.isspace() or self._ws(c) or self._punct(c):
                if cur:
                    words.append(''.join(cur))
                    cur = []
                if self._punct(c):
                    words.append(c)
            else:
                cur.append(c)
        if cur:
            words.append(''.join(cur))
        return words

    def _wordpiece(self, w):
        if len(w) > 100:
            return [self.unk]
        ids, start = [], 0
        while start < len(w):
            end, got = len(w), None
            while start < end:
                piece = w[start:end] if start == 0 else '##' + w[start:end]
                if piece in self.vocab:
                    got = self.vocab[piece]
                    break
                end -= 1
            if got is None:
                return [self.unk]
            ids.append(got)
            start = end
        return ids

    def encode(self, text, special=True):
        ids = [i for w in self._words(self._normalize(text)) for i in self._wordpiece(w)]
        return [self.cls] + ids + [self.sep] if special else ids


def bytes_to_unicode():
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class ByteLevelBPE:
    """GPT-2's pre-tokenizer regex ('s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+)
    written out over code points (\\s as Oniguruma's: U+0009-000D, U+0085, Zs, Zl, Zp), bytes -> unicode, merges
    by rank; <s> ... </s> (RoBERTa) or <s> ... (eos=False: the causal LM)."""

    def __init__(self, path):
        j = json.load(open(path, encoding='utf-8'))
        self.vocab = j['model']['vocab']
        self.ranks = {tuple(m.split(' ') if isinstance(m, str) else m): r for r, m in enumerate(j['model']['merges'])}
        self.b2u = bytes_to_unicode()
        self.bos, self.eos, self.pad = self.vocab['<s>'], self.vocab['</s>'], self.vocab['<pad>']
        self.inv = {v: k for k, v in self.vocab.items()}
        self.cache = {}

    @staticmethod
    def _sp(c):
        o = ord(c)
        return 9 <= o <= 13 or o == 0x85 or unicodedata.category(c) in ('Zs', 'Zl', 'Zp')

    @staticmethod
    def _letter(c):
        return unicodedata.category(c).startswith('L')

    @staticmethod
    def _number(c):
        return unicodedata.category(c).startswith('N')

    def _pretokenize(self, t):
        other = lambda c: not (self._sp(c) or self._letter(c) or self._number(c))  # noqa: E731
        out, i, n = [], 0, len(t)
        while i < n:
            c = next((c for c in ('s', 't', 're', 've', 'm', 'll', 'd') if t[i] == "'" and t.startswith(c, i + 1)), None)
            if c is not None:
                out.append("'" + c)
                i += 1 + len(c)
                continue
            j = i + 1 if (t[i] == ' ' and i + 1 < n) else i
            cls = next((f for f in (self._letter, self._number, other) if f(t[j])), None)
            if cls is not None:
                k = j
                while k < n and cls(t[k]):
                    k += 1
                out.append(t[i:k])
                i = k
                continue
            k = i  # \s+(?!\S), then \s+
            while k < n and self._sp(t[k]):
                k += 1
            k = k if (k == n or k - i == 1) else k - 1
            out.append(t[i:k])
            i = k
        return out

    def _bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        parts = list(word)
        while len(parts) > 1:
            pairs = [(self.ranks.get((parts[k], parts[k + 1]), 1 << 30), k) for k in range(len(parts) - 1)]
            best, _ = min(pairs)
            if best == 1 << 30:
                break
            a, b = next((parts[k], parts[k + 1]) for r, k in pairs if r == best)
            merged, k = [], 0
            while k < len(parts):
                if k < len(parts) - 1 and parts[k] == a and parts[k + 1] == b:
                    merged.append(a + b)
                    k += 2
                else:
                    merged.append(parts[k])
                    k += 1
            parts = merged
        ids = [self.vocab[p] for p in parts]
        self.cache[word] = ids
        return ids

    def encode(self, text, special=True, eos=True):
        ids = [i for w in self._pretokenize(text) for i in self._bpe(''.join(self.b2u[b] for b in w.encode('utf-8')))]
        return [self.bos] + ids + ([self.eos] if eos else []) if special else ids


def check_tokenizers(tok_dir, wp, bpe):
    """All 46 strings of each conformance file give Hugging Face's ids (else stop: the fixtures would be wrong)."""
    for t, base in ((wp, 'ggml-vocab-bert-bge.gguf'), (bpe, 'ggml-vocab-roberta-bpe.gguf')):
        inp = open(os.path.join(tok_dir, 'test-vectors', base + '.inp'), encoding='utf-8').read().split('\n__ggml_vocab_test__\n')
        out = open(os.path.join(tok_dir, 'test-vectors', base + '.out'), encoding='utf-8').read().split('\n')
        n = 0
        for k, line in enumerate(out[:len(inp)]):
            exp = [int(x) for x in line.split()]
            got = t.encode(inp[k], special=False)
            assert got == exp, f'{base} string {k} {inp[k]!r}: {got} != {exp}'
            n += 1
        print(f'tokenizer {base}: {n} strings give Hugging Face\'s ids', flush=True)


# ------------------------------------------------------------------------------------------------------ models

def init_weights(module):
    """Hugging Face's _init_weights: N(0, 0.02) for Linear / Embedding, zero biases, LayerNorm 1 / 0."""
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)


class SelfAttention(nn.Module):
    """BertSelfAttention + BertSelfOutput's dense (the residual and LayerNorm are the block's)."""

    def __init__(self, d, heads, causal=False):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.query, self.key, self.value, self.dense = (nn.Linear(d, d) for _ in range(4))
        self.dropout = nn.Dropout(0.1)
        self.causal = causal
        if causal:  # GPT-2's `bias` buffer
            self.register_buffer('bias', torch.tril(torch.ones(MAX_POS, MAX_POS, dtype=torch.bool)).view(1, 1, MAX_POS, MAX_POS),
                                 persistent=False)
        self.probs = None  # the last forward's attention probabilities (references)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.h, self.dh).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh)
        if self.causal:
            t = x.shape[1]
            causal = self.bias[:, :, :t, :t]
            scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype))
        scores = scores + ext_mask
        probs = F.softmax(scores, dim=-1)
        if probs.requires_grad:
            probs.retain_grad()
        self.probs = probs
        ctx = torch.matmul(self.dropout(probs), v)
        b, _, t, _ = ctx.shape
        ctx = ctx.permute(0, 2, 1, 3).reshape(b, t, self.h * self.dh)
        return self.dense(ctx)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Block(nn.Module):
    def __init__(self, d, heads, ffn, eps, pre_ln, causal=False):
        super().__init__()
        self.attention = SelfAttention(d, heads, causal)
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=eps), nn.LayerNorm(d, eps=eps)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.drop = nn.Dropout(0.1)
        self.pre_ln = pre_ln
        self.act = gelu_new if pre_ln else F.gelu

    def forward(self, x, ext_mask):
        if self.pre_ln:  # GPT-2
            x = x + self.drop(self.attention(self.ln1(x), ext_mask))
            return x + self.drop(self.fc2(self.act(self.fc1(self.ln2(x)))))
        x = self.ln1(x + self.drop(self.attention(x, ext_mask)))  # BERT / RoBERTa
        return self.ln2(x + self.drop(self.fc2(self.act(self.fc1(x)))))


def extended_mask(attention_mask, dtype):
    return (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


class EncoderClassifier(nn.Module):
    """kind 'bert' or 'roberta'."""

    def __init__(self, kind, vocab, pad):
        super().__init__()
        self.kind, self.pad = kind, pad
        d = HIDDEN
        eps = 1e-12 if kind == 'bert' else 1e-5
        self.word_embeddings = nn.Embedding(vocab, d, padding_idx=pad, sparse=True)
        npos = MAX_POS if kind == 'bert' else MAX_POS + 2
        self.position_embeddings = nn.Embedding(npos, d, padding_idx=None if kind == 'bert' else pad)
        self.token_type_embeddings = nn.Embedding(2 if kind == 'bert' else 1, d)
        self.register_buffer('position_ids', torch.arange(MAX_POS).expand((1, -1)), persistent=False)
        self.register_buffer('token_type_zeros', torch.zeros(1, MAX_POS + 2, dtype=torch.long), persistent=False)
        self.emb_ln = nn.LayerNorm(d, eps=eps)
        self.emb_drop = nn.Dropout(0.1)
        self.layers = nn.ModuleList(Block(d, HEADS, FFN, eps, pre_ln=False) for _ in range(LAYERS))
        self.pooler = nn.Linear(d, d)  # BERT's pooler / RoBERTa's classification-head dense
        self.head_drop = nn.Dropout(0.1)
        self.classifier = nn.Linear(d, 2)
        init_weights(self)
        self.inputs_embeds, self.track_inputs = None, False

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        t = input_ids.shape[1]
        if self.kind == 'bert':
            position_ids = self.position_ids[:, :t]
        else:  # RoBERTa's create_position_ids_from_input_ids
            m = input_ids.ne(self.pad).int()
            position_ids = (torch.cumsum(m, dim=1).type_as(m) * m).long() + self.pad
        if token_type_ids is None:
            token_type_ids = self.token_type_zeros[:, :t].expand(input_ids.shape[0], t)
        x = self.word_embeddings(input_ids)
        if self.track_inputs:  # references: d logit / d token embeddings
            x = x.detach().requires_grad_(True)
        self.inputs_embeds = x
        h = self.emb_drop(self.emb_ln(x + self.token_type_embeddings(token_type_ids) + self.position_embeddings(position_ids)))
        ext = extended_mask(attention_mask, h.dtype)
        for layer in self.layers:
            h = layer(h, ext)
        z = h[:, 0]
        if self.kind == 'bert':
            return self.classifier(self.head_drop(torch.tanh(self.pooler(z))))
        return self.classifier(self.head_drop(torch.tanh(self.pooler(self.head_drop(z)))))


class CausalLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        d = HIDDEN
        self.wte, self.wpe = nn.Embedding(vocab, d, sparse=True), nn.Embedding(MAX_POS, d)
        self.drop = nn.Dropout(0.1)
        self.layers = nn.ModuleList(Block(d, HEADS, FFN, 1e-5, pre_ln=True, causal=True) for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        init_weights(self)
        self.inputs_embeds, self.track_inputs = None, False

    def hidden(self, input_ids, attention_mask):
        b, t = input_ids.shape
        position_ids = torch.arange(0, t, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids)
        if self.track_inputs:
            x = x.detach().requires_grad_(True)
        self.inputs_embeds = x
        h = self.drop(x + self.wpe(position_ids))
        ext = extended_mask(attention_mask, h.dtype)
        for layer in self.layers:
            h = layer(h, ext)
        return self.ln_f(h)

    def forward(self, input_ids, attention_mask):
        h = self.hidden(input_ids, attention_mask)
        # Tied head: MatMul(wte [V, d], h^T [B, d, T]) then a Transpose, so the file holds the embedding initializer
        # once (h @ wte^T would make the exporter fold a transposed copy of it).
        return torch.matmul(self.wte.weight, h.transpose(1, 2)).transpose(1, 2)


class BertExport(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.m(input_ids, attention_mask, token_type_ids)


# --------------------------------------------------------------------------------------------------- training

def read_tsv(path):
    rows = []
    for line in open(path, encoding='utf-8'):
        label, text = line.rstrip('\n').split('\t', 1)
        rows.append((int(label), text))
    return rows


def batches(encoded, size, rng, shuffle):
    """Length-bucketed batches: sort by length, cut into batches, shuffle the batch order."""
    order = sorted(range(len(encoded)), key=lambda k: (len(encoded[k][0]), k))
    bs = [order[k:k + size] for k in range(0, len(order), size)]
    if shuffle:
        rng.shuffle(bs)
    return bs


def pad_batch(seqs, pad):
    t = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), t), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), t), dtype=torch.long)
    for k, s in enumerate(seqs):
        ids[k, :len(s)] = torch.tensor(s)
        mask[k, :len(s)] = 1
    return ids, mask


def zero_unseen_rows(emb, seen):
    keep = torch.zeros(emb.weight.shape[0], dtype=torch.bool)
    keep[sorted(seen)] = True
    with torch.no_grad():
        emb.weight[~keep] = 0.0
    return keep


def schedule(opt, step, total, lr):
    warm = max(1, int(0.05 * total))
    f = step / warm if step < warm else max(0.0, (total - step) / max(1, total - warm))
    for g in opt.param_groups:
        g['lr'] = lr * f


class Optimizer:
    """AdamW (weight decay 0.01 on matrices) for everything but the token embeddings, whose gradients are sparse
    (only the rows a batch reads): SparseAdam, no weight decay — cheap on a 30k-50k-row table, and rows never read
    are never touched."""

    def __init__(self, model, emb, lr):
        decay, no_decay = [], []
        for p in model.parameters():
            if p is not emb.weight:
                (no_decay if p.ndim < 2 else decay).append(p)
        self.opts = [torch.optim.AdamW([{'params': decay, 'weight_decay': 0.01}, {'params': no_decay, 'weight_decay': 0.0}], lr=lr),
                     torch.optim.SparseAdam([emb.weight], lr=lr)]
        self.param_groups = [g for o in self.opts for g in o.param_groups]

    def zero_grad(self):
        for o in self.opts:
            o.zero_grad()

    def step(self):
        for o in self.opts:
            o.step()


def optimizer(model, emb, lr):
    return Optimizer(model, emb, lr)


def round_bf16(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.bfloat16().float())


@torch.no_grad()
def accuracy(model, encoded, pad):
    model.eval()
    right = 0
    for b in batches(encoded, 128, None, False):
        ids, mask = pad_batch([encoded[k][0] for k in b], pad)
        types = torch.zeros_like(ids)
        pred = model(ids, mask, types).argmax(-1)
        right += sum(int(pred[i]) == encoded[k][1] for i, k in enumerate(b))
    return right / len(encoded)


def train_classifier(kind, tok, data, epochs, seed, log):
    torch.manual_seed(seed)
    rng = random.Random(seed)
    enc = lambda rows: [(tok.encode(t)[:MAX_POS], y) for y, t in rows]  # noqa: E731
    train, dev, test = enc(read_tsv(f'{data}/sst2/phrases_train.tsv')), enc(read_tsv(f'{data}/sst2/dev.tsv')), enc(read_tsv(f'{data}/sst2/test.tsv'))
    seen = {i for s, _ in train for i in s}
    model = EncoderClassifier(kind, len(tok.vocab), tok.pad)
    zero_unseen_rows(model.word_embeddings, seen)
    opt = optimizer(model, model.word_embeddings, 1e-3)
    bs = batches(train, 128, rng, False)
    total, step, best, best_state, t0 = epochs * len(bs), 0, -1.0, None, time.time()
    for epoch in range(epochs):
        model.train()
        loss_sum = 0.0
        for b in batches(train, 128, rng, True):
            ids, mask = pad_batch([train[k][0] for k in b], tok.pad)
            y = torch.tensor([train[k][1] for k in b])
            schedule(opt, step, total, 1e-3)
            loss = F.cross_entropy(model(ids, mask, torch.zeros_like(ids)), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += float(loss) * len(b)
            step += 1
            if step % 200 == 0:
                log(f'    step {step} / {total} ({time.time() - t0:.0f} s)')
        acc = accuracy(model, dev, tok.pad)
        log(f'  {kind} epoch {epoch + 1}: train loss {loss_sum / len(train):.4f}, dev accuracy {acc:.4f} ({time.time() - t0:.0f} s)')
        if acc > best:
            best, best_state = acc, {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    round_bf16(model)
    model.eval()
    metrics = {'dev_accuracy': round(accuracy(model, dev, tok.pad), 4), 'test_accuracy': round(accuracy(model, test, tok.pad), 4),
               'train_tokens_seen': len(seen), 'epochs': epochs, 'train_seconds': round(time.time() - t0)}
    unseen_nonzero = int((model.word_embeddings.weight.abs().sum(1) > 0).sum()) - len(seen & set(range(len(tok.vocab))))
    assert unseen_nonzero <= 0, 'rows of unseen tokens moved'
    return model, metrics


def lm_loss(model, ids, mask, seen_idx, n_unseen):
    """Exact next-token cross-entropy over the whole vocabulary: unseen rows of the tied head are zero, so their
    logits are 0 and log Z = logsumexp(seen logits, log(V - seen))."""
    h = model.hidden(ids, mask)[:, :-1]
    tgt = ids[:, 1:]
    keep = mask[:, 1:].bool()
    h, tgt = h[keep], tgt[keep]
    w = F.embedding(seen_idx, model.wte.weight, sparse=True)  # the trained rows of the tied head
    logits = h @ w.t()
    logz = torch.logsumexp(torch.cat([logits, torch.full((logits.shape[0], 1), math.log(n_unseen))], 1), 1)
    pos = torch.full((model.wte.weight.shape[0],), -1, dtype=torch.long)
    pos[seen_idx] = torch.arange(len(seen_idx))
    tpos = pos[tgt]
    tl = torch.where(tpos >= 0, logits.gather(1, tpos.clamp(min=0)[:, None])[:, 0], torch.zeros(()))
    hit = (logits.argmax(1) == tpos) & (tpos >= 0)
    return (logz - tl).sum(), int(keep.sum()), int(hit.sum())


def train_lm(tok, data, epochs, seed, log):
    torch.manual_seed(seed)
    rng = random.Random(seed)
    enc = lambda rows: [(tok.encode(t)[:MAX_POS], 0) for _, t in rows]  # noqa: E731 (<s> text </s>)
    train, dev = enc(read_tsv(f'{data}/sst2/train.tsv')), enc(read_tsv(f'{data}/sst2/dev.tsv'))
    counts = collections.Counter(i for s, _ in train for i in s)
    seen = sorted(i for i, c in counts.items() if c >= LM_MIN_COUNT)  # the rows trained (tied: input and output)
    seen_idx = torch.tensor(seen)
    V = len(tok.vocab)
    model = CausalLM(V)
    keep = zero_unseen_rows(model.wte, seen)

    def only_trained_rows(g):  # rarer tokens are read (as zero vectors) but their rows stay zero
        g = g.coalesce()
        k = keep[g.indices()[0]]
        return torch.sparse_coo_tensor(g.indices()[:, k], g.values()[k], g.shape)
    hook = model.wte.weight.register_hook(only_trained_rows)
    opt = optimizer(model, model.wte, 2e-3)
    total, step, t0 = epochs * len(batches(train, 32, rng, False)), 0, time.time()

    @torch.no_grad()
    def evaluate(rows):
        model.eval()
        nll, n, hit = 0.0, 0, 0
        for b in batches(rows, 64, None, False):
            ids, mask = pad_batch([rows[k][0] for k in b], tok.pad)
            l, c, h = lm_loss(model, ids, mask, seen_idx, V - len(seen))
            nll, n, hit = nll + float(l), n + c, hit + h
        return math.exp(nll / n), hit / n

    for epoch in range(epochs):
        model.train()
        loss_sum, count = 0.0, 0
        for b in batches(train, 32, rng, True):
            ids, mask = pad_batch([train[k][0] for k in b], tok.pad)
            schedule(opt, step, total, 2e-3)
            loss, c, _ = lm_loss(model, ids, mask, seen_idx, V - len(seen))
            opt.zero_grad()
            (loss / c).backward()
            opt.step()
            loss_sum, count, step = loss_sum + float(loss), count + c, step + 1
        ppl, acc = evaluate(dev)
        log(f'  gpt2 epoch {epoch + 1}: train nll {loss_sum / count:.3f}, dev perplexity {ppl:.1f}, next-token accuracy {acc:.3f} ({time.time() - t0:.0f} s)')
    hook.remove()
    round_bf16(model)
    ppl, acc = evaluate(dev)
    moved = int((model.wte.weight.abs().sum(1) > 0).sum())
    assert moved <= len(seen), 'rows of unseen tokens moved'
    return model, {'dev_perplexity': round(ppl, 2), 'dev_next_token_accuracy': round(acc, 4), 'train_tokens_seen': len(counts),
                   'embedding_rows_trained': len(seen), 'min_count': LM_MIN_COUNT,
                   'epochs': epochs, 'train_seconds': round(time.time() - t0)}


# ------------------------------------------------------------------------------------------------- references

def num(x, digits=10):
    return float(f'{float(x):.{digits}g}')


def nested(t):
    if t.dim() == 0:
        return num(t)
    return [nested(s) for s in t]


def references(model, kind, tok, sentences):
    """float64 torch references on the model's own (float32, bf16-rounded) weights."""
    m = model.double().eval()
    cases = []
    for text in sentences:
        ids = tok.encode(text, eos=False) if kind == 'gpt2' else tok.encode(text)
        x = torch.tensor([ids])
        mask = torch.ones_like(x)
        for p in m.parameters():
            p.requires_grad_(False)
        m.track_inputs = True
        if kind == 'gpt2':
            out = m(x, mask)[0, -1]
        else:
            out = m(x, mask, torch.zeros_like(x))[0]
        target = int(out.argmax())
        out[target].backward()
        T, e = len(ids), (len(ids) - 1 if kind == 'gpt2' else 0)
        A = torch.stack([layer.attention.probs[0] for layer in m.layers])        # [L, H, T, T]
        dA = torch.stack([layer.attention.probs.grad[0] for layer in m.layers])  # d logit_target / d A
        emb, g = m.inputs_embeds[0].detach(), m.inputs_embeds.grad[0]
        m.track_inputs = False
        # Chefer et al. 2021 (self-attention rule), the core's convention: positive part per head, then the mean.
        R = torch.eye(T, dtype=torch.float64)
        R_alt = torch.eye(T, dtype=torch.float64)
        for l in range(LAYERS):
            R = R + (dA[l] * A[l]).clamp(min=0).mean(0) @ R
            R_alt = R_alt + (dA[l] * A[l]).mean(0).clamp(min=0) @ R_alt
        row = lambda r: [None if t == e else num(r[e, t]) for t in range(T)]  # noqa: E731
        case = {'text': text, 'ids': ids, 'tokens': [tok.inv[i] for i in ids], 'explained_position': e, 'target': target,
                'attention': nested(A.detach()), 'embedding_gradient': nested(g), 'gradient': [num(v) for v in g.norm(dim=1)],
                'gradient_x_input': [num(v) for v in (g * emb).sum(1)], 'relevance': row(R), 'relevance_head_mean_then_positive': row(R_alt)}
        logits = out.detach()
        if kind == 'gpt2':
            V = logits.shape[0]
            sample = sorted(set(range(0, V, 251)) | set(ids) | set(logits.topk(10).indices.tolist()))
            case['logits'] = {'vocabulary': V, 'argmax': target, 'sum': num(logits.sum(), 12), 'sum_abs': num(logits.abs().sum(), 12), 'sum_of_squares': num((logits ** 2).sum(), 12),
                              'sample': {str(i): num(logits[i]) for i in sample}}
        else:
            case['logits'] = [num(v) for v in logits]
        cases.append(case)
    model.float()
    return cases


# --------------------------------------------------------------------------------------------------- export

def export(model, kind, path):
    model = model.float().eval()
    for p in model.parameters():
        p.requires_grad_(False)
    ids = torch.tensor([[0, 5, 6, 7, 2]]) if kind != 'bert' else torch.tensor([[101, 1037, 2204, 3185, 102]])
    mask = torch.ones_like(ids)
    seq = {0: 'batch', 1: 'sequence'}
    if kind == 'bert':
        args, names = (ids, mask, torch.zeros_like(ids)), ['input_ids', 'attention_mask', 'token_type_ids']
        module = BertExport(model)
    else:
        args, names, module = (ids, mask), ['input_ids', 'attention_mask'], model
    out_axes = {0: 'batch', 1: 'sequence'} if kind == 'gpt2' else {0: 'batch'}
    torch.onnx.export(module, args, path, input_names=names, output_names=['logits'], opset_version=OPSET,
                      dynamic_axes={**{n: seq for n in names}, 'logits': out_axes}, do_constant_folding=True)


def hf_config(kind, tok):
    labels = {'id2label': {'0': 'negative', '1': 'positive'}, 'label2id': {'negative': 0, 'positive': 1}}
    common = {'hidden_size': HIDDEN, 'num_hidden_layers': LAYERS, 'num_attention_heads': HEADS, 'intermediate_size': FFN,
              'hidden_dropout_prob': 0.1, 'attention_probs_dropout_prob': 0.1, 'initializer_range': 0.02,
              'vocab_size': len(tok.vocab), 'torch_dtype': 'float32'}
    if kind == 'bert':
        return {'architectures': ['BertForSequenceClassification'], 'model_type': 'bert', **common, 'hidden_act': 'gelu',
                'max_position_embeddings': MAX_POS, 'type_vocab_size': 2, 'layer_norm_eps': 1e-12, 'pad_token_id': 0,
                'position_embedding_type': 'absolute', **labels}
    if kind == 'roberta':
        return {'architectures': ['RobertaForSequenceClassification'], 'model_type': 'roberta', **common, 'hidden_act': 'gelu',
                'max_position_embeddings': MAX_POS + 2, 'type_vocab_size': 1, 'layer_norm_eps': 1e-5, 'pad_token_id': 1,
                'bos_token_id': 0, 'eos_token_id': 2, 'position_embedding_type': 'absolute', **labels}
    return {'architectures': ['GPT2LMHeadModel'], 'model_type': 'gpt2', 'n_embd': HIDDEN, 'n_layer': LAYERS, 'n_head': HEADS,
            'n_inner': FFN, 'n_positions': MAX_POS, 'vocab_size': len(tok.vocab), 'activation_function': 'gelu_new',
            'layer_norm_epsilon': 1e-5, 'resid_pdrop': 0.1, 'embd_pdrop': 0.1, 'attn_pdrop': 0.1, 'tie_word_embeddings': True,
            'bos_token_id': tok.bos, 'eos_token_id': tok.eos, 'torch_dtype': 'float32'}


SENTENCES = {
    'bert-sst2': ['a gorgeous , witty , seductive movie .', 'the acting is superb but the plot is a mess .',
                  'an unbelievably overwrought melodrama that never quite delivers .'],
    'roberta-sst2': ['a gorgeous , witty , seductive movie .', 'the acting is superb but the plot is a mess .',
                     'an unbelievably overwrought melodrama that never quite delivers .'],
    'gpt2-sst2': ['the movie is', 'a gorgeous , witty , seductive', 'the acting is superb but the plot is a'],
}


def sha256(path):
    return hashlib.sha256(open(path, 'rb').read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default=os.path.join(ROOT, '..', 'shared', 'data'))
    ap.add_argument('--out', default=os.path.join(ROOT, 'tests', 'fixtures', 'onnx-text'))
    ap.add_argument('--only', default='bert-sst2,roberta-sst2,gpt2-sst2')
    ap.add_argument('--epochs', type=int, default=0, help='override the epochs (quick trials; not for the committed files)')
    ap.add_argument('--seed', type=int, default=0,
                    help='override the training seed (other seeds of a recipe for error bars, written with --out elsewhere; '
                         'the committed files use 1 / 2 / 3 for bert / roberta / gpt2)')
    a = ap.parse_args()
    torch.set_num_threads(1)  # 2 OpenMP threads on a shared 2-core machine were 10x slower
    torch.use_deterministic_algorithms(True)
    tok_dir = os.path.join(a.data, 'tokenizers')
    wp_json = os.path.join(tok_dir, 'bert-wordpiece-uncased', 'tokenizer.json')
    bpe_json = os.path.join(tok_dir, 'roberta-bytelevel-bpe', 'tokenizer.json')
    wp, bpe = WordPiece(wp_json), ByteLevelBPE(bpe_json)
    check_tokenizers(tok_dir, wp, bpe)
    manifest_path = os.path.join(a.out, 'manifest.json')
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {'format': 'attnlab-onnx-text-fixtures-v1', 'models': {}}
    log = lambda s: print(s, flush=True)  # noqa: E731
    for name in a.only.split(','):
        kind = name.split('-')[0]
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        log(f'{name}: training')
        if kind == 'gpt2':
            model, metrics = train_lm(bpe, a.data, a.epochs or EPOCHS[name], a.seed or 3, log)
            tok = bpe
            tj = json.load(open(bpe_json, encoding='utf-8'))
            tj['post_processor'] = {'type': 'TemplateProcessing', 'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}],
                                    'pair': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}, {'Sequence': {'id': 'B', 'type_id': 1}}],
                                    'special_tokens': {'<s>': {'id': '<s>', 'ids': [tok.bos], 'tokens': ['<s>']}}}
            with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
                json.dump(tj, f, ensure_ascii=False, separators=(',', ':'))
        else:
            tok = wp if kind == 'bert' else bpe
            model, metrics = train_classifier(kind, tok, a.data, a.epochs or EPOCHS[name], a.seed or (1 if kind == 'bert' else 2), log)
            with open(os.path.join(d, 'tokenizer.json'), 'wb') as f:
                f.write(open(wp_json if kind == 'bert' else bpe_json, 'rb').read())
        log(f'{name}: {metrics}')
        export(model, kind, os.path.join(d, 'model.onnx'))
        with open(os.path.join(d, 'config.json'), 'w') as f:
            json.dump(hf_config(kind, tok), f, indent=2)
            f.write('\n')
        refs = {'model': name, 'torch': torch.__version__, 'dtype': 'float64 (the float32 weights of model.onnx)',
                'relevance_rule': 'Chefer et al. 2021: R = I; per layer R <- R + mean_h((dA * A)^+) R; row of the explained position',
                'cases': references(model, kind, tok, SENTENCES[name])}
        with open(os.path.join(d, 'reference.json'), 'w') as f:
            json.dump(refs, f, separators=(',', ':'))
            f.write('\n')
        files = {fn: {'bytes': os.path.getsize(os.path.join(d, fn)), 'sha256': sha256(os.path.join(d, fn))}
                 for fn in ('model.onnx', 'tokenizer.json', 'config.json', 'reference.json')}
        params = sum(p.numel() for p in model.parameters())
        nonzero_rows = int(((model.wte if kind == 'gpt2' else model.word_embeddings).weight.abs().sum(1) > 0).sum())
        manifest['models'][name] = {
            'kind': 'causal-lm' if kind == 'gpt2' else 'classifier', 'shape': hf_config(kind, tok)['architectures'][0],
            'hidden': HIDDEN, 'layers': LAYERS, 'heads': HEADS, 'ffn': FFN, 'parameters': params,
            'embedding_rows_trained': nonzero_rows, 'vocabulary': len(tok.vocab), 'opset': OPSET, 'metrics': metrics, 'files': files,
            'weights': 'trained here, rounded to bfloat16 precision, stored as float32',
            'data': 'SST-2 phrases_train.tsv (classifiers) / train.tsv sentences (LM), ../shared/data/sst2',
            'tokenizer_source': 'bert-base-uncased WordPiece' if kind == 'bert' else 'roberta-base byte-level BPE' + (' (template <s> A)' if kind == 'gpt2' else ''),
            'command': '/usr/bin/python3 models/tools/make-text-fixtures.py', 'torch': torch.__version__}
        with open(manifest_path, 'w') as f:
            json.dump(manifest, f, indent=2)
            f.write('\n')
        log(f'{name}: written, {sum(v["bytes"] for v in files.values())} bytes')


if __name__ == '__main__':
    main()
