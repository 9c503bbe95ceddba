"""Inputs that are not plain files of modest lines: standard input, pipes, devices, JSON nested
beyond what Python reads, endless or huge lines; and cases given as a DataFrame or a list of
dicts. Each gives the cases or one sentence naming the input and the line or row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading

import pandas as pd
import pytest

import groundlab.core.reading as reading  # where the limits on what is read live
from groundlab import InputError, evaluate, hallucination_rate, load_cases, load_passages
from groundlab.summary import score_summary

from conftest import CASES, CASES_B, NOTES, ROOT

ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def run(*argv, stdin=None, shell=False):
    command = " ".join(argv) if shell else [sys.executable, "-m", "groundlab", *map(str, argv)]
    if shell:
        command = f"{sys.executable} -m groundlab {command}"
    return subprocess.run(command, input=stdin, capture_output=True, cwd=ROOT, env=ENV, shell=shell,
                          executable="/bin/bash" if shell else None)


def one_sentence(err: bytes) -> str:
    text = err.decode()
    assert text.count("\n") == 1 and text.startswith("groundlab: ") and "Traceback" not in text, text
    return text


# ---------------------------------------------------------------- standard input and pipes


def test_cases_from_stdin():
    proc = run("score", "--cases", "-", "--passages", NOTES, "--json", stdin=CASES.read_bytes())
    assert proc.returncode == 0, proc.stderr
    by_file = run("score", "--cases", CASES, "--passages", NOTES, "--json")
    assert json.loads(proc.stdout) == json.loads(by_file.stdout)
    proc = run("score", "--cases", "-", "--passages", NOTES, stdin=CASES.read_bytes())
    assert proc.stdout.startswith(b"groundlab score: judge signals, 12 cases, 20 claims (stdin)")


def test_cases_through_a_pipe_and_dev_stdin():
    proc = run(f"check --cases <(cat {CASES}) --passages {NOTES}", shell=True)
    assert proc.returncode == 0 and b"12 cases, 20 claims" in proc.stdout, proc.stderr
    proc = run("check", "--cases", "/dev/stdin", "--passages", NOTES, stdin=CASES.read_bytes())
    assert proc.returncode == 0 and proc.stdout.startswith(b"/dev/stdin: 12 cases"), proc.stderr


def test_fifo_in_process(cli, tmp_path):
    fifo = tmp_path / "cases.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(CASES.read_bytes()))
    writer.start()
    code, out, err = cli("check", "--cases", fifo, "--passages", NOTES)
    writer.join()
    assert code == 0 and "12 cases" in out, err


def test_a_large_piped_file_is_read_in_one_pass(tmp_path):
    """The parallel path cuts a file at byte offsets; a pipe has none, so it is read in one go."""
    lines = CASES.read_text(encoding="utf-8").splitlines()
    many = "".join(json.dumps(dict(json.loads(line), id=f"{k}-{n}")) + "\n" for k in range(4000)
                   for n, line in enumerate(lines))
    assert len(many) > 5_000_000
    proc = run("score", "--cases", "-", "--passages", NOTES, "--json", "--workers", "2", stdin=many.encode())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cases"] == 48_000


def test_import_from_stdin(tmp_path):
    rows = [{"user_input": "Who?", "retrieved_contexts": ["The analyst."], "response": "The analyst [P1]."}]
    out = tmp_path / "cases.jsonl"
    proc = run("import", "-", "--out", out, stdin="".join(json.dumps(r) + "\n" for r in rows).encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"stdin: recognised as Ragas")
    assert json.loads(out.read_text())["retrieved"] == [{"id": "P1", "text": "The analyst."}]
    parquet = ROOT / "tests" / "data" / "exports" / "ragas" / "evalds.parquet"
    proc = run("import", "-", "--out", tmp_path / "p.jsonl", stdin=parquet.read_bytes())
    assert proc.returncode == 0 and b"wrote 5 cases with 9 passages" in proc.stdout, proc.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_parquet_file_is_read_without_a_thread_of_arrows_pool():
    """A pool thread that holds a Python object as the interpreter exits aborts it ("terminate called
    without an active exception", now and then on a busy machine): reading Parquet starts none."""
    script = (
        "import os, sys\n"
        "import pyarrow.parquet\n"
        "from groundlab.core.frames import read_parquet\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "table = read_parquet(data)\n"
        "print(before, len(os.listdir('/proc/self/task')), table.num_rows)\n")
    parquet = ROOT / "tests" / "data" / "exports" / "ragas" / "evalds.parquet"
    proc = subprocess.run([sys.executable, "-c", script, str(parquet)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    before, after, rows = map(int, proc.stdout.split())
    assert (after, rows) == (before, 5)


def test_stdin_once():
    proc = run("score", "--cases", "-", "--passages", "-", stdin=b"")
    assert proc.returncode == 2 and "only one of them can" in one_sentence(proc.stderr)


# ---------------------------------------------------------------- groundlab run from standard input and pipes

#: What `groundlab run` hands its notebooks: the cases judged once (judged.pkl, which the notebook
#: loads only for the very cases it is given) and, in the second, B's cases and passages.
READER = [('cases: str = ""  # the cases\npassages: str = ""  # their passages\njudge: str = "rules"  # the judge\n'
           'judged_file: str = ""  # the shared result', ["parameters"]),
          ("from groundlab import workbook\n"
           "ev = workbook.judged_cases(cases, passages, [judge], judged_file=judged_file).get(judge)\n"
           "print(len(ev.cases), 'cases judged, from', cases, 'with', passages)", [])]
READER_B = [('cases_b: str = ""  # B\'s cases\npassages_b: str = ""  # B\'s passages\n'
             'passages: str = ""  # A\'s passages', ["parameters"]),
            ("import groundlab as gl\n"
             "print(len(gl.load_cases(cases_b, passages_b or passages)), 'B cases, from', cases_b)", [])]


def _notebooks(folder, *cells):
    import nbformat

    folder.mkdir()
    for k, notebook in enumerate(cells, 1):
        nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                               "language": "python"}})
        for source, tags in notebook:
            nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags} if tags else {}))
        nbformat.write(nb, folder / f"0{k}-{'b' if k == 2 else 'a'}.ipynb")
    return folder


