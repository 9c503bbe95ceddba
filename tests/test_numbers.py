"""Numbers however they are written: the mentions module and the rules judges built on it."""

from __future__ import annotations

import pytest

from groundlab.judges import get_judge
from groundlab.numbers import mentions, number_mentions
from groundlab.records import Evidence, Passage


def values(text):
    return [value for value, _ in number_mentions(text)]


@pytest.mark.parametrize("forms, value", [
    (["2 free service appointments", "two free service appointments", "Two appointments"], "2"),
    (["21 days", "twenty-one days", "twenty one days"], "21"),
    (["a dozen orders", "12 orders", "twelve orders"], "12"),
    (["105 pieces", "one hundred and five pieces", "a hundred and five pieces"], "105"),
    (["90 of them", "ninety of them"], "90"),
    (["50,000 pieces", "50 000 pieces", "50000 pieces", "50\u00a0000 pieces", "fifty thousand pieces"], "50000"),
    (["2 million", "2,000,000", "two million"], "2000000"),
    (["1.5", "1.50", "1,5"], "1.5"),
    (["3%", "3 %", "3 percent", "3 per cent", "three per cent", "three percent"], "3%"),
    (["1.5 percent", "1.5%", "1,5 %"], "1.5%"),
    (["EUR 50", "EUR50", "50 EUR", "50 euros", "fifty euros", "\u20ac50", "50\u20ac", "\u20ac 50"], "EUR 50"),
    (["USD 1,250.50", "$1,250.50", "1,250.50 dollars"], "USD 1250.5"),
    (["EUR 1.250,50"], "EUR 1250.5"),
    # two to twelve in German, French and Spanish
    (["fünf Werktage", "Fünf Werktage", "cinq jours", "cinco días", "5 Werktage"], "5"),
    (["zwölf Monate", "douze mois", "doce meses"], "12"),
    # short scales: k always; m, mn, b, bn with a currency
    (["$5k", "$5K", "USD 5k", "5,000 USD", "$5,000", "5k dollars"], "USD 5000"),
    (["10K", "10k", "10,000", "ten thousand"], "10000"),
    (["\u20ac1.2m", "EUR 1.2mn", "\u20ac1,200,000", "1.2 million euros"], "EUR 1200000"),
    (["$3bn", "$3B", "USD 3 billion"], "USD 3000000000"),
    # dots between groups of three digits: thousands when there are several, or in money
    (["1.000.000", "1,000,000", "one million"], "1000000"),
    (["1.000 EUR", "EUR 1.000", "1,000 euros", "\u20ac1000"], "EUR 1000"),
    (["1 March 2026", "March 1, 2026", "2026-03-01", "01.03.2026", "1st March 2026", "Mar 1, 2026",
      "1. M\u00e4rz 2026", "1 mars 2026"], "2026-03-01"),
    (["March 2026", "in Mar 2026"], "2026-03"),
])
def test_every_form_of_a_number_has_one_value(forms, value):
    for form in forms:
        assert values(form) == [value], form


@pytest.mark.parametrize("code", ["4500017311", "PRC-112", "RM-4711", "v1.2.3", "00042", "2026-13-45",
                                  "5m", "5B", "12km", "5kg", "5thx", "th5"])
def test_codes_stay_exact_tokens(code):
    assert values(f"See {code} now.") == [code.lower()]


@pytest.mark.parametrize("text, value", [("the 5th reminder", "5"), ("on the 13th", "13"), ("1st level", "1"),
                                         ("2nd approver", "2"), ("the 3rd", "3"), ("the 21st century", "21"),
                                         ("the 13TH", "13")])
def test_ordinals_in_digits_are_their_number(text, value):
    assert values(text) == [value]


def test_ordinal_words_are_read_for_the_evidence_only():
    from groundlab.numbers import ordinal_words

    assert [(m.value, m.surface) for m in ordinal_words("The third reminder goes out in the twenty-first week; "
                                                        "the Second one is free.")] == [
        ("3", "third"), ("21", "twenty-first"), ("2", "Second")]
    assert values("A third party approves the second step.") == []  # a claim's ordinal words are words
    assert ordinal_words("Thanks for the note.") == ()
    assert [(m.value, m.surface) for m in ordinal_words("Reminders go out twice, to a couple of approvers.")] == [
        ("2", "twice"), ("2", "a couple of")]
    assert values("It runs twice as fast.") == []


