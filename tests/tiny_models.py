"""Tiny sequence-classification models built on the spot (random weights, a vocabulary taken from
the sample set), so the NLI judge is tested without downloading anything. Quality is not the point:
loading, label mapping, windowing, batching and order are.

The default is an ONNX model (the ``onnx`` package's helper API builds the graph: word-piece and
token-type embeddings, mean-pooled, one linear layer) with a ``tokenizers`` word-piece tokenizer,
so the judge is tested on onnxruntime with no PyTorch installed; ``backend="torch"`` saves a
one-layer BERT with transformers instead, for the PyTorch path where it is installed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Optional

import pytest

from conftest import CASES, NOTES

NLI_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def needs_torch():
    """Skip (by design, also in CI) where PyTorch and transformers are not installed: the test
    requirements leave them out, so that no GPU stack is downloaded for the tests."""
    import importlib.util

    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
        pytest.skip("optional: the nli judge's PyTorch path needs torch and transformers (pip install "
                    "'groundlab[nli]'), which the test requirements leave out")


def _vocabulary():
    text = (NOTES.read_text(encoding="utf-8") + CASES.read_text(encoding="utf-8")).lower()
    words = sorted(set(re.findall(r"[a-z]+|\d+|[^\sa-z\d]", text)))
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words


def build_tiny_nli(path: Path, id2label: Dict[int, str] = NLI_LABELS, max_length: int = 64,
                   force: Optional[str] = None, seed: int = 0, backend: str = "onnx") -> Path:
    """Save a tiny classifier to ``path`` (ONNX, or with ``backend="torch"`` a one-layer BERT);
    ``force`` makes it always answer that label."""
    if backend == "onnx":
        return build_tiny_onnx_nli(path, id2label, max_length, force, seed)
    needs_torch()
    import torch
    import transformers
    path.mkdir(parents=True, exist_ok=True)
    vocab = _vocabulary()
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


def build_tiny_onnx_nli(path: Path, id2label: Dict[int, str] = NLI_LABELS, max_length: int = 64,
                        force: Optional[str] = None, seed: int = 0) -> Path:
    """model.onnx, tokenizer.json, tokenizer_config.json and config.json of a tiny classifier."""
    import json

    import numpy as np

    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    path.mkdir(parents=True, exist_ok=True)
    vocab = _vocabulary()
    index = {w: i for i, w in enumerate(vocab)}
    tok = Tokenizer(models.WordPiece(index, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", index["[CLS]"]), ("[SEP]", index["[SEP]"])])
    tok.decoder = decoders.WordPiece()
    tok.save(str(path / "tokenizer.json"))
    (path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": max_length}), encoding="utf-8")
    (path / "config.json").write_text(json.dumps({
        "model_type": "bert", "max_position_embeddings": max_length,
        "id2label": {str(k): v for k, v in id2label.items()}, "label2id": {v: k for k, v in id2label.items()}}),
        encoding="utf-8")
    rng = np.random.default_rng(seed)
    width, labels = 16, len(id2label)
    weight = rng.normal(0, 1, (width, labels)).astype(np.float32)
    bias = np.zeros(labels, dtype=np.float32)
    if force is not None:
        weight[:] = 0
        bias[{v: k for k, v in id2label.items()}[force]] = 10.0
    inits = [numpy_helper.from_array(rng.normal(0, 1, (len(vocab), width)).astype(np.float32), "words"),
             numpy_helper.from_array(rng.normal(0, 1, (2, width)).astype(np.float32), "types"),
             numpy_helper.from_array(weight, "weight"), numpy_helper.from_array(bias, "bias"),
             numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
             numpy_helper.from_array(np.array([-1], dtype=np.int64), "last"),
             numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one")]
    nodes = [
        helper.make_node("Gather", ["words", "input_ids"], ["w"]),
        helper.make_node("Gather", ["types", "token_type_ids"], ["t"]),
        helper.make_node("Add", ["w", "t"], ["e"]),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "last"], ["m3"]),
        helper.make_node("Mul", ["e", "m3"], ["em"]),
        helper.make_node("ReduceSum", ["em", "axis1"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["m3", "axis1"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "one"], ["safe"]),
        helper.make_node("Div", ["summed", "safe"], ["pooled"]),
        helper.make_node("MatMul", ["pooled", "weight"], ["scores"]),
        helper.make_node("Add", ["scores", "bias"], ["logits"]),
    ]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(nodes, "tiny-nli", inputs,
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path / "model.onnx"))
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

    needs_torch()
    import torch
    import transformers
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