def _printed(executed) -> str:
    import nbformat

    return "".join(o.get("text", "") for c in nbformat.read(executed, as_version=4).cells for o in c.outputs)


def test_run_reads_the_cases_from_stdin_once_and_keeps_them(tmp_path):
    """`groundlab run --cases -`: the cases are read once, checked, kept in the run folder, which the
    notebooks read and the record names; --force replaces them with the next run's."""
    folder = _notebooks(tmp_path / "nbs", READER)
    out = tmp_path / "out"
    proc = run("run", "--cases", "-", "--passages", NOTES, "--notebooks", folder, "--out", out,
               stdin=CASES.read_bytes())
    assert proc.returncode == 0, proc.stderr
    kept = out / "inputs" / "cases.jsonl"
    assert kept.read_bytes() == CASES.read_bytes()
    assert f"12 cases judged, from {os.path.relpath(kept, ROOT)} with" in _printed(out / "01-a.ipynb")
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "succeeded"
    assert record["command"]["cases"] == "stdin" and record["command"]["kept_inputs"] == {"stdin": "inputs/cases.jsonl"}
    assert "inputs/cases.jsonl" in record["files"]  # in the manifest: --force may clear it
    three = "".join(CASES.read_text(encoding="utf-8").splitlines(keepends=True)[:3])
    proc = run("run", "--cases", "-", "--passages", NOTES, "--notebooks", folder, "--out", out, "--force",
               stdin=three.encode())
    assert proc.returncode == 0, proc.stderr
    assert kept.read_text(encoding="utf-8") == three
    assert "3 cases judged" in _printed(out / "01-a.ipynb")


def test_run_reads_pipes_and_a_second_configuration_from_stdin(tmp_path):
    """Cases and passages through pipes, B's cases from standard input: each read once (B's passages
    are A's pipe, not read again), each kept, each named as given."""
    folder = _notebooks(tmp_path / "nbs", READER, READER_B)
    out = tmp_path / "out"
    proc = run(f"run --cases <(cat {CASES}) --passages <(cat {NOTES}) --cases-b - --notebooks {folder} --out {out}",
               stdin=CASES_B.read_bytes(), shell=True)
    assert proc.returncode == 0, proc.stderr
    assert (out / "inputs" / "cases.jsonl").read_bytes() == CASES.read_bytes()
    assert (out / "inputs" / "passages.jsonl").read_bytes() == NOTES.read_bytes()
    assert (out / "inputs" / "cases_b.jsonl").read_bytes() == CASES_B.read_bytes()
    assert sorted(p.name for p in (out / "inputs").iterdir()) == ["cases.jsonl", "cases_b.jsonl", "passages.jsonl"]
    assert "12 cases judged" in _printed(out / "01-a.ipynb")
    assert "12 B cases, from" in _printed(out / "02-b.ipynb") and "inputs/cases_b.jsonl" in _printed(out / "02-b.ipynb")
    command = json.loads((out / "run.json").read_text(encoding="utf-8"))["command"]
    assert command["cases"].startswith("/dev/fd/") and command["cases_b"] == "stdin"
    assert command["passages_b"] == command["passages"]
    assert set(command["kept_inputs"].values()) == {"inputs/cases.jsonl", "inputs/passages.jsonl",
                                                    "inputs/cases_b.jsonl"}


