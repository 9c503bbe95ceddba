"""The report's decision panel: a tile per headline (hallucination rate, false abstention,
citation accuracy), each with its figure, its 95% range, the target where a targets file gives
one and a state in words and colour; a tile saying how far the judge can be trusted; with a second
configuration the difference B − A (:func:`decision_tiles`, :func:`comparison_tile`); the
decision in one sentence (:func:`decision_line`) and the panel as Markdown (:func:`panel_markdown`).
Every figure comes from the run's summary and reads as :mod:`groundlab.formatting` writes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence

from ..core import formatting as fmt
from ..measure.evaluate import Evaluation
from ..core.formatting import markdown_text
from ..core.metrics import citations_undecided
from ..measure.summary import agree_summary, rates, score_summary

if TYPE_CHECKING:  # pragma: no cover
    from ..production.targets import Targets


#: How precise a headline must be before the panel stops asking for more answers: ±5 points.
MARGIN = 0.05


@dataclass(frozen=True)
class Tile:
    """One tile of the decision panel: the figure, its 95% range as a bar, the target line where a
    targets file gives one, and a state in words (``state`` is ``good``, ``bad``, ``unsure`` or
    ``none``; its colour and symbol come from :mod:`groundlab.formatting`).

    ``scale`` is ``rate`` (0 to 100%) or ``points`` (a difference, −100 to +100 points);
    ``low``/``high``/``value``/``target`` are fractions on it (``None`` when there is none)."""

    key: str
    title: str
    figure: str
    state: str
    state_text: str
    detail: str = ""
    value: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    target: Optional[float] = None
    target_text: str = ""
    scale: str = "rate"
    #: Where the tile's figure comes from, in the page: ``(href, words)`` pairs (the details below,
    #: the claims behind it in notebook 01's HTML copy).
    links: tuple = ()

    @property
    def range_text(self) -> str:
        if self.low is None or self.high is None:
            return ""
        if self.scale == "points":
            return f"95% range {fmt.points_range(self.low, self.high)} points"
        return f"95% range {fmt.percent_range(self.low, self.high)}"


def _state_of_rate(rate: Optional[float], low: Optional[float], high: Optional[float], n: int,
                   target: Optional[float], direction: str, unit: str, margin: float = MARGIN,
                   need: Optional[int] = None, decided: Optional[str] = None) -> tuple:
    """``(state, words)`` of a headline: meets or misses its target, or not enough answers yet to
    say (with ``need``, the answers a ±``margin`` range needs, from the run's summary), or no target
    set (the state is then ``none``: without a target a tile decides nothing). Against a target the
    state is ``decided``, the state of its row in the targets table
    (:func:`groundlab.targets.target_state`, the one place that decides it); without that row, the
    same function decides here."""
    if rate is None or rate != rate or not n:
        return "none", f"not measured: no {fmt.plural(2, unit)} to count"
    more = f"not enough {fmt.plural(2, unit)} yet: you have {fmt.number(n)}; \u00b1{100 * margin:g} points needs " \
           f"{fmt.number(need)}"
    wide = (high - low) / 2 > margin
    if target is not None:
        from ..production.targets import target_state

        bound = f"{'at most' if direction == 'max' else 'at least'} {fmt.percent(target, 1 if target * 100 % 1 else 0)}"
        state = decided or target_state(rate, low, high, n, target, direction).state
        if state == "good":
            return "good", f"meets the target: {bound}"
        if state == "bad":
            return "bad", f"misses the target: {bound}"
        return "unsure", f"{more} to show it is {bound}"
    if wide and need:
        return "none", f"no target set; {more}"
    return "none", "no target set"


def decision_tiles(evaluation: Evaluation, targets: Optional["Targets"] = None, comparison: Any = None,
                   margin: float = MARGIN, summary: Optional[Mapping[str, Any]] = None, sheet: str = "",
                   table: Any = None) -> List[Tile]:
    """The decision panel's tiles: the hallucination rate (people's: by their labels, or the
    judge's flags corrected by them; *not measured yet* without labels, with the labels that would
    settle it), false abstention, citation accuracy, how far the judge can be trusted, and with a
    ``comparison`` (:class:`groundlab.workbook.ConfigurationComparison`) the difference B − A.
    Every figure comes from ``summary`` (:func:`groundlab.summary.score_summary`); against
    ``targets`` each headline's state is its row's in ``table`` (:func:`groundlab.targets.target_table`,
    made here when not given), as ``score --targets`` decides it."""
    from .headline import agreement_words, flagged_words, hallucination_words, label_request_words

    s = summary if summary is not None else score_summary(evaluation, margin=margin)
    r = rates(evaluation)
    decided = _row_states(evaluation, targets, s, table)
    tiles: List[Tile] = []
    words = hallucination_words(s)
    h = s["hallucination_rate"]
    limit = targets.overall if targets is not None else None
    target_text = f"target at most {fmt.percent(limit)}" if limit is not None else ""
    if words.measured:
        detail = f"{words.how}; {flagged_words(s)}."
        if h["basis"] == "people":
            state, state_text = _state_of_rate(words.value, words.low, words.high, h["answered"], limit, "max", "answer",
                                               margin, s["answers_needed"]["hallucination_rate"],
                                               decided.get("all answers"))
        else:
            state, state_text = _state_of_rate(words.value, words.low, words.high, h["answered"], limit, "max",
                                               "answer", margin, None, decided.get("all answers"))
            request = s.get("label_request") or {}
            if state in ("none", "unsure") and request.get("more"):
                more = label_request_words(s, sheet)
                state_text = (f"{state_text}; {more}" if state == "unsure" or limit is not None else
                              f"no target set; {more}")
        tiles.append(Tile("hallucination", "Hallucination rate", words.figure, state, state_text,
                          _with_basis(detail, s) if (s.get("label_request") or {}).get("more") else detail,
                          words.value, words.low, words.high, limit, target_text))
    else:
        detail = (f"{flagged_words(s)}: the judge's own share, which at a low base rate can be several times the "
                  "rate people find, so it is not shown as the rate.")
        tiles.append(Tile("hallucination", "Hallucination rate", words.figure, "unsure",
                          f"not measured yet: {label_request_words(s, sheet)}" if s.get("label_request") else
                          f"not measured: {words.how}", _with_basis(detail, s), None, None, None, limit,
                          target_text))

    fa = r["false abstention"]
    limit = targets.max_false_abstention if targets is not None else None
    state, words_ = _state_of_rate(fa.rate if fa.total else None, *(fa.interval if fa.total else (None, None)),
                                   fa.total, limit, "max", "answerable question", margin,
                                   s["answers_needed"]["false_abstention"], decided.get("false abstention"))
    tiles.append(Tile("false_abstention", "False abstention", fmt.percent(fa.rate) if fa.total else fmt.MISSING,
                      state, words_,
                      (f"declined {fa.count} of {fmt.count(fa.total, 'question')} the passages could answer."
                       if fa.total else "no case says whether its question could be answered: add \"answerable\": "
                                        "true or false to the cases (or label them in the sheet)."),
                      fa.rate if fa.total else None, *(fa.interval if fa.total else (None, None)), limit,
                      f"target at most {fmt.percent(limit)}" if limit is not None else ""))

    cp = r["citation precision"]
    limit = targets.min_citation_accuracy if targets is not None else None
    if cp.total:
        state, words_ = _state_of_rate(cp.rate, *cp.interval, cp.total, limit, "min", "citation", margin,
                                       s["answers_needed"]["citation_precision"], decided.get("citation accuracy"))
        tiles.append(Tile("citations", "Citation accuracy", fmt.percent(cp.rate), state, words_,
                          f"{cp.count} of {fmt.count(cp.total, 'citation')} point at a passage that backs the claim.",
                          cp.rate, *cp.interval, limit,
                          f"target at least {fmt.percent(limit)}" if limit is not None else ""))
    else:
        undecided = citations_undecided(evaluation.claims)
        tiles.append(Tile("citations", "Citation accuracy", fmt.MISSING, "none",
                          "not measured: every citation check was left undecided" if undecided else
                          "not measured: the answers cite no passage",
                          f"{fmt.count(undecided, 'cited claim')} left undecided." if undecided else
                          "no answer cites a passage.", target=limit,
                          target_text=f"target at least {fmt.percent(limit)}" if limit is not None else ""))

    a = agree_summary(evaluation)
    if a["agreement"]["claims"]:
        c, f = a["caught"], a["false_alarms"]
        # both sides of the judge: what it catches is worth only as much as its false alarms allow
        caught = f"caught {fmt.percent(c['rate'])}" if c["hallucinated"] else "nothing to catch"
        alarms = f"false alarms {fmt.percent(f['rate'])}" if f["supported"] else "no supported claim"
        figure = f"{caught} · {alarms}"
        tiles.append(Tile("judge", "Can the judge be trusted?", figure, "none",
                          f"checked against people on {fmt.count(a['agreement']['claims'], 'labeled claim')}",
                          f"It {agreement_words(a)}.",
                          c["rate"], c["low"], c["high"]))
    else:
        tiles.append(Tile("judge", "Can the judge be trusted?", "not checked", "unsure", "not checked against people",
                          "No claim carries a person's label: the labels the hallucination rate asks for measure "
                          "what the judge catches and how often it raises false alarms too."))

    if comparison is not None:
        tiles.append(comparison_tile(comparison))
    return tiles


def _row_states(evaluation: Evaluation, targets: Optional["Targets"], summary: Mapping[str, Any],
                table: Any = None) -> dict:
    """The state of each headline's target, by its row's name (``all answers``, ``false
    abstention``, ``citation accuracy``), from the targets table."""
    if targets is None:
        return {}
    if table is None:
        from ..production.targets import target_table

        table = target_table(targets, evaluation.claims, evaluation.cases, summary)
    return dict(zip(table["target"], table["state"]))


def decision_line(tiles: Sequence[Tile], targets: Optional["Targets"], summary: Mapping[str, Any],
                  table: Any = None) -> str:
    """The panel's first line: without targets, how to set them; with them, the decision: meets
    every target, misses one (which), or cannot tell yet (what it needs). With ``table`` (the
    targets table, :func:`groundlab.targets.target_table`) every target of the file decides, the
    finer ones by kind and process too, as ``score --targets`` exits on them; without it, the
    headlines' tiles."""
    from ..production.targets import HEADLINE_ROWS
    from .headline import label_request_words

    if table is not None and targets is not None:
        judged = [(HEADLINE_ROWS.get(row["target"]) or markdown_text(row["target"]), row["state"], row["status"])
                  for row in table.to_dict("records")]  # a process is named as the cases write it: escaped
    else:
        judged = [(t.title.lower(), t.state, "" if t.value is not None else "no data") for t in tiles
                  if t.target is not None and t.scale == "rate"]
    if targets is None or not judged:
        return ("No targets are set, so no tile can say whether the assistant is ready: write a targets file "
                "(`groundlab targets targets.toml` writes a starter to edit) and run again with "
                "`--targets targets.toml`.")
    missed = [name for name, state, _ in judged if state == "bad"]
    if missed:
        return f"**Not ready:** it misses the target for {_and(missed)}."
    if summary["hallucination_rate"]["rate"] is None and any(name == "hallucination rate" for name, _, _ in judged):
        return (f"**Cannot tell yet:** the hallucination rate is not measured; {label_request_words(summary)}.")
    empty = [name for name, state, status in judged if status == "no data"]
    if empty:
        one = len(empty) == 1
        return (f"**Cannot tell yet:** nothing measures {_and(empty)}, so {'its target is' if one else 'their targets are'} "
                "not shown to be met (the targets table says what is missing).")
    unsure = [name for name, state, _ in judged if state != "good"]
    if unsure:
        one = len(unsure) == 1
        return (f"**Cannot tell yet:** {_and(unsure)} need{'s' if one else ''} more "
                f"answers to show {'its target' if one else 'their targets'}.")
    return f"**Ready by these targets:** it meets every one ({_and([name for name, _, _ in judged])})."


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def comparison_tile(compared: Any) -> Tile:
    """The tile of ``B − A``: the difference of the hallucination rates over the questions both
    sides answered, with its paired range and whether it is better for B or could be noise."""
    result = compared.result if hasattr(compared, "result") else compared
    a, b = result.names
    m = result.measures["hallucination_rate"]
    title = f"{b} \u2212 {a}: flagged by the judge"
    if not m.defined:
        return Tile("compare", title, fmt.MISSING, "none", "not measured: no question answered by both",
                    f"{b} against {a}: nothing to compare.", scale="points")
    verdict = m.verdict
    if verdict == "unlikely to be noise":
        state, words = ("good", f"better for {b}") if m.difference < 0 else ("bad", f"worse for {b}")
    elif verdict == "borderline":
        state, words = "unsure", "borderline: the range and the test disagree"
    else:
        state, words = "unsure", "could be noise"
    detail = (f"{fmt.points(m.difference)} points ({fmt.points_range(m.low, m.high)}), {verdict}, over the "
              f"{fmt.count(m.units, 'question')} both answered; lower is better for {b}. The rates above count "
              f"every answer of {a}.")
    return Tile("compare", title, f"{fmt.points(m.difference)} points", state, words, detail,
                m.difference, m.low, m.high, 0.0, "", scale="points")


