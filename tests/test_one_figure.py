"""One computation for every figure: every output of one run (the report in Markdown and HTML, the
tiles, the notebooks' HTML copies and executed notebooks, the charts, the slides as the run wrote
them, ``score``, ``score --json``, ``merge``) gives each figure the same, with people's labels on
every answer, on some (the corrected rate), without any, and with a second configuration (labeled,
and not); and none calls what the judge flags the hallucination rate."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from conftest import CASES, CASES_B, NOTES
from groundlab import evaluate, load_cases
from groundlab.present.headline import flagged_share, hallucination_words, label_request_words
from groundlab.summary import score_summary


def _unlabeled(tmp: Path, source: Path = CASES, keep=frozenset(), name: str = "unlabeled.jsonl") -> Path:
    """``source`` without people's labels, but on the cases ``keep`` names."""
    path = tmp / name
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "labels" or r["id"] in keep}) + "\n"
                            for r in rows), encoding="utf-8")
    return path


#: The answers of the sample set left labeled in the run whose headline is corrected by them.
SOME = frozenset({"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"})


def _slides(folder: Path) -> dict:
    """The words of each slide the run wrote, read from its SVG (text kept as text)."""
    return {path.stem: " ".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)", path.read_text(
        encoding="utf-8"))) for path in sorted((folder / "slides").glob("*-full.svg"))}