def test_run_refuses_bad_input_from_stdin_in_one_sentence(tmp_path):
    """A bad line read from standard input is named as stdin's, before any folder is made."""
    folder = _notebooks(tmp_path / "nbs", READER, READER_B)
    lines = CASES.read_text(encoding="utf-8").splitlines()
    for argv, stdin, message in [
        (("--cases", "-", "--passages", NOTES), "\n".join(lines[:1] + ["{oops"] + lines[1:]),
         "groundlab: stdin line 2 is not valid JSON (Expecting property name enclosed in double quotes at column 2); "
         "each line must be one JSON object.\n"),
        (("--cases", "-", "--passages", NOTES), lines[2].replace('"D01"', '"D99"'),
         f"stdin line 1 (case c03): retrieved passage 'D99' is not in {NOTES}; fix the id or add the passage there."),
        (("--cases", CASES, "--passages", "-"), '{"id": "D01"}\n',
         "stdin line 1: passage 'D01' needs a string \"text\""),
        (("--cases", "-", "--passages", NOTES), "", "cases file stdin holds no cases"),
        (("--cases", "-", "--passages", NOTES, "--cases-b", "-"), "",
         "groundlab: --cases and --cases-b both read standard input (-); only one of them can, so pass the other as "
         "a file.\n"),
        (("--cases", CASES, "--passages", "-", "--cases-b", CASES_B, "--passages-b", "-"), "",
         "--passages and --passages-b both read standard input"),
    ]:
        proc = run("run", *argv, "--notebooks", folder, "--out", tmp_path / "out", stdin=stdin.encode())
        assert proc.returncode == 2 and proc.stdout == b"", (argv, proc.stderr)
        err = one_sentence(proc.stderr)
        assert message in err and tempfile.gettempdir() not in err.replace(str(NOTES), ""), err  # no temporary file
        assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- devices, nesting, long lines


@pytest.mark.parametrize("option", ["--cases", "--passages"])
def test_dev_zero(cli, option):
    argv = ["score", "--cases", CASES, "--passages", NOTES]
    argv[argv.index(option) + 1] = "/dev/zero"
    code, out, err = cli(*argv)
    assert code == 2 and out == ""
    assert "/dev/zero line 1 is longer than 64 MB" in err and err.count("\n") == 1