def bar_text(tile: Tile, width: int = 20) -> str:
    """A tile's range as a bar of text for Markdown: ``[···███████·····|···]``, ``|`` at the target."""
    if tile.low is None or tile.high is None:
        return ""

    def at(x: float) -> int:
        x = (x + 1) / 2 if tile.scale == "points" else x
        return min(width - 1, max(0, int(round(x * (width - 1)))))

    cells = ["\u00b7"] * width
    for k in range(at(tile.low), at(tile.high) + 1):
        cells[k] = "\u2588"
    if tile.target is not None:
        cells[at(tile.target)] = "\u2502"
    return "`" + "".join(cells) + "`"


def _with_basis(detail: str, s: Mapping[str, Any]) -> str:
    """A tile's note with what the label request's size and time rest on, when it asks for labels."""
    from .headline import label_request_basis

    basis = label_request_basis(s)
    return f"{detail} {basis}" if basis else detail


def panel_markdown(tiles: Sequence[Tile]) -> List[str]:
    """The decision panel as a Markdown table, then each tile's note."""
    lines = ["| | figure | 95% range | target | state |", "| --- | ---: | --- | --- | --- |"]
    for t in tiles:
        span = f"{t.range_text.replace('95% range ', '')} {bar_text(t)}".strip() or "\u2014"
        lines.append(f"| **{markdown_text(t.title)}** | **{markdown_text(t.figure)}** | {span} | "
                     f"{markdown_text(t.target_text) or chr(0x2014)} | "
                     f"{fmt.state_label(t.state)} {markdown_text(t.state_text)} |")
    lines.append("")
    lines += [f"- **{markdown_text(t.title)}:** {markdown_text(t.detail)}" for t in tiles if t.detail]
    return lines
