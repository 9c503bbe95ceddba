"""The workbook: notebook hygiene, the packaged copies, and `groundlab run` / `plan` / `init`."""

from __future__ import annotations

import ast
import filecmp
import json
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import CASES, CASES_B, NOTES, ROOT
from messages_stub import KEY, messages_stub  # noqa: F401 (a fixture)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
PACKAGED = ROOT / "groundlab" / "data"
COMMON_PARAMETERS = {"cases", "passages", "judge"}
#: Notebooks that draw charts or score outcomes also take these.
FIGURE_PARAMETERS = {"penalty", "figures_dir"}
#: ``name: type = default  # what it is``
PARAMETER_LINE = re.compile(r"^[a-z_][a-z0-9_]*: [\w\[\], ]+ = .+  # \S.*$")


def test_the_notebooks_are_there():
    assert [nb.name for nb in NOTEBOOKS] == ["01-groundedness.ipynb", "02-judge-agreement.ipynb",
                                             "03-risk-report.ipynb", "04-labeling.ipynb", "05-compare.ipynb",
                                             "06-explore.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_hygiene(path):
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), f"{path.name}: first code cell lacks the parameters tag"
    lines = code[0].source.splitlines()
    bad = [line for line in lines if not PARAMETER_LINE.match(line)]
    assert not bad, f"{path.name}: parameters must be typed and commented: {bad}"
    names = {line.split(":")[0] for line in lines}
    assert COMMON_PARAMETERS <= names
    if path.name not in ("04-labeling.ipynb", "06-explore.ipynb"):  # these two draw no chart
        assert FIGURE_PARAMETERS <= names
    # say up front that the outputs come after Run All (a cell the HTML copy leaves out), and make the
    # tables interactive
    assert "appear once the notebook has run: Run All" in nb.cells[1].source
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].metadata["tags"] == ["how-to-run"]
    assert any("workbook.interactive_tables()" in cell.source for cell in code[1:3])
    for k, cell in enumerate(code):
        assert not cell.outputs and cell.execution_count is None, f"{path.name}: cell {k} is committed with outputs"
        tree = ast.parse(cell.source)
        defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        assert not defs, f"{path.name}: cell {k} defines {defs[0].name}; move it into the groundlab package"
        if k:
            assert re.search(r"\b(gl|workbook|plots|groundlab)\.", cell.source), \
                f"{path.name}: cell {k} does not call groundlab"
    assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("name", [nb.name for nb in NOTEBOOKS] + ["notes.jsonl", "grounded_cases.jsonl",
                                                                   "grounded_cases_b.jsonl"])
def test_packaged_copies_match(name):
    """groundlab/data/ ships copies of data/ and notebooks/ so `groundlab run` works after pip install."""
    source = ROOT / ("notebooks" if name.endswith(".ipynb") else "data") / name
    copy = PACKAGED / ("notebooks" if name.endswith(".ipynb") else "") / name
    assert filecmp.cmp(source, copy, shallow=False), \
        f"{copy} differs from {source}; copy it over (cp {source.relative_to(ROOT)} {copy.relative_to(ROOT)})"


