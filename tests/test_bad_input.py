"""Every kind of bad input gives one sentence naming the file and line or case and the fix,
exit status 2, no traceback, and nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from conftest import CASES, NOTES, ROOT
from messages_stub import messages_stub  # noqa: F401 (a fixture)

GOOD = {"id": "c01", "question": "Why is the invoice blocked?", "retrieved": ["D07"],
        "answer": "The supplier delivered 90 of 100 pieces [D07].", "labels": ["supported"]}


def _line(**change) -> str:
    obj = dict(GOOD, **change)
    for key, value in change.items():
        if value is ...:
            del obj[key]
    return json.dumps(obj)


BAD_CASES = {
    "not json": (GOOD_LINE := json.dumps(GOOD)) + "\n{\"id\": \"c02\", \"question\": \n",
    "missing field": _line(id="c02", question=...),
    "retrieved not a list": _line(retrieved="D07"),
    "unknown passage": _line(retrieved=["D07", "D99"]),
    "bad label": _line(labels=["suported"]),
    "label count": _line(labels=["supported", "supported"]),
    "duplicate id": GOOD_LINE + "\n" + GOOD_LINE,
    "empty file": "\n\n",
}

EXPECT = {
    "not json": ["line 2", "not valid JSON"],
    "missing field": ["line 1", "\"question\"", "missing"],
    "retrieved not a list": ["line 1", "case c01", "\"retrieved\" must be a list"],
    "unknown passage": ["line 1", "case c01", "'D99'", "notes.jsonl"],
    "bad label": ["line 1", "case c01", "suported", "supported, contradicted or unsupported"],
    "label count": ["line 1", "case c01", "2 label(s) for 1 claim(s)",
                    "The supplier delivered 90 of 100 pieces."],
    "duplicate id": ["line 2", "'c01'", "line 1"],
    "empty file": ["holds no cases"],
}


def _one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("groundlab: ")
    return lines[0]


@pytest.mark.parametrize("kind", sorted(BAD_CASES))
@pytest.mark.parametrize("command", ["score", "agree", "check"])
def test_bad_cases_file(cli, tmp_path, kind, command):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(BAD_CASES[kind] + "\n", encoding="utf-8")
    before = cases.read_bytes()
    report = tmp_path / "report.md"
    extra = ["--report", report] if command == "score" else []
    code, out, err = cli(command, "--cases", cases, "--passages", NOTES, *extra)
    assert code == 2
    assert out == ""
    message = _one_sentence(err)
    assert str(cases) in message
    for part in EXPECT[kind]:
        assert part in message, message
    assert not report.exists()
    assert cases.read_bytes() == before  # the user's file is untouched


@pytest.mark.parametrize("name, text", [("mine.csv", "question,answer,contexts\nWho?,It.,\"['a']\"\n"),
                                        ("rows.json", '[{"user_input": "Who?"}]\n')])
def test_a_table_given_as_cases_points_to_import(cli, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    for command in ("score", "check"):
        code, out, err = cli(command, "--cases", path)
        message = _one_sentence(err)
        assert code == 2 and f"{path} line 1 " in message
        assert message.endswith(f"'groundlab import {path} --out cases.jsonl' turns it into cases."), message


@pytest.mark.parametrize("command, extra", [("score", ()), ("agree", ()), ("check", ()),
                                            ("label export", ("--out", "sheet.csv"))])
def test_a_cases_file_given_without_its_option_points_to_it(cli, command, extra):
    code, out, err = cli(*command.split(), "own cases.jsonl", *extra)
    assert code == 2 and out == ""
    assert _one_sentence(err).startswith(f"groundlab: {command} reads the cases file from --cases, not as a word of "
                                         f"its own: groundlab {command} --cases 'own cases.jsonl'")
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "stray")
    assert code == 2 and "unrecognized arguments: stray" in _one_sentence(err)


def test_missing_file(cli, tmp_path):
    code, _, err = cli("score", "--cases", tmp_path / "nope.jsonl", "--passages", NOTES)
    assert code == 2
    message = _one_sentence(err)
    assert "nope.jsonl does not exist" in message and "groundlab init" in message


def test_missing_passages_file(cli, tmp_path):
    code, _, err = cli("score", "--cases", CASES, "--passages", tmp_path / "notes.jsonl")
    assert code == 2
    assert "passages file" in _one_sentence(err)


def test_not_utf8(cli, tmp_path):
    cases = tmp_path / "latin1.jsonl"
    cases.write_bytes(json.dumps(GOOD).encode() + b"\n" +
                      json.dumps(dict(GOOD, id="c02", question="Qu\u00e9?"), ensure_ascii=False).encode("utf-8").replace(
                          "\u00e9".encode("utf-8"), b"\xe9") + b"\n")
    code, _, err = cli("score", "--cases", cases, "--passages", NOTES)
    assert code == 2
    message = _one_sentence(err)
    assert "line 2 is not UTF-8" in message and "0xe9" in message and "save the file as UTF-8" in message


def test_ids_without_passages_file(cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    code, _, err = cli("score", "--cases", cases)
    assert code == 2
    assert "--passages" in _one_sentence(err)


@pytest.mark.parametrize("option,value,words", [
    ("--penalty", "-1", "--penalty must be 0 or more"),
    ("--confidence-target", "1", "between 0 and 1"),
    ("--confidence-target", "0", "between 0 and 1"),
    ("--confidence-target", "1.5", "between 0 and 1"),
    ("--penalty", "three", "--penalty must be a number"),
])
def test_bad_penalty(cli, sample_args, tmp_path, option, value, words):
    report = tmp_path / "r.md"
    code, out, err = cli("score", *sample_args, option, value, "--report", report)
    assert code == 2 and out == ""
    assert words in _one_sentence(err)
    assert not report.exists()


def test_unknown_judge_lists_known(cli, sample_args):
    code, _, err = cli("score", *sample_args, "--judge", "oracle")
    assert code == 2
    message = _one_sentence(err)
    assert "'oracle'" in message and "rules" in message and "lexical" in message


def test_init_refuses_to_overwrite(cli, tmp_path):
    assert cli("init", tmp_path)[0] == 0
    mine = tmp_path / "data" / "grounded_cases.jsonl"
    mine.write_text("my own cases\n", encoding="utf-8")
    code, _, err = cli("init", tmp_path)
    assert code == 2
    message = _one_sentence(err)
    assert "grounded_cases.jsonl" in message and "--force" in message
    assert mine.read_text(encoding="utf-8") == "my own cases\n"
    assert cli("init", tmp_path, "--force")[0] == 0
    assert mine.read_bytes() == CASES.read_bytes()


def test_report_does_not_replace_a_foreign_file(cli, sample_args, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# my meeting notes\n", encoding="utf-8")
    code, _, err = cli("score", *sample_args, "--report", notes)
    assert code == 2 and "--force" in _one_sentence(err)
    assert notes.read_text(encoding="utf-8") == "# my meeting notes\n"
    # a report groundlab wrote is replaced on the next run
    report = tmp_path / "report.md"
    assert cli("score", *sample_args, "--report", report)[0] == 0
    assert cli("score", *sample_args, "--report", report, "--penalty", "3")[0] == 0
    assert "penalty 3" in report.read_text(encoding="utf-8")


def test_console_command_prints_no_traceback(tmp_path):
    """The installed entry point, in a real process."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json}\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "groundlab", "score", "--cases", str(bad)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert "bad.jsonl line 1 is not valid JSON" in proc.stderr


