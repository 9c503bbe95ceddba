"""Tiny sequence-classification models built on the spot (random weights, a vocabulary taken from
the sample set), so the NLI judge is tested without downloading anything. Quality is not the point:
loading, label mapping, windowing, batching and order are."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Optional

import pytest

from conftest import CASES, NOTES

NLI_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def build_tiny_nli(path: Path, id2label: Dict[int, str] = NLI_LABELS, max_length: int = 64,
                   force: Optional[str] = None, seed: int = 0) -> Path:
    """Save a one-layer BERT classifier to ``path``; ``force`` makes it always answer that label."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    path.mkdir(parents=True, exist_ok=True)
    text = (NOTES.read_text(encoding="utf-8") + CASES.read_text(encoding="utf-8")).lower()
    words = sorted(set(re.findall(r"[a-z]+|\d+|[^\sa-z\d]", text)))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(str(path / "vocab.txt"), do_lower_case=True,
                                               model_max_length=max_length)
    tokenizer.save_pretrained(str(path))
    config = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=max_length,
        id2label=dict(id2label), label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    model = transformers.BertForSequenceClassification(config)
    if force is not None:
        index = {v: k for k, v in id2label.items()}[force]
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.zero_()
            model.classifier.bias[index] = 10.0
    model.save_pretrained(str(path))
    return path


@pytest.fixture(scope="session")
def tiny_nli(tmp_path_factory) -> Path:
    return build_tiny_nli(tmp_path_factory.mktemp("tiny-nli"))
