"""Small versions of the models users train, for the model tests: each is
built with a fixed seed and comes with a batch generator and a loss.

Kept small so that a training step runs in well under a second eagerly; the
ops, not the sizes, are what the native compiler must cover.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class Conv1dNet(nn.Module):
    def __init__(self, channels=4, classes=5):
        super().__init__()
        self.body = nn.Sequential(nn.Conv1d(channels, 16, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(16, 16, 3, stride=2, dilation=2, padding=2),
                                  nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention: one fused qkv projection split in three, a causal
    mask buffer applied with masked_fill."""

    def __init__(self, dim, heads, block):
        super().__init__()
        # No bias (nanoGPT's `bias=False` configuration): the key bias gets a
        # zero gradient analytically (softmax ignores a per-row shift), so
        # AdamW would turn its rounding noise into lr-sized steps that differ
        # between any two correct implementations.
        self.c_attn = nn.Linear(dim, 3 * dim, bias=False)
        self.c_proj = nn.Linear(dim, dim)
        self.heads, self.dim = heads, dim
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.dim, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class GPTBlock(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, block)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class NanoGPT(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=4, block=16, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(block, dim)
        self.blocks = nn.ModuleList([GPTBlock(dim, heads, block) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class OPTAttention(nn.Module):
    """Hugging Face OPT's attention: separate q/k/v projections, scaled q,
    bmm over (batch*heads), an additive mask, softmax, bmm."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.scaling = self.head_dim ** -0.5
        self.q_proj, self.k_proj = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.v_proj, self.out_proj = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def _shape(self, t, T, B):
        return t.view(B, T, self.heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, x, mask):
        B, T, C = x.shape
        q = self._shape(self.q_proj(x) * self.scaling, T, B).view(B * self.heads, T, self.head_dim)
        k = self._shape(self.k_proj(x), T, B).view(B * self.heads, T, self.head_dim)
        v = self._shape(self.v_proj(x), T, B).view(B * self.heads, T, self.head_dim)
        w = torch.bmm(q, k.transpose(1, 2)).view(B, self.heads, T, T) + mask
        w = torch.max(w, torch.tensor(torch.finfo(w.dtype).min, device=w.device))
        w = F.softmax(w.view(B * self.heads, T, T), dim=-1)
        out = torch.bmm(w, v).view(B, self.heads, T, self.head_dim).transpose(1, 2)
        return self.out_proj(out.reshape(B, T, C))


class OPTLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.self_attn = OPTAttention(dim, heads)
        self.final_layer_norm = nn.LayerNorm(dim)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x, mask):
        x = x + self.self_attn(self.self_attn_layer_norm(x), mask)
        return x + self.fc2(F.relu(self.fc1(self.final_layer_norm(x))))


class OPTDecoder(nn.Module):
    """Positions come from the attention mask's cumsum (padding gets position
    1), the causal and padding masks are built inside the graph."""
    OFFSET = 2

    def __init__(self, vocab=64, dim=32, heads=4, max_pos=32, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim, padding_idx=1)
        self.embed_positions = nn.Embedding(max_pos + self.OFFSET, dim)
        self.layers = nn.ModuleList([OPTLayer(dim, heads) for _ in range(layers)])
        self.final_layer_norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids, attention_mask):
        B, T = ids.shape
        positions = (torch.cumsum(attention_mask, dim=1).type_as(attention_mask) * attention_mask).long() - 1
        x = self.embed_tokens(ids) + self.embed_positions(positions + self.OFFSET)
        neg = torch.finfo(x.dtype).min
        causal = torch.full((T, T), neg, device=ids.device, dtype=x.dtype)
        cond = torch.arange(T, device=ids.device)
        causal = causal.masked_fill(cond < (cond + 1).view(T, 1), 0.0)
        expanded = attention_mask[:, None, None, :].expand(B, 1, T, T).to(x.dtype)
        padding = (1.0 - expanded).masked_fill((1.0 - expanded).bool(), neg)
        mask = causal[None, None, :, :].expand(B, 1, T, T) + padding
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.final_layer_norm(x))


class LSTMTagger(nn.Module):
    def __init__(self, vocab=50, dim=16, hidden=24, tags=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, tags)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)
