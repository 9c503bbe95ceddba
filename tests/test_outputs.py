"""Where `groundlab run` writes: a new folder per run, --force that clears only what groundlab
wrote, no write through a symbolic link, a failed run that says so, files with the user's umask."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import nbformat
import pytest

from groundlab import GroundlabError
from groundlab.io import write_atomic
from groundlab.outputs import RUN_FILE, claim_folder, new_run_folder, replacing

from conftest import CASES, NOTES


def _notebook(path: Path, source: str) -> Path:
    nb = nbformat.v4.new_notebook(metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    parameters = nbformat.v4.new_code_cell('report: str = "report.md"  # where the report goes\n'
                                           'filled_sheet: str = ""  # a sheet people filled')
    parameters.metadata["tags"] = ["parameters"]
    nb.cells += [parameters, nbformat.v4.new_code_cell(source)]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def tiny(tmp_path):
    """A folder with one quick notebook that writes report.md as the workbook's 03 does."""
    folder = tmp_path / "nbs"
    _notebook(folder / "01-quick.ipynb", 'open(report, "w").write("<!-- groundlab report -->\\n")')
    return folder


def _run(cli, *argv):
    return cli("run", "--cases", CASES, "--passages", NOTES, *argv)


def test_new_run_folders_never_collide(tmp_path):
    made = []
    threads = [threading.Thread(target=lambda: made.append(new_run_folder(tmp_path, "2025-06-02_101500")))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(made)) == 8
    assert sorted(p.name for p in made)[:2] == ["2025-06-02_101500", "2025-06-02_101500-2"]


def test_two_runs_in_the_same_second_get_folders_of_their_own(cli, tmp_path, monkeypatch, tiny):
    import groundlab.outputs as outputs

    class Frozen(outputs.datetime):
        @classmethod
        def now(cls, tz=None):
            return outputs.datetime(2025, 6, 2, 10, 15, 0, tzinfo=tz)

    monkeypatch.setattr(outputs, "datetime", Frozen)
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        code, out, err = _run(cli, "--notebooks", tiny)
        assert code == 0, err
    runs = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert runs == ["2025-06-02_101500", "2025-06-02_101500-2"]
    for name in runs:
        record = json.loads((tmp_path / "reports" / name / RUN_FILE).read_text(encoding="utf-8"))
        assert record["status"] == "succeeded" and "01-quick.ipynb" in record["files"]


def test_force_clears_only_what_groundlab_wrote(cli, tmp_path, monkeypatch, tiny):
    monkeypatch.chdir(tmp_path)
    assert _run(cli, "--notebooks", tiny, "--out", "out")[0] == 0
    (tmp_path / "out" / "notes-for-the-committee.txt").write_text("mine", encoding="utf-8")
    code, _, err = _run(cli, "--notebooks", tiny, "--out", "out")
    assert code == 2 and "pass --force" in err
    # a second workbook: the first run's files go, the person's own stays
    other = tmp_path / "other"
    _notebook(other / "01-other.ipynb", 'print("other")')
    code, _, err = _run(cli, "--notebooks", other, "--out", "out", "--force")
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["01-other.html", "01-other.ipynb", "judged.pkl", "notes-for-the-committee.txt", RUN_FILE] \
        or names == ["01-other.html", "01-other.ipynb", "notes-for-the-committee.txt", RUN_FILE]
    assert (tmp_path / "out" / "notes-for-the-committee.txt").read_text(encoding="utf-8") == "mine"
    record = json.loads((tmp_path / "out" / RUN_FILE).read_text(encoding="utf-8"))
    assert "notes-for-the-committee.txt" not in record["files"]


