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
    assert _block_after("Running the tests") == ci == ["python -m pip install -r requirements.txt -r requirements-test.txt",
                                                      "python -m pytest --nbval-lax"]


def test_the_test_requirements_include_the_main_ones_and_no_gpu_stack():
    # On the public package index a plain or ranged torch resolves to a CUDA build of several GB:
    # neither file names PyTorch or transformers (the nli judge is tested on ONNX models).
    test = (ROOT / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
    main = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "-r requirements.txt" in test
    for lines in (test, main):
        assert not [line for line in lines if line.lower().startswith(("torch", "transformers", "nvidia", "triton"))]
    assert [line for line in test if line.startswith("onnx")] and [line for line in main if line.startswith("onnxruntime")]


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
