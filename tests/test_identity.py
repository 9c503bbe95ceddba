"""The judge's identity: what it records for each judge, and that every output carries it."""

from __future__ import annotations

import hashlib
import json

import pytest

from groundlab import ClaimSplitter, DEFAULT_ABSTENTION_PHRASES, evaluate, get_judge, load_cases
from groundlab.identity import alternatives, identity_line, identity_text, judge_identity, splitting_identity

from conftest import CASES, NOTES


def test_rules_identity_names_judge_settings_version_and_splitting():
    from groundlab import __version__

    ident = judge_identity(get_judge("rules"))
    assert ident["name"] == "rules" and ident["version"] == "2" and ident["groundlab"] == __version__
    assert ident["settings"] == {"threshold": 0.75}
    split = ident["splitting"]
    assert split["default_citation_pattern"] and split["default_abstention_phrases"]
    assert split["abstention_phrases"] == len(DEFAULT_ABSTENTION_PHRASES)
    assert split["extra_abstention_phrases"] == []
    assert "model" not in ident and "prompt_version" not in ident


def test_splitting_settings_change_the_identity():
    plain = splitting_identity(ClaimSplitter())
    extra = r"\bno (?:clue|idea)\b"
    more = splitting_identity(ClaimSplitter(abstention_phrases=DEFAULT_ABSTENTION_PHRASES + (extra,)))
    assert more["extra_abstention_phrases"] == [extra]
    assert more["abstention_phrases_sha256"] != plain["abstention_phrases_sha256"]
    assert more["abstention_phrases"] == plain["abstention_phrases"] + 1
    fewer = splitting_identity(ClaimSplitter(abstention_phrases=DEFAULT_ABSTENTION_PHRASES[:5]))
    assert not fewer["default_abstention_phrases"] and fewer["abstention_phrases"] == 5
    cited = splitting_identity(ClaimSplitter(r"\(source: (\w+)\)"))
    assert cited["citation_pattern"] == r"\(source: (\w+)\)" and not cited["default_citation_pattern"]


@pytest.mark.parametrize("phrases", [
    [r"no idea"],
    [r"[|)]+ x\|y", r"(?:a|b)c", r"[]|]z", r"[^]|]w"],
])
def test_phrases_are_read_back_exactly_from_the_splitter(phrases):
    splitter = ClaimSplitter(abstention_phrases=DEFAULT_ABSTENTION_PHRASES + tuple(phrases))
    assert splitting_identity(splitter)["extra_abstention_phrases"] == phrases
    assert alternatives(splitter._extra_re.pattern) == phrases


def test_llm_identity_has_model_prompt_version_and_prompt_hash():
    from groundlab.judges import llm

    ident = judge_identity(get_judge("llm", model="claude-haiku-4-5", dry_run=True))  # a forced tool call
    assert ident["model"] == "claude-haiku-4-5" and ident["prompt_version"] == llm.PROMPT_VERSION
    blob = json.dumps({"system": llm.SYSTEM_PROMPT, "tool": llm.TOOL}, sort_keys=True, default=str)
    assert ident["prompt_sha256"] == hashlib.sha256(blob.encode()).hexdigest()
    assert ident["request_shape"] == "forced record_verdicts tool call, temperature 0"
    # A model answering in JSON is told another closing sentence and given the schema: another hash.
    other = judge_identity(get_judge("llm", model="claude-opus-5-5", dry_run=True))
    assert other["prompt_version"] == ident["prompt_version"] and other["prompt_sha256"] != ident["prompt_sha256"]
    assert other["request_shape"].startswith("JSON output")
    assert "requests: JSON output (output_config.format), adaptive thinking at effort low" in identity_text(other)


