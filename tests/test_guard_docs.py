"""docs/guard.md shows what the guard really prints: its examples are run here."""

from __future__ import annotations

import io
import json
import sys

from groundlab import guard

from conftest import ROOT


def test_the_documented_python_example():
    doc = (ROOT / "docs" / "guard.md").read_text(encoding="utf-8")
    passages = [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead. Refunds are never paid in cash."}]
    answer = ("Refunds over 500 EUR are approved by the team lead [KB-7]. "
              "Refunds can be paid in cash [KB-7]. They are paid within 3 days.")
    result = guard("Who approves a refund?", passages, answer)
    assert f"# {result.text!r}\n" in doc
    assert f"# {(result.route_to_person, result.routed_because)!r}\n" in doc
    flag = result.flagged[1]
    assert (flag.claim, flag.span, flag.verdict, flag.at) == (3, (95, 123), "contradicted", (97, 125))
    assert f"reason={flag.reason!r}" in doc
    assert f"# {guard('Who approves a refund?', passages, answer, mode='hide').text!r}\n" in doc


def test_the_documented_example_is_what_the_command_prints(cli, monkeypatch):
    doc = (ROOT / "docs" / "guard.md").read_text(encoding="utf-8")
    given = doc.split("holding these two lines", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    printed = doc.split("prints:\n\n```json\n", 1)[1].split("\n```", 1)[0]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((given + "\n").encode("utf-8")), encoding="utf-8"))
    code, out, err = cli("guard", "--mode", "hide")
    assert code == 0 and out.rstrip("\n") == printed
    shown = doc.split("The user sees:\n\n```text\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(out.splitlines()[0])["text"] == shown


def test_the_readme_example_is_what_the_command_prints(cli, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n$ echo '", 1)[1].split("\n```", 1)[0]
    command, printed = block.split("\n", 1)
    given, rest = command.split("' | groundlab guard", 1)
    assert rest == ""  # the command as written: the guard with its defaults
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((given + "\n").encode("utf-8")), encoding="utf-8"))
    code, out, err = cli("guard")
    assert code == 0 and out.rstrip("\n") == printed
    assert "Its judge is `signals`, as for the other commands, unless `--judge` names another" in readme