def _cells(path: Path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def _figure_cells(path: Path):
    """The code cells of an executed notebook that save a chart."""
    return [c for c in _cells(path) if "plots.save_figure(" in c.source]


def test_run_with_parameters(cli, c06_abstains, tmp_path, monkeypatch):
    """With c06 abstaining, the lexical judge and penalty 3 the risk-weighted score is -7.

    The cases come with ``-p cases`` and a path relative to where the command runs, as with ``--cases``."""
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o027)
    try:
        code, stdout, err = cli("run", "-p", "cases", c06_abstains.name, "--passages", NOTES, "--judge", "lexical",
                                "--penalty", "3", "-p", "margin", "0.1", "-p", "judges", "lexical,rules",
                                "--cases-b", CASES_B, "--out", "out", "--notebooks", ROOT / "notebooks")
    finally:
        os.umask(old)
    out = tmp_path / "out"
    assert code == 0, err
    assert "groundlab run: judging 12 cases with lexical, rules\n" in err  # once, for every notebook
    assert f"groundlab run: judging 12 cases of {os.path.relpath(CASES_B, tmp_path)} with lexical\n" in err
    assert "groundlab run: 6 notebooks from " in err and "skipped" not in err
    notes = os.path.relpath(NOTES, tmp_path)
    for k, nb in enumerate(NOTEBOOKS, 1):
        assert f"[{k}/{len(NOTEBOOKS)}] {nb.name}: done" in err
        executed = out / nb.name
        assert (out / nb.with_suffix(".html").name).stat().st_size > 10_000
        cells = _cells(executed)
        injected = next(c for c in cells if "injected-parameters" in c.metadata.get("tags", []))
        assert 'judge = "lexical"' in injected.source
        # paths relative to where the command ran, which is where the kernels run
        assert 'cases = "c06_abstains.jsonl"' in injected.source
        assert f'passages = "{notes}"' in injected.source
        assert 'judged_file = "out/judged.pkl"' in injected.source
        assert ("penalty = 3.0" in injected.source) == (nb.name not in ("04-labeling.ipynb", "06-explore.ipynb"))
        assert not [o for c in cells for o in c.outputs if o.output_type == "error"]
        for cell in cells:  # what a reader sees: tables, text and charts, no Python reprs
            for output in cell.outputs:
                data = output.get("data", {})
                assert "PosixPath" not in data.get("text/plain", "") + output.get("text", ""), cell.source
                if output.output_type == "execute_result":
                    assert set(data) - {"text/plain"}, (nb.name, cell.source)  # a table, a chart or text
        for cell in _figure_cells(executed):  # every chart shows in its cell, not only on disk
            assert any("image/png" in o.get("data", {}) for o in cell.outputs), (nb.name, cell.source)
            assert not any("PosixPath" in o.get("data", {}).get("text/plain", "") for o in cell.outputs)
    assert len([c for nb in NOTEBOOKS for c in _figure_cells(out / nb.name)]) == 12
    for name in ("03-risk-report.ipynb", "04-labeling.ipynb"):  # the judge's line right after the judged cases
        cells = [c for c in _cells(out / name) if "injected-parameters" not in c.metadata.get("tags", [])]
        judged = next(k for k, c in enumerate(cells) if "workbook.judged_cases(" in c.source)
        assert cells[judged + 1].source == "workbook.judge_line(ev)", name
        shown = cells[judged + 1].outputs[0]["data"]["text/markdown"]
        assert shown.startswith("These figures come from judge lexical 1 \u00b7 threshold 0.75 \u00b7 groundlab "), name
        assert "These figures come from judge lexical 1" in (out / name).with_suffix(".html").read_text(encoding="utf-8")
    for nb in NOTEBOOKS:  # every executed notebook records the judge behind its figures
        pinned = nbformat.read(out / nb.name, as_version=4).metadata["groundlab"]
        assert pinned["judge_identity"]["name"] == "lexical" and pinned["judge_identity"]["version"] == "1"
        assert pinned["judge_line"].startswith("judge lexical 1 \u00b7 threshold 0.75 \u00b7 groundlab ")
    injected = next(c for c in _cells(out / "02-judge-agreement.ipynb")
                    if "injected-parameters" in c.metadata.get("tags", []))
    assert 'judges = ["lexical", "rules"]' in injected.source
    assert "margin" not in injected.source  # each notebook gets only the parameters it declares
    labeling = out / "labeling"  # the round's sheet is kept with the run, not in a temporary folder
    assert 'work_dir = "out/labeling"' in next(c for c in _cells(out / "04-labeling.ipynb")
                                               if "injected-parameters" in c.metadata.get("tags", [])).source
    assert (labeling / "sheet.csv").exists() and (labeling / "labeled.jsonl").exists()

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Judge `lexical` on 12 cases from `c06_abstains.jsonl`" in report
    assert "risk-weighted score at penalty 3: \u22127 over 12 answers (\u221258 per 100 answers)" in report
    assert "**Outcomes:** 5 correct, 3 abstained, 4 wrong by the judge's verdicts" in report
    assert "on unanswerable questions 67% (2 of 3 unanswerable cases" in report
    assert "![What confident errors cost](figures/penalty_curve.png)" in report
    assert "These figures come from judge lexical 1 \u00b7 threshold 0.75 \u00b7 groundlab " in report
    assert ("**Where the judge flags problems**, by the kind of fact a claim states (claims the judge did not find "
            "supported; a claim counts under each kind it states); no case names its process:") in report
    assert "| kind quantity |" in report and "| process" not in report and "**Targets**" not in report
    for name in ("confusion_matrix", "confusion_matrices", "judge_agreement", "judge_roc", "judge_reliability",
                 "verdict_split",
                 "severity_split", "breakdown", "interval_width", "penalty_curve", "compare",
                 "guard_outcomes"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 10_000
        svg = (out / "figures" / f"{name}.svg").read_text(encoding="utf-8")
        assert "<text" in svg  # text stays text, editable in a slide tool
    assert 'font-family' in (out / "figures" / "penalty_curve.svg").read_text(encoding="utf-8")
    assert "What confident errors cost (lexical judge)" in (out / "figures" / "penalty_curve.svg").read_text(
        encoding="utf-8")

    # the pages for people: no code, no local absolute path, no Python reprs, no script
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count('<img src="data:image/png;base64,') == 4 and "@media print" in page  # and the comparison
    assert page.count("<table>") == 1 and "<td>kind quantity</td>" in page  # the breakdown, as a table
    assert 'id="tile-compare"' in page and "<a href=\"01-groundedness.html#c02\">c02</a>" in page
    assert "<p>These figures come from judge lexical 1 \u00b7 threshold 0.75" in page
    assert "These figures come from judge lexical 1" in (out / "01-groundedness.html").read_text(encoding="utf-8")

    # notebook 05: the second configuration judged once, compared with the first
    injected = next(c for c in _cells(out / "05-compare.ipynb") if "injected-parameters" in c.metadata.get("tags", []))
    assert f'cases_b = "{os.path.relpath(CASES_B, tmp_path)}"' in injected.source
    assert 'judged_file_b = "out/judged_b.pkl"' in injected.source and "passages_b" not in injected.source
    compared = (out / "05-compare.html").read_text(encoding="utf-8")
    for words in ("12 questions paired by id, both judged by <code>lexical</code>",
                  "Verdicts from the run's shared results, each file judged once.",
                  "These figures come from judge lexical 1",
                  "flagged by the judge: B is flagged by the judge on as many of 7 answers given by both as A (A alone on 2, B "
                  "alone on 2); the difference is +0 points, 95% range \u221245 to +45: could be noise, p = 1.00.",
                  "abstention: B declines 1 more of 3 unanswerable questions",
                  "differences are in points (B's rate minus A's)"):
        assert words in compared, words
    for html_file in [out / "report.html"] + [out / nb.with_suffix(".html").name for nb in NOTEBOOKS]:
        text = html_file.read_text(encoding="utf-8")
        relative_root = os.path.relpath(ROOT, tmp_path)  # ../../../work/...: relative, as typed
        assert str(tmp_path) not in text and str(ROOT) not in text.replace(relative_root, ""), html_file.name
        assert "PosixPath" not in text, html_file.name
        # the report runs no script; a notebook's copy only the interactive tables' (itables, inlined)
        scripts = re.findall(r"<script[^>]*>(.*?)</script>", text, re.S | re.I)
        assert not scripts if html_file.name == "report.html" else \
            all("itables" in body.lower() or "ITable" in body or "dt_src_b64" in body
                or '_fallback")?.setAttribute("hidden", "hidden")' in body for body in scripts), html_file.name
        assert "workbook.judged_cases(" not in text and "plots.save_figure(" not in text, html_file.name
        # the copy holds results: nothing in it tells its reader to run it
        assert "Run All" not in text and "how-to-run" not in text, html_file.name
    assert str(tmp_path) not in report

    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "succeeded" and record["failure"] is None
    written = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} - {"run.json"}
    assert set(record["files"]) == written
    for path in out.rglob("*"):  # written with the user's umask, not 0600
        if path.is_file():
            assert path.stat().st_mode & 0o777 == 0o640, path
    assert record["judge_identity"]["name"] == "lexical" and record["judge_line"] == pinned["judge_line"]
    assert set(record["judge_identities"]) == {"lexical", "rules"} and "skipped" not in record
    assert record["command"]["cases_b"] == os.path.relpath(CASES_B, tmp_path)
    wrote, *after = stdout.splitlines()
    assert wrote == "wrote out/: 6 executed notebooks, 6 HTML copies, 12 figures (PNG and SVG), report.md, report.html."
    assert after and after[0].startswith("hallucination rate: "), stdout  # the run ends with the headline


