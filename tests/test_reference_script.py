"""bench/reference_score.py, the yardstick of the speed figures, follows the method: on the sample
set it gives the rules judge's figures of the SPEC, and the figures of groundlab score --judge rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import CASES, NOTES

ROOT = Path(__file__).resolve().parents[1]


def test_the_reference_script_gives_the_rules_figures_of_the_method(cli):
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "reference_score.py"), str(CASES), str(NOTES)],
                         capture_output=True, text=True, check=True)
    ref = json.loads(run.stdout)
    assert (ref["faithfulness"]["count"], ref["faithfulness"]["total"]) == (13, 20)
    assert (ref["contradicted"], ref["unsupported"]) == (3, 4)
    assert (ref["hallucination_rate"]["count"], ref["hallucination_rate"]["total"]) == (6, 10)
    assert [round(ref["hallucination_rate"][k], 2) for k in ("low", "high")] == [0.31, 0.83]
    assert (ref["citation_precision"]["count"], ref["citation_precision"]["total"]) == (12, 19)
    assert round(ref["citation_recall"]["rate"], 2) == 0.92
    assert ref["outcomes"] == {"correct": 4, "abstained": 2, "wrong": 6}
    ours = cli.json("score", "--judge", "rules", "--cases", CASES, "--passages", NOTES)
    # the reference's "hallucination_rate" is what the judge flags: groundlab names it so
    for key, (mine, count, total) in {"faithfulness": ("faithfulness", "supported", "claims"),
                                      "hallucination_rate": ("flagged_by_judge", "flagged", "answered"),
                                      "citation_recall": ("citation_recall", "backed", "supported"),
                                      "citation_precision": ("citation_precision", "relevant", "citations"),
                                      "abstention": ("abstention", "abstained", "unanswerable"),
                                      "false_abstention": ("false_abstention", "abstained", "answerable")}.items():
        assert (ref[key]["count"], ref[key]["total"]) == (ours[mine][count], ours[mine][total]), key
        assert abs(ref[key]["high"] - ours[mine]["high"]) < 1e-12
