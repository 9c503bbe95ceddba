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


#: Our own minimal stand-in for HHEM-2.1-Open's remote code: the same interface (a T5 token
#: classifier built from ``config.foundation``, the tokenizer as ``tokenzier``, ``predict(pairs)``
#: returning the probability of "consistent"), so the trust_remote_code loading path runs offline.
HHEM_CODE = '''
import torch
from transformers import AutoConfig, AutoTokenizer, PretrainedConfig, PreTrainedModel, T5ForTokenClassification


class HHEMv2Config(PretrainedConfig):
    model_type = "HHEMv2"

    def __init__(self, foundation="", prompt="{text1} {text2}", **kwargs):
        super().__init__(**kwargs)
        self.foundation = foundation
        self.prompt = prompt


class HHEMv2ForSequenceClassification(PreTrainedModel):
    config_class = HHEMv2Config
    all_tied_weights_keys = {}

    def __init__(self, config):
        super().__init__(config)
        self.t5 = T5ForTokenClassification(AutoConfig.from_pretrained(config.foundation))
        self.prompt = config.prompt
        self.tokenzier = AutoTokenizer.from_pretrained(config.foundation)

    def predict(self, pairs):
        texts = [self.prompt.format(text1=a, text2=b) for a, b in pairs]
        inputs = self.tokenzier(texts, return_tensors="pt", padding=True)
        with torch.no_grad():
            logits = self.t5(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
        return torch.softmax(logits[:, 0, :], dim=-1)[:, 1]
'''

HHEM_PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"


def build_tiny_hhem(root: Path) -> Path:
    """A tiny flan-t5 foundation and an HHEM-shaped model over it, saved under ``root``."""
    import importlib.util
    import json

    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    foundation, model_dir = root / "flan-t5-tiny", root / "hhem-tiny"
    foundation.mkdir(parents=True)
    model_dir.mkdir()
    text = (NOTES.read_text(encoding="utf-8") + HHEM_PROMPT).lower()
    words = ["<pad>", "</s>", "<unk>"] + sorted(set(re.findall(r"[a-z]+|\d+|[^\sa-z\d]", text)))
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    transformers.PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>",
                                         unk_token="<unk>", model_max_length=512).save_pretrained(str(foundation))
    transformers.T5Config(vocab_size=len(words), d_model=16, d_kv=8, d_ff=32, num_layers=1,
                          num_decoder_layers=1, num_heads=2, num_labels=2, decoder_start_token_id=0,
                          pad_token_id=0, eos_token_id=1).save_pretrained(str(foundation))
    (model_dir / "modeling_hhem.py").write_text(HHEM_CODE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("tiny_modeling_hhem", model_dir / "modeling_hhem.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    module.HHEMv2ForSequenceClassification(
        module.HHEMv2Config(foundation=str(foundation), prompt=HHEM_PROMPT)).save_pretrained(str(model_dir))
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    config["auto_map"] = {"AutoConfig": "modeling_hhem.HHEMv2Config",
                          "AutoModelForSequenceClassification": "modeling_hhem.HHEMv2ForSequenceClassification"}
    (model_dir / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    return model_dir
