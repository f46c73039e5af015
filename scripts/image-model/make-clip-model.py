#!/usr/bin/env python3
"""Export a CLIP-shaped image-text model in the layout transformers.js loads.

The folder written has the files of a transformers.js-compatible CLIP export (as the hub's ONNX CLIP
repositories hold them): config.json, preprocessor_config.json, tokenizer.json, tokenizer_config.json,
special_tokens_map.json, onnx/vision_model.onnx (input pixel_values [batch, 3, 224, 224]; outputs
image_embeds [batch, projection_dim], last_hidden_state) and onnx/text_model.onnx (inputs input_ids and
attention_mask [batch, sequence], int64; outputs text_embeds [batch, projection_dim], last_hidden_state).

Shapes:
  tiny      meaningful on a small axis, for tests (a few hundred kB): the image embedding follows the
            image's mean colour (hue in two dimensions, lightness in a third) and the text embedding maps
            colour words onto the same directions; every other token is a fixed pseudo-random vector.
  vit-b-32  the arithmetic of CLIP ViT-B/32 (vision: 32 px patches, width 768, 12 layers, 12 heads; text:
            vocabulary 49,408, width 512, 12 layers, 8 heads; projection 512) with random weights, for
            throughput measurements (about 600 MB; not committed, bench/image-model.bench.ts makes it).

Needs Debian's python3-torch (1.13) and python3-onnx. Usage:
  python3 scripts/image-model/make-clip-model.py --shape tiny --out e2e/fixtures/image-model/tiny-clip
"""
import argparse
import json
import math
import os

import torch
from torch import nn

CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
BOS, EOS = "<|startoftext|>", "<|endoftext|>"

# Colour words of the tiny model: hue in degrees on the chroma plane of the image side (red 0, yellow
# 60, green 120, cyan 180, blue 240, magenta 300), or lightness for the achromatic ones.
HUES = {"red": 0, "orange": 30, "yellow": 60, "green": 120, "cyan": 180, "blue": 240, "purple": 275, "magenta": 300, "pink": 330}
LIGHTNESS = {"white": 1.0, "black": -1.0}
TINY_DIM = 8


def bytes_to_unicode():
    """GPT-2 / CLIP byte-level alphabet (openai/CLIP simple_tokenizer.py)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def clip_tokenizer(words):
    """A CLIP-style byte-level BPE tokenizer.json whose merges spell out `words` as single tokens."""
    alphabet = bytes_to_unicode()
    vocab = {}
    for ch in alphabet:
        vocab[ch] = len(vocab)
    for ch in alphabet:
        vocab[ch + "</w>"] = len(vocab)
    merges = []
    for w in words:
        parts = list(w[:-1]) + [w[-1] + "</w>"]
        while len(parts) > 1:
            a, b = parts[0], parts[1]
            if f"{a} {b}" not in merges:
                merges.append(f"{a} {b}")
            parts = [a + b] + parts[2:]
            if parts[0] not in vocab:
                vocab[parts[0]] = len(vocab)
    for special in (BOS, EOS):
        vocab[special] = len(vocab)
    added = [
        {"id": vocab[s], "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": True, "special": True}
        for s in (BOS, EOS)
    ]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}, {"type": "Lowercase"}],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+"},
                    "behavior": "Removed",
                    "invert": True,
                },
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": {
            "type": "RobertaProcessing",
            "sep": [EOS, vocab[EOS]],
            "cls": [BOS, vocab[BOS]],
            "trim_offsets": False,
            "add_prefix_space": False,
        },
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": EOS,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "</w>",
            "fuse_unk": False,
            "byte_fallback": False,
            "vocab": vocab,
            "merges": merges,
        },
    }
    return tok, vocab


class TinyVision(nn.Module):
    """Mean colour → [chroma a, chroma b, lightness, four quadrant contrasts, 0.1]."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor(CLIP_MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(CLIP_STD).view(1, 3, 1, 1))
        # patch embedding for a CLIP-shaped last_hidden_state (cls + 7×7 patches); not used by the embedding
        self.patch = nn.Conv2d(3, 16, kernel_size=32, stride=32, bias=False)
        self.cls = nn.Parameter(torch.zeros(1, 1, 16))

    def forward(self, pixel_values):
        rgb = pixel_values * self.std + self.mean  # undo the processor's normalisation: 0–1
        m = rgb.mean(dim=(2, 3))
        r, g, b = m[:, 0], m[:, 1], m[:, 2]
        a = r - (g + b) / 2
        bb = (g - b) * (math.sqrt(3) / 2)
        lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
        q = nn.functional.adaptive_avg_pool2d(rgb.mean(dim=1, keepdim=True), 2).flatten(1)  # TL TR BL BR
        image_embeds = torch.stack(
            [a, bb, 0.5 * (lum - 0.5), q[:, 0] - q[:, 3], q[:, 1] - q[:, 2], q[:, 0] - q[:, 1], q[:, 2] - q[:, 3], 0.1 + 0 * a], dim=1
        )
        patches = self.patch(pixel_values).flatten(2).transpose(1, 2)
        last_hidden_state = torch.cat([self.cls.expand(patches.shape[0], -1, -1), patches], dim=1)
        return image_embeds, last_hidden_state