def test_a_failed_run_after_force_leaves_nothing_of_the_earlier_run(cli, tmp_path, monkeypatch, tiny):
    monkeypatch.chdir(tmp_path)
    assert _run(cli, "--notebooks", tiny, "--out", "out")[0] == 0
    broken = tmp_path / "broken"
    _notebook(broken / "01-broken.ipynb", "1 / 0")
    code, _, err = _run(cli, "--notebooks", broken, "--out", "out", "--force")
    assert code == 2 and "ZeroDivisionError" in err
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "01-quick.ipynb" not in names and "report.md" not in names
    assert {"01-broken.ipynb", "FAILED.txt", RUN_FILE} <= set(names)
    record = json.loads((tmp_path / "out" / RUN_FILE).read_text(encoding="utf-8"))
    assert record["status"] == "failed" and record["failure"]["notebook"] == "01-broken.ipynb"


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_run_stopped_by_a_signal_says_it_failed_and_force_takes_the_folder_again(tmp_path, signame):
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    folder = tmp_path / "nbs"
    _notebook(folder / "01-first.ipynb", 'open(report, "w").write("<!-- groundlab report -->\\n")')
    _notebook(folder / "02-waits.ipynb", "import os, time\nif not os.environ.get('QUICK'):\n    time.sleep(120)")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "groundlab", "run", "--cases", str(CASES), "--passages", str(NOTES),
               "--notebooks", str(folder), "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QUICK", None)
    number = getattr(signal, signame)
    # as a terminal or a job runner starts it, even where this suite was started with the signal ignored (nohup)
    proc = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(number, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not (out / "01-first.ipynb").exists() or not list(out.glob(".02-waits.*.ipynb")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        time.sleep(1)  # the second notebook's kernel is running its cell
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + getattr(signal, signame), err
    assert f"stopped by {signame}".encode() in err and b"Traceback" not in err, err.decode()
    record = json.loads((out / RUN_FILE).read_text(encoding="utf-8"))
    assert record["status"] == "failed" and record["failure"]["message"] == f"was stopped ({signame})"
    assert "01-first.ipynb" in record["files"] and signame in (out / "FAILED.txt").read_text(encoding="utf-8")
    assert not list(out.glob(".*.tmp")) and not list(out.glob(".02-waits.*.ipynb"))  # no temporary file left
    done = subprocess.run(command + ["--force"], cwd=tmp_path, env=dict(env, QUICK="1"), capture_output=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / RUN_FILE).read_text(encoding="utf-8"))["status"] == "succeeded"
    assert not (out / "FAILED.txt").exists()


def test_a_full_disk_fails_the_run_naming_the_file(cli, tmp_path, monkeypatch, tiny):
    import errno

    real = Path.write_bytes

    def full(self, data):
        if ".01-quick.html." in self.name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Path, "write_bytes", full)
    code, out, err = _run(cli, "--notebooks", tiny, "--out", "out")
    html = tmp_path / "out" / "01-quick.html"
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"groundlab: cannot write {Path('out') / '01-quick.html'}: No space left "
                                            "on device; free some space (or write elsewhere) and run again.")
    record = json.loads((tmp_path / "out" / RUN_FILE).read_text(encoding="utf-8"))
    assert record["status"] == "failed" and "could not be written (No space left on device)" in \
        record["failure"]["message"]
    assert not html.exists() and not list((tmp_path / "out").glob(".*.tmp"))


def test_a_full_disk_names_the_file_in_every_command(cli, sample_args, tmp_path, monkeypatch):
    import errno

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    report = tmp_path / "report.md"
    code, out, err = cli("score", *sample_args, "--report", report)
    assert code == 2 and err.strip().splitlines()[-1] == (f"groundlab: cannot write {report}: No space left on device; "
                                                          "free some space (or write elsewhere) and run again.")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("change, words", [
    ("edit", "was changed since groundlab wrote it"),
    ("link", "is now a symbolic link"),
])
def test_force_leaves_a_changed_file_alone(cli, tmp_path, monkeypatch, tiny, change, words):
    """A file the last run wrote and someone changed since (a filled sheet, an edited notebook), or
    replaced with a link to an input, stops --force before anything is written."""
    monkeypatch.chdir(tmp_path)
    assert _run(cli, "--notebooks", tiny, "--out", "out")[0] == 0
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(CASES.read_bytes())
    report = tmp_path / "out" / "report.md"
    if change == "edit":
        report.write_text("<!-- groundlab report -->\nmy notes\n", encoding="utf-8")
    else:
        report.unlink()
        report.symlink_to(cases)
    before = {p.name: p.lstat().st_mtime_ns for p in (tmp_path / "out").iterdir()}
    code, out, err = _run(cli, "--notebooks", tiny, "--out", "out", "--force")
    assert code == 2 and out == "" and words in err and "nothing was written" in err
    assert {p.name: p.lstat().st_mtime_ns for p in (tmp_path / "out").iterdir()} == before
    assert cases.read_bytes() == CASES.read_bytes()