def test_init_into_a_file_or_over_a_folder(cli, tmp_path):
    (tmp_path / "file").write_text("mine", encoding="utf-8")
    code, _, err = cli("init", tmp_path / "file")
    assert code == 2 and "is a file, not a folder" in _one_sentence(err)
    (tmp_path / "p" / "data" / "notes.jsonl").mkdir(parents=True)
    code, _, err = cli("init", tmp_path / "p", "--force")
    assert code == 2 and "is a folder where groundlab would write a file" in _one_sentence(err)
    assert not (tmp_path / "p" / "data" / "grounded_cases.jsonl").exists()  # nothing written


@pytest.mark.parametrize("target,words", [
    ("folder", "is a folder"),
    ("a-file/report.md", "a part of its folder path is a file"),
])
def test_report_path_problems(cli, sample_args, tmp_path, target, words):
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    code, out, err = cli("score", *sample_args, "--report", tmp_path / target)
    assert code == 2 and out == "" and words in _one_sentence(err)


def test_report_never_replaces_an_input_even_with_force(cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(CASES.read_bytes())
    code, _, err = cli("score", "--cases", cases, "--passages", NOTES, "--report", cases, "--force")
    assert code == 2 and "is also the input" in _one_sentence(err)
    assert cases.read_bytes() == CASES.read_bytes()


@pytest.mark.parametrize("option", ["--citation-pattern", "--abstention-phrase"])
def test_bad_regular_expression_names_its_option(cli, sample_args, option):
    code, _, err = cli("score", *sample_args, option, "(")
    assert code == 2 and f"{option} '(' is not a valid regular expression" in _one_sentence(err)


def test_a_closed_pipe_is_not_an_error(tmp_path):
    """`groundlab check --show-claims | head -1` on a file whose listing outgrows the pipe: the
    reader leaves early; no message, no traceback."""
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps(dict(o, id=f"{o['id']}-{k}")) + "\n" for k in range(300) for o in objs),
                    encoding="utf-8")
    proc = subprocess.run(f"{sys.executable} -m groundlab check --show-claims --cases {many} --passages {NOTES}"
                          " | head -1", shell=True, capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.startswith(f"{many}: 3600 cases")
    assert proc.stderr == ""


# ---------------------------------------------------------------- hostile text in the workbook's pages

SCRIPT = '<script>alert("x")</script>'
HANDLER = "<img src=x onerror=alert(1)>"
LINK = "[click me](javascript:alert(2))"
PIPE = "a | b | c"
TICKS = "``` `tick` ``"
REASON = f"{SCRIPT} {HANDLER} {LINK} {PIPE} {TICKS} <b onmouseover=alert(3)>hover</b>"
#: A process name as a cases file may hold it: markup, a Markdown link, pipes, backticks, and dollar
#: signs (which a chart would read as mathematics).
PROCESS = f"$x$ 5$ {SCRIPT} {LINK} {PIPE} {TICKS}"

HOSTILE = [
    {"id": SCRIPT, "question": f"Why is the invoice blocked {HANDLER}?", "answerable": True, "process": PROCESS,
     "retrieved": [{"id": "P1", "text": f"The invoice is blocked until the credit memo arrives {SCRIPT}. {LINK}"}],
     "answer": f"The invoice is blocked until the credit memo arrives {HANDLER} [P1].", "labels": ["supported"]},
    {"id": f"c2 {PIPE} {TICKS}", "question": f"What does {LINK} mean | here?", "process": PROCESS,
     "retrieved": [{"id": "P2", "text": f"Pipes {PIPE} split cells; {TICKS} open code."}],
     "answer": f"Pipes split cells {PIPE} [P2]. Ticks {TICKS} open code <b onmouseover=alert(3)>hover</b> [P2]."},
    {"id": "c3", "question": "Who signs the waiver?", "answerable": False,
     "retrieved": [{"id": "P3", "text": "Waivers are rare."}],
     "answer": f"I can't find who signs the waiver in the retrieved notes {HANDLER}."},
]


class _Page(HTMLParser):
    """Every element and attribute of a page, and the text a reader sees."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list = []
        self.text: list = []
        self.scripts: list = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)


#: What marks a script as the interactive tables' own (itables, its library inlined, and the line
#: that swaps a table's static copy for the interactive one).
ITABLES = ("ITable", "itables", "dt_src_b64", '_fallback")?.setAttribute("hidden", "hidden")')


def _live_content(page: str, own_images: tuple = ("data:image/png;base64,",), tables: bool = False) -> list:
    """What in a page could run: script elements, event-handler attributes, javascript: links,
    images that are not our own embedded charts, embedded documents. With ``tables``, the
    interactive tables' own scripts are allowed (a notebook's HTML copy), so long as no raw markup
    of the data stands in them: the data they carry is escaped."""
    parser = _Page()
    parser.feed(page)
    found = []
    scripts = iter(parser.scripts)
    for tag, attrs in parser.tags:
        if tag == "script" and tables:
            body = next(scripts, "")
            if not any(mark in body for mark in ITABLES):
                found.append("script not of the tables")
            found += [f"raw {raw} in a script" for raw in (SCRIPT, HANDLER, "<b onmouseover") if raw in body]
            continue
        if tag in ("script", "iframe", "object", "embed", "base", "form"):
            found.append(tag)
        found += [f"{tag} {name}" for name in attrs if name.lower().startswith("on")]
        found += [f"{tag} {name}={value}" for name, value in attrs.items()
                  if name in ("href", "src", "action") and value and value.strip().lower().startswith("javascript:")]
        if tag == "img" and not str(attrs.get("src", "")).startswith(own_images):
            found.append(f"img src={attrs.get('src')}")
    return found


def _visible_text(page: str) -> str:
    parser = _Page()
    parser.feed(page)
    return " ".join(" ".join(parser.text).split())


def test_hostile_text_shows_as_text_in_every_page(cli, messages_stub, tmp_path):
    """Case ids, questions, passages, answers, a model judge's reasons and the cases file's name
    carrying script, event-handler, Markdown-link, pipe and backtick payloads: every page the run
    writes shows them as text, and nothing in a page can run."""
    from markdown_it import MarkdownIt

    from messages_stub import parse_request, rules_verdicts, tool_reply

    def hostile_reasons(body):
        verdicts = rules_verdicts(parse_request(body))
        for verdict in verdicts:
            verdict["reason"] = REASON
        return tool_reply(verdicts, body)

    messages_stub.default = hostile_reasons
    cases = tmp_path / f"cases {HANDLER}.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in HOSTILE), encoding="utf-8")
    targets = tmp_path / f"targets {HANDLER}.toml"  # the process named in a targets file, keys in TOML quotes
    targets.write_text(f"[process]\n{json.dumps(PROCESS)} = 0.5\n[kind]\nother = 0.5\n", encoding="utf-8")
    code, out, err = cli("run", "--cases", cases.name, "--judge", "llm", "-p", "n_sample", "3",
                         "--targets", targets.name, "--out", "out", "--notebooks", ROOT / "notebooks")
    assert code == 0, err
    folder = tmp_path / "out"
    pages = sorted(folder.glob("*.html"))
    assert [p.name for p in pages] == ["01-groundedness.html", "02-judge-agreement.html", "03-risk-report.html",
                                       "04-labeling.html", "06-explore.html", "report.html"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert _live_content(text, tables=page.name != "report.html") == [], page.name
    shown = _visible_text((folder / "01-groundedness.html").read_text(encoding="utf-8"))
    for payload in (SCRIPT, HANDLER, PIPE, REASON, f"c2 {PIPE} {TICKS}", cases.name):
        assert " ".join(payload.split()) in shown, payload  # shown as written, not dropped
    # the report in Markdown: read by a renderer that lets raw HTML through, it still holds nothing live
    report = (folder / "report.md").read_text(encoding="utf-8")
    rendered = MarkdownIt("commonmark").render(report)
    assert _live_content(rendered, own_images=("figures/",)) == []
    assert cases.name in _visible_text(rendered)
    assert cases.name in _visible_text((folder / "report.html").read_text(encoding="utf-8"))
    # the process name, in the breakdown and the targets table of the report and notebook 03
    process = " ".join(PROCESS.split())
    assert f"process {process}" in _visible_text(rendered) and targets.name in _visible_text(rendered)
    page = _visible_text((folder / "report.html").read_text(encoding="utf-8"))
    # a row of each table, and the decision that names the target it misses
    assert page.count(f"process {process}") == 3 and targets.name in page
    decision = page.split("Is the assistant ready to go live?", 1)[1].split(" cases judged", 1)[0]
    assert f"process {process}" in decision and "Cannot tell yet" in decision
    notebook = _visible_text((folder / "03-risk-report.html").read_text(encoding="utf-8"))
    assert notebook.count(process) >= 2 and targets.name in notebook
    # the chart draws it as text, escaped in its SVG, never as markup or mathematics
    svg = (folder / "figures" / "breakdown.svg").read_text(encoding="utf-8")
    assert "<script" not in svg and '>$x$ 5$ &lt;script&gt;alert("x")&lt;/script&gt;' in svg


def test_hostile_text_in_a_bad_cases_file_is_refused_before_the_run(cli, tmp_path):
    """A payload in a case that `check` would refuse (two labels for one claim) stops the run in one
    sentence, before any folder is made."""
    bad = dict(HOSTILE[0], labels=["supported", "supported"])
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    code, out, err = cli("run", "--cases", cases, "--out", tmp_path / "out")
    assert code == 2 and out == ""
    message = _one_sentence(err)
    assert "2 label(s) for 1 claim(s)" in message and SCRIPT in message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", ["--citation-pattern", "--abstention-phrase"])
def test_run_refuses_a_bad_regular_expression(cli, tmp_path, option):
    code, out, err = cli("run", "--cases", CASES, "--passages", NOTES, option, "(", "--out", tmp_path / "out")
    assert code == 2 and out == ""
    assert f"{option} '(' is not a valid regular expression" in _one_sentence(err)
    assert not (tmp_path / "out").exists()
