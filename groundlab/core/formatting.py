"""How every figure reads, wherever it is shown: the report, the notebooks' tables and the charts.

One quantity has one form everywhere: a rate is a whole percent (``60%``), its range ``31%–83%``,
a difference of two rates whole points with a real minus sign (``−14 points``), a count a whole
number with thousands separators and the right plural (``1 case``, ``1,021 answers``), a weight as
written (``1.5``), the risk-weighted score per 100 answers (``−58 per 100 answers``), a yes/no as
``yes``/``no``, and a missing figure ``n/a``. Column names read as words (``judge's verdict``,
not ``judge_verdict``). Better and worse, pass and fail, take one pair of colours that stays apart
for colour-blind eyes (Okabe & Ito's blue and vermillion), always beside a word and a symbol.

>>> percent(0.6), percent_range(0.31, 0.83), count(1, "case"), count(1021, "answer")
('60%', '31%–83%', '1 case', '1,021 answers')
>>> points(-0.143), points(0.0001), per_100(-7, 12), weight(1.5)
('−14', '+0', '−58 per 100 answers', '1.5')
"""

from __future__ import annotations

import html as _html
import math
import re
from typing import Any, Iterable, Mapping, Optional

from .records import visible

#: The minus sign of a figure for reading (U+2212), not the hyphen.
MINUS = "\u2212"
#: What a figure that cannot be given reads.
MISSING = "n/a"

#: The colours of a state, with the word and symbol always shown beside them: Okabe & Ito's blue
#: for better or met, vermillion for worse or missed, their orange for "not shown yet", grey for
#: no verdict. Text on these reads in white (blue, vermillion) or black (orange, grey).
STATE_COLOURS = {"good": "#0072B2", "bad": "#D55E00", "unsure": "#E69F00", "none": "#6B6B6B"}
#: The symbol that carries a state without its colour.
STATE_SYMBOLS = {"good": "\u2713", "bad": "\u2717", "unsure": "?", "none": "\u2013"}
#: Light backgrounds of the same states, for table rows and tiles.
STATE_TINTS = {"good": "#d6e9f5", "bad": "#f6d5c0", "unsure": "#fbe7b5", "none": "#eeeeee"}
#: Verdicts take the same colours: supported reads as good, contradicted as bad, unsupported as unsure.
VERDICT_STATES = {"supported": "good", "contradicted": "bad", "unsupported": "unsure"}


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def signed(x: float, decimals: int = 0) -> str:
    """``x`` with its sign, a real minus, never ``−0``.

    >>> signed(5), signed(-7.0), signed(-0.2), signed(1.25, 1)
    ('+5', '−7', '+0', '+1.2')
    """
    if _missing(x):
        return MISSING
    value = round(float(x), decimals) + 0.0
    text = f"{value:+,.{decimals}f}"
    return text.replace("-", MINUS)


def number(x: Any) -> str:
    """A count or a whole figure: ``1,021``; a float that is whole reads as one (``5``, not ``5.00``).

    >>> number(1021), number(5.0), number(2.5), number(None)
    ('1,021', '5', '2.5', 'n/a')
    """
    if _missing(x):
        return MISSING
    if isinstance(x, bool):
        return yes_no(x)
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.3g}".replace("-", MINUS)
    return f"{int(x):,}".replace("-", MINUS)


def plural(n: int, one: str, many: Optional[str] = None) -> str:
    """The noun for ``n`` of it: ``case`` for 1, ``cases`` otherwise (``many`` when the plural is not
    ``one + "s"``)."""
    if n == 1:
        return one
    if many is not None:
        return many
    if one.endswith(("s", "x", "sh", "ch")):
        return one + "es"
    if one.endswith("y") and one[-2:-1] not in "aeiou":
        return one[:-1] + "ies"
    return one + "s"


def count(n: Any, one: str, many: Optional[str] = None) -> str:
    """``1 case``, ``12 cases``, ``1,021 answers``.

    >>> count(1, "answer"), count(0, "claim"), count(3, "copy", "copies")
    ('1 answer', '0 claims', '3 copies')
    """
    if _missing(n):
        return f"{MISSING} {plural(2, one, many)}"
    return f"{number(int(n))} {plural(int(n), one, many)}"


def percent(x: Optional[float], decimals: int = 0) -> str:
    """A fraction as a percent: ``60%``; ``n/a`` for an undefined rate (None or NaN).

    >>> percent(0.6), percent(float("nan")), percent(0.025, 1)
    ('60%', 'n/a', '2.5%')
    """
    if _missing(x):
        return MISSING
    return f"{100 * x:.{decimals}f}%"


def percent_range(low: Optional[float], high: Optional[float]) -> str:
    """A 95% range: ``31%–83%``, or ``n/a``."""
    if _missing(low) or _missing(high):
        return MISSING
    return f"{percent(low)}\u2013{percent(high)}"


def points(x: Optional[float]) -> str:
    """A difference of two rates in whole points, signed (``+5``, ``−14``, never ``−0``).

    >>> points(0.05), points(-0.1429), points(-0.004)
    ('+5', '−14', '+0')
    """
    if _missing(x):
        return MISSING
    return signed(100 * float(x))


def points_range(low: Optional[float], high: Optional[float]) -> str:
    """A range of a difference: ``−45 to +45``."""
    if _missing(low) or _missing(high):
        return MISSING
    return f"{points(low)} to {points(high)}"


