"""Numbers found in a text's shape (its digits as 0) and at the places a number can start are the
numbers one search of the whole text finds; framing, language and bound words read per shape are
a claim's own."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from conftest import CASES, NOTES

from groundlab.core import numbers
from groundlab.judges import signals

try:
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

PUBLIC = Path(__file__).resolve().parents[1] / "data" / "public"


def _digit_blind(pattern) -> list:
    """What in ``pattern`` tells one ASCII digit from another: a digit of its own, or a set holding
    some digits and not others (``\\d``, ``\\w`` and the other classes take them all)."""
    digits = set(range(48, 58))
    found: list = []
    c = sre_constants

    def walk(items) -> None:
        for op, av in items:
            if op in (c.LITERAL, c.NOT_LITERAL):
                if av in digits:
                    found.append(chr(av))
            elif op is c.IN:
                chars = set()
                for sop, sav in av:
                    if sop is c.LITERAL:
                        chars.add(sav)
                    elif sop is c.RANGE:
                        chars |= set(range(sav[0], sav[1] + 1))
                if chars & digits and not digits <= chars:
                    found.append(sorted(chr(x) for x in chars & digits))
            elif op is c.SUBPATTERN:
                walk(av[-1])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
                walk(av[2])
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(av[1])
            elif op is getattr(c, "ATOMIC_GROUP", None):
                walk(av)
            elif op is c.GROUPREF_EXISTS:
                walk(av[1])
                if av[2]:
                    walk(av[2])
            elif op not in (c.AT, c.ANY, c.CATEGORY, c.GROUPREF):
                found.append(op)

    walk(sre_parse.parse(pattern.pattern, pattern.flags))
    return found


@pytest.mark.parametrize("pattern", [
    numbers._MENTION, numbers._MENTION_IN_WORDS, numbers._CANDIDATE, numbers._DIGIT_IN_TOKEN, numbers._HAS_DIGIT,
    numbers._ORDINAL_WORD, numbers._COUNT_WORD, signals.LEAD_IN, signals.PASSAGE_REFERENCE, signals.FRAMING,
    signals._REFERENCE_HINT, signals._LETTERS, signals._WORDS_OF, signals._LOWER_WORD, signals._AMOUNT_NEXT,
], ids=lambda p: p.pattern[:30])
def test_the_patterns_read_per_shape_tell_no_digit_from_another(pattern):
    """What is kept per shape (digits as 0) is decided by these patterns alone: one that told a
    digit from another would make "order 2408" and "order 7731" read differently."""
    assert _digit_blind(pattern) == []


def _plain_mentions(text: str):
    """The numbers of a text as read before the shape and the candidate positions: one search with
    the whole pattern over the text."""
    pattern = numbers._MENTION if numbers._HAS_DIGIT.search(text) else numbers._MENTION_IN_WORDS
    clock = [m.span() for m in numbers._AROUND_THE_CLOCK.finditer(text)]  # "24/7" is no number either way
    found = [numbers._mention(m, text) for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in clock)]
    found = [m for m in found if m is not None]
    if len(found) > 1 and any(m.kind == "time" for m in found):
        numbers._hours_of_ranges(found, text)  # "von 8 bis 18 Uhr": the 8 is a time of day too
    return tuple(found)


def _texts(limit_per_set: int = 150):
    out = []
    for path in sorted(PUBLIC.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for k, line in enumerate(fh):
                if k == limit_per_set:
                    break
                obj = json.loads(line)
                out += [obj.get("question") or "", obj.get("answer") or ""]
                out += [r["text"] for r in obj.get("retrieved", []) if isinstance(r, dict)]
    for path in (CASES, NOTES):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            out += [obj[k] for k in ("question", "answer", "text") if k in obj]
    return out + [s for t in out for s in t.split(". ")]


TOKENS = ("0 1 2 3 7 12 2026 2026-03-01 2026-13-45 01.03.2026 31.02.2026 1,250.50 1.000 50 000 EUR USD eur $ $5 5k "
          "10K 3bn 5m a A one One two TWO hundred and - -- , . ; : ( ) _ _1 x1 A4 RM-4711 PRC-112 v1.2.3 ab-cd-5 13th "
          "3rd 0th 00042 first third March Mar. mar May Sept 5th percent per cent % pct twenty-one dozen a dozen zwei "
          "Zwei cinq tres fünf euros 1.5 0.5 No. 256 Nr. 4 Q3 2x 22nd 9.99 thousand million k bn a\u00a0b "
          "3\u00a01 1\u202f000 23:59 10:30am 7/8 50-60 5–10 1e5 €5 £3 ¥100 ٣ ४ 三个工作日 十五天 两万元 3万 百分之五 第一 需要3个 "
          "März ſept").split(" ")


def _fuzz(n: int, seed: int = 5):
    rng = random.Random(seed)
    return ["".join(rng.choice(TOKENS) + rng.choice((" ", "", " ", "  ", "-", ",", ".")) for _ in range(rng.randint(1, 10)))
            for _ in range(n)]


def test_the_numbers_of_a_text_are_those_one_search_of_it_finds():
    texts = _texts() + _fuzz(20_000)
    differ = [t for t in texts if numbers.mentions.__wrapped__(t) != _plain_mentions(t)]
    assert differ == []


def test_texts_that_differ_in_their_digits_share_one_search_and_keep_their_own_values():
    a, b = numbers.mentions("Order 2408 is 1.5 percent over."), numbers.mentions("Order 7731 is 2.5 percent over.")
    assert [(m.value, m.surface, m.start, m.kind) for m in a] == [("2408", "2408", 6, "number"),
                                                                  ("1.5%", "1.5 percent", 14, "percent")]
    assert [m.value for m in b] == ["7731", "2.5%"]
    assert numbers.digit_shape("Order 2408, ٣ days") == "Order 0000, ٣ days"


def test_a_claim_s_framing_language_and_bound_words_read_per_shape_are_its_own():
    texts = [t for t in _texts(60) if numbers._HAS_DIGIT.search(t)] + _fuzz(3000, seed=9) + [
        "Passage 2 states that order 2408 is blocked.", "Here is a summary in 84 words or less.",
        "Based on passages 1 and 3, invoice 5100000001 is blocked (Passage 3).", "It costs more5than 500 EUR.",
        "Over 500 EUR needs approval.", "Sign up to 3 trainings.", "Only 2 approvers, only when abroad.",
        "Der Antrag 2408 muss genehmigt werden.", "3.", "Yes, order 12 ships."]
    for text in texts:
        framed, plain = signals._framed(text), signals.frame(text)
        assert (framed.text, framed.set_aside, framed.framing) == (plain.text, plain.set_aside, plain.framing), text
        assert signals._terms(text) == signals._conflict_terms(text), text
        for lang in ("english", "german"):
            assert signals._claim_language(numbers.digit_shape(text), lang) == \
                   signals._claim_language.__wrapped__(text, lang), text


def test_a_pattern_written_with_the_cjk_ranges_reads_every_text_as_the_whole_pattern_does():
    """The CJK ranges cost ``re`` a walk over 40,000 characters to compile: a ScriptPattern compiles
    them only for a text holding a character above U+3040, and reads every text alike."""
    import re

    from groundlab.core.sentences import CJK_CHARS, ScriptPattern

    source = "[" + CJK_CHARS + r"]+|[^\W\d_" + CJK_CHARS + r"][^\W_" + CJK_CHARS + "]*"
    whole = re.compile(source)
    rng = random.Random(3)
    alphabet = "aZé ß1-" + "\u3040\u3041\u30ff\u4e00\u9fff\uac00\uf900\u00e9\u20ac\U0001f600\u0394\u0416"
    texts = ["Refunds over 500 EUR", "Rückerstattung über 500 €", "Ελληνικά", "审批通常需要3个工作日", "", "\u3040x"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(2000)]
    pattern = ScriptPattern(source)
    for text in texts:
        assert pattern.findall(text) == whole.findall(text), text
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in whole.finditer(text)]
    fresh = ScriptPattern(source)
    assert fresh.findall("Ελληνικά and plain text") and fresh._whole is None  # nothing above U+3040
    assert fresh.findall("审批") == ["审批"] and fresh._whole is not None
    assert (fresh.pattern, fresh.flags) == (source, 0)
    with pytest.raises(ValueError, match="CJK_CHARS"):
        ScriptPattern("[a-z]+")


@pytest.mark.parametrize("text, times", [
    ("Der Service-Desk ist montags bis freitags von 8 bis 18 Uhr erreichbar.", ["T08:00", "T18:00"]),
    ("open from 8 to 18:00", ["T08:00", "T18:00"]),
    ("Mo-Fr 8–18 Uhr", ["T08:00", "T18:00"]),
    ("daily 7-8 p.m. in the evening", ["T19:00", "T20:00"]),
    # a timestamp's zone is no span of hours
    ("PUBLISHED DATETIME: 2017-11-01T14:02:00-08:00", None),
])
def test_a_bare_hour_opening_a_span_of_hours_is_a_time_of_day(text, times):
    found = [m.value for m in numbers.mentions(text) if m.kind == "time"]
    if times is None:
        assert not any(m.kind == "time" and m.surface.isdigit() for m in numbers.mentions(text))
    else:
        assert found == times
