"""The data policy and masking, proved with the Messages API stub's request log: a case the policy
keeps from the llm judge never reaches the endpoint, through a plain run, the cascade, the batch
mode, the guard and the cache; masked requests hold none of the personal data, and verdicts are
the ones the unmasked run gives."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from groundlab import evaluate, load_cases
from groundlab.masking import Masker
from groundlab.policy import apply_policy, load_policy
from groundlab.records import InputError

from conftest import CASES, NOTES
from messages_stub import messages_stub  # noqa: F401 (a fixture)

HELD = ("c01", "c02", "c03", "c04")


def _policy(tmp_path: Path, endpoint: str, extra: str = "", name: str = "policy.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'''default = "internal"
{extra}
[classes.confidential]
judges = ["offline"]
instead = "rules"

[classes.secret]
judges = []

[classes.internal]
judges = ["offline", "llm"]
endpoints = ["{endpoint}"]
''', encoding="utf-8")
    return path


def _cases(tmp_path: Path, classes=None, name: str = "cases.jsonl") -> Path:
    """The sample set with its passages inline, c01 to c04 confidential."""
    notes = {json.loads(line)["id"]: json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines()}
    out = tmp_path / name
    with open(out, "w", encoding="utf-8") as fh:
        for line in CASES.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            case["retrieved"] = [notes[pid] for pid in case["retrieved"]]
            cls = (classes or {}).get(case["id"], "confidential" if case["id"] in HELD else None)
            if cls:
                case["classification"] = cls
            fh.write(json.dumps(case) + "\n")
    return out


def _held_texts(path: Path, ids=HELD):
    """The answers of the held cases, which no request may carry."""
    return [json.loads(line)["answer"] for line in path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["id"] in ids]


def _sent(stub) -> str:
    return json.dumps(stub.requests + stub.batch_requests, ensure_ascii=False)


def _answers_sent(stub) -> list:
    bodies = stub.requests + [r["params"] for r in stub.batch_requests]
    return [html.unescape(a) for body in bodies for a in re.findall(r"<answer>(.*?)</answer>",
                                                                      body["messages"][0]["content"], re.S)]


def _check_none_sent(stub, cases: Path, ids=HELD) -> None:
    sent = _answers_sent(stub)
    assert sent
    for text in _held_texts(cases, ids):
        assert text not in sent, text


def test_held_back_cases_never_reach_the_endpoint(cli, messages_stub, tmp_path):  # noqa: F811
    cases = _cases(tmp_path)
    policy = _policy(tmp_path, messages_stub.url)
    code, out, err = cli("score", "--cases", cases, "--judge", "llm", "--policy", policy, "--json",
                         "--cases-out", tmp_path / "frame.csv", "--claims-out", tmp_path / "claims.csv")
    assert code == 0, err
    _check_none_sent(messages_stub, cases)
    # The 10 answered cases less the 3 held back (c04, the fourth confidential one, abstains: no claim to judge).
    assert len(messages_stub.requests) == 7
    assert "the data policy (" in err and "held back 3 cases from llm (3 judged by rules instead)" in err
    summary = json.loads(out)
    assert summary["held_back"] == {"cases": 3, "judged_instead": 3, "unjudged": 0}
    import pandas as pd

    frame = pd.read_csv(tmp_path / "frame.csv")
    assert sorted(frame.loc[frame["held_back"] == "llm", "case_id"]) == list(HELD[:3])
    claims = pd.read_csv(tmp_path / "claims.csv")
    held = claims[claims["case_id"].isin(HELD)]
    assert held["reason"].str.startswith("rules (held back from llm by the data policy (confidential").all()
    # The cache holds nothing of the held cases either.
    cached = [json.loads(p.read_text(encoding="utf-8"))["request"]["answer"]
              for p in (tmp_path / ".groundlab" / "cache").rglob("*.json")]
    assert len(cached) == 7 and not set(cached) & set(_held_texts(cases))


def test_the_cascade_the_batch_mode_and_the_guard_hold_them_back_too(cli, messages_stub, tmp_path):  # noqa: F811
    cases = _cases(tmp_path)
    policy = _policy(tmp_path, messages_stub.url)
    code, _, err = cli("score", "--cases", cases, "--judge", "cascade", "--first", "rules", "--then", "llm",
                       "--audit", "1", "--policy", policy, "--no-cache")
    assert code == 0, err
    _check_none_sent(messages_stub, cases)
    assert "held back 3 cases from llm" in err
    messages_stub.requests.clear()
    code, _, err = cli("score", "--cases", cases, "--judge", "llm", "--batch", "--policy", policy, "--no-cache")
    assert code == 0, err
    assert messages_stub.batch_requests and not messages_stub.requests
    _check_none_sent(messages_stub, cases)
    messages_stub.batch_requests.clear()
    records = tmp_path / "live.jsonl"
    records.write_text(cases.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = cli("guard", records, "--judge", "llm", "--policy", policy, "--no-cache")
    assert code == 0, err
    _check_none_sent(messages_stub, cases)
    lines = [json.loads(line) for line in out.splitlines()]
    held = [line for line in lines if line.get("id") in HELD and line["claims"]]
    assert held and all(c["reason"].startswith("rules (held back from llm") for line in held for c in line["claims"])


def test_a_cached_reply_is_not_used_for_a_held_back_case(cli, messages_stub, tmp_path):  # noqa: F811
    cases = _cases(tmp_path)
    assert cli("score", "--cases", cases, "--judge", "llm")[0] == 0  # no policy: every answered case cached
    sent = len(messages_stub.requests)
    policy = _policy(tmp_path, messages_stub.url)
    code, _, err = cli("score", "--cases", cases, "--judge", "llm", "--policy", policy,
                       "--claims-out", tmp_path / "claims.csv")
    assert code == 0, err
    assert len(messages_stub.requests) == sent and "7 answered from the cache" in err
    import pandas as pd

    claims = pd.read_csv(tmp_path / "claims.csv")
    assert claims.loc[claims["case_id"].isin(HELD), "reason"].str.startswith("rules (held back").all()


def test_dry_run_endpoint_unjudged_and_unknown_classifications(cli, messages_stub, tmp_path):  # noqa: F811
    cases = _cases(tmp_path)
    policy = _policy(tmp_path, messages_stub.url)
    code, out, err = cli("score", "--cases", cases, "--judge", "llm", "--policy", policy, "--dry-run")
    assert code == 0 and "7 requests to send" in out and "the data policy holds back 3 cases, which are not sent" in out
    # Another endpoint than the one the policy names: every case is held back (the confidential ones
    # judged by rules, the internal ones by the first offline judge their classification lists).
    other = _policy(tmp_path, "https://llm-gateway.example.internal", name="other.toml")
    code, out, err = cli("score", "--cases", cases, "--judge", "llm", "--policy", other, "--json")
    assert code == 0, err
    assert json.loads(out)["held_back"]["cases"] == 10 and not messages_stub.requests
    # A classification with no judge at all: its cases are left unjudged and counted.
    secret = _cases(tmp_path, {"c05": "secret"}, "secret.jsonl")
    code, out, err = cli("score", "--cases", secret, "--judge", "llm", "--policy", policy, "--json")
    assert code == 0, err
    assert json.loads(out)["held_back"] == {"cases": 4, "judged_instead": 3, "unjudged": 1}
    _check_none_sent(messages_stub, secret, HELD + ("c05",))
    # A classification the policy does not name stops the run before anything is sent.
    messages_stub.requests.clear()
    odd = _cases(tmp_path, {"c07": "top-secret"}, "odd.jsonl")
    code, out, err = cli("score", "--cases", odd, "--judge", "llm", "--policy", policy)
    assert code == 2 and not messages_stub.requests and err.count("\n") == 1
    assert "(case c07): a case is classified 'top-secret', which the data policy" in err


@pytest.mark.parametrize("text,fix", [
    ("[classes.a]\njudges = ['llm', 'gpt']\n", "names the judge 'gpt'"),
    ("[classes.a]\nmodels = ['x']\n", "needs judges = [...]"),
    ("default = 'b'\n[classes.a]\njudges = []\n", "default = 'b', which it does not name"),
    ("[classes.a]\njudges = ['llm']\ninstead = 'rules'\n", "a judge its judges do not allow"),
    ("[class.a]\njudges = []\n", "has 'class', which a policy does not take"),
    ("judges = [", "is not valid TOML"),
])
def test_a_bad_policy_file_is_one_sentence(tmp_path, text, fix):
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="policy file") as info:
        load_policy(path)
    assert fix in str(info.value)


# ---------------------------------------------------------------- masking

PEOPLE = {"c01": " Ask Jana Novak (jana.novak@example.com, +49 30 12345678).",
          "c02": " Refunds go to IBAN DE89 3704 0044 0532 0130 00.",
          "c03": " The card 4111 1111 1111 1111 was charged."}


def _personal(tmp_path: Path) -> Path:
    """The sample set with personal data in the question, the passages and the answer."""
    path = _cases(tmp_path, {k: "internal" for k in HELD}, "internal.jsonl")
    out = tmp_path / "personal.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            extra = PEOPLE.get(case["id"])
            if extra:
                case["question"] += extra
                case["retrieved"][0]["text"] += extra
                case["answer"] = case["answer"].rstrip() + extra
                case.pop("labels", None)  # one more sentence: the person's labels no longer fit
            fh.write(json.dumps(case) + "\n")
    return out


VALUES = ("Jana Novak", "jana.novak@example.com", "12345678", "DE89 3704", "4111 1111")


def test_masked_requests_hold_no_personal_data_and_verdicts_do_not_move(cli, messages_stub, tmp_path):  # noqa: F811
    cases = _personal(tmp_path)
    code, plain, err = cli("score", "--cases", cases, "--judge", "llm", "--no-cache", "--claims-out",
                           tmp_path / "plain.csv")
    assert code == 0, err
    assert all(v in _sent(messages_stub) for v in VALUES)  # what leaves without masking
    messages_stub.requests.clear()
    code, masked, err = cli("score", "--cases", cases, "--judge", "llm", "--no-cache", "--mask", "--mask-name",
                            "Jana Novak", "--claims-out", tmp_path / "masked.csv")
    assert code == 0, err
    sent = _sent(messages_stub)
    assert len(messages_stub.requests) == 10 and "MASKED_EMAIL_1" in sent and "MASKED_NAME_1" in sent
    for value in VALUES:
        assert value not in sent, value
    assert "personal data masked in 3 cases sent" in err
    import pandas as pd

    a, b = pd.read_csv(tmp_path / "plain.csv"), pd.read_csv(tmp_path / "masked.csv")
    assert list(a["verdict"]) == list(b["verdict"]) and list(a["citation_ok"]) == list(b["citation_ok"])
    assert not b["reason"].str.contains("MASKED_").any()  # restored in what groundlab writes
    assert json.loads(cli("score", "--cases", cases, "--judge", "rules", "--json")[1])["faithfulness"]


@pytest.mark.parametrize("judge", ["rules", "lexical", "signals"])
def test_masking_the_texts_leaves_the_offline_verdicts_as_they_were(tmp_path, judge):
    """Masked alike in the question, the passages and the answer, the cases get the same verdicts
    from every offline judge as unmasked: the masking keeps what judging compares."""
    cases = load_cases(_personal(tmp_path))
    masker = Masker(names=("Jana Novak",))
    masked = []
    from dataclasses import replace

    for case in cases:
        table = masker.table([case.question, *(p.text for p in case.retrieved), case.answer])
        masked.append(replace(case, question=masker.mask(case.question, table), answer=masker.mask(case.answer, table),
                              retrieved=tuple(replace(p, text=masker.mask(p.text, table)) for p in case.retrieved)))
    assert sum(c.answer != m.answer for c, m in zip(cases, masked)) == 3
    a, b = evaluate(cases, judge), evaluate(masked, judge)
    assert list(a.claims["verdict"]) == list(b.claims["verdict"])
    assert list(a.claims["citation_ok"]) == list(b.claims["citation_ok"])


def test_masking_in_python_restores_reasons_and_keeps_offline_judges_unmasked(tmp_path):
    judge = apply_policy("rules" and __import__("groundlab").get_judge("rules"), mask=True, names=["Jana Novak"])
    ev = evaluate(load_cases(_personal(tmp_path)), judge)
    assert ev.claims["verdict"].notna().all()
    assert judge.masked_cases == 0  # an offline judge keeps the data on this machine: nothing to mask
    m = Masker()
    assert m.find("call 030 1234567 or mail a.b@c.de") and not m.find("PO 4500017311 on 01.05.2024")


def test_import_reads_a_classification_column_into_the_cases(cli, tmp_path):
    from sap_logs import SAP

    rows = [dict(json.loads(line), sensitivity="confidential" if k < 3 else "internal")
            for k, line in enumerate((SAP / "records_v1.jsonl").read_text(encoding="utf-8").splitlines())]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "cases.jsonl"
    assert cli("import", path, "--out", out, "--map", "classification=sensitivity")[0] == 0
    cases = load_cases(out)
    assert [c.classification for c in cases] == ["confidential"] * 3 + ["internal"] * 5
    assert all(not (c.meta or {}).get("sensitivity") for c in cases)


def test_groundlab_run_holds_them_back_in_every_notebook(cli, messages_stub, tmp_path):  # noqa: F811
    """`groundlab run --policy` judges behind the policy once for the notebooks, and notebook 03's
    guard examples, judged in the kernel, stand behind it too; masking reaches the kernels as well."""
    import shutil

    from conftest import ROOT

    cases = _cases(tmp_path)
    policy = _policy(tmp_path, messages_stub.url)
    folder = tmp_path / "nbs"
    folder.mkdir()
    for name in ("01-groundedness.ipynb", "03-risk-report.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, folder)
    code, _, err = cli("run", "--judge", "llm", "--cases", cases, "--policy", policy, "--mask-name", "Anna Weber",
                       "--notebooks", folder, "--out", tmp_path / "out")
    assert code == 0, err
    _check_none_sent(messages_stub, cases)
    assert len(messages_stub.requests) == 7  # the 10 answered cases less the 3 held back, for both notebooks
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "Data policy" in report and "3 cases" in report
    executed = json.loads((tmp_path / "out" / "03-risk-report.ipynb").read_text(encoding="utf-8"))
    given = "".join("".join(c["source"]) for c in executed["cells"] if "injected-parameters" in c["metadata"].get("tags", []))
    assert "policy = " in given and "mask = True" in given and "Anna Weber" in given
    # A policy given twice, or one that cannot be read, is one sentence before anything runs.
    code, _, err = cli("run", "--cases", cases, "--policy", policy, "-p", "policy", policy, "--out", tmp_path / "o2")
    assert code == 2 and "--policy and -p policy both set policy" in err
    (tmp_path / "bad.toml").write_text("[classes\n", encoding="utf-8")
    code, _, err = cli("run", "--cases", cases, "--policy", tmp_path / "bad.toml", "--out", tmp_path / "o3")
    assert code == 2 and "bad.toml" in err and not (tmp_path / "o3").exists()


def test_every_offline_judge_may_read_a_case_kept_offline(tmp_path):
    """"offline" names every judge that runs on this machine, the entail model's too: a confidential
    case is judged by it, not held back from it."""
    from groundlab.judges import get_judge
    from groundlab.policy import OFFLINE

    assert {"signals", "rules", "lexical", "entail", "nli"} <= set(OFFLINE)
    cases = load_cases(_cases(tmp_path))
    policy = load_policy(_policy(tmp_path, "https://llm.example.internal"))
    ev = evaluate(cases, apply_policy(get_judge("entail"), policy))
    assert "held_back" not in ev.cases or ev.cases["held_back"].isna().all()
    assert not ev.claims["reason"].str.contains("held back").any()


@pytest.mark.parametrize("text", ["Pay to DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX.",
                                  "IBAN: DE89370400440532013000 BIC: COBADEFFXXX",
                                  "Konto DE89 3704 0044 0532 0130 00 IBAN bitte"])
def test_an_iban_followed_by_a_capitalised_word_is_masked(text):
    """As IBANs are written: the BIC or another word after them, which the pattern runs on into."""
    masked = Masker().mask(text, Masker().table([text]))
    assert "3704" not in masked and "MASKED_IBAN_1" in masked and ("BIC" in masked or "IBAN bitte" in masked)


def _workbook(tmp_path: Path, *names: str) -> Path:
    import shutil

    from conftest import ROOT

    folder = tmp_path / "nbs"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(ROOT / "notebooks" / name, folder)
    return folder


@pytest.mark.parametrize("show_judge", ["true", "false"])
def test_notebook_04_judges_its_sample_behind_the_policy(cli, messages_stub, tmp_path, show_judge):  # noqa: F811
    """Notebook 04 judges its drawn sample again (the sheet's suggestions, the labeled sample weighed
    back): that judge stands behind the run's policy too, blind or not."""
    cases = _cases(tmp_path)
    policy = _policy(tmp_path, messages_stub.url)
    code, _, err = cli("run", "--judge", "llm", "--cases", cases, "--policy", policy, "-p", "show_judge", show_judge,
                       "-p", "n_sample", "12", "--notebooks", _workbook(tmp_path, "04-labeling.ipynb"),
                       "--out", tmp_path / "out")
    assert code == 0, err
    _check_none_sent(messages_stub, cases)