def test_run_with_targets_breaks_the_report_down_by_kind_and_process(cli, tmp_path, monkeypatch):
    """Cases in two processes, a targets file: notebook 03 and the report show the breakdown by kind
    and by process with its ranges, the pass/fail table and the weighted risk score beside the plain
    one; the breakdown chart is saved and shown in its cell."""
    from test_severity import PROCESS, TARGETS

    monkeypatch.chdir(tmp_path)
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(dict(obj, **({"process": PROCESS[obj["id"]]} if obj["id"] in PROCESS else {})))
                             + "\n" for obj in map(json.loads, CASES.read_text(encoding="utf-8").splitlines())),
                     encoding="utf-8")
    (tmp_path / "targets.toml").write_text("max_false_abstention = 0.2\nmin_citation_accuracy = 0.6\n" + TARGETS,
                                           encoding="utf-8")
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "03-risk-report.ipynb", folder)
    code, stdout, err = cli("run", "--cases", "cases.jsonl", "--passages", NOTES, "--penalty", "3",
                            "--targets", "targets.toml", "--notebooks", folder, "--out", "out", "--judge", "rules")
    assert code == 0, err
    out = tmp_path / "out"
    injected = next(c for c in _cells(out / "03-risk-report.ipynb") if "injected-parameters" in c.metadata.get("tags", []))
    assert 'targets = "targets.toml"' in injected.source
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["command"]["targets"] == "targets.toml"

    report = (out / "report.md").read_text(encoding="utf-8")
    for row in ("| kind date | 100% | 2 of 2 claims | 34%\u2013100% |",
                "| kind quantity | 33% | 2 of 6 claims | 10%\u201370% |",
                "| process order\\-to\\-cash | 33% | 1 of 3 answers | 6%\u201379% |",
                "| process procure\\-to\\-pay | 60% | 3 of 5 answers | 23%\u201388% |",
                "| process \\(no process\\) | 100% | 2 of 2 answers | 34%\u2013100% |",
                "**Targets** from `targets.toml`: \u2717 3 of 9 met, each when its whole 95% range is on the right "
                "side of its limit (?: the figure is, its range not yet).",
                # the target on all answers takes people's rate, as the panel's tile does
                "| all answers | \u2264 70% | 50% (5 of 10) | 24%\u201376% | ? fail |",
                # every key of the file is a row: the panel's other two figures too
                "| false abstention | \u2264 20% | 11% (1 of 9) | 2%\u201343% | ? fail |",
                "| citation accuracy | \u2265 60% | 63% (12 of 19) | 41%\u201381% | ? fail |",
                "| kind amount | \u2264 5% | n/a | \u2014 | \u2013 no data |",
                "| kind date | \u2264 50% | 100% (2 of 2) | 34%\u2013100% | \u2717 fail |",
                "| process procure\\-to\\-pay | \u2264 90% | 60% (3 of 5) | 23%\u201388% | \u2713 pass |",
                "| procure\\-to\\-pay / quantity | \u2264 95% | 50% (2 of 4) | 15%\u201385% | \u2713 pass |",
                # the decision reads the same table: a finer target missed is a target missed
                "**Not ready:** it misses the target for kind date and process order\\-to\\-cash.",
                # per 100 answers, as everywhere: -14 and -29 over 12 answers
                "risk-weighted score at penalty 3: \u221214 over 12 answers (\u2212117 per 100 answers) by the judge's "
                "verdicts; by people's labels \u221210 (\u221283 per 100 answers); weighted by what each wrong answer got "
                "wrong, \u2212242 per 100 answers (its heaviest wrong kind weighs id 2, date 3, others 1).",
                # the panel: the person's rate (every answer labeled), its range straddling the target
                "| **Hallucination rate** | **50%** | 24%\u201376% `\u00b7\u00b7\u00b7\u00b7\u2588\u2588\u2588\u2588"
                "\u2588\u2588\u2588\u2588\u2588\u2502\u2588\u2588\u00b7\u00b7\u00b7\u00b7` | target at most 70% | ? not "
                "enough answers yet: you have 10; \u00b15 points needs 381 to show it is at most 70% |"):
        assert row in report, row
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<table>") == 2 and "<td>process procure-to-pay</td>" in page
    assert '<td class="unsure">? fail</td>' in page

    notebook = (out / "03-risk-report.html").read_text(encoding="utf-8")
    assert "Weighted risk score \u2212242 per 100 answers beside the plain \u2212117 per 100 answers at penalty 3" \
        in notebook
    assert "3 of 9 met" in notebook and "order-to-cash" in notebook and "\u2265 60%" in notebook
    assert stdout.splitlines()[-1] == ("targets (targets.toml): 3 of 9 met; missed: kind date, process order-to-cash; "
                                       "not shown yet: hallucination rate, false abstention, citation accuracy; nothing "
                                       "to measure: kind amount (report.md shows each).")
    chart = next(c for c in _figure_cells(out / "03-risk-report.ipynb") if "breakdown" in c.source)
    assert any("image/png" in o.get("data", {}) for o in chart.outputs)
    assert (out / "figures" / "breakdown.png").stat().st_size > 10_000
    svg = (out / "figures" / "breakdown.svg").read_text(encoding="utf-8")
    assert "procure-to-pay" in svg and "by process: answers with a claim not supported" in svg

    # -p targets is --targets; a bad targets file stops the run before anything is written
    (tmp_path / "bad.toml").write_text("[kind]\namount = 1.5\n", encoding="utf-8")
    for argv, message in [
        (("--targets", "bad.toml"), "bad.toml: kind.amount = 1.5 is not a rate between 0 and 1; write 2% as 0.02."),
        (("-p", "targets", "bad.toml"), "bad.toml: kind.amount = 1.5 is not a rate between 0 and 1"),
        (("--targets", "targets.toml", "-p", "targets", "targets.toml"), "--targets and -p targets both set targets"),
        (("--targets", "nope.toml"), "targets file nope.toml does not exist"),
        (("--targets", "-"), "--targets - is standard input or a pipe, which the notebooks cannot read again"),
    ]:
        code, stdout, err = cli("run", "--cases", "cases.jsonl", "--passages", NOTES, "--notebooks", folder,
                                "--out", "again", *argv)
        assert code == 2 and not stdout and err.count("\n") == 1 and message in err, (argv, err)
        assert not (tmp_path / "again").exists()
    only_01 = tmp_path / "only"
    only_01.mkdir()
    shutil.copy(ROOT / "notebooks" / "01-groundedness.ipynb", only_01)
    code, _, err = cli("run", "--cases", "cases.jsonl", "--passages", NOTES, "--notebooks", only_01, "--out", "again",
                       "--targets", "targets.toml")
    assert code == 2 and "--targets sets the targets of notebook 03, and no notebook in" in err


