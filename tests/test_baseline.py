"""``groundlab agree --baseline``: a previous judge's verdicts against the current ones, claim by claim."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from groundlab import evaluate, load_cases
from groundlab.compare import judge_diff, read_baseline

from conftest import CASES, NOTES


def test_agree_json_keeps_every_claims_verdict_and_label(cli, sample_args):
    a = cli.json("agree", *sample_args, "--judge", "lexical")
    assert len(a["claims"]) == 20
    first = a["claims"][0]
    assert first == {"case_id": "c01", "claim": 1, "text": first["text"], "verdict": "supported",
                     "score": 1.0, "label": "supported"}  # the lexical judge's score: the words found
    c08 = [c for c in a["claims"] if c["case_id"] == "c08"]
    assert [(c["verdict"], c["label"]) for c in c08] == [("supported", "contradicted")]


def test_baseline_from_agree_json_shows_the_claim_that_moved(tmp_path, cli, sample_args):
    old = tmp_path / "old.json"
    code, out, _ = cli("agree", *sample_args, "--judge", "lexical", "--json")
    old.write_text(out, encoding="utf-8")
    a = cli.json("agree", *sample_args, "--judge", "rules", "--baseline", old)
    b = a["baseline"]
    assert (b["compared"], b["verdict_changed"], b["now_agree"], b["no_longer_agree"]) == (20, 1, 1, 0)
    assert b["judge"] == "lexical" and b["judge_identity"]["name"] == "lexical"
    assert [(c["case_id"], c["claim"], c["before"], c["after"], c["move"]) for c in b["changes"]] == \
        [("c08", 1, "supported", "contradicted", "now agrees")]
    assert (b["agreement"]["a"]["count"], b["agreement"]["b"]["count"]) == (17, 18)
    assert b["agreement"]["table"] == {"both": 17, "a_only": 0, "b_only": 1, "neither": 2}
    code, text, _ = cli("agree", *sample_args, "--judge", "rules", "--baseline", old)
    assert code == 0
    section = text.split("against the baseline")[1]
    assert "(judge lexical 1" in section
    assert "20 claims compared, verdict changed on 1" in section
    assert "agreement with the person: 17/20 (85%) before, 18/20 (90%) now; 1 now agree, 0 no longer agree" in section
    assert "c08 claim 1: supported -> contradicted (person contradicted: now agrees)" in section


def _claims_file(tmp_path, edit=None, suffix=".csv"):
    """The rules judge's claims as a claims file (case_id, claim, text, verdict, label, reason)."""
    ev = evaluate(load_cases(CASES, NOTES), "rules")
    frame = ev.claims[["case_id", "claim", "text", "verdict", "label", "reason"]].copy()
    if edit:
        frame = edit(frame)
    path = tmp_path / f"claims{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def test_matching_totals_with_mismatched_claims_become_visible(tmp_path, cli, sample_args):
    def swap(frame):
        # The old judge was right on c05 claim 2 and wrong on c01 claim 1: the same 18 of 20.
        frame.loc[(frame.case_id == "c05") & (frame.claim == 2), "verdict"] = "supported"
        frame.loc[(frame.case_id == "c01") & (frame.claim == 1), "verdict"] = "unsupported"
        return frame

    old = _claims_file(tmp_path, swap)
    b = cli.json("agree", *sample_args, "--judge", "rules", "--baseline", old)["baseline"]
    assert b["agreement"]["a"]["count"] == b["agreement"]["b"]["count"] == 18
    assert (b["verdict_changed"], b["now_agree"], b["no_longer_agree"]) == (2, 1, 1)
    assert b["agreement"]["table"]["a_only"] == b["agreement"]["table"]["b_only"] == 1
    assert b["judge"] is None and b["judge_identity"] is None
    _, text, _ = cli("agree", *sample_args, "--judge", "rules", "--baseline", old)
    assert "18/20 (90%) before, 18/20 (90%) now; 1 now agree, 1 no longer agree: the same totals on different claims" \
        in text
    assert "c01 claim 1: unsupported -> supported (person supported: now agrees)" in text
    assert "c05 claim 2: supported -> unsupported (person supported: no longer agrees)" in text
    assert "(judge not recorded)" in text


def test_claims_whose_text_changed_are_said_not_mispaired(tmp_path, cli, sample_args):
    def reword(frame):
        frame.loc[(frame.case_id == "c02") & (frame.claim == 1), "text"] = "The supplier delivered 70 pieces."
        frame.loc[(frame.case_id == "c02") & (frame.claim == 1), "verdict"] = "supported"
        frame = frame[~((frame.case_id == "c03") & (frame.claim == 2))]
        extra = pd.DataFrame([{"case_id": "c03", "claim": 9, "text": "An old third claim.", "verdict": "supported",
                               "label": None, "reason": ""}])
        return pd.concat([frame, extra], ignore_index=True)

    old = _claims_file(tmp_path, reword)
    b = cli.json("agree", *sample_args, "--judge", "rules", "--baseline", old)["baseline"]
    assert (b["compared"], b["text_changed"], b["new"], b["gone"], b["verdict_changed"]) == (18, 1, 1, 1, 0)
    unpaired = {(u["case_id"], u["claim"]): u["status"] for u in b["unpaired"]}
    assert unpaired == {("c02", 1): "text changed", ("c03", 2): "new", ("c03", 9): "gone"}
    _, text, _ = cli("agree", *sample_args, "--judge", "rules", "--baseline", _claims_file(tmp_path, reword))
    assert "text changed: 1 claim" in text and "was 'The supplier delivered 70 pieces.'" in text


