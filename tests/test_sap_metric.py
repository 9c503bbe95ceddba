"""``groundlab sap metric`` and ``groundlab sap dataset``: the metric's creation body (rubric,
steps, examples from labels, the judge pinned), pushed to a stand-in for a tenant on 127.0.0.1
that speaks the token endpoint's and the metric registry's shapes (201, 409, 400, 401, 403, a
timeout: one sentence each, the secret never shown), and the test data with the data policy and
masking applied."""

from __future__ import annotations

import base64
import csv
import json
import time
from urllib.parse import parse_qs

import pytest

from groundlab.core.io import sha256_text

from aicore_stub import CLIENT, SECRET, TOKEN, Tenant
from conftest import CASES, NOTES

@pytest.fixture
def tenant(monkeypatch, tmp_path):
    t = Tenant()
    monkeypatch.chdir(tmp_path)  # no .env of the working folder
    monkeypatch.setenv("AICORE_HOME", str(tmp_path / "no-aicore-home"))  # nor a profile configuration file
    for name in ("VCAP_SERVICES", "AICORE_CONFIG", "AICORE_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (("AICORE_AUTH_URL", t.url), ("AICORE_CLIENT_ID", CLIENT), ("AICORE_CLIENT_SECRET", SECRET),
                        ("AICORE_BASE_URL", t.url + "/v2"), ("AICORE_RESOURCE_GROUP", "grounding")):
        monkeypatch.setenv(name, value)
    yield t
    t.close()


# ---------------------------------------------------------------- the body


def test_the_metric_is_groundlabs_rubric_with_examples_from_labels(cli, tmp_path):
    out = tmp_path / "metric.json"
    code, text, err = cli("sap", "metric", "--out", out)
    assert code == 0, err
    body = json.loads(out.read_text(encoding="utf-8"))
    assert body["name"] == "groundlab-groundedness-r1" and body["version"] == "1"
    assert body["scenario"] == "genai-evaluations" and body["evaluationMethod"] == "llm-as-a-judge"
    assert body["usageType"] == ["evaluation"]
    spec = body["spec"]
    assert spec["promptType"] == "structured" and spec["outputType"] == "numerical"
    model = spec["configuration"]["modelConfiguration"]
    assert (model["name"], model["version"]) == ("gpt-4o", "2024-08-06")
    prompt = spec["configuration"]["promptConfiguration"]
    assert [r["rating"] for r in prompt["ratingRubric"]] == [3, 2, 1]
    assert "contradicted" in prompt["criteria"] and "unsupported" in prompt["criteria"]
    assert "sentence" in prompt["evaluationSteps"][0] and "own knowledge does not" in prompt["evaluationSteps"][1]
    assert prompt["evaluationSteps"][3] == "Rate 1 if any statement is contradicted, else 2 if any is unsupported, else 3."
    examples = prompt["examples"]
    # the sample set's first answer of each rating: c01 all supported, c06 unsupported, c02 contradicted
    assert [(e["rating"], e["response"][:20]) for e in examples] == [
        (3, "The supplier deliver"), (2, "The supplier will se"), (1, "The supplier deliver")]
    assert examples[2]["explanation"].startswith("The statement \"The supplier delivered 80 of 100 pieces.\" conflicts")
    assert examples[0]["groundingOutput"].startswith("[D07] Case: quantity variance")
    assert set(examples[0]) == {"prompt", "groundingInput", "groundingOutput", "response", "rating", "explanation"}
    assert "3 examples from the sample set: c01 (3), c06 (2), c02 (1)" in text


def test_the_model_and_version_are_pinned_and_the_name_is_checked(cli, tmp_path):
    out = tmp_path / "metric.json"
    code, _, err = cli("sap", "metric", "--out", out, "--model", "gpt-4.1", "--version", "2025-04-14", "--per-rating", "2")
    assert code == 0, err
    body = json.loads(out.read_text(encoding="utf-8"))
    assert body["spec"]["configuration"]["modelConfiguration"]["name"] == "gpt-4.1"
    assert body["spec"]["configuration"]["modelConfiguration"]["version"] == "2025-04-14"
    assert [e["rating"] for e in body["spec"]["configuration"]["promptConfiguration"]["examples"]] == [3, 3, 2, 2, 1, 1]
    for argv, message in ((["--name", "ground/ed"], "no '/'"), (["--metric-version", "12345678901"], "1 to 10"),
                          (["--model", " "], "--model is empty")):
        code, _, err = cli("sap", "metric", "--out", tmp_path / "m2.json", *argv)
        assert code == 2 and message in err and err.count("\n") == 1
    code, _, err = cli("sap", "metric", "--out", out)
    assert code == 2 and "already exists" in err


