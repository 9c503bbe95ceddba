"""Citations as real assistants write them: the built-in styles, one's own pattern beside or instead
of them, a closing list of sources, and numbers read as passages' positions."""

import json
import subprocess
import sys

import pytest

import groundlab as gl
from groundlab.claims import ClaimSplitter, positional_aliases
from groundlab.records import Case, GroundlabError, Passage

KB = (Passage("KB-3", "Refunds over 500 EUR are approved by the team lead."),
      Passage("KB-4", "Refunds are never paid in cash."))


def claims(answer, **kw):
    return [(c.text, c.cites) for c in ClaimSplitter(**kw).split("c", answer).claims]


@pytest.mark.parametrize("answer, expected", [
    ("Refunds need the lead [KB-3].", [("Refunds need the lead.", ("KB-3",))]),
    ("Refunds need the lead (Source: KB-3).", [("Refunds need the lead.", ("KB-3",))]),
    ("Refunds need the lead (source KB-3).", [("Refunds need the lead.", ("KB-3",))]),
    ("Refunds need the lead (Sources: KB-3; KB-4).", [("Refunds need the lead.", ("KB-3", "KB-4"))]),
    ("Refunds need the lead (see KB-5).", [("Refunds need the lead.", ("KB-5",))]),
    ("Refunds need the lead (see also KB-5 and KB-6).", [("Refunds need the lead.", ("KB-5", "KB-6"))]),
    ("Refunds need the lead (Quelle: KB-3).", [("Refunds need the lead.", ("KB-3",))]),
    ("Refunds need the lead[^1].", [("Refunds need the lead.", ("1",))]),
    ("Refunds need the lead\u30101\u3011.", [("Refunds need the lead.", ("1",))]),
    ("Refunds need the lead\u30104\u2020refund-policy.pdf\u3011.", [("Refunds need the lead.", ("4",))]),
    ("Refunds need the lead (Passage 2).", [("Refunds need the lead.", ("2",))]),
    ("Refunds need the lead [Document 1 and 3].", [("Refunds need the lead.", ("1", "3"))]),
    ("The lead approves. (Source: KB-3) Cash is never paid.",
     [("The lead approves.", ("KB-3",)), ("Cash is never paid.", ())]),
])
def test_common_citation_styles_are_read_and_taken_out_of_the_claim(answer, expected):
    assert claims(answer) == expected


@pytest.mark.parametrize("answer", [
    "The lead (Tom) approves refunds.",
    "See the refund section (above).",
    "The 2023 policy (revised) applies.",
    "Refunds (over 500 EUR) need approval.",
    "The fee is 5 EUR (net).",
    "Refunds need approval (see the policy).",
])
def test_brackets_that_cite_nothing_stay_in_the_claim(answer):
    assert claims(answer) == [(answer, ())]


def test_a_closing_sources_line_is_no_claim_and_backs_the_claims_that_cite_nothing():
    answer = "The team lead approves refunds over 500 EUR. They are never paid in cash [KB-4].\n\nSources: [KB-3][KB-4]"
    assert claims(answer) == [("The team lead approves refunds over 500 EUR.", ("KB-3", "KB-4")),
                              ("They are never paid in cash.", ("KB-4",))]
    roles = ClaimSplitter().explain(answer)
    assert roles[-1] == ("sources", "Sources: [KB-3][KB-4]")
    # bare ids on the line, a bold heading, a list under it
    assert claims("The lead approves refunds.\nSources: KB-3, KB-4") == [
        ("The lead approves refunds.", ("KB-3", "KB-4"))]
    assert claims("The lead approves refunds.\n\n**References:**\n1. [KB-3] Refund policy\n2. [KB-4] Cash") == [
        ("The lead approves refunds.", ("KB-3", "KB-4"))]


def test_a_sources_heading_followed_by_prose_is_part_of_the_answer():
    answer = "Sources: the ERP and the CRM both feed the report.\nIt runs every night at 2 a.m. and takes an hour."
    assert claims(answer) == [("Sources: the ERP and the CRM both feed the report.", ()),
                              ("It runs every night at 2 a.m. and takes an hour.", ())]