@pytest.mark.parametrize("text, expected", [
    ("审批通常需要3个工作日[KB-7]。", ["3", "kb-7"]),  # the number, not the whole run of characters
    ("订单4500017311被冻结。", ["4500017311"]),
    ("納期は10日です。", ["10"]),
    # numbers in Chinese characters, where a measure word or a unit follows
    ("审批通常需要三个工作日。", ["3"]),
    ("一个工作日内完成。", ["1"]),  # one working day
    ("这是一个问题。", []),  # "a question": 一 before 个 is a number only before a unit of time
    ("统一管理，一般来说。", []),  # unify, usually: no number
    ("第三个月", []),  # the third month: an ordinal
    ("十五天、二十三次、两万元", ["15", "23", "20000"]),
    ("三四天", []),  # three or four days: a range
    ("增长百分之五", ["5%"]),
    ("预算为两亿三千万元，其中一万五千元", ["230000000", "15000"]),  # 万 scales its section, 亿 all before it
    ("预算为3万元，收入2.3亿元", ["30000", "230000000"]),  # digits before 万 and 亿
    ("第十三个月", []),  # an ordinal however many numerals follow 第
    ("费用为五百欧元", ["EUR 500"]),
    ("1.500 kg", ["1.5"]),  # one group of three after a dot, no currency: a decimal, as written
    ("Run the DOS commands once.", []),  # "DOS" in capitals, "once" in English: no number
    ("Le produit est neuf, the dos and don'ts.", []),  # "neuf" is also new, "dos" also English
    ("1 234,5 und 2 000 000,00 \u20ac", ["1234.5", "EUR 2000000"]),  # spaces between thousands, a decimal comma
    ("Tracking 123456789012345678901234567890 and 123456789012345678901234567899",
     ["123456789012345678901234567890", "123456789012345678901234567899"]),  # every digit kept
    ("1 \u017fept 2026, \u017fept 2026 and APR\u0130L 3, 2026", ["2026-09-01", "2026-09", "apri\u0307l 3, 2026"]),
])
def test_numbers_inside_text_written_without_spaces(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize("text", [
    "The one who approves is the buyer.",
    "One of the suppliers was late.",
    "No one approved it.",
    "Each one is checked.",
    "A one-time fee applies.",
    "The second reminder goes out.",
])
def test_one_as_a_pronoun_and_ordinals_are_no_numbers(text):
    assert values(text) == []


@pytest.mark.parametrize("text", ["It takes one day.", "It takes one working day.", "One invoice is blocked.",
                                  "one percent", "Invoices above 10 000 EUR need one approval."])
def test_one_before_a_unit_is_a_number(text):
    assert [v.rstrip("%") for v in values(text) if "EUR" not in v] == ["1"]


def test_surface_and_offsets_are_as_written():
    text = "Pay EUR 1,250.50 within two weeks of 1 March 2026."
    found = mentions(text)
    assert [(m.surface, text[m.start:m.end], m.kind) for m in found] == [
        ("EUR 1,250.50", "EUR 1,250.50", "money"), ("two", "two", "number"),
        ("1 March 2026", "1 March 2026", "date")]


# ---------------------------------------------------------------- the rules judges


def judged(claim, passage, judge="rules", question="What applies?"):
    verdict = get_judge(judge).judge(claim, Evidence(question, (Passage("P1", passage),)))
    return verdict.label, verdict.reason


@pytest.mark.parametrize("judge", ["rules", "lexical"])
@pytest.mark.parametrize("claim, passage", [
    ("The customer gets 2 free service appointments.", "The customer gets two free service appointments."),
    ("The customer gets two free service appointments.", "The customer gets 2 free service appointments."),
    ("The limit is 50,000 pieces.", "The limit is 50 000 pieces."),
    ("The tolerance is 3 percent.", "The tolerance is 3%."),
    ("The tolerance is three per cent.", "The tolerance is 3 %."),
    ("The fee is EUR 50.", "The fee is 50 euros."),
    ("The fee is \u20ac50.", "The fee is EUR 50."),
    ("Payment is due on 1 March 2026.", "Payment is due on 2026-03-01."),
    ("Payment is due on March 1, 2026.", "Payment is due on 01.03.2026."),
    ("Payment is due in 2026.", "Payment is due on 1 March 2026."),
    ("A dozen orders are blocked.", "12 orders are blocked."),
    ("Team leads approve purchases up to $5k.", "Team leads approve purchases up to 5,000 USD."),
    ("Refunds over 1.000 EUR need approval.", "Refunds over EUR 1,000 need approval."),
    ("审批通常需要3个工作日。", "审批通常需要三个工作日。"),
    ("Erstattungen werden innerhalb von 5 Werktagen bearbeitet.",
     "Erstattungen werden innerhalb von fünf Werktagen bearbeitet."),
])
def test_the_same_number_written_differently_is_supported(judge, claim, passage):
    label, reason = judged(claim, passage, judge)
    assert label == "supported", reason


@pytest.mark.parametrize("claim, passage, shown", [
    ("The customer gets 3 free service appointments.", "The customer gets two free service appointments.",
     "number 3 is not in the evidence, which gives two"),
    ("The fee is EUR 60.", "The fee is 50 euros.", "number EUR 60 is not in the evidence, which gives 50 euros"),
    ("The fee is USD 50.", "The fee is 50 euros.", "number USD 50 is not in the evidence, which gives 50 euros"),
    ("The limit is 50,000 pieces.", "The limit is 5,000 pieces.",
     "number \"50,000\" is not in the evidence, which gives \"5,000\""),
    ("Payment is due on 2 March 2026.", "Payment is due on 01.03.2026.",
     "number 2 March 2026 is not in the evidence, which gives 01.03.2026"),
    ("The tolerance is four percent.", "The tolerance is 3 %.",
     "number four percent is not in the evidence, which gives 3 %"),
])
def test_a_contradicted_reason_shows_both_numbers_as_written(claim, passage, shown):
    label, reason = judged(claim, passage)
    assert (label, reason) == ("contradicted", shown)


def test_codes_must_match_exactly():
    assert judged("Error PRC-113 means a price is missing.", "Error PRC-112 means a price is missing.")[0] == \
        "contradicted"
    assert judged("Install v1.2.4 first.", "Install v1.2.3 first.")[0] == "contradicted"


def test_number_words_are_not_content_words():
    # "two" and "percent" are compared as numbers; were they content words, coverage would drop
    label, reason = judged("Two percent is the limit.", "The limit is 2%.")
    assert label == "supported" and reason.startswith("1/1 content words")


def test_the_one_who_does_not_contradict():
    label, reason = judged("The one who approves is the credit analyst.",
                           "The credit analyst approves the release of 2 orders.")
    assert label != "contradicted" or "number" not in reason


def test_no_dot_before_a_number_is_no_negation():
    # "No. 256" numbers a rule; the claim is not negated, so there is no negation flip
    assert judged("The release follows rule No. 256.", "The release follows rule 256.")[0] == "supported"
    assert judged("The release follows rule 256.", "The release follows rule No. 256.")[0] == "supported"
    # a real "no" still is a negation
    assert judged("No release follows rule 256.", "The release follows rule 256.")[0] == "contradicted"


def test_one_approval_where_the_passage_asks_for_two_is_contradicted():
    evidence = Evidence("How is a blocked invoice released?",
                        (Passage("KB-7", "Invoices above 10,000 EUR need two approvals."),))
    verdict = get_judge("rules").judge("Invoices above 10 000 EUR need one approval.", evidence)
    assert verdict.label == "contradicted" and "one" in verdict.reason and "two" in verdict.reason


@pytest.mark.parametrize("claim, label", [
    ("Die Rechnung ist für die Zahlung gesperrt.", "supported"),   # accented words are whole words
    ("Die Rechnung ist für die Lieferung freigegeben.", "unsupported"),
    ("发票被冻结。", "supported"),                                    # no spaces: read as pairs of characters
    ("供应商已经全额付款并关闭了订单。", "unsupported"),
])
def test_words_of_other_scripts_are_compared(claim, label):
    evidence = Evidence("", (Passage("P1", "Die Rechnung ist für die Zahlung gesperrt."),
                             Passage("P2", "发票被冻结。买方必须处理。")))
    assert get_judge("rules").judge(claim, evidence).label == label


@pytest.mark.parametrize("text, values", [
    ("P1 incidents are handled 24/7.", ["p1"]),
    ("Support is available 24x7 and 24 × 7.", []),
    ("The hotline is staffed 24/7/365.", []),
    ("The meeting is on 24/7/2026.", ["24", "7", "2026"]),  # no idiom: what the text says is read as before
    ("124/7 pieces", ["124", "7"]),
])
def test_around_the_clock_is_no_number(text, values):
    assert [m.value for m in mentions(text)] == values


@pytest.mark.parametrize("text, expected", [
    ("Lunch: -11.20 EUR", [("EUR 11.2", "money")]),
    ("Breakfast (-5.60 EUR) is deducted.", [("EUR 5.6", "money")]),
    ("-5% on the list price", [("5%", "percent")]),
    # a hyphen after a letter or a digit still joins a code or a range
    ("KB-11 and P-1", [("kb-11", "code"), ("p-1", "code")]),
    ("10-12 days", [("10", "code"), ("12", "code")]),
])
def test_a_hyphen_after_a_space_or_a_bracket_is_a_minus_sign(text, expected):
    assert [(m.value, m.kind) for m in mentions(text)] == expected


@pytest.mark.parametrize("judge", ["rules", "signals"])
def test_an_amount_with_a_minus_sign_is_the_amount_the_passage_gives(judge):
    passage = Passage("TR-4", "Meals provided by the employer reduce the allowance: 11.20 EUR for a lunch.")
    verdict = get_judge(judge).judge("Lunch provided: -11.20 EUR.", Evidence("Lunch?", [passage]))
    assert "is not in the evidence" not in verdict.reason, verdict.reason


@pytest.mark.parametrize("text, value", [
    ("backed up every day at 10 pm", "T22:00"), ("at 10pm", "T22:00"), ("at 10 p.m.", "T22:00"),
    ("at 10am", "T10:00"), ("um 14 Uhr", "T14:00"), ("bis 14.30 Uhr", "T14:30"), ("at 12 a.m.", "T00:00"),
])
def test_a_whole_hour_with_its_marker_is_a_time_of_day(text, value):
    found = mentions(text)
    assert [(m.kind, m.value) for m in found] == [("time", value)], found


@pytest.mark.parametrize("text", ["Sie haben 3 am Stück.", "Take 9 am Montag", "10 Uhrzeiten"])
def test_a_number_before_am_or_a_word_starting_uhr_is_no_time(text):
    assert all(m.kind != "time" for m in mentions(text))