def test_a_name_of_ones_own_must_end_in_the_rubrics_version(cli, tmp_path):
    """SAP keys the aggregates by name alone: a name without the rubric's version would mix the
    trends of two rubrics under one name."""
    code, _, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--name", "my-metric")
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "m.json").exists()
    assert ("--name 'my-metric' does not end in the rubric's version, -r1, and SAP keys an evaluation's aggregates by "
            "name alone, so the trends of different rubrics would mix; name it my-metric-r1.") in err
    code, out, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--name", "my-metric-r1")
    assert code == 0, err
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["name"] == "my-metric-r1"
    assert "metric my-metric-r1 version 1" in out
    code, help_text, _ = cli("sap", "metric", "--help")
    assert "ending in the rubric's version (-r1)" in " ".join(help_text.split())
    code, _, err = cli("sap", "metric")
    assert code == 2 and "give --out metric.json" in err


def test_examples_need_labels(cli, tmp_path):
    unlabeled = tmp_path / "cases.jsonl"
    unlabeled.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "labels"}) + "\n"
                                 for line in CASES.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    code, _, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--examples", unlabeled, "--passages", NOTES)
    assert code == 2 and "holds no labeled case, so the metric would have no example" in err


def test_a_data_policy_keeps_cases_out_of_the_examples(cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    lines = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj["classification"] = "confidential" if obj["id"] == "c01" else "internal"
        lines.append(json.dumps(obj))
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[classes.confidential]\njudges = ["offline"]\n[classes.internal]\njudges = ["llm"]\n',
                      encoding="utf-8")
    code, out, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--examples", cases, "--passages", NOTES,
                         "--policy", policy)
    assert code == 0, err
    assert "c03 (3)" in out and "c01" not in out.split("examples from")[1]
    assert "the data policy kept 1 case out of the examples" in out


# ---------------------------------------------------------------- the push


def test_push_gets_a_token_by_client_credentials_and_creates_the_metric(cli, tenant, tmp_path):
    code, out, err = cli("sap", "metric", "--out", tmp_path / "metric.json", "--push")
    assert code == 0, err
    assert f"created metric groundlab-groundedness-r1 version 1 on {tenant.url}/v2/lm/evaluationMetrics (id " \
           "9b349f8e-cd39-486d-809c-3dcfa3b15ac7)" in out
    (path1, headers1, body1), (path2, headers2, body2) = tenant.requests
    assert path1 == "/oauth/token" and parse_qs(body1.decode()) == {"grant_type": ["client_credentials"]}
    assert headers1["Authorization"] == "Basic " + base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()
    assert path2 == "/v2/lm/evaluationMetrics"  # the SDK's AICORE_BASE_URL, ending in /v2, is read as the API's root
    assert headers2["Authorization"] == f"Bearer {TOKEN}" and headers2["AI-Resource-Group"] == "grounding"
    assert json.loads(body2) == json.loads((tmp_path / "metric.json").read_text(encoding="utf-8"))
    for text in (out, err, (tmp_path / "metric.json").read_text(encoding="utf-8")):
        assert SECRET not in text and TOKEN not in text