# ---------------------------------------------------------------- one place makes judges

#: What may build a judge besides the factory: judges made of judges (the cascade builds its two,
#: which the factory then gates; the combined judge, offline, weighs the signals judge it builds; the
#: calibration fits the signals judge on this machine).
COMPOSED = {"groundlab/judges/cascade.py": {"get_judge"}, "groundlab/judges/combined.py": {"SignalsJudge"},
            "groundlab/judges/calibration.py": {"SignalsJudge"}}

#: The functions that judge with a judge given by name: a notebook hands them the judge the run
#: judged with (``judged_cases(...).judge(name)``), never the name.
JUDGING = {"evaluate", "evaluate_file", "evaluate_files", "count_file", "sheet_frame", "export_sheet", "write_round",
           "weigh_back", "compare", "guard", "judge_object"}


def _calls(tree):
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            yield node, name


def _factory_module() -> str:
    """The module that defines the factory, ``make_judge`` (wherever it moves), as a path."""
    from groundlab import make_judge

    return make_judge.__module__.replace(".", "/") + ".py"


def _judge_builders(package: Path, factory: str):
    """Each place in ``package`` (a copy of groundlab) that could build a judge past the factory:
    a call of ``get_judge``, ``_registered`` or a registered judge class; one of them imported
    under another name (``from ..judges import get_judge as build``), whose calls the names would
    miss; and any use of the registry of judges (``_REGISTRY``: its module and class built with
    importlib) outside ``judges/__init__.py``, which keeps it, and the factory."""
    import ast

    from groundlab.judges import _REGISTRY

    builders = {"get_judge", "_registered"} | {cls for _, cls, _ in _REGISTRY.values()}
    keeps = {"groundlab/judges/__init__.py", factory}
    offenders = []
    for path in sorted(package.rglob("*.py")):
        where = "groundlab/" + path.relative_to(package).as_posix()
        if where in keeps:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, name in _calls(tree):
            if name in builders and name not in COMPOSED.get(where, ()):
                offenders.append(f"{where}:{node.lineno} calls {name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name in builders and alias.asname not in (None, alias.name):
                        offenders.append(f"{where}:{node.lineno} imports {alias.name} as {alias.asname}")
                    if alias.name == "_REGISTRY":
                        offenders.append(f"{where}:{node.lineno} imports the registry of judges")
            elif (isinstance(node, ast.Name) and node.id == "_REGISTRY"
                  or isinstance(node, ast.Attribute) and node.attr == "_REGISTRY"
                  or isinstance(node, ast.Constant) and node.value == "_REGISTRY"):
                offenders.append(f"{where}:{node.lineno} uses the registry of judges")
    return offenders


def test_no_module_builds_a_judge_but_the_factory():
    """Every judge groundlab runs is made by the factory ``make_judge``, which puts it behind the
    data policy and the masking asked for: no other module calls ``get_judge`` or a judge class,
    imports one under another name, or builds a judge from the registry."""
    from conftest import ROOT

    factory = _factory_module()
    assert (ROOT / factory).is_file() and factory != "groundlab/judges/__init__.py"
    offenders = _judge_builders(ROOT / "groundlab", factory)
    assert not offenders, offenders


#: Ways past the factory the names of the calls alone would not show.
BYPASSES = {
    "core/renamed_factory.py": ("from ..judges import get_judge as build\n\n\n"
                                "def judge():\n    return build('llm')\n", "imports get_judge as build"),
    "judges/renamed_class.py": ("from .llm import LLMJudge as J\n\n\n"
                                "def judge():\n    return J()\n", "imports LLMJudge as J"),
    "present/from_the_registry.py": ("import importlib\n\nfrom ..judges import _REGISTRY\n\n\n"
                                     "def judge(name):\n    module, cls, _ = _REGISTRY[name]\n"
                                     "    return getattr(importlib.import_module(module), cls)()\n",
                                     "imports the registry of judges"),
    "production/through_the_package.py": ("import importlib\n\nfrom .. import judges\n\n\n"
                                          "def judge(name):\n    module, cls, _ = getattr(judges, '_REGISTRY')[name]\n"
                                          "    return getattr(importlib.import_module(module), cls)()\n",
                                          "uses the registry of judges"),
}


def test_the_check_for_judges_built_past_the_factory_catches_each_way_round_it(tmp_path):
    """A copy of groundlab with a module planted for each way past the factory: the check names
    every one of them, and nothing else."""
    import shutil

    from conftest import ROOT

    package = tmp_path / "groundlab"
    shutil.copytree(ROOT / "groundlab", package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    factory = _factory_module()
    assert not _judge_builders(package, factory)
    for where, (source, _) in BYPASSES.items():
        (package / where).write_text(source, encoding="utf-8")
    found = _judge_builders(package, factory)
    for where, (_, said) in BYPASSES.items():
        assert any(f.startswith(f"groundlab/{where}:") and said in f for f in found), (where, found)
    assert all(any(f.startswith(f"groundlab/{where}:") for where in BYPASSES) for f in found), found
    for where in BYPASSES:
        (package / where).unlink()
    # a copy of the registry's module is no registry: what it builds goes past the factory
    shutil.copy(package / "judges" / "__init__.py", package / "judges" / "copy_of_the_registry.py")
    assert any(f.startswith("groundlab/judges/copy_of_the_registry.py:") for f in _judge_builders(package, factory))
    (package / "judges" / "copy_of_the_registry.py").unlink()
    # the factory may build judges wherever it lives: moved, the check follows it
    (package / "measure").mkdir(exist_ok=True)
    moved = "groundlab/measure/factory_moved_here.py"
    shutil.move(package.parent / factory, package.parent / moved)
    assert not _judge_builders(package, moved)
    assert {f.split(":")[0] for f in _judge_builders(package, factory)} == {moved}


def test_no_notebook_hands_a_judge_name_to_what_judges():
    """A notebook judges more cases (notebook 04 its sample) with the judge the run judged with,
    behind its policy, not with a judge built from the name."""
    import ast

    from conftest import ROOT

    offenders = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for node, name in _calls(ast.parse(source)):
            if name in {"get_judge", "make_judge", "apply_policy"}:
                offenders.append(f"{path.name} line {node.lineno} calls {name}")
            given = list(node.args) + [k.value for k in node.keywords if k.arg == "judge"]
            if name in JUDGING and any(isinstance(n, ast.Name) and n.id == "judge" for a in given for n in ast.walk(a)):
                offenders.append(f"{path.name} line {node.lineno} hands {name} the judge's name")
    assert not offenders, offenders


def test_a_judge_name_or_object_gets_the_policy_from_the_factory(tmp_path):
    from groundlab.judges import get_judge
    from groundlab.policy import gates, make_judge

    policy = _policy(tmp_path, "https://llm.example.internal")
    judge = make_judge("llm", policy=policy, mask_names=["Jana Novak"], dry_run=True)
    assert gates(judge) and gates(judge)[0].policy.source == str(policy) and gates(judge)[0].mask_all
    assert make_judge(judge, policy=policy, mask_names=["Jana Novak"]) is judge  # already behind it
    cascade = make_judge("cascade", first="rules", then="llm", then_options={"dry_run": True}, policy=policy)
    assert len(gates(cascade)) == 2
    assert make_judge("rules") .name == "rules" and not gates(make_judge("rules", policy=""))
    plain = get_judge("rules")
    assert make_judge(plain) is plain
    ev = evaluate(load_cases(_cases(tmp_path)), "rules", policy=policy)
    assert ev.claims["verdict"].notna().all()


def test_every_notebook_of_a_run_stands_behind_the_policy_and_the_masking(cli, messages_stub, tmp_path):  # noqa: F811
    """The whole workbook with the llm judge: no notebook sends a confidential case or an unmasked
    value, whatever it judges (the shared result, notebook 03's guard examples, notebook 04's
    sample, notebook 05's second configuration)."""
    import shutil

    from conftest import ROOT

    confidential = ("c05", "c07", "c08")
    base = _cases(tmp_path, {**{k: "internal" for k in HELD}, **{k: "confidential" for k in confidential}}, "mixed.jsonl")
    cases = tmp_path / "workbook.jsonl"
    with open(cases, "w", encoding="utf-8") as fh:
        for line in base.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            extra = PEOPLE.get(case["id"])
            if extra:
                case["question"] += extra
                case["retrieved"][0]["text"] += extra
                case["answer"] = case["answer"].rstrip() + extra
                case.pop("labels", None)
            fh.write(json.dumps(case) + "\n")
    cases_b = tmp_path / "workbook_b.jsonl"
    shutil.copy(cases, cases_b)
    policy = _policy(tmp_path, messages_stub.url)
    folder = _workbook(tmp_path, *(p.name for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))))
    code, _, err = cli("run", "--judge", "llm", "--cases", cases, "--cases-b", cases_b, "--policy", policy,
                       "--mask", "--mask-name", "Jana Novak", "-p", "n_sample", "12", "--notebooks", folder,
                       "--out", tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("[0-9][0-9]-*.html"))) == 6
    _check_none_sent(messages_stub, cases, confidential)
    sent = _sent(messages_stub)
    assert "MASKED_EMAIL_1" in sent
    for value in VALUES:
        assert value not in sent, value