def test_dev_zero_import(cli, tmp_path):
    code, _, err = cli("import", "/dev/zero", "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "/dev/zero holds binary data" in err and not (tmp_path / "cases.jsonl").exists()


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("what", ["cases", "passages"])
def test_deep_nesting_names_the_line(cli, tmp_path, what):
    path = tmp_path / f"{what}.jsonl"
    good = (CASES if what == "cases" else NOTES).read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(good[:2] + ['{"id": "x", "text": "t", "more": ' + DEEP + "}"]) + "\n", encoding="utf-8")
    argv = {"cases": path, "passages": NOTES} if what == "cases" else {"cases": CASES, "passages": path}
    code, out, err = cli("check", "--cases", argv["cases"], "--passages", argv["passages"])
    assert code == 2 and out == ""
    assert f"{path} line 3 nests JSON lists or objects more deeply than groundlab reads" in err
    assert err.count("\n") == 1
    with pytest.raises(InputError, match="line 3 nests"):
        load_passages(path) if what == "passages" else load_cases(path, NOTES)


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv"])
def test_deep_nesting_in_an_import(cli, tmp_path, kind):
    row = {"user_input": "Who?", "retrieved_contexts": ["a"], "response": "It [P1]."}
    path = tmp_path / f"in.{kind}"
    if kind == "jsonl":
        path.write_text(json.dumps(row) + "\n" + json.dumps(row)[:-1] + ', "x": ' + DEEP + "}\n", encoding="utf-8")
        expect = "line 2 nests"
    elif kind == "json":
        path.write_text("[\n" + json.dumps(row) + ",\n" + DEEP + "\n]", encoding="utf-8")
        expect = f"{path} nests"
    else:
        path.write_text(f"user_input,retrieved_contexts,response\nWho?,\"{DEEP}\",It.\n", encoding="utf-8")
        expect = "row 2: "
    code, _, err = cli("import", path, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and expect in err and err.count("\n") == 1 and "Traceback" not in err


HUGE = "9" * 5000  # a whole number longer than Python reads from text (4,300 digits)


def test_a_whole_number_too_long_to_read_is_one_sentence(cli, tmp_path):
    lines = CASES.read_text(encoding="utf-8").splitlines()
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(lines[:2] + [lines[2][:-1] + ', "n": ' + HUGE + "}"]) + "\n", encoding="utf-8")
    for command in ("check", "score"):
        code, out, err = cli(command, "--cases", cases, "--passages", NOTES)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"{cases} line 3 holds a whole number of more than 4,300 digits" in err
    csv = tmp_path / "in.csv"
    csv.write_text(f"user_input,retrieved_contexts,response\nWho?,\"[{HUGE}]\",It.\n", encoding="utf-8")
    code, _, err = cli("import", csv, "--out", tmp_path / "out.jsonl")
    assert code == 2 and "row 2: \"retrieved_contexts\" holds a number too long to read" in err
    assert err.count("\n") == 1 and len(err) < 400  # the cell is quoted in part, not whole
    config = tmp_path / "judge.json"
    config.write_text('{"kind": "x", "n": ' + HUGE + "}", encoding="utf-8")
    code, _, err = cli("score", "--cases", CASES, "--passages", NOTES, "--judge-config", config)
    assert code == 2 and "more than 4,300 digits" in err and err.count("\n") == 1


@pytest.mark.parametrize("option, name", [("--judge-config", "judge.json"), ("--targets", "targets.toml"),
                                          ("--baseline", "baseline.json"), ("--price-table", "prices.json")])
def test_a_config_nested_thousands_deep_is_one_sentence(cli, tmp_path, option, name):
    path = tmp_path / name
    path.write_text(("x = " if name.endswith(".toml") else "") + DEEP, encoding="utf-8")
    command = "agree" if option == "--baseline" else "score"
    extra = ["--judge", "llm", "--dry-run"] if option == "--price-table" else []
    code, _, err = cli(command, "--cases", CASES, "--passages", NOTES, *extra, option, path)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert str(path) in err and "deeply" in err


def test_a_judge_config_that_never_ends_is_refused(cli):
    code, _, err = cli("score", "--cases", CASES, "--passages", NOTES, "--judge-config", "/dev/zero")
    assert code == 2 and "judge config /dev/zero is larger than 1 MB" in err and err.count("\n") == 1


def test_line_length_and_count_limits(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 4096)
    lines = CASES.read_text(encoding="utf-8").splitlines()
    long = tmp_path / "long.jsonl"
    long.write_text("\n".join(lines[:3] + [json.dumps({"id": "x", "question": "q" * 5000})]) + "\n", encoding="utf-8")
    code, _, err = cli("score", "--cases", long, "--passages", NOTES)
    assert code == 2 and f"{long} line 4 is longer than" in err
    monkeypatch.setattr(reading, "MAX_LINES", 5)
    code, _, err = cli("check", "--cases", CASES, "--passages", NOTES)
    assert code == 2 and "has more than 5 lines" in err