def test_force_never_writes_through_a_link(cli, tmp_path, monkeypatch, tiny):
    """A link where the run writes (here the executed notebook's name, pointing at the cases file)
    is refused, so the run's own input cannot be overwritten through it."""
    monkeypatch.chdir(tmp_path)
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(CASES.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    (out / "01-quick.ipynb").symlink_to(cases)
    (out / "01-quick.html").symlink_to(cases)
    code, _, err = cli("run", "--cases", cases, "--passages", NOTES, "--notebooks", tiny, "--out", out, "--force")
    assert code == 2 and "symbolic link" in err
    assert cases.read_bytes() == CASES.read_bytes()
    link = tmp_path / "linked-out"
    link.symlink_to(out)
    code, _, err = _run(cli, "--notebooks", tiny, "--out", link, "--force")
    assert code == 2 and "is a symbolic link" in err


def test_force_never_clears_an_input(cli, tmp_path, monkeypatch, tiny):
    monkeypatch.chdir(tmp_path)
    assert _run(cli, "--notebooks", tiny, "--out", "out")[0] == 0
    code, _, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", tiny, "--out", "out",
                       "--force", "-p", "filled_sheet", "out/report.md")
    assert code == 2 and "is an input of this run" in err
    assert (tmp_path / "out" / "report.md").exists()


def test_a_figures_dir_of_ones_own_files_is_refused_without_force(cli, tmp_path, monkeypatch):
    folder = tmp_path / "nbs"
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    parameters = nbformat.v4.new_code_cell('figures_dir: str = "figures"  # where the charts go')
    parameters.metadata["tags"] = ["parameters"]
    nb.cells += [parameters, nbformat.v4.new_code_cell(
        'import pathlib\npathlib.Path(figures_dir).mkdir(exist_ok=True)\n'
        '(pathlib.Path(figures_dir) / "verdict_split.png").write_text("chart")')]
    folder.mkdir()
    nbformat.write(nb, folder / "01-chart.ipynb")
    monkeypatch.chdir(tmp_path)
    slides = tmp_path / "slides"
    slides.mkdir()
    (slides / "verdict_split.png").write_text("my own slide", encoding="utf-8")
    code, _, err = _run(cli, "--notebooks", folder, "--out", "out", "-p", "figures_dir", slides)
    assert code == 2 and "already holds files" in err and "--force" in err and err.count("\n") == 1
    assert (slides / "verdict_split.png").read_text(encoding="utf-8") == "my own slide" and not (tmp_path / "out").exists()
    (tmp_path / "a-file").write_text("mine", encoding="utf-8")
    code, _, err = _run(cli, "--notebooks", folder, "--out", "out", "-p", "figures_dir", "a-file")
    assert code == 2 and "is a file, not a folder" in err
    assert _run(cli, "--notebooks", folder, "--out", "out", "-p", "figures_dir", "new-slides")[0] == 0
    assert (tmp_path / "new-slides" / "verdict_split.png").read_text() == "chart"
    assert _run(cli, "--notebooks", folder, "--out", "out2", "-p", "figures_dir", slides, "--force")[0] == 0
    assert (slides / "verdict_split.png").read_text() == "chart"


def test_control_characters_in_outputs_reach_the_html_copy_as_escapes(cli, tmp_path, monkeypatch):
    folder = tmp_path / "nbs"
    _notebook(folder / "01-hostile.ipynb",
              "import pandas as pd\ntext = 'red \\x1b[31mRED\\x1b[0m, \\u202eevil.exe, nul \\x00, c1 \\x9b'\n"
              "print(text)\npd.DataFrame({'case': [text]})")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(cli, "--notebooks", folder, "--out", "out")
    assert code == 0, err
    page = (tmp_path / "out" / "01-hostile.html").read_text(encoding="utf-8")
    assert not any(c in page for c in "\x1b\u202e\x00\x9b")
    assert page.count("red \\u001b[31mRED\\u001b[0m, \\u202eevil.exe, nul \\u0000, c1 \\u009b") == 1  # the table
    assert page.count("\\u202eevil.exe, nul \\u0000, c1 \\u009b") == 2  # and the printed text (its colours as HTML)


def test_a_run_record_written_since_is_another_runs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    claim = claim_folder(out, False, [], [])
    (out / RUN_FILE).write_text("{}", encoding="utf-8")  # another run took the folder meanwhile
    with pytest.raises(GroundlabError, match="another groundlab run is writing into"):
        claim.take({})


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_get_the_users_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "a.md", "text")
        with replacing(tmp_path / "b.png") as tmp:
            tmp.write_bytes(b"png")
    finally:
        os.umask(old)
    assert (tmp_path / "a.md").stat().st_mode & 0o777 == mode
    assert (tmp_path / "b.png").stat().st_mode & 0o777 == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.png"]  # no temporary file left


def test_replacing_puts_a_file_in_place_of_a_link_not_through_it(tmp_path):
    target = tmp_path / "input.jsonl"
    target.write_text("keep", encoding="utf-8")
    link = tmp_path / "figure.png"
    link.symlink_to(target)
    with replacing(link) as tmp:
        tmp.write_bytes(b"png")
    assert target.read_text(encoding="utf-8") == "keep"
    assert not link.is_symlink() and link.read_bytes() == b"png"