def test_compare_places_both_sides_before_it_judges_either(cli, messages_stub, tmp_path):  # noqa: F811
    """B's classification the policy cannot place stops compare before A is judged (and paid for)."""
    a = _cases(tmp_path)
    b = _cases(tmp_path, {"c09": "top-secret"}, "b.jsonl")
    policy = _policy(tmp_path, messages_stub.url)
    code, out, err = cli("compare", a, b, "--judge", "llm", "--policy", policy)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "b.jsonl" in err and "(case c09): a case is classified 'top-secret'" in err, err
    assert not messages_stub.requests
    from groundlab.compare import compare
    from groundlab.policy import make_judge

    with pytest.raises(InputError, match="top-secret"):
        compare(load_cases(a), load_cases(b), make_judge("llm", policy=policy))
    assert not messages_stub.requests


@pytest.mark.parametrize("written", ["confidential ", " confidential", "confidential\t"])
def test_guard_and_score_read_a_classification_alike(cli, messages_stub, tmp_path, written):  # noqa: F811
    """One rule for both: the spaces around a classification are dropped, by score as by guard."""
    cases = _cases(tmp_path, {k: written for k in HELD}, "spaced.jsonl")
    policy = _policy(tmp_path, messages_stub.url)
    code, out, err = cli("score", "--cases", cases, "--judge", "llm", "--policy", policy, "--json", "--no-cache")
    assert code == 0, err
    assert json.loads(out)["held_back"]["cases"] == 3
    messages_stub.requests.clear()
    code, out, err = cli("guard", cases, "--judge", "llm", "--policy", policy, "--no-cache")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert not [line for line in lines if "error" in line], lines
    held = [line for line in lines if line.get("id") in HELD and line["claims"]]
    assert len(held) == 3 and all(c["reason"].startswith("rules (held back from llm") for line in held
                                  for c in line["claims"])
    _check_none_sent(messages_stub, cases)
    from groundlab import guard
    from groundlab.policy import make_judge

    case = load_cases(cases)[0]
    result = guard(case.question, case.retrieved, case.answer, make_judge("llm", policy=policy, cache=None),
                   classification=written)
    assert all(c.reason.startswith("rules (held back from llm") for c in result.claims)