class TinyText(nn.Module):
    """Sum of the token vectors under the attention mask (special tokens are zero)."""

    def __init__(self, table):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(table, freeze=True)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        text_embeds = (h * attention_mask.unsqueeze(-1).to(h.dtype)).sum(dim=1)
        return text_embeds, h


def tiny_token_table(vocab):
    gen = torch.Generator().manual_seed(33)
    # other tokens: pseudo-random directions, shorter than the colour words' (a colour word dominates a short phrase)
    table = 0.5 * torch.randn(len(vocab), TINY_DIM, generator=gen)
    for w, hue in HUES.items():
        v = torch.zeros(TINY_DIM)
        v[0], v[1] = math.cos(math.radians(hue)), math.sin(math.radians(hue))
        table[vocab[w + "</w>"]] = 3 * v
    for w, light in LIGHTNESS.items():
        v = torch.zeros(TINY_DIM)
        v[2] = light
        table[vocab[w + "</w>"]] = 3 * v
    for special in (BOS, EOS):
        table[vocab[special]] = 0
    return table


class Block(nn.Module):
    """Pre-norm transformer block of CLIP (attention + quick-GELU MLP), written in plain ops for export."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x, bias):
        b, n, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(w // self.heads) + bias, dim=-1)
        x = x + self.out((att @ v).transpose(1, 2).reshape(b, n, w))
        h = self.fc1(self.ln2(x))
        return x + self.fc2(h * torch.sigmoid(1.702 * h))


class VitVision(nn.Module):
    def __init__(self, width=768, layers=12, heads=12, patch=32, image=224, proj=512):
        super().__init__()
        self.patch = nn.Conv2d(3, width, kernel_size=patch, stride=patch, bias=False)
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, width) * 0.02)
        self.pre, self.post = nn.LayerNorm(width), nn.LayerNorm(width)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(layers)])
        self.proj = nn.Linear(width, proj, bias=False)

    def forward(self, pixel_values):
        x = self.patch(pixel_values).flatten(2).transpose(1, 2)
        x = self.pre(torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos)
        for blk in self.blocks:
            x = blk(x, 0.0)
        return self.proj(self.post(x[:, 0])), x


class VitText(nn.Module):
    def __init__(self, vocab=49408, width=512, layers=12, heads=8, context=77, proj=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.randn(1, context, width) * 0.01)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(layers)])
        self.final = nn.LayerNorm(width)
        self.proj = nn.Linear(width, proj, bias=False)

    def forward(self, input_ids, attention_mask):
        # positions and masks from tensors only, so the export keeps the sequence length dynamic
        pos_ids = torch.cumsum(torch.ones_like(input_ids), dim=1) - 1
        x = self.tok(input_ids) + self.pos[0][pos_ids]
        i = pos_ids[0]
        causal = (i[None, :] > i[:, None]).to(x.dtype) * -1e4
        pad = (1.0 - attention_mask.to(x.dtype))[:, None, None, :] * -1e4
        for blk in self.blocks:
            x = blk(x, causal + pad)
        x = self.final(x)
        # CLIP pools at the end-of-text token: the last position the mask keeps
        last = (attention_mask.sum(dim=1) - 1).view(-1, 1, 1).expand(-1, 1, x.shape[2])
        pooled = torch.gather(x, 1, last).squeeze(1)
        return self.proj(pooled), x


def export(model, args, names, outputs, axes, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    model.eval()
    with torch.no_grad():
        torch.onnx.export(
            model, args, path, input_names=names, output_names=outputs, dynamic_axes=axes, opset_version=14, do_constant_folding=True
        )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", choices=["tiny", "vit-b-32"], required=True)
    p.add_argument("--out", required=True)
    o = p.parse_args()
    torch.manual_seed(32)
    words = list(HUES) + list(LIGHTNESS)
    tok, vocab = clip_tokenizer(words)
    if o.shape == "tiny":
        proj, vision, text = TINY_DIM, TinyVision(), TinyText(tiny_token_table(vocab))
        vision_cfg = {"hidden_size": 16, "patch_size": 32, "num_hidden_layers": 0}
        text_cfg = {"hidden_size": TINY_DIM, "vocab_size": len(vocab), "num_hidden_layers": 0}
    else:
        proj, vision, text = 512, VitVision(), VitText()
        vision_cfg = {"hidden_size": 768, "patch_size": 32, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072}
        text_cfg = {"hidden_size": 512, "vocab_size": 49408, "num_hidden_layers": 12, "num_attention_heads": 8, "intermediate_size": 2048}
    out = o.out
    export(
        vision,
        (torch.zeros(1, 3, 224, 224),),
        ["pixel_values"],
        ["image_embeds", "last_hidden_state"],
        {"pixel_values": {0: "batch_size"}, "image_embeds": {0: "batch_size"}, "last_hidden_state": {0: "batch_size"}},
        os.path.join(out, "onnx", "vision_model.onnx"),
    )
    ids = torch.tensor([[vocab[BOS], vocab["red</w>"], vocab[EOS]]])
    export(
        text,
        (ids, torch.ones_like(ids)),
        ["input_ids", "attention_mask"],
        ["text_embeds", "last_hidden_state"],
        {
            "input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "sequence_length"},
            "text_embeds": {0: "batch_size"},
            "last_hidden_state": {0: "batch_size", 1: "sequence_length"},
        },
        os.path.join(out, "onnx", "text_model.onnx"),
    )
    config = {
        "_name_or_path": f"atelier/clip-{o.shape}",
        "architectures": ["CLIPModel"],
        "model_type": "clip",
        "projection_dim": proj,
        "logit_scale_init_value": 2.6592,
        "text_config": {
            "model_type": "clip_text_model",
            "max_position_embeddings": 77,
            "bos_token_id": vocab[BOS],
            "eos_token_id": vocab[EOS],
            "pad_token_id": vocab[EOS],
            "projection_dim": proj,
            **text_cfg,
        },
        "vision_config": {"model_type": "clip_vision_model", "image_size": 224, "num_channels": 3, "projection_dim": proj, **vision_cfg},
    }
    preprocessor = {
        "crop_size": {"height": 224, "width": 224},
        "do_center_crop": True,
        "do_convert_rgb": True,
        "do_normalize": True,
        "do_rescale": True,
        "do_resize": True,
        "feature_extractor_type": "CLIPFeatureExtractor",
        "image_mean": CLIP_MEAN,
        "image_processor_type": "CLIPImageProcessor",
        "image_std": CLIP_STD,
        "processor_class": "CLIPProcessor",
        "resample": 3,
        "rescale_factor": 1 / 255,
        "size": {"shortest_edge": 224},
    }
    special = {"bos_token": BOS, "eos_token": EOS, "pad_token": EOS, "unk_token": EOS}
    tok_config = {
        **special,
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": True,
        "do_lower_case": True,
        "errors": "replace",
        "model_max_length": 77,
        "tokenizer_class": "CLIPTokenizer",
    }
    for name, body in [
        ("config.json", config),
        ("preprocessor_config.json", preprocessor),
        ("tokenizer.json", tok),
        ("tokenizer_config.json", tok_config),
        ("special_tokens_map.json", special),
    ]:
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(body, f, ensure_ascii=False, indent=None if name == "tokenizer.json" else 2)
            f.write("\n")


if __name__ == "__main__":
    main()