def test_white_space_alone_is_no_change_of_text(tmp_path):
    ev = evaluate(load_cases(CASES, NOTES), "rules")

    def spaced(frame):
        frame["text"] = "  " + frame["text"].str.replace(" ", "  ") + " "
        return frame

    diff = judge_diff(ev.claims, _claims_file(tmp_path, spaced))
    assert diff.counts()["compared"] == 20 and diff.counts()["verdict_changed"] == 0


def test_parquet_claims_file(tmp_path, sample_args, cli):
    pytest.importorskip("pyarrow")
    b = cli.json("agree", *sample_args, "--judge", "lexical", "--baseline", _claims_file(tmp_path, suffix=".parquet"))
    assert b["baseline"]["verdict_changed"] == 1 and b["baseline"]["no_longer_agree"] == 1


@pytest.mark.parametrize("name, content, expect", [
    ("old.json", '{"judge": "rules", "cases": 12}', "holds no per-claim verdicts"),
    ("old.json", "not json", "is not JSON"),
    ("old.csv", "case_id,claim,text\nc01,1,x\n", "lacks the columns verdict, label"),
    ("old.csv", "case_id,claim,text,verdict,label\nc01,1,x,suported,\n", "verdict 'suported' is not one of"),
    ("old.csv", "case_id,claim,text,verdict,label\nc01,1,x,supported,\nc01,1,x,supported,\n", "is listed twice"),
    ("old.csv", "case_id,claim,text,verdict,label\nc01,one,x,supported,\n", "claim number of 1 or more"),
    ("old.txt", "anything", "is neither .json"),
])
def test_a_bad_baseline_is_one_sentence_exit_2_before_judging(tmp_path, cli, sample_args, name, content, expect):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, out, err = cli("agree", *sample_args, "--baseline", path)
    assert code == 2 and out == "" and expect in err and err.count("\n") == 1
    code, _, err = cli("agree", *sample_args, "--baseline", tmp_path / "missing.json")
    assert code == 2 and "does not exist" in err


HEADER = b"case_id,claim,text,verdict,label\n"


def _one_claim_json(claim: str) -> bytes:
    return ('{"claims": [{"case_id": "c01", "claim": %s, "text": "x", "verdict": "supported", "label": null}]}'
            % claim).encode()


@pytest.mark.parametrize("name, content, expect", [
    ("old.csv", b"", "is empty; give a claims file with the columns case_id, claim, text, verdict, label"),
    ("old.csv", HEADER + b"c01,inf,x,supported,\n", "needs a whole claim number of 1 or more, not 'inf'"),
    ("old.csv", HEADER + b"c01,1.7,x,supported,\n", "needs a whole claim number of 1 or more, not '1.7'"),
    ("old.csv", HEADER + b"c01,nan,x,supported,\n", "needs a whole claim number of 1 or more, not 'nan'"),
    ("old.json", _one_claim_json("Infinity"), "needs a whole claim number of 1 or more, not 'inf'"),
    ("old.json", _one_claim_json("1.7"), "needs a whole claim number of 1 or more, not '1.7'"),
    ("old.json", b'{"claims": [1, 2]}', "whose items are not claim records"),
    ("old.csv", HEADER + b"c01,1,caf\xe9,supported,\n", "is not UTF-8 text; save it again as UTF-8"),
    ("old.csv", HEADER + b"c01,1,x,supported,\nc01,2,x,supported,,,\n", "is not a readable CSV file (Error tokenizing"),
    ("old.parquet", b"PAR1 not really parquet", "cannot be read as Parquet (damaged, empty, or not Parquet)"),
    ("old.parquet", b"", "cannot be read as Parquet (damaged, empty, or not Parquet)"),
])
def test_an_unreadable_baseline_is_one_sentence_naming_the_file(tmp_path, cli, sample_args, name, content, expect):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = cli("agree", *sample_args, "--baseline", path)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert f"the baseline {path}" in err and expect in err


def test_a_whole_claim_number_written_as_a_decimal_is_kept(tmp_path):
    path = tmp_path / "old.csv"
    path.write_bytes(HEADER + b"c01,2.0,x,supported,\nc01, 3 ,y,,\n")
    assert read_baseline(path).claims["claim"].tolist() == [2, 3]


def test_score_json_is_no_baseline(tmp_path, cli, sample_args):
    old = tmp_path / "score.json"
    old.write_text(json.dumps(cli.json("score", *sample_args)), encoding="utf-8")
    with pytest.raises(Exception, match="holds no per-claim verdicts"):
        read_baseline(old)
