"""What `groundlab check` and the label-count error say about how answers were split."""

from __future__ import annotations

import json

from conftest import NOTES


def _cases(tmp_path, *objs):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    return path


def _case(cid, answer, **more):
    return dict({"id": cid, "question": "Why is the invoice blocked?", "retrieved": ["D07"], "answer": answer}, **more)


def test_check_notes_claims_that_read_like_a_refusal(cli, tmp_path):
    cases = _cases(tmp_path,
                   _case("a", "Sorry, the invoice stays blocked until the credit memo arrives."),
                   _case("b", "Sorry, that isn't covered in the material I have."),
                   _case("c", "Unfortunately the supplier delivered 90 of 100 pieces [D07]."),
                   _case("d", "The supplier delivered 90 of 100 pieces [D07]."))
    code, out, _ = cli("check", "--cases", cases, "--passages", NOTES)
    assert code == 0
    notes = [line for line in out.splitlines() if "reads like a refusal" in line]
    # a: a refusal-like claim; b is recognised as an abstention; c cites a passage; d is plain
    assert len(notes) == 1 and "(case a): claim 1 \"Sorry, the invoice stays blocked" in notes[0]
    assert "--abstention-phrase" in notes[0]
    # once the wording is declared an abstention, the note goes away
    code, out, _ = cli("check", "--cases", cases, "--passages", NOTES, "--abstention-phrase", r"^Sorry, the invoice")
    assert code == 0 and "reads like a refusal" not in out and "2 abstaining" in out


def test_check_show_claims_shows_every_sentence_and_what_it_counts_as(cli, tmp_path):
    cases = _cases(tmp_path, _case("a", "Reasons:\n- Quantity variance [D07]\n- I can't find the second one."))
    code, out, _ = cli("check", "--cases", cases, "--passages", NOTES, "--show-claims")
    assert code == 0
    assert "a: 1 claim(s), abstains\n  (heading) Reasons:\n  1. Quantity variance [D07]\n" \
           "  (abstention) I can't find the second one." in out


def test_check_on_odd_answers_never_fails(cli, tmp_path):
    cases = _cases(tmp_path, _case("a", "\u200b\u200b"), _case("b", "..."), _case("c", "\x00\x01 [D07]"),
                   _case("d", "the invoice is blocked " * 5000))
    code, out, err = cli("check", "--cases", cases, "--passages", NOTES, "--show-claims")
    assert code == 0 and "Traceback" not in err
    assert "(case a): the answer holds no claim and no abstention; it counts as abstained." in out
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES)
    assert code == 0 and "4 cases, 1 claims" in out


def test_label_count_error_says_how_the_answer_was_split(cli, tmp_path):
    cases = _cases(tmp_path, _case("a", "Sorry, the invoice is blocked. I can't find why.\n\nSteps:",
                                   labels=["supported", "unsupported"]))
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES)
    assert code == 2 and out == ""
    message = err.strip()
    assert len(message.splitlines()) == 1
    for part in ["case a", "2 label(s) for 1 claim(s) found", "(1) \"Sorry, the invoice is blocked.\"",
                 "splits into 3 sentence(s)", "claim \"Sorry, the invoice is blocked.\"",
                 "abstention \"I can't find why.\"", "heading \"Steps:\"", "groundlab check --show-claims",
                 "--abstention-phrase"]:
        assert part in message, message