def _text_of(path: Path) -> str:
    """What a person reads in an output file: Markdown as it is; HTML without its tags; an executed
    notebook's outputs (text and HTML); one space between words."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        parts = []
        for cell in json.loads(raw)["cells"]:
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                parts.append("".join(data.get("text/html", "")) or "".join(data.get("text/plain", ""))
                             or "".join(out.get("text", "")))
        raw = "\n".join(parts)
    if path.suffix in (".html", ".ipynb"):
        raw = re.sub(r"<script.*?</script>|<style.*?</style>", " ", raw, flags=re.S)
        raw = html.unescape(re.sub(r"<[^>]+>", " ", raw))
    return " ".join(raw.replace("\\", "").split())


def _run(cli, tmp: Path, name: str, *args) -> Path:
    out = tmp / name
    code, _, err = cli("run", *args, "--out", out, "--slides")
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from groundlab.cli import main

    tmp = tmp_path_factory.mktemp("one-figure")

    class Call:
        def __call__(self, *argv):
            import contextlib
            import io

            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()) as out:
                code = main([str(a) for a in argv])
            return code, out.getvalue(), err.getvalue()

    cli = Call()
    labeled = _run(cli, tmp, "labeled", "--cases", CASES, "--passages", NOTES, "--cases-b", CASES_B)
    unlabeled_cases = _unlabeled(tmp)
    unlabeled = _run(cli, tmp, "unlabeled", "--cases", unlabeled_cases, "--passages", NOTES)
    some_cases = _unlabeled(tmp, keep=SOME, name="some.jsonl")
    corrected = _run(cli, tmp, "corrected", "--cases", some_cases, "--passages", NOTES,
                     "--cases-b", _unlabeled(tmp, CASES_B, name="b.jsonl"))
    return {"labeled": (labeled, CASES), "unlabeled": (unlabeled, unlabeled_cases), "corrected": (corrected, some_cases),
            "cli": cli}


def _outputs(folder: Path):
    files = [folder / "report.md", folder / "report.html"] + sorted(folder.glob("*.html")) + \
        sorted(folder.glob("*.ipynb"))
    return {f.name: _text_of(f) for f in dict.fromkeys(files) if f.is_file()}


def _after(text: str, phrase: str, pattern: str, span: int = 60) -> set:
    """What ``pattern`` first matches within ``span`` characters after each ``phrase``."""
    found = set()
    for m in re.finditer(re.escape(phrase), text):
        hit = re.search(pattern, text[m.end():m.end() + span])
        if hit:
            found.add(hit.group(0))
    return found


@pytest.mark.parametrize("which", ["labeled", "unlabeled", "corrected"])
def test_every_output_gives_the_same_headline(runs, which):
    folder, cases = runs[which]
    s = score_summary(evaluate(load_cases(cases, NOTES)))  # the run's judge: signals
    words = hallucination_words(s)
    outputs = _outputs(folder)
    assert {"report.md", "report.html", "03-risk-report.html", "03-risk-report.ipynb"} <= set(outputs)
    flagged = fmt_percent(s["flagged_by_judge"]["rate"])
    for name, text in outputs.items():
        # what the judge flags is said as such, with the same figure everywhere it is given
        assert set(re.findall(r"flagged by the judge:? (\d+%)", text)) <= {flagged}, name
        # no output gives a rate under "Hallucination rate" other than people's (what the judge
        # flags may follow, said as such)
        shown = set(re.findall(r"[Hh]allucination rate\W{0,12}(\d+%|not measured yet)", text))
        allowed = {words.figure, f"{words.figure}"} if words.measured else {"not measured yet"}
        assert {x for x in shown if x} <= allowed | {"24%", "76%"}, (name, shown)
    report = outputs["report.md"]
    if s["hallucination_rate"]["basis"] == "people":
        assert f"{words.figure} {words.how} (95% range {words.range})" in report
        need = s["answers_needed"]["hallucination_rate"]
        for name in ("report.md", "report.html", "03-risk-report.html"):
            assert _after(outputs[name], "\u00b15 points needs", r"\d+", 8) >= {str(need)}, name
            assert _after(outputs[name], "you have 10; \u00b15 points needs", r"\d+", 8) == {str(need)}, name
    elif not words.measured:
        request = label_request_words(s)
        assert request.startswith("label all 10 answers (about 8 minutes)")
        for name in ("report.md", "report.html", "03-risk-report.html"):
            assert request.split(";")[0] in outputs[name], name
        assert "sheet.csv" in outputs["report.md"]
        assert (folder / "labeling" / "sheet.csv").is_file()
    if s["hallucination_rate"]["basis"] == "corrected":
        assert words.how == "corrected by people's labels on 8 of 10 answers"
        assert f"{words.figure} {words.how} (95% range {words.range})" in report
        for name in ("report.md", "report.html", "03-risk-report.html"):
            assert words.how in outputs[name], name
            assert _after(outputs[name], "Hallucination rate", r"\d+%", 30) <= {words.figure, flagged}, name
        request = label_request_words(s)
        assert request.startswith("label the 2 answers still unlabeled")
        for name in ("report.md", "report.html", "03-risk-report.html"):
            assert request.split(";")[0] in outputs[name], name
    # the slides as the run wrote them: the same headline, the flagged share said as such
    slides = _slides(folder)
    assert {"decision-full", "answers-needed-full"} <= set(slides)
    if words.measured:
        assert f"Hallucination rate {words.figure} ({words.range})" in slides["decision-full"]
    else:
        assert "Hallucination rate: not measured yet" in slides["decision-full"]
    for text in slides.values():
        assert set(re.findall(r"(\d+%) flagged: not the rate", text)) <= {flagged}
    # the risk-weighted score: one figure, by the judge's verdicts, per 100 answers everywhere
    per_100 = f"{s['risk_weighted']['per_100']:+.0f}".replace("-", "\u2212")
    for name in ("report.md", "report.html"):
        assert f"({per_100} per 100 answers) by the judge's verdicts" in outputs[name], name


def fmt_percent(x) -> str:
    from groundlab.formatting import percent

    return percent(x)


@pytest.mark.parametrize("which", ["labeled", "unlabeled", "corrected"])
def test_score_score_json_and_merge_give_the_report_figures(runs, which, tmp_path):
    folder, cases = runs[which]
    cli = runs["cli"]
    code, out, _ = cli("score", "--cases", cases, "--passages", NOTES, "--json")
    s = json.loads(out)
    assert s == json.loads(json.dumps(score_summary(evaluate(load_cases(cases, NOTES)))))
    code, text, _ = cli("score", "--cases", cases, "--passages", NOTES)
    report = (folder / "report.md").read_text(encoding="utf-8")
    words = hallucination_words(s)
    head = next(line for line in text.splitlines() if line.startswith("hallucination rate"))
    assert words.figure in head and (words.range in head if words.measured else "label all 10 answers" in head)
    if which == "corrected":
        assert "corrected by people's labels on 8 of 10 answers" in head
    assert f"flagged by the judge: {flagged_share(s)}" in report.replace("\\", "")
    assert "60%" in next(line for line in text.splitlines() if line.startswith("  flagged by the judge"))
    assert "(\u221217 per 100 answers) by the judge's verdicts" in text and \
        "(\u221217 per 100 answers) by the judge's verdicts" in report
    # two halves scored apart and merged: the same figures
    rows = Path(cases).read_text(encoding="utf-8").splitlines()
    parts = []
    for k, half in enumerate((rows[:6], rows[6:])):
        part = tmp_path / f"part{k}.jsonl"
        part.write_text("\n".join(half) + "\n", encoding="utf-8")
        counts = tmp_path / f"part{k}.counts.json"
        code, _, err = cli("score", "--cases", part, "--passages", NOTES, "--counts-out", counts, "--json")
        assert code == 0, err
        parts.append(counts)
    code, out, err = cli("merge", *parts, "--json")
    assert code == 0, err
    merged = json.loads(out)
    for key in ("hallucination_rate", "flagged_by_judge", "risk_weighted", "answers_needed", "label_request",
                "outcomes", "faithfulness"):
        assert merged.get(key) == s.get(key), key


def test_the_judge_figures_read_alike(runs):
    folder, cases = runs["labeled"]
    outputs = _outputs(folder)
    for name in ("report.md", "report.html"):
        text = outputs[name]
        assert "caught 6 of 6 hallucinated claims, false alarms on 1 of 14 supported claims" in text, name
        assert "the same verdict as people on 18 of 20" in text, name
        assert "agreement 18 of 20" not in text, name


def test_slides_and_charts_read_the_same_figures(runs):
    import matplotlib

    matplotlib.use("Agg")
    from groundlab import plots, workbook
    from groundlab.present.slides import slide_figures

    for which in ("labeled", "unlabeled"):
        _, cases = runs[which]
        ev = evaluate(load_cases(cases, NOTES))
        s = score_summary(ev)
        titles = {name: fig.get_suptitle().replace("\n", " ") for name, fig in slide_figures(ev).items()}
        plan = workbook.plan_answers(s)
        ax = plots.interval_width(workbook.interval_width_frame(plan), plan=plan)
        notes = " ".join(t.get_text() for t in ax.texts)
        if which == "labeled":
            assert titles["decision"].startswith("Hallucination rate 50% (24%\u201376%)")
            assert titles["answers-needed"] == "10 answers are too few: \u00b15 points needs 381"
            assert "\u00b15 points: 381 answers" in notes and ax.get_ylabel() == "hallucination rate, by people's labels"
        else:
            assert titles["decision"].startswith("Hallucination rate: not measured yet: label all 10 answers")
            assert titles["answers-needed"].startswith("Label all 10 answers (about 8 minutes)")
            assert "the label request: 10 labeled" in notes and "60%" not in ax.get_ylabel()


def test_b_minus_a_reads_alike_in_the_report_its_slide_and_notebook_05(runs):
    """The second configuration's difference, with labels on A's side only: what the judge flags,
    the same points and range in the report, the comparison slide and notebook 05's HTML copy."""
    folder, _ = runs["corrected"]
    outputs = _outputs(folder)
    report = outputs["report.md"]
    found = re.search(r"B \u2212 A: flagged by the judge:\**\s*(\S+) points \((\S+) to (\S+)\)", report)
    assert found, report[:2000]
    points, low, high = found.groups()
    assert f"B \u2212 A: flagged by the judge {points} points" in outputs["report.html"]
    assert f"{points} points ({low} to {high}), could be noise" in outputs["report.html"]
    assert f"{points} points ({low} to {high})" in _slides(folder)["compare-full"]
    assert f"the difference is {points} points, 95% range {low} to {high}" in outputs["05-compare.html"]