def test_a_pattern_of_ones_own_adds_to_the_built_in_styles_or_replaces_them():
    answer = "The lead approves refunds {KB-3}. Cash is never paid [KB-4]."
    mine = r"\{([A-Z]+-\d+)\}"
    assert claims(answer, citation_pattern=mine) == [("The lead approves refunds.", ("KB-3",)),
                                                     ("Cash is never paid.", ("KB-4",))]
    assert claims(answer, citation_pattern=mine, default_citations=False) == [
        ("The lead approves refunds.", ("KB-3",)), ("Cash is never paid [KB-4].", ())]
    with pytest.raises(GroundlabError, match="exactly one group"):
        ClaimSplitter(citation_pattern=r"\{[A-Z]+\}")


def test_numbers_cite_passages_by_position_when_the_passages_carry_other_ids():
    assert positional_aliases(["KB-3", "KB-4"], ["1", "2", "3"]) == {"1": "KB-3", "2": "KB-4"}
    assert positional_aliases(["7", "9"], ["1"]) == {}  # ids that are numbers: a number is an id
    case = Case("h1", "Who approves refunds over 500 EUR?", KB,
                "Refunds over 500 EUR are approved by the team lead [1]. They are never paid in cash [2].")
    ev = gl.evaluate([case], "rules")
    assert [tuple(c) for c in ev.claims.cites] == [("KB-3",), ("KB-4",)]
    assert ev.claims.citation_ok.tolist() == [True, True]
    assert ev.cases.cites_by_position.tolist() == [True]
    kept = Case("h2", case.question, (Passage("1", KB[0].text), Passage("2", KB[1].text)), case.answer)
    assert gl.evaluate([kept], "rules").cases.cites_by_position.tolist() == [False]


def _write(tmp_path, answer, passages=KB):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "h1", "question": "Who approves refunds?",
                                "retrieved": [{"id": p.id, "text": p.text} for p in passages],
                                "answer": answer}) + "\n", encoding="utf-8")
    return path


def run(*args):
    return subprocess.run([sys.executable, "-m", "groundlab", *args], capture_output=True, text=True)


def test_check_and_score_say_when_numbers_are_read_as_positions(tmp_path):
    path = _write(tmp_path, "The team lead approves refunds over 500 EUR [1]. They are never paid in cash [2]. "
                            "Cash refunds are described in [5].")
    out = run("check", "--cases", str(path))
    assert out.returncode == 0, out.stderr
    assert "citations read by position" in out.stdout and "[1] as KB-3, [2] as KB-4" in out.stdout
    # a number beyond the passages cannot be one, and the note says why
    assert "claim 3 cites 5, which was not retrieved" in out.stdout and "at most the number of passages" in out.stdout
    score = run("score", "--cases", str(path), "--judge", "rules", "--json")
    assert score.returncode == 0, score.stderr
    assert "read as the passage at that position" in score.stderr
    assert json.loads(score.stdout)["citation_recall"]["backed"] == 2


def test_the_command_line_adds_ones_own_pattern_and_can_drop_the_built_in_ones(tmp_path):
    path = _write(tmp_path, "The team lead approves refunds over 500 EUR {KB-3}. They are never paid in cash [KB-4].")
    both = json.loads(run("score", "--cases", str(path), "--judge", "rules", "--json",
                          "--citation-pattern", r"\{([A-Z]+-\d+)\}").stdout)
    assert both["citation_precision"]["citations"] == 2
    only = run("score", "--cases", str(path), "--judge", "rules", "--json", "--citation-pattern",
               r"\{([A-Z]+-\d+)\}", "--no-default-citations")
    assert json.loads(only.stdout)["citation_precision"]["citations"] == 1
    alone = run("score", "--cases", str(path), "--no-default-citations")
    assert alone.returncode == 2 and "no citation pattern of your own" in alone.stderr
    assert "Traceback" not in alone.stderr


def test_the_signals_judge_reads_a_claim_without_its_citation():
    case = Case("h1", "Who approves refunds?", KB,
                "Refunds over 500 EUR are approved by the team lead (Source: KB-3).")
    ev = gl.evaluate([case], "signals")
    assert ev.claims.verdict.tolist() == ["supported"]
    assert "Source" not in ev.claims.reason[0]
    assert list(ev.claims.cites[0]) == ["KB-3"] and ev.claims.citation_ok.tolist() == [True]