@pytest.mark.parametrize("token_status, metric_status, message", [
    (200, 409, "the tenant already has metric groundlab-groundedness-r1 version 1 in scenario genai-evaluations; "
               "nothing was changed"),
    (200, 400, "refused the metric as invalid (400: spec.configuration.promptConfiguration.ratingRubric: must not be "
               "empty); nothing was created."),
    (200, 401, "refused the token (401: Invalid token [key removed]); check that AICORE_BASE_URL (the environment)"),
    (200, 403, "does not allow the client to create metrics in resource group grounding (403: Forbidden)"),
    (401, 201, "the token endpoint http://127.0.0.1:PORT/oauth/token refused the client (401: invalid_client: Bad "
               "credentials for [key removed]); check AICORE_CLIENT_ID and AICORE_CLIENT_SECRET (the environment)"),
    (500, 201, "the token endpoint http://127.0.0.1:PORT/oauth/token answered 500"),
])
def test_every_answer_but_201_is_one_sentence_without_the_secret(cli, tenant, token_status, metric_status, message):
    tenant.token_status, tenant.metric_status = token_status, metric_status
    code, out, err = cli("sap", "metric", "--push")
    assert code == 2 and "Traceback" not in err
    assert message.replace("PORT", tenant.url.rsplit(":", 1)[1]) in err and err.count("\n") == 1
    assert SECRET not in err + out and TOKEN not in err + out


def test_no_answer_in_time_is_one_sentence(cli, tenant):
    tenant.delay = 2.0
    started = time.monotonic()
    code, _, err = cli("sap", "metric", "--push", "--timeout", "0.3")
    assert code == 2 and time.monotonic() - started < 2.0
    assert f"{tenant.url}/oauth/token did not answer within 0.3 seconds; nothing was created" in err


def test_no_answer_in_time_from_the_registry_says_the_metric_may_exist(cli, tenant):
    """The metric went out and the registry did not answer: it may have been created."""
    tenant.metric_delay = 2.0
    started = time.monotonic()
    code, _, err = cli("sap", "metric", "--push", "--timeout", "0.3")
    assert code == 2 and time.monotonic() - started < 2.0 and err.count("\n") == 1
    assert [path for path, _, _ in tenant.requests] == ["/oauth/token", "/v2/lm/evaluationMetrics"]
    assert (f"{tenant.url}/v2/lm/evaluationMetrics did not answer within 0.3 seconds, but the metric was sent and may "
            f"have been created all the same; check with GET {tenant.url}/v2/lm/evaluationMetrics (or push again: a "
            "409 then says it exists)") in err
    assert "nothing was created" not in err and SECRET not in err and TOKEN not in err


def test_the_settings_come_from_dotenv_as_a_group_and_never_leak(cli, tenant, monkeypatch, tmp_path):
    for name in ("AICORE_AUTH_URL", "AICORE_CLIENT_ID", "AICORE_CLIENT_SECRET", "AICORE_BASE_URL",
                 "AICORE_RESOURCE_GROUP"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = cli("sap", "metric", "--push")
    assert code == 2 and "missing: AICORE_AUTH_URL, AICORE_CLIENT_ID, AICORE_CLIENT_SECRET, AICORE_BASE_URL" in err
    (tmp_path / ".env").write_text(f"AICORE_AUTH_URL={tenant.url}\nAICORE_CLIENT_ID={CLIENT}\n"
                                   f"AICORE_CLIENT_SECRET='{SECRET}'\nAICORE_BASE_URL={tenant.url}\n", encoding="utf-8")
    monkeypatch.setenv("AICORE_BASE_URL", "https://elsewhere.example")  # not the .env's pair: left aside
    code, out, err = cli("sap", "metric", "--push")
    assert code == 0, err
    assert tenant.requests[-1][1]["AI-Resource-Group"] == "default"
    assert SECRET not in out + err
    # the secret from the environment takes its URLs from there too
    monkeypatch.setenv("AICORE_CLIENT_SECRET", SECRET)
    code, _, err = cli("sap", "metric", "--push")
    assert code == 2 and "in the environment (which sets AICORE_CLIENT_SECRET, so the others are read there too)" in err
    monkeypatch.setenv("AICORE_AUTH_URL", "http://auth.example.com")
    monkeypatch.setenv("AICORE_CLIENT_ID", CLIENT)
    code, _, err = cli("sap", "metric", "--push")
    assert code == 2 and "would carry the client secret unencrypted" in err and SECRET not in err


def test_push_reads_a_service_key_file_as_the_llm_judge_does(cli, tenant, monkeypatch, tmp_path):
    """The credentials are read in one place for both: a BTP service key, its url and AI_API_URL."""
    for name in ("AICORE_AUTH_URL", "AICORE_CLIENT_ID", "AICORE_CLIENT_SECRET", "AICORE_BASE_URL"):
        monkeypatch.delenv(name)
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"clientid": CLIENT, "clientsecret": SECRET, "url": tenant.url,
                               "serviceurls": {"AI_API_URL": tenant.url}}), encoding="utf-8")
    code, out, err = cli("sap", "metric", "--push", "--service-key", key)
    assert code == 0, err
    assert [path for path, _, _ in tenant.requests] == ["/oauth/token", "/v2/lm/evaluationMetrics"]
    assert tenant.requests[1][1]["AI-Resource-Group"] == "grounding"  # the environment's, as the SDK reads it
    code, _, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--service-key", key)
    assert code == 2 and "--service-key goes with --push" in err