def test_nli_identity_hashes_the_weights_it_loaded(tmp_path):
    from tiny_models import build_tiny_nli

    one = build_tiny_nli(tmp_path / "one", seed=0)  # model.onnx
    other = build_tiny_nli(tmp_path / "other", seed=1)
    ident = judge_identity(get_judge("nli", model=str(one)))
    weights = one / "model.onnx"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert ident["model"] == str(one) and ident["model_path"] == str(one.resolve())
    assert ident["weights_files"] == ["model.onnx"]
    assert ident["weights_sha256"] == hashlib.sha256(f"model.onnx {digest}\n".encode()).hexdigest()
    assert judge_identity(get_judge("nli", model=str(other)))["weights_sha256"] != ident["weights_sha256"]
    assert ident["settings"] == {"threshold": 0.5, "overlap": 1}


def test_every_output_carries_the_identity(cli, sample_args):
    ev = evaluate(load_cases(CASES, NOTES), "lexical")
    assert ev.claims.attrs["judge"]["name"] == "lexical"
    extra = ("--abstention-phrase", "no idea")
    score = cli.json("score", *sample_args, *extra)
    agree = cli.json("agree", *sample_args, *extra)
    compared = cli.json("compare", CASES, CASES, "--passages", NOTES, *extra)
    for out in (score, agree, compared):
        assert out["judge_identity"]["name"] == "signals"  # the default judge
        assert out["judge_identity"]["splitting"]["extra_abstention_phrases"] == ["no idea"]
    assert score["judge"] == "signals"  # the judge's name stays where it was


def test_identity_line_escapes_outside_text():
    ident = judge_identity(get_judge("llm", model="<b>m`x</b>", dry_run=True),
                           ClaimSplitter(abstention_phrases=DEFAULT_ABSTENTION_PHRASES + ("<script>|_x_",)))
    md = identity_line(ident)
    assert "model ``<b>m`x</b>``" in md and "extra phrase `<script>|_x_`" in md
    assert "\n" not in md
    page = identity_line(ident, html_output=True)
    assert "<b>" not in page and "<script>" not in page
    assert "<code>&lt;b&gt;m`x&lt;/b&gt;</code>" in page and "<code>&lt;script&gt;|_x_</code>" in page
    assert identity_line(None) == "judge unknown"


def test_the_steering_report_names_the_judge_and_escapes_what_it_quotes(cli, sample_args, tmp_path):
    """report.md and report.html (of score --report and of the workbook) carry the identity line; a
    phrase or pattern holding markup shows as text."""
    from groundlab.report import html_report, steering_report
    from groundlab.workbook import claim_splitter, write_steering_report

    hostile = "<script>alert(1)</script>|_x_"
    splitter = claim_splitter(r"\[(\w+)\]<b>?", [hostile])
    ev = evaluate(load_cases(CASES, NOTES), "rules", splitter=splitter)
    text = steering_report(ev)
    line = next(x for x in text.splitlines() if x.startswith("These figures come from "))
    assert line == f"These figures come from {identity_line(ev.claims.attrs['judge'])}."
    assert f"extra phrase `{hostile}`" in line and "citations `\\[(\\w+)\\]<b>?`" in line
    page = html_report(text)
    assert "<script>alert" not in page and "<b>?" not in page
    assert "extra phrase <code>&lt;script&gt;alert(1)&lt;/script&gt;|_x_</code>" in page
    assert "citations <code>\\[(\\w+)\\]&lt;b&gt;?</code>" in page
    written = write_steering_report(ev, 1.0, tmp_path / "report.md")
    assert line in (tmp_path / "report.md").read_text(encoding="utf-8") and len(written.paths) == 2
    assert "These figures come from judge rules 2" in (tmp_path / "report.html").read_text(encoding="utf-8")
    code, _, err = cli("score", *sample_args, "--judge", "lexical", "--abstention-phrase", hostile,
                       "--report", tmp_path / "score.md")
    assert code == 0, err
    report = (tmp_path / "score.md").read_text(encoding="utf-8")
    assert "These figures come from judge lexical 1 \u00b7 threshold 0.75 \u00b7 groundlab " in report
    assert f"extra phrase `{hostile}`" in report