HOSTILE_ID = "<img src=x onerror=alert(1)>"
HOSTILE_QUESTION = '<script>alert("q")</script> **Who** | approves [x](javascript:alert(2))?'


def _hostile_pair(folder: Path):
    """Two configurations of a small set whose ids, questions and passages hold markup, with a case
    on each side that the other lacks."""
    passage = [{"id": "KB7", "text": "Refunds over 500 EUR are approved by the team lead."}]
    good = "The team lead approves refunds over 500 EUR [KB7]."
    bad = "The finance director approves refunds over 900 EUR [KB7]."
    rows_a, rows_b = [], []
    for k, (x, y) in enumerate([(bad, good), (bad, good), (good, bad), (good, good)]):
        cid = HOSTILE_ID if k == 0 else f"q{k}"
        question = HOSTILE_QUESTION if k == 0 else f"Who approves refunds for team {k}?"
        rows_a.append({"id": cid, "question": question, "retrieved": passage, "answer": x, "answerable": True})
        rows_b.append({"id": cid, "question": question, "retrieved": passage, "answer": y, "answerable": True})
    rows_a.append({"id": "<b>only-a</b>", "question": "<i>Asked of A</i>?", "retrieved": passage, "answer": good})
    rows_b.append({"id": "only-b`", "question": "<svg onload=alert(3)>", "retrieved": passage, "answer": good})
    paths = []
    for name, rows in (("a.jsonl", rows_a), ("b.jsonl", rows_b)):
        paths.append(folder / name)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths


def test_run_compares_two_configurations_and_escapes_what_they_hold(cli, tmp_path, monkeypatch):
    """Notebook 05 run by groundlab run with two case files: its chart in its cell, the sentences, every
    table, and markup in ids, questions, names and abstention phrases shown as text, never run."""
    monkeypatch.chdir(tmp_path)
    a, b = _hostile_pair(tmp_path)
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "05-compare.ipynb", folder)
    code, stdout, err = cli("run", "--cases", a.name, "--cases-b", b.name, "--notebooks", folder, "--out", "out",
                            "-p", "names", "<b>old</b>,new|x", "--abstention-phrase", "<script>nope</script>",
                            "--judge", "rules")
    assert code == 0, err
    out = tmp_path / "out"
    assert "groundlab run: judging 5 cases of b.jsonl with rules" in err
    assert stdout.splitlines()[0] == "wrote out/: 1 executed notebook, 1 HTML copy, 1 figure (PNG and SVG)."
    figure_cells = _figure_cells(out / "05-compare.ipynb")
    assert len(figure_cells) == 1 and any("image/png" in o.get("data", {}) for o in figure_cells[0].outputs)
    assert (out / "figures" / "compare.png").stat().st_size > 10_000
    assert "<text" in (out / "figures" / "compare.svg").read_text(encoding="utf-8")
    page = (out / "05-compare.html").read_text(encoding="utf-8")
    lowered = page.lower()
    for raw in ("<script>alert", "<img src=x", "<svg onload", "<b>old</b>", "<i>asked", "<b>only-a</b>",
                "href=\"javascript", "<script>nope"):
        assert raw not in lowered, raw
    for shown in ("&lt;img src=x onerror=alert(1)&gt;",  # the id, in the question-by-question table
                  '&lt;script&gt;alert("q")&lt;/script&gt; **Who** | approves [x](javascript:alert(2))?',
                  "&lt;svg onload=alert(3)&gt;", "&lt;b&gt;only-a&lt;/b&gt;", "only-b`",  # one side only
                  "<code>&lt;script&gt;nope&lt;/script&gt;</code>"):  # the judge's identity
        assert shown in page, shown
    # the plain-words sentences, with the names as written
    assert "&lt;b&gt;old&lt;/b&gt;" in page and "new|x is flagged by the judge on 1 fewer of 4 answers given by both" in page
    assert "only in &lt;b&gt;old&lt;/b&gt;: 1 case (&lt;b&gt;only-a&lt;/b&gt;), left out" in page
    pinned = nbformat.read(out / "05-compare.ipynb", as_version=4).metadata["groundlab"]
    assert pinned["judge_identity"]["splitting"]["extra_abstention_phrases"] == ["<script>nope</script>"]