def score_per_100(total: float, answers: int) -> float:
    """The risk-weighted score per 100 answers scored (NaN over none)."""
    return 100 * float(total) / answers if answers else math.nan


def per_100(total: float, answers: int) -> str:
    """The risk-weighted score as it is shown everywhere: per 100 answers, whole, signed.

    >>> per_100(5, 12), per_100(0, 12), per_100(3, 0)
    ('+42 per 100 answers', '+0 per 100 answers', 'n/a')
    """
    value = score_per_100(total, answers)
    return MISSING if math.isnan(value) else f"{signed(value)} per 100 answers"


def weight(w: float) -> str:
    """A weight or penalty as written: ``1.5``, ``3``, never ``1.500000``."""
    if _missing(w):
        return MISSING
    return f"{float(w):g}".replace("-", MINUS)


def yes_no(value: Any) -> str:
    """``yes``, ``no``, or ``n/a`` for unknown."""
    if _missing(value) or value is None or (hasattr(value, "__class__") and str(value) == "<NA>"):
        return MISSING
    return "yes" if bool(value) else "no"


#: Column names as a table heading shows them, where plain words differ from the name.
COLUMN_NAMES = {
    "case_id": "case", "claim_no": "claim", "judge_verdict": "judge's verdict", "verdict": "judge's verdict",
    "label": "person", "answerable": "answerable?", "cites": "cites", "citation_ok": "cited passages back it",
    "relevant_citations": "relevant citations", "evidence": "deciding evidence sentence",
    "evidence_matched": "words found", "evidence_clashed": "words that clash", "max_rate": "max",
    "log_share": "share of the log", "sample_share": "share of the sample", "false_alarms": "false alarms",
    "caught_rate": "caught", "false_alarm_rate": "false alarms", "hallucinated": "hallucinated",
    "hallucinated_by_person": "hallucinated (person)", "per_100": "per 100 answers", "judge_name": "judge",
}


def column_name(name: Any) -> str:
    """A column name as words: ``judge_verdict`` reads ``judge's verdict``, ``claim_no`` ``claim``,
    any other ``snake_case`` name with spaces.

    >>> column_name("judge_verdict"), column_name("false_abstention"), column_name("95% range")
    ("judge's verdict", 'false abstention', '95% range')
    """
    text = str(name)
    if text in COLUMN_NAMES:
        return COLUMN_NAMES[text]
    if re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", text):
        return text.replace("_", " ")
    return text


def empty_sentence(what: str) -> str:
    """What an empty table says instead of showing its headers alone: ``No citation problems.``"""
    text = what.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def state_label(state: str) -> str:
    """The symbol of a state, to put before its words."""
    return STATE_SYMBOLS.get(state, STATE_SYMBOLS["none"])


def joined(items: Iterable[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def cell(value: Any) -> Any:
    """A table cell for reading: booleans as yes/no, whole floats as whole numbers, tuples as
    comma-separated text; anything else as it is."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        return int(value)
    return value


def readable(frame: "Any", percents: Iterable[str] = (), keep: Mapping[str, str] = ()) -> "Any":
    """A frame for reading: a named index (or a MultiIndex) turned into columns, so no index name
    shows as a second header row; boolean columns as yes/no; tuple cells as text; column names as
    words (``keep`` maps a name to the heading to use instead)."""
    import pandas as pd

    out = frame.copy()
    if out.index.name is not None or isinstance(out.index, pd.MultiIndex):
        out = out.reset_index()
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = [" ".join(str(p) for p in col if str(p)) for col in out.columns]
    percent_columns = set(percents)
    for name in out.columns:
        series = out[name]
        if name in percent_columns:
            continue
        if series.dtype == bool or str(series.dtype) == "boolean":
            out[name] = series.map(yes_no).astype(object)
        elif series.dtype == object:
            out[name] = series.map(cell)
        elif series.dtype.kind == "f" and series.dropna().map(float.is_integer).all():
            out[name] = series.map(lambda v: MISSING if _missing(v) else int(v)).astype(object)
    out.columns = [dict(keep).get(str(c), column_name(c)) for c in out.columns]
    return out


# ---------------------------------------------------------------- outside text in Markdown

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~-])")


def markdown_text(text: str) -> str:
    r"""``text`` as literal Markdown: its markup characters backslash-escaped and ``&``, ``<``, ``>``
    written as entities, so no renderer makes a link, a table cell, code or HTML of it.

    >>> print(markdown_text("[x](javascript:alert(1)) <b>|</b>"))
    \[x\]\(javascript:alert\(1\)\) &lt;b&gt;\|&lt;/b&gt;
    """
    text = visible(" ".join(str(text).splitlines()))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _html.escape(text, quote=False))


def code_span(text: str) -> str:
    """``text`` as a Markdown code span (a file name, a case id): shown as written, never read as
    Markdown or HTML, whatever backticks or markup it holds.

    >>> code_span("a`b.jsonl"), code_span("<script>")
    ('``a`b.jsonl``', '`<script>`')
    """
    text = " ".join(str(text).splitlines())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


__all__ = ["code_span", "markdown_text", "COLUMN_NAMES", "MINUS", "MISSING", "STATE_COLOURS", "STATE_SYMBOLS", "STATE_TINTS", "VERDICT_STATES",
           "cell", "column_name", "count", "empty_sentence", "joined", "number", "per_100", "percent",
           "percent_range", "plural", "points", "points_range", "readable", "score_per_100", "signed",
           "state_label", "weight", "yes_no"]