def test_huge_document_is_refused(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MAX_DOCUMENT_BYTES", 1000)
    src = tmp_path / "rows.json"
    src.write_text(json.dumps([{"user_input": "q" * 2000, "retrieved_contexts": [], "response": "a"}]), encoding="utf-8")
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "is larger than" in err and "split it" in err


# ---------------------------------------------------------------- DataFrames and lists of dicts


def _inline_rows():
    notes = load_passages(NOTES)
    rows = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj["retrieved"] = [{"id": pid, "text": notes[pid].text} for pid in obj["retrieved"]]
        rows.append(obj)
    return rows


@pytest.mark.parametrize("shape", ["list", "frame"])
def test_cases_as_a_dataframe_or_list(shape):
    rows = _inline_rows()
    data = rows if shape == "list" else pd.DataFrame(rows)
    by_file = score_summary(evaluate(load_cases(CASES, NOTES)))
    assert score_summary(evaluate(data)) == by_file
    assert score_summary(evaluate(load_cases(data))) == by_file


def test_ids_in_a_frame_need_the_passages():
    frame = pd.DataFrame([json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()])
    assert len(load_cases(frame, NOTES)) == 12
    with pytest.raises(InputError, match=r"^row 1 \(case c01\): retrieved passage 'D07' is an id"):
        load_cases(frame)


@pytest.mark.parametrize("change,words", [
    ({"question": 3}, 'row 3 (case c03): "question" must be a string, not a number.'),
    ({"answerable": "yes"}, 'row 3 (case c03): "answerable" must be true, false or absent, not "yes".'),
    ({"labels": ["suported"]}, 'row 3 (case c03): label "suported" for claim 1 is not a verdict'),
    ({"meta": "v3"}, 'row 3 (case c03): "meta" must be a JSON object'),
    ({"id": "c01"}, "row 3 (case c01): case id 'c01' is already used by row 1"),
])
@pytest.mark.parametrize("shape", ["list", "frame"])
def test_a_bad_row_is_named(shape, change, words):
    rows = _inline_rows()
    rows[2] = dict(rows[2], **change)
    data = rows if shape == "list" else pd.DataFrame(rows).astype(object)
    with pytest.raises(InputError) as error:
        evaluate(data)
    assert str(error.value).startswith(words), str(error.value)


def test_a_frame_row_with_its_own_index_label():
    frame = pd.DataFrame(_inline_rows(), index=[f"log-{k}" for k in range(12)]).astype(object)
    frame.at["log-2", "question"] = None
    with pytest.raises(InputError, match=r"^row 3, index 'log-2' \(case c03\): \"question\" must be a string"):
        load_cases(frame)


def test_a_frame_of_another_tools_columns():
    frame = pd.read_parquet(ROOT / "tests" / "data" / "exports" / "ragas" / "evalds.parquet")
    cases = load_cases(frame)
    assert [c.id for c in cases] == ["r1", "r2", "r3", "r4", "r5"] and cases[0].meta == {"reference": "The credit analyst."}
    renamed = frame.rename(columns={"response": "reply"})
    with pytest.raises(InputError, match="could not tell which tool wrote the rows"):
        load_cases(renamed.drop(columns=["user_input"]))
    assert len(load_cases(renamed, columns={"answer": "reply"})) == 5
    bad = frame.astype(object)
    bad.at[3, "response"] = None
    with pytest.raises(InputError, match=r'^row 4: "response" is empty; the row holds no answer\.$'):
        load_cases(bad)


# ---------------------------------------------------------------- meta columns


def test_meta_becomes_columns_of_the_case_frame():
    rows = _inline_rows()
    for k, row in enumerate(rows):
        row["meta"] = {"model": "v3" if k < 6 else "v4", "run": {"version": k % 2}, "outcome": "mine"}
    ev = evaluate(rows)
    assert list(ev.cases.columns[-3:]) == ["meta.model", "meta.run.version", "meta.outcome"]
    assert ev.cases["outcome"].isin(["correct", "abstained", "wrong"]).all()  # never clobbered by meta
    by_model = {m: hallucination_rate(c) for m, c in ev.cases.groupby("meta.model")}
    assert by_model["v3"].total + by_model["v4"].total == hallucination_rate(ev.cases).total
    assert ev.cases["meta.run.version"].tolist() == [k % 2 for k in range(12)]
    plain = evaluate(load_cases(CASES, NOTES))
    assert not any(c.startswith("meta.") for c in plain.cases.columns)


def test_meta_survives_the_parallel_path(tmp_path, monkeypatch):
    from groundlab.evaluate import evaluate_file

    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(dict(r, id=f"{r['id']}-{n}", meta={"n": n})) + "\n"
                            for n in range(3) for r in _inline_rows()), encoding="utf-8")
    monkeypatch.setattr(sys.modules["groundlab.evaluate"], "PARALLEL_MIN_BYTES", 1000)
    ev = evaluate_file(path, None, "rules", workers=2)
    assert ev.cases["meta.n"].tolist() == [n for n in range(3) for _ in range(12)]
