"""The README a new user follows: its test command is what CI runs, its links lead somewhere, and
its own-data example is a cases file groundlab reads."""

from __future__ import annotations

import json
import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str) -> list:
    section = README.split(f"## {heading}", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line.strip() for line in block.splitlines() if line.strip()]


def test_the_readme_test_command_is_what_ci_runs():
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    readme = _block_after("Running the tests")
    # the browser comes from the distribution: the README says how, CI installs it the same way
    assert readme[0].startswith("sudo apt-get install -y chromium") and ci[0] == "bash .ci/install-chromium"
    assert "apt-get install -y -q --no-install-recommends chromium" in (ROOT / ".ci" / "install-chromium").read_text()
    assert readme[1:] == ci[1:] == ["python -m pip install -r requirements.txt -r requirements-test.txt",
                                    "python -m pytest -n 2 --dist loadfile --nbval-lax"]


def test_the_test_requirements_include_the_main_ones_and_no_gpu_stack():
    # On the public package index a plain or ranged torch resolves to a CUDA build of several GB:
    # neither file names PyTorch or transformers (the nli judge is tested on ONNX models).
    test = (ROOT / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
    main = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "-r requirements.txt" in test
    for lines in (test, main):
        assert not [line for line in lines if line.lower().startswith(("torch", "transformers", "nvidia", "triton"))]
    assert [line for line in test if line.startswith("onnx")] and [line for line in main if line.startswith("onnxruntime")]


def test_the_requirements_say_the_venv_sizes_docs_install_gives():
    """requirements.txt says how large a new virtual environment grows, as docs/install.md does
    (measured there: `du -sm` of a fresh venv of each file)."""
    head = (ROOT / "requirements.txt").read_text(encoding="utf-8").split("\n-e .")[0]
    sizes = re.findall(r"\b(\d[\d,]*) MB in a new virtual environment; (\d[\d,]*) MB with the test requirements", head)
    assert sizes, head
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    rows = {name: re.search(rf"^\| `{re.escape(name)}` \|.*\| (\d[\d,]*) MB[^|]*\|$", install, re.M).group(1)
            for name in ("requirements.txt", "requirements-test.txt")}
    assert sizes[0] == (rows["requirements.txt"], rows["requirements-test.txt"])
    assert "TBD" not in head


def test_every_reference_link_leads_to_a_file_and_every_doc_is_listed():
    links = re.findall(r"\]\((docs/[^)#]+\.md)\)", README)
    assert links and all((ROOT / link).is_file() for link in links)
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= set(links)
    for doc in (ROOT / "docs").glob("*.md"):
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", doc.read_text(encoding="utf-8")):
            assert (doc.parent / target).is_file(), (doc.name, target)


def test_the_own_data_example_is_a_case_groundlab_reads(cli, tmp_path):
    example = re.search(r"`(\{\"id\": \"q1\".*?\})`", README).group(1)
    cases = tmp_path / "my_cases.jsonl"
    cases.write_text(json.dumps(json.loads(example)) + "\n", encoding="utf-8")
    code, out, err = cli("check", "--cases", cases)
    assert code == 0, err
    assert "1 case, 1 claim" in out


def test_the_import_examples_print_what_they_show_when_run_in_order(cli, tmp_path, monkeypatch):
    """docs/import.md's examples, run one after the other in one folder as a reader would."""
    doc = (ROOT / "docs" / "import.md").read_text(encoding="utf-8")
    examples = re.findall(r"```\n\$ (groundlab import .*?)\n(.*?)\n```", doc, re.S)
    assert len(examples) == 3
    for name in ("evalds_ids.jsonl", "edge_none_response.jsonl"):
        (tmp_path / name).write_bytes((ROOT / "tests" / "data" / "exports" / "ragas" / name).read_bytes())
    import shutil

    shutil.copytree(ROOT / "tests" / "data" / "exports" / "sap" / "raw_v1", tmp_path / "raw_v1")
    monkeypatch.chdir(tmp_path)
    for command, shown in examples:
        code, out, err = cli(*command.split()[1:])
        assert (out + err).rstrip("\n") == shown, command


def test_the_help_names_each_commands_default_judge(cli, capsys):
    from groundlab.cli import main

    for command, default in (("score", "signals"), ("agree", "signals"), ("compare", "signals"), ("guard", "signals")):
        try:
            main([command, "--help"])
        except SystemExit:
            pass
        text = " ".join(capsys.readouterr().out.split())
        assert f"(default: {default}" in text.split("--judge NAME", 2)[-1][:80], command


def test_the_readme_counts_the_notebooks_it_ships():
    shipped = sorted((ROOT / "notebooks").glob("*.ipynb"))
    words = {4: "four", 5: "five", 6: "six"}
    assert f"{words[len(shipped)]} notebooks to explore" in README
    assert f"{words[len(shipped) - 1]}\n   of the {words[len(shipped)]}, since 05-compare runs when `--cases-b`" in README
    assert not re.search(r"each of the (four|five|six) notebooks", README)


def test_the_failed_run_example_names_the_cell_that_fails():
    """docs/workbook.md's failure example names the code cell (and In [n]: one more, for the cell
    papermill adds with the parameters) that holds the failing line in notebook 04."""
    import nbformat

    doc = (ROOT / "docs" / "workbook.md").read_text(encoding="utf-8")
    number, count, line = re.search(r"04-labeling\.ipynb failed in code cell (\d+) \(In \[(\d+)\] in the executed "
                                    r"copy\), `(.*?)…`", doc).groups()
    cells = [c for c in nbformat.read(ROOT / "notebooks" / "04-labeling.ipynb", as_version=4).cells
             if c.cell_type == "code"]
    holding = [k for k, c in enumerate(cells, 1) if line in c.source]
    assert holding == [int(number)] and int(count) == int(number) + 1