def _quick_notebook(path: Path) -> Path:
    return _notebook(path, [("code", 'cases: str = "cases.jsonl"  # the cases', ["parameters"]),
                            ("code", 'print("ran", cases)', [])])


def test_run_without_a_second_configuration_skips_notebook_05(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "nbs"
    _quick_notebook(folder / "01-quick.ipynb")
    _quick_notebook(folder / "only" / "01-quick.ipynb")
    shutil.copy(ROOT / "notebooks" / "05-compare.ipynb", folder)
    code, stdout, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", folder, "--out", "out")
    assert code == 0, err
    why = "it compares two configurations; give the second one's cases with --cases-b FILE"
    assert f"groundlab run: 05-compare.ipynb skipped: {why}\n" in err
    assert "groundlab run: 1 notebook from " in err and "05-compare.ipynb: running" not in err
    assert stdout.splitlines()[0].endswith(f"05-compare.ipynb was skipped ({why}).")
    assert not (tmp_path / "out" / "05-compare.ipynb").exists() and not (tmp_path / "out" / "judged_b.pkl").exists()
    record = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "succeeded" and record["skipped"] == {"05-compare.ipynb": why}
    # a parameter only the skipped notebook takes would do nothing: refused
    code, stdout, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", folder, "--out", "again",
                            "-p", "pair_by", "question")
    assert code == 2 and not stdout and not (tmp_path / "again").exists()
    assert err == ("groundlab: -p pair_by says how two configurations are compared, and there is no second one; add "
                   "--cases-b FILE, or drop -p pair_by.\n")
    code, stdout, err = cli("run", "--cases", CASES, "--passages", NOTES, "--cases-b", CASES_B, "--notebooks",
                            tmp_path / "nbs" / "only", "--out", "again")
    assert code == 2 and not (tmp_path / "again").exists()
    assert "--cases-b gives a second configuration, but no notebook in " in err and "compares two" in err
    (folder / "01-quick.ipynb").unlink()  # nothing left to run
    code, stdout, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", folder, "--out", "again")
    assert code == 2 and "05-compare.ipynb compares two configurations and there is no other notebook to run" in err


BROKEN = [
    ("code", 'cases: str = "cases.jsonl"  # the cases', ["parameters"]),
    ("code", 'print("the first cell ran")', []),
    ("markdown", "A note between cells.", []),
    ("code", "answer = 1 / 0", []),
    ("code", 'print("never reached")', []),
]