# ---------------------------------------------------------------- the dataset


def _rows(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_dataset_holds_the_template_variables_and_the_labels_as_extra_columns(cli, tmp_path):
    code, out, err = cli("sap", "dataset", "--cases", CASES, "--passages", NOTES, "--out", tmp_path / "eval")
    assert code == 0, err
    target = tmp_path / "eval" / "testdata" / "grounded_cases.csv"
    assert f"wrote 12 rows to {target}" in out and "12 carry people's labels" in out
    rows = _rows(target)
    assert list(rows[0]) == ["question", "context", "case_id", "passages", "labels", "labeled_answer_sha256",
                             "answerable", "classification"]
    c02 = next(r for r in rows if r["case_id"] == "c02")
    source = next(json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if '"c02"' in line)
    assert c02["question"] == source["question"]
    assert c02["context"].startswith("[D07] Case: quantity variance") and "\n\n[D06] Each supplier invoice" in c02["context"]
    assert [p["id"] for p in json.loads(c02["passages"])] == ["D07", "D06"]
    assert json.loads(c02["labels"]) == ["contradicted", "unsupported"]
    assert c02["labeled_answer_sha256"] == sha256_text(source["answer"]) and c02["answerable"] == "true"
    code, _, err = cli("sap", "dataset", "--cases", CASES, "--passages", NOTES, "--out", tmp_path / "eval")
    assert code == 2 and "already exists" in err
    code, _, err = cli("sap", "dataset", "--cases", CASES, "--passages", NOTES, "--out", tmp_path / "eval",
                       "--format", "jsonl")
    assert code == 0, err
    lines = (tmp_path / "eval" / "testdata" / "grounded_cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["case_id"] for line in lines] == [r["case_id"] for r in rows]


def test_the_data_policy_holds_cases_back_and_masking_applies(cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    rows = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj["classification"] = {"c01": "confidential", "c03": "internal"}.get(obj["id"], "public")
        if obj["id"] == "c03":
            obj["question"] += " Ask anna.weber@example.com."
        rows.append(json.dumps(obj))
    cases.write_text("\n".join(rows) + "\n", encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[classes.confidential]\njudges = ["offline"]\n'
                      '[classes.internal]\njudges = ["llm"]\nmask = true\n'
                      '[classes.public]\njudges = ["llm"]\nmodels = ["gpt-4o*"]\n', encoding="utf-8")
    code, out, err = cli("sap", "dataset", "--cases", cases, "--passages", NOTES, "--out", tmp_path / "eval",
                         "--policy", policy)
    assert code == 0, err
    written = _rows(tmp_path / "eval" / "testdata" / "cases.csv")
    assert [r["case_id"] for r in written] == [f"c{k:02d}" for k in range(2, 13)]
    assert "held back by the data policy, not written: 1 case (c01 (confidential: it may go to signals, rules, " in out
    c03 = next(r for r in written if r["case_id"] == "c03")
    assert "anna.weber@example.com" not in json.dumps(written) and "MASKED_EMAIL_1" in c03["question"]
    assert "personal data masked in 1 row" in out
    # a model the policy does not name for a classification keeps its cases back
    code, out, err = cli("sap", "dataset", "--cases", cases, "--passages", NOTES, "--out", tmp_path / "eval2",
                         "--policy", policy, "--model", "mistral-large")
    assert code == 0 and "held back by the data policy, not written: 11 cases" in out
    assert "model mistral-large is not among its models (gpt-4o*)" in out


def test_building_the_command_line_loads_neither_pandas_nor_the_sap_modules_work():
    """Every command builds the whole parser: the sap commands' options must not bring pandas, the
    importers' evaluation reader's measures or the llm judge along."""
    import subprocess
    import sys

    code = ("import sys; from groundlab.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pandas', 'groundlab.judges.llm', 'groundlab.core.metrics', "
            "'groundlab.production.sap_dataset') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _echo(status):
    """A token endpoint or proxy that answers with what it was sent: headers, body, and each again
    URL-encoded and JSON-escaped (as a message that quotes the request may write them)."""
    from urllib.parse import quote

    def answer(headers, body):
        sent = {k.lower(): v for k, v in headers.items()}
        auth = sent.get("authorization", "")
        text = (f"rejected {auth}; body {body.decode()}; form client_secret={quote(SECRET, safe='')}; "
                f"again {quote(auth, safe='')}; escaped " + json.dumps(SECRET.replace('/', '\\/'))
                + " " + "".join(f"\\u{ord(c):04x}" for c in SECRET))
        return status, json.dumps({"error": "invalid_client", "error_description": text}).encode()
    return answer


ENCODINGS = [SECRET, base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode(),
             base64.b64encode(SECRET.encode()).decode(), base64.urlsafe_b64encode(f"{CLIENT}:{SECRET}".encode()).decode(),
             SECRET.replace("$", "%24"), TOKEN, TOKEN[-12:], SECRET[-10:],
             base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()[12:40]]


def test_an_echo_of_the_authorization_header_shows_no_encoding_of_the_secret(cli, tenant):
    """A token endpoint that echoes the request prints its Basic header (base64 of client id and
    secret), the secret URL-encoded and JSON-escaped: each is cleaned; so is the bearer token a
    registry echoes."""
    tenant.token_answer = _echo(401)
    code, out, err = cli("sap", "metric", "--push")
    assert code == 2 and "refused the client (401: invalid_client: rejected Basic [key removed]" in err
    assert err.count("\n") == 1
    for form in ENCODINGS:
        assert form not in out + err, form
    tenant.token_answer = None
    tenant.metric_answer = _echo(403)
    code, out, err = cli("sap", "metric", "--push")
    assert code == 2 and "(403: invalid_client: rejected Bearer [key removed]" in err
    for form in ENCODINGS + [base64.b64encode(TOKEN.encode()).decode()[4:30]]:
        assert form not in out + err, form


def test_the_cleaning_removes_every_encoding_and_leaves_ordinary_text_alone():
    from urllib.parse import quote, quote_plus

    from groundlab.core.redact import Redactor

    r = Redactor(SECRET, users=[CLIENT])
    r.add(TOKEN)
    pair = f"{CLIENT}:{SECRET}".encode()
    forms = [base64.b64encode(pair).decode(), base64.b64encode(pair).decode().rstrip("="),
             base64.urlsafe_b64encode(pair).decode(), base64.b64encode(SECRET.encode()).decode(),
             base64.b64encode(b"prefix " + SECRET.encode() + b" suffix").decode(),
             base64.b64encode(b"xy" + SECRET.encode()).decode(), quote(SECRET, safe=""), quote_plus(SECRET),
             quote(quote(SECRET, safe=""), safe=""), quote(SECRET, safe="").lower(), json.dumps(SECRET)[1:-1],
             SECRET.replace("$", "&#36;"), SECRET.replace("-", "\\u002d"), f"Bearer {TOKEN}", quote(TOKEN, safe=""),
             base64.b64encode(TOKEN.encode()).decode(), SECRET.encode().hex(), SECRET.encode().hex().upper(),
             "\r\n".join(base64.b64encode(pair).decode()[i:i + 16] for i in range(0, 80, 16)),  # wrapped
             base64.b64encode(pair).decode()[:60],  # cut: 12 of the secret's bytes and more
             base64.b64encode(SECRET[:14].encode()).decode()]
    for form in forms:
        cleaned = r.text(f"echo: {form} end")
        assert cleaned.startswith("echo: ") and cleaned.endswith(" end") and "[key removed]" in cleaned, (form, cleaned)
        for leak in (SECRET, SECRET[-8:], TOKEN[-8:], form):
            assert leak not in cleaned, (form, cleaned)
    for text in ("Basic dXNlcjpwYXNzd29yZA==", "see https://help.sap.com/docs/ai-core?x=%24top&y=%20",
                 '{"a": "\\u0041\\u0024\\/"}', "id 9b349f8e-cd39-486d-809c-3dcfa3b15ac7", "&#36; 100"):
        assert r.text(text) == text


def _mail_cases(tmp_path):
    """Cases whose passage ids hold an e-mail address the answers cite, and one whose answer splits
    otherwise once masked."""
    cases = tmp_path / "mail.jsonl"
    rows = [{"id": "m1", "question": "Who approves refunds?",
             "retrieved": [{"id": "mail from anna.weber@example.com", "text": "Refunds are approved by the team lead."},
                           {"id": "D2", "text": "Write to Anna.Weber@example.com for exceptions."}],
             "answer": "The team lead approves refunds [mail from anna.weber@example.com].", "labels": ["supported"]},
            {"id": "m2", "question": "Who pays refunds?",
             "retrieved": [{"id": "note by +49 30 1234567", "text": "Refunds are paid by accounting."}],
             "answer": "Accounting pays refunds [note by +49 30 1234567]. The branch pays them in cash.",
             "labels": ["supported", "unsupported"]}]
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return cases


def test_masking_masks_the_passage_ids_alike_in_the_dataset_and_the_metrics_examples(cli, tmp_path):
    """Passage ids go to the tenant with the passages: masked as the answer's citations of them are,
    as a judge's requests mask them."""
    cases = _mail_cases(tmp_path)
    code, out, err = cli("sap", "dataset", "--cases", cases, "--out", tmp_path / "eval", "--mask", "--format", "jsonl")
    assert code == 0, err
    sent = (tmp_path / "eval" / "testdata" / "mail.jsonl").read_text(encoding="utf-8")
    assert "anna.weber" not in sent.lower() and "1234567" not in sent
    m1, m2 = (json.loads(line) for line in sent.splitlines())
    assert [p["id"] for p in json.loads(m1["passages"])] == ["mail from MASKED_EMAIL_1", "D2"]
    assert m1["context"].startswith("[mail from MASKED_EMAIL_1] Refunds") and "[MASKED" not in m1["context"][1:]
    assert json.loads(m2["passages"])[0]["id"] == "note by MASKED_PHONE_1"
    assert "personal data masked in 2 rows (question, passages and their ids;" in out
    code, out, err = cli("sap", "metric", "--examples", cases, "--out", tmp_path / "m.json", "--mask")
    assert code == 0, err
    text = (tmp_path / "m.json").read_text(encoding="utf-8")
    assert "anna.weber" not in text.lower() and "1234567" not in text
    examples = json.loads(text)["spec"]["configuration"]["promptConfiguration"]["examples"]
    first = next(e for e in examples if e["rating"] == 3)
    assert first["groundingOutput"].startswith("[mail from MASKED_EMAIL_1] ")
    assert first["response"] == "The team lead approves refunds [mail from MASKED_EMAIL_1]."
    second = next(e for e in examples if e["rating"] == 2)
    assert second["groundingOutput"] == "[note by MASKED_PHONE_1] Refunds are paid by accounting."
    assert '"The branch pays them in cash."' in second["explanation"]


def test_two_passage_ids_that_mask_alike_stay_apart_where_the_answer_cites_them(cli, tmp_path):
    cases = tmp_path / "two.jsonl"
    cases.write_text(json.dumps({
        "id": "m1", "question": "Who approves refunds?", "labels": ["supported", "supported"],
        "retrieved": [{"id": "mail from anna@example.com", "text": "Refunds are approved by the team lead."},
                      {"id": "mail from ANNA@example.com", "text": "Refunds are paid by accounting."}],
        "answer": "The team lead approves refunds [mail from anna@example.com]. Accounting pays them "
                  "[mail from ANNA@example.com]."}) + "\n", encoding="utf-8")
    code, out, err = cli("sap", "metric", "--examples", cases, "--out", tmp_path / "m.json", "--mask")
    assert code == 0, err
    (example,) = json.loads((tmp_path / "m.json").read_text())["spec"]["configuration"]["promptConfiguration"][
        "examples"]
    assert example["groundingOutput"] == ("[mail from MASKED_EMAIL_1] Refunds are approved by the team lead.\n\n"
                                          "[mail from MASKED_EMAIL_1'] Refunds are paid by accounting.")
    assert example["response"] == ("The team lead approves refunds [mail from MASKED_EMAIL_1]. Accounting pays them "
                                   "[mail from MASKED_EMAIL_1'].")


@pytest.mark.parametrize("reply, shown", [
    (b'["9b349f8e-cd39-486d-809c-3dcfa3b15ac7"]', "a list: ['9b349f8e-cd39-486d-809c-3dcfa3b15ac7']"),
    (b'"Metric created"', "a string: Metric created"),
    (b"null", "null"),
    (b"<html>Created</html>", "text that is not JSON: <html>Created</html>"),
    (b"", "no body at all"),
    (b'{"message": "Metric created", "id": {"value": 7}}', "an object without an id: Metric created"),
])
def test_a_201_that_is_not_the_metric_as_json_says_the_metric_exists(cli, tenant, reply, shown):
    """The registry created the metric and answered in another shape: no traceback, but what is
    known (created, its name and version, where) and how to find its id."""
    tenant.metric_answer = lambda headers, body: (201, reply)
    code, out, err = cli("sap", "metric", "--push")
    assert code == 0 and "Traceback" not in err, err
    assert (f"created metric groundlab-groundedness-r1 version 1 on {tenant.url}/v2/lm/evaluationMetrics (201: the "
            f"registry created it), but its answer is not the metric as JSON ({shown}), so its id is not known; the "
            "metric exists: select it in the evaluation's metrics by its name, or find its id with GET") in out


def test_an_endpoint_with_a_user_and_password_never_prints_them(cli, tmp_path, monkeypatch):
    """The evaluation's endpoint as the data policy reads it: its user and password name no other
    host, and no message shows them."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(dict(json.loads(line), classification="public")) + "\n"
                             for line in CASES.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[classes.public]\njudges = ["llm"]\nendpoints = ["https://api.example.com"]\n', encoding="utf-8")
    args = ("sap", "dataset", "--cases", cases, "--passages", NOTES, "--policy", policy)
    shown = []
    code, out, err = cli(*args, "--out", tmp_path / "a", "--endpoint", "https://anna:pa55word@other.example.com/v2")
    shown += [out, err]
    assert code == 2 and "endpoint https://other.example.com/v2 is not among its endpoints (https://api.example.com)" \
        in err
    code, out, err = cli(*args, "--out", tmp_path / "b", "--endpoint", "https://anna:pa55word@api.example.com")
    shown += [out, err]
    assert code == 0 and "wrote 12 rows" in out, err
    monkeypatch.setenv("AICORE_BASE_URL", "https://anna:pa55word@other.example.com")
    code, out, err = cli("sap", "metric", "--out", tmp_path / "m.json", "--examples", cases, "--passages", NOTES,
                         "--policy", policy)
    shown += [out, err]
    assert code == 0 and "the data policy kept 12 cases out of the examples" in out, err
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--cases", CASES, "--passages", NOTES, "--base-url",
                         "https://anna:pa55word@host:port")
    shown += [out, err]
    assert code == 2 and "'https://host:port'" in err
    for text in shown:
        assert "pa55word" not in text and "anna" not in text


def test_a_201_whose_id_is_long_or_holds_line_breaks_shows_it_on_one_short_line(cli, tenant):
    tenant.metric_answer = lambda headers, body: (201, json.dumps({"id": "9b34\nforged line" + "x" * 5000}).encode())
    code, out, err = cli("sap", "metric", "--push")
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("created metric"))
    assert "(id '9b34\\nforged linexxx" in line and "...'" in line and len(line) < 400