def _notebook(path: Path, cells) -> Path:
    nb = nbformat.v4.new_notebook(metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    for kind, source, tags in cells:
        cell = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_run_names_the_failing_notebook_and_cell(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "nbs"
    _notebook(folder / "01-broken.ipynb", BROKEN)
    _notebook(folder / "02-after.ipynb", [("code", 'print("not run")', [])])
    out = tmp_path / "out"
    code, stdout, err = cli("run", "--notebooks", folder, "--out", "out")
    assert code == 2
    last = err.strip().splitlines()[-1]
    sentence = ("01-broken.ipynb failed in code cell 3 (In [4] in the executed copy), `answer = 1 / 0`, with "
                "ZeroDivisionError: division by zero; the partial output is in out/01-broken.ipynb.")
    assert last == "groundlab: " + sentence
    assert "Traceback" not in err and "02-after" not in err
    partial = _cells(out / "01-broken.ipynb")
    ran = next(c for c in partial if "first cell ran" in c.source)
    assert ran.outputs[0].text.strip() == "the first cell ran"
    assert not any(c.outputs for c in partial if "never reached" in c.source)
    assert (out / "01-broken.html").exists()
    assert not (out / "02-after.ipynb").exists()
    # the folder says it failed, and where
    assert (out / "FAILED.txt").read_text(encoding="utf-8") == f"This run failed: {sentence}\n"
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "failed"
    assert (record["failure"]["notebook"], record["failure"]["cell"]) == ("01-broken.ipynb", 3)
    assert set(record["files"]) == {"01-broken.ipynb", "01-broken.html", "FAILED.txt"}
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_failure_message_reads_as_one_sentence(cli, tmp_path):
    folder = tmp_path / "nbs"
    _notebook(folder / "01-draw.ipynb", [("code", 'raise ValueError("draw at least 4.")', [])])
    code, _, err = cli("run", "--notebooks", folder, "--out", tmp_path / "out")
    assert code == 2
    assert err.splitlines()[0].startswith(f"groundlab run: 1 notebook from {folder} into ")
    assert "ValueError: draw at least 4; the partial output is in " in err.strip().splitlines()[-1]


def test_run_refuses_mistakes_before_running(cli, tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep", encoding="utf-8")
    bad_b = tmp_path / "bad_b.jsonl"
    lines = CASES_B.read_text(encoding="utf-8").splitlines()
    bad_b.write_text("\n".join(lines[:2] + [lines[2].replace('"D01"', '"D99"')] + lines[3:]) + "\n", encoding="utf-8")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x1", "question": "?", "retrieved": ["D01"], "answer": "No."}) + "\n",
                     encoding="utf-8")
    for argv, message in [
        # the second configuration is checked as strictly as the first, before anything runs
        (("--cases-b", tmp_path / "missing.jsonl", "--out", tmp_path / "f"), "missing.jsonl does not exist"),
        (("--cases-b", bad_b, "--out", tmp_path / "f"), "bad_b.jsonl line 3 (case c03): retrieved passage 'D99'"),
        (("--cases-b", other, "--out", tmp_path / "f"), "no case of A has a matching id in B (12 and 1 cases)"),
        (("--passages-b", NOTES, "--out", tmp_path / "f"), "--passages-b names B's passages, but no --cases-b"),
        (("--cases-b", CASES_B, "-p", "cases_b", CASES_B, "--out", tmp_path / "f"),
         "--cases-b and -p cases_b both set cases_b"),
        (("--cases-b", CASES_B, "-p", "pair_by", "text", "--out", tmp_path / "f"), "-p pair_by must be id or question"),
        (("--cases-b", CASES_B, "-p", "names", "A,A", "--out", tmp_path / "f"), "-p names must be two different names"),
        (("--out", taken), "already exists and is not empty"),
        (("-p", "pnealty", "3", "--out", tmp_path / "a"), "no notebook has a parameter called 'pnealty'"),
        (("--judge", "nosuch", "--out", tmp_path / "b"), "there is no judge called 'nosuch'"),
        (("--cases", tmp_path / "missing.jsonl", "--out", tmp_path / "c"), "does not exist"),
        (("-p", "margin", "wide", "--out", tmp_path / "d"), "parameter margin must be a number"),
        (("--notebooks", tmp_path, "--out", tmp_path / "e"), "holds no notebooks"),
        # -p values are checked before anything runs, as the options are
        (("-p", "penalty", "-5", "--out", tmp_path / "f"), "-p penalty must be 0 or more, not -5;"),
        (("-p", "penalty", "NaN", "--out", tmp_path / "f"), "-p penalty must be 0 or more, not nan;"),
        (("-p", "penalty", "Infinity", "--out", tmp_path / "f"), "-p penalty must be 0 or more, not inf;"),
        (("--penalty", "inf", "--out", tmp_path / "f"), "--penalty must be 0 or more, not inf;"),
        (("-p", "max_penalty", "1e308", "--out", tmp_path / "f"), "-p max_penalty must be more than 0 and at most 1,000"),
        (("-p", "max_penalty", "0", "--out", tmp_path / "f"), "-p max_penalty must be more than 0 and at most 1,000"),
        (("--penalty", "1e308", "--out", tmp_path / "f"), "--penalty must be at most 1,000 for the workbook"),
        (("-p", "margin", "0.7", "--out", tmp_path / "f"), "-p margin must be more than 0 and less than 0.5"),
        (("-p", "judges", "lexical,nosuch", "--out", tmp_path / "f"), "-p judges names 'nosuch', which is not a judge"),
        (("-p", "judge", "nosuch", "--out", tmp_path / "f"), "there is no judge called 'nosuch'"),
        (("-p", "n_sample", "-1", "--out", tmp_path / "f"), "-p n_sample must be a whole number of 0 or more"),
        (("--label-budget", "0", "--out", tmp_path / "f"), "--label-budget must be a whole number of 1 or more"),
        (("--label-budget", "5", "-p", "n_sample", "5", "--out", tmp_path / "f"),
         "--label-budget and -p n_sample both set how many answers to label"),
        (("-p", "cases", tmp_path / "missing.jsonl", "--out", tmp_path / "f"), "does not exist"),
        (("--cases", CASES, "-p", "cases", CASES, "--out", tmp_path / "f"), "--cases and -p cases both set cases"),
        (("-p", "margin", "0.1", "-p", "margin", "0.2", "--out", tmp_path / "f"), "-p margin is given twice"),
        # an --out that is a file, with or without --force
        (("--out", tmp_path / "file.txt", "--force"), "file.txt is a file, not a folder; nothing was written"),
        (("--out", tmp_path / "file.txt"), "file.txt is a file, not a folder; nothing was written"),
        (("--out", tmp_path / "file.txt" / "sub"), "which is a file, not a folder"),
        (("--out", ROOT / "notebooks", "--notebooks", ROOT / "notebooks", "--force"),
         "the executed copies would replace them"),
    ]:
        (tmp_path / "file.txt").write_text("", encoding="utf-8")
        code, out, err = cli("run", "--passages", NOTES, *argv)
        assert code == 2, argv
        assert message in err, err
        assert "not empty" not in err or "taken" in str(argv)
        assert "groundlab run:" not in err and not out  # nothing runs, not even the header
        assert len(err.strip().splitlines()) <= 2  # the data/ fallback note at most, then one sentence
    assert not any((tmp_path / d).exists() for d in "abcdef")
    assert (taken / "mine.txt").read_text(encoding="utf-8") == "keep"
    assert (tmp_path / "file.txt").read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("argv, expected", [
    (("--rate", "0.5", "--margin", "0.05"), "381 test answers give a Wilson 95% range of \u00b15 points around 50%"),
    (("--rate", "60%", "--margin", "5%"), "366 test answers"),
    (("--rate", "0.6", "--margin", "0.1"), "89 test answers"),
    (("--rate", "0", "--margin", "0.05"), "35 test answers give a Wilson 95% range of \u00b15 points around 0% "
                                          "(0% to 9.89%)."),
    (("--rate", "1", "--margin", "0.05"), "35 test answers give a Wilson 95% range of \u00b15 points around 100% "
                                          "(90.1% to 100%)."),
    (("--rate", "0.5", "--margin", "0.49"), "1 test answer gives a Wilson 95% range of \u00b149 points"),
    (("--rate", "0.999", "--margin", "0.01"), "208 test answers give a Wilson 95% range of \u00b11 point around"),
])
def test_plan(cli, argv, expected):
    from groundlab.stats import answers_needed, interval_half_width

    code, out, err = cli("plan", *argv)
    assert code == 0, err
    assert out.startswith(expected)
    n = int(out.split()[0])
    rate = float(argv[1].rstrip("%")) / (100 if argv[1].endswith("%") else 1)
    margin = float(argv[3].rstrip("%")) / (100 if argv[3].endswith("%") else 1)
    assert n == answers_needed(rate, margin)
    assert interval_half_width(rate, n) <= margin
    assert n == 1 or margin < interval_half_width(rate, n - 1)


@pytest.mark.parametrize("argv, message", [
    (("--rate", "60", "--margin", "0.05"), "--rate must be between 0 and 1"),
    (("--rate", "0.6", "--margin", "0"), "--margin must be more than 0"),
    (("--rate", "0.6", "--margin", "0.5"), "--margin must be more than 0"),
    (("--rate", "often", "--margin", "0.05"), "--rate must be a number like 0.6 or 60%"),
    (("--rate", "0.6",), "the following arguments are required: --margin"),
])
def test_plan_rejects_bad_input(cli, argv, message):
    code, out, err = cli("plan", *argv)
    assert code == 2 and not out
    assert message in err and len(err.strip().splitlines()) == 1


def test_init_copies_the_notebooks(cli, tmp_path):
    code, out, err = cli("init", tmp_path)
    assert code == 0, err
    for nb in NOTEBOOKS:
        assert filecmp.cmp(nb, tmp_path / "notebooks" / nb.name, shallow=False)
    for name in ("grounded_cases.jsonl", "grounded_cases_b.jsonl", "notes.jsonl"):
        assert filecmp.cmp(ROOT / "data" / name, tmp_path / "data" / name, shallow=False)
    code, _, err = cli("init", tmp_path)
    assert code == 2 and "--force" in err


def test_parameter_values():
    from groundlab.notebooks import coerce, parse_value

    assert parse_value("3") == 3 and parse_value('["a", "b"]') == ["a", "b"] and parse_value("rules") == "rules"
    assert coerce("penalty", 3, {"inferred_type_name": "float"}) == 3.0
    assert coerce("judges", "lexical, rules", {"inferred_type_name": "list[str]"}) == ["lexical", "rules"]
    assert coerce("judge", 3, {"inferred_type_name": "str"}) == "3"


def test_run_uses_the_key_and_cache_of_the_folder_it_was_started_in(messages_stub, monkeypatch, tmp_path, cli):
    """The run judges where the command runs, with the .env and .groundlab/cache there, as groundlab
    score does, not in the report folder; it judges once for all its notebooks; the key never lands in
    what the run writes."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    (tmp_path / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\nANTHROPIC_BASE_URL={messages_stub.url}\n")
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "01-groundedness.ipynb", folder)
    shutil.copy(ROOT / "notebooks" / "03-risk-report.ipynb", folder)
    argv = ("run", "--judge", "llm", "--cases", CASES, "--passages", NOTES, "--notebooks", folder)
    code, _, err = cli(*argv, "--out", "first")
    assert code == 0, err
    answered = len(messages_stub.requests)
    assert answered == 10  # one request per answered case of the sample set, for both notebooks
    assert len(list((tmp_path / ".groundlab" / "cache").rglob("*.json"))) == answered
    assert not (tmp_path / "first" / ".groundlab").exists()
    assert "Judge `llm` on 12 cases" in (tmp_path / "first" / "report.md").read_text(encoding="utf-8")
    code, _, err = cli(*argv, "--out", "second")
    assert code == 0, err
    assert len(messages_stub.requests) == answered  # the second run is answered from the same cache
    for path in tmp_path.glob("*/**/*"):
        if path.is_file() and ".groundlab" not in path.parts:
            assert KEY.encode() not in path.read_bytes(), path


def test_run_stops_before_any_report_when_the_judge_judged_nothing(messages_stub, tmp_path, cli):
    from messages_stub import text_reply

    messages_stub.default = lambda body: text_reply("They all look fine to me.", body)
    code, out, err = cli("run", "--judge", "llm", "--cases", CASES, "--passages", NOTES, "--out", "out",
                         "--notebooks", ROOT / "notebooks")
    assert code == 2 and out == ""
    assert err.strip().splitlines()[-1].startswith("groundlab: the llm judge could not judge any of the 20 claims")
    assert not (tmp_path / "out").exists() and not (tmp_path / "reports").exists()
    assert len(messages_stub.requests) == 10  # asked once, not again in every notebook


def test_run_splits_claims_as_told(cli, tmp_path, monkeypatch):
    """--abstention-phrase and --citation-pattern reach every notebook and the shared judged result."""
    import pickle

    monkeypatch.chdir(tmp_path)
    case = {"id": "x1", "question": "Where is the order?", "retrieved": [{"id": "K1", "text": "Orders ship daily."}],
            "answer": "We have no record of that order. Orders ship daily (source K1).", "labels": ["supported"]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "01-groundedness.ipynb", folder)
    # without the settings the case has two claims for one label: refused before anything runs
    code, _, err = cli("run", "--cases", "cases.jsonl", "--notebooks", folder, "--out", "plain")
    assert code == 2 and "1 label(s) for 2 claim(s)" in err and not (tmp_path / "plain").exists()
    code, _, err = cli("run", "--cases", "cases.jsonl", "--notebooks", folder, "--out", "out",
                       "--abstention-phrase", "no record of", "--citation-pattern", r"\(source (\w+)\)")
    assert code == 0, err
    injected = next(c for c in _cells(tmp_path / "out" / "01-groundedness.ipynb")
                    if "injected-parameters" in c.metadata.get("tags", [])).source
    assert 'abstention_phrases = ["no record of"]' in injected
    assert 'citation_pattern = "\\\\(source (\\\\w+)\\\\)"' in injected
    with open(tmp_path / "out" / "judged.pkl", "rb") as fh:
        claims = pickle.load(fh)["evaluations"]["signals"].claims
    assert claims[["text", "cites"]].values.tolist() == [["Orders ship daily.", ("K1",)]]


def test_run_splits_answers_in_the_language_asked_for(cli, tmp_path, monkeypatch):
    """--language reaches every notebook and the shared judged result; a language groundlab does not
    read is refused in one sentence before anything runs."""
    import pickle

    monkeypatch.chdir(tmp_path)
    case = {"id": "x1", "question": "Wann verfällt der Resturlaub?",
            "retrieved": [{"id": "HR-4", "text": "Übertragener Resturlaub verfällt am 31. März des Folgejahres."}],
            "answer": "Übertragener Resturlaub verfällt am 31. März des Folgejahres [HR-4].", "labels": ["supported"]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "01-groundedness.ipynb", folder)
    code, _, err = cli("run", "--cases", "cases.jsonl", "--notebooks", folder, "--out", "bad", "--language", "klingon")
    assert code == 2 and "'klingon' is not one groundlab splits answers in" in err and err.count("\n") == 1
    assert not (tmp_path / "bad").exists()
    code, _, err = cli("run", "--cases", "cases.jsonl", "--notebooks", folder, "--out", "out", "--language", "German")
    assert code == 0, err
    injected = next(c for c in _cells(tmp_path / "out" / "01-groundedness.ipynb")
                    if "injected-parameters" in c.metadata.get("tags", [])).source
    assert 'language = "de"' in injected
    with open(tmp_path / "out" / "judged.pkl", "rb") as fh:
        judged = pickle.load(fh)
    assert judged["inputs"]["language"] == "de"
    assert judged["evaluations"]["signals"].claims["text"].tolist() == [
        "Übertragener Resturlaub verfällt am 31. März des Folgejahres."]


def test_a_label_budget_too_small_for_the_strata_stops_before_any_notebook(cli, tmp_path):
    """The strata are known once the cases are judged: a budget that cannot give each its labels
    is refused then, in one sentence, before notebook 01 runs (notebook 03 stopped on it)."""
    unlabeled = tmp_path / "unlabeled.jsonl"
    unlabeled.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "labels"}) + "\n"
                                 for line in Path(CASES).read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    for argv in (("--label-budget", "4"), ("-p", "label_budget", "4")):
        out = tmp_path / f"run{len(argv[0])}"
        code, _, err = cli("run", "--cases", unlabeled, "--passages", NOTES, "--out", out, *argv)
        assert code == 2 and "Traceback" not in err
        assert "label budget of 4 cannot give each of the 3 strata" in err and "ask for at least 6" in err
        assert "nothing was run" in err and "01-groundedness" not in err and not out.exists()


def test_a_kernel_that_dies_at_start_is_started_again(cli, tmp_path, monkeypatch):
    """A kernel can die before it answers (over TCP, a port chosen free was taken before the kernel
    bound it): it ran no cell, so another is started and the run goes on."""
    import papermill

    from groundlab.present import notebooks

    real, calls = papermill.execute_notebook, []

    def flaky(*args, **kwargs):
        calls.append(kwargs["config"])
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    folder = tmp_path / "nbs"
    _notebook(folder / "01-one.ipynb", [("code", 'print("ran")', [])])
    code, _, err = cli("run", "--notebooks", folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert len(calls) == 2 and "ran" in _cells(tmp_path / "out" / "01-one.ipynb")[0].outputs[0].text
    # a kernel that dies at every start is reported, after the last of them
    starts = []

    def dies(*args, **kwargs):
        starts.append(1)
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(papermill, "execute_notebook", dies)
    code, _, err = cli("run", "--notebooks", folder, "--out", tmp_path / "again")
    assert code == 2 and "01-one.ipynb could not run (RuntimeError: Kernel died" in err
    assert len(starts) == notebooks.KERNEL_STARTS == 3
    # any other error is not started again
    starts.clear()
    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: (starts.append(1), 1 / 0))
    code, _, err = cli("run", "--notebooks", folder, "--out", tmp_path / "third")
    assert code == 2 and len(starts) == 1 and "ZeroDivisionError" in err


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets")
def test_kernels_talk_over_a_private_socket_not_a_tcp_port(tmp_path):
    from groundlab.present import notebooks

    folder = tmp_path / "nbs"
    _notebook(folder / "01-ip.ipynb", [("code", "from ipykernel import get_connection_info\n"
                                                "print(get_connection_info())", [])])
    executed = tmp_path / "01-ip.ipynb"
    notebooks._execute(folder / "01-ip.ipynb", executed, {}, tmp_path, "01-ip.ipynb")
    info = json.loads(_cells(executed)[0].outputs[0].text)
    assert info["transport"] == "ipc"
    sockets = Path(info["ip"]).parent
    assert sockets.is_absolute() and not sockets.exists()  # removed with the kernel
    assert not list(tmp_path.glob("kernel-ipc*"))  # nothing in the folder the kernel ran in


def test_without_a_temporary_folder_to_write_in_kernels_use_tcp(tmp_path, monkeypatch):
    import tempfile

    from groundlab.present import notebooks

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    with notebooks._kernel_channels() as config:
        assert "transport" not in config.KernelManager  # TCP, jupyter_client's default
