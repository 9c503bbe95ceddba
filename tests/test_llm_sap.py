"""The llm judge through SAP AI Core's orchestration service (``--provider sap-ai-core``), against a
stand-in tenant on 127.0.0.1 that speaks the documented shapes (the token endpoint, ``GET
/v2/lm/deployments``, ``POST .../v2/completion`` with its ``intermediate_results`` and
``final_result``, its error body and content filter): the same prompt, one completion per answered
case with the bearer token and the resource group, the cache, ``--repeat``, the summary, the
identity; the credentials in the SDK's order; the secret and the token where they belong and in no
output or file; each answer of the platform a clear outcome."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

import pytest

from groundlab import evaluate, get_judge, load_cases
from groundlab.core.identity import identity_line, judge_identity

from aicore_stub import (CLIENT, DEPLOYMENT, INPUT_FILTER, OUTPUT_FILTER, SECRET, TOKEN, Fail, Raw, Silent, Tenant,
                         completion, environment, labels_of, parse_prompt)
from conftest import CASES, CASES_B, NOTES

ARGS = ("--cases", CASES, "--passages", NOTES)
SAP = ("--judge", "llm", "--provider", "sap-ai-core")
ANSWERED = 10  # answered cases of the sample set: one completion each
COMPLETION = f"/v2/inference/deployments/{DEPLOYMENT}/v2/completion"


@pytest.fixture
def tenant(monkeypatch, tmp_path):
    t = Tenant()
    environment(monkeypatch, t, tmp_path)
    yield t
    t.close()


@pytest.fixture
def elsewhere():
    """A second stand-in, for a host neither the secret nor the token may reach."""
    t = Tenant()
    yield t
    t.close()


def _completions(tenant):
    return [(path, headers) for path, headers, _ in tenant.requests if path == COMPLETION]


def _forms(*secrets):
    """Each secret as it may travel: itself, URL-encoded, base64, and the basic credential."""
    out = []
    for s in secrets:
        out += [s, quote(s, safe=""), quote_plus(s), base64.b64encode(s.encode()).decode()]
    out.append(base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode())
    return out


def _nowhere(tmp_path, *texts):
    """Neither the secret nor any token, in any of their forms, in ``texts`` or any file under ``tmp_path``."""
    forms = _forms(SECRET, TOKEN, TOKEN + ".2", TOKEN + ".3")
    for text in texts:
        for form in forms:
            assert form not in text, form
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for form in forms:
                assert form.encode() not in data, (path, form)


# ---------------------------------------------------------------- the plumbing


def test_score_sends_one_completion_per_answered_case_with_the_token_and_the_resource_group(tenant, cli, tmp_path):
    code, out, err = cli("score", *SAP, "--cache", tmp_path / "cache", *ARGS)
    assert code == 0, err
    assert tenant.paths()[:2] == ["/oauth/token", "/v2/lm/deployments"]
    assert tenant.requests[1][0] == "/v2/lm/deployments?scenarioId=orchestration&status=RUNNING"
    sent = _completions(tenant)
    assert len(sent) == len(tenant.completions) == ANSWERED
    assert all(h["Authorization"] == f"Bearer {TOKEN}" and h["AI-Resource-Group"] == "grounding" for _, h in sent)
    assert tenant.paths().count("/oauth/token") == 1  # the token is fetched once and kept in memory
    body = tenant.completions[0]
    templating = body["config"]["modules"]["prompt_templating"]
    system, user = templating["prompt"]["template"]
    from groundlab.judges.llm.prompt import JSON_SYSTEM_PROMPT, verdict_schema

    assert system == {"role": "system", "content": JSON_SYSTEM_PROMPT}  # the judge's own prompt
    assert user == {"role": "user", "content": "{{?judge_request}}"}  # the case goes in as a value
    assert body["placeholder_values"]["judge_request"].startswith("<question>")
    assert templating["prompt"]["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "record_verdicts", "description": "Record one verdict for every numbered claim.", "strict": True,
        "schema": verdict_schema()}}
    model = templating["model"]
    assert model["name"] == "anthropic--claude-4-sonnet" and model["version"] == "latest"
    assert model["params"]["temperature"] == 0 and model["params"]["max_completion_tokens"] >= 712
    assert set(body) == {"config", "placeholder_values", "_rendered"} and set(body["config"]["modules"]) == {
        "prompt_templating"}  # no filtering or masking module asked for
    summary = err.strip().splitlines()[-1]
    assert summary.startswith(f"groundlab: llm judge (anthropic--claude-4-sonnet on SAP AI Core at {tenant.url}, "
                              f"deployment {DEPLOYMENT} (the running orchestration deployment of resource group "
                              "grounding); JSON output (response_format json_schema), temperature 0, through SAP AI "
                              "Core orchestration v2): 10 requests sent, 0 answered from the cache; ")
    counted = sum(c["final_result"]["usage"]["prompt_tokens"] for c in map(_answer, tenant.completions))
    assert f"{counted:,} input and 800 output tokens as the orchestration counted them, no price: SAP AI Core bills" in \
        summary and "served as anthropic--claude-4-sonnet-20250514" in summary
    before = len(tenant.requests)
    code, out2, err = cli("score", *SAP, "--cache", tmp_path / "cache", *ARGS)
    assert code == 0 and out2 == out
    assert len(tenant.requests) == before  # every reply from the cache: no token, no listing, no completion
    assert "0 requests sent, 10 answered from the cache" in err


def _answer(body):
    return completion(json.dumps({"verdicts": []}), body)


def test_agree_with_the_oracle_agrees_with_every_label_on_the_sample_set(tenant, cli, tmp_path):
    """The stand-in answers with people's labels: what comes back is what was sent, claim by claim."""
    tenant.oracle = labels_of(CASES)
    result = cli.json("agree", *SAP, "--no-cache", *ARGS)
    assert result["agreement"]["agree"] == result["agreement"]["claims"] == 20
    assert len(tenant.completions) == ANSWERED
    assert all(h["Authorization"] == f"Bearer {TOKEN}" and h["AI-Resource-Group"] == "grounding"
               for _, h in _completions(tenant))


def test_the_provider_and_model_come_from_dotenv_and_the_model_may_name_its_version(tenant, cli, tmp_path):
    (tmp_path / ".env").write_text("LLM_PROVIDER=sap-ai-core\nLLM_MODEL=gpt-4.1\n", encoding="utf-8")
    code, _, err = cli("score", "--judge", "llm", "--no-cache", *ARGS)
    assert code == 0, err
    assert {c["config"]["modules"]["prompt_templating"]["model"]["name"] for c in tenant.completions} == {"gpt-4.1"}
    code, _, err = cli("score", "--judge", "llm", "--no-cache", "--model", "gpt-4.1:2025-04-14", *ARGS)
    assert code == 0, err
    model = tenant.completions[-1]["config"]["modules"]["prompt_templating"]["model"]
    assert (model["name"], model["version"]) == ("gpt-4.1", "2025-04-14")


def test_the_cache_key_holds_the_provider_and_the_model(tenant, cli, tmp_path):
    from groundlab.judges.llm import Request
    from groundlab.records import Passage

    request = Request("Q?", (Passage("D1", "text"),), ("claim",), "answer")
    keys = {get_judge("llm", model=m, provider=p, dry_run=True)._key(request)
            for p, m in (("anthropic", "claude-haiku-4-5"), ("sap-ai-core", "claude-haiku-4-5"),
                         ("sap-ai-core", "gpt-4.1"), ("sap-ai-core", "gpt-4.1:2025-04-14"))}
    assert len(keys) == 4
    # Anthropic's API keeps the key it had before providers existed, so its cached replies are found again.
    assert get_judge("llm", model="claude-haiku-4-5", provider="anthropic", dry_run=True)._key(request) == \
        request.key("claude-haiku-4-5", "1", get_judge("llm", model="claude-haiku-4-5", dry_run=True).shape)
    code, _, err = cli("score", *SAP, "--cache", tmp_path / "c", *ARGS)
    assert code == 0 and f"{ANSWERED} requests sent, 0 answered from the cache" in err, err
    code, _, err = cli("score", *SAP, "--cache", tmp_path / "c", "--model", "gpt-4.1", *ARGS)
    assert code == 0 and "10 requests sent, 0 answered from the cache" in err  # another model: asked anew
    assert len(tenant.completions) == 2 * ANSWERED


def test_repeat_sends_every_request_again_and_reports_the_flip_rate(tenant, cli, tmp_path):
    code, out, err = cli("agree", *SAP, "--repeat", "2", "--cache", tmp_path / "c", *ARGS)
    assert code == 0, err
    assert len(tenant.completions) == 2 * ANSWERED
    assert "judge llm run 2 times (no cache): 0 of 20 claims changed verdict between runs, flip rate 0%" in out


def test_the_identity_names_the_provider_and_the_model_version(tenant, tmp_path):
    judge = get_judge("llm", provider="sap-ai-core", model="gpt-4.1:2025-04-14", dry_run=True)
    ident = judge_identity(judge)
    assert (ident["provider"], ident["model"], ident["model_version"]) == ("sap-ai-core", "gpt-4.1:2025-04-14",
                                                                          "2025-04-14")
    assert ident["request_shape"].endswith("through SAP AI Core orchestration v2")
    assert "provider `sap-ai-core`" in identity_line(ident)
    anthropic = judge_identity(get_judge("llm", model="claude-haiku-4-5", dry_run=True))
    assert "provider" not in anthropic  # as every identity before providers existed


def test_the_token_is_fetched_again_before_it_expires(tenant, tmp_path):
    """A token that lives 0.6 s is renewed half-way; the stand-in refuses an expired one, so a run
    that kept its first token would fail."""
    tenant.token_lifetime = 0.6
    tenant.completion_delay = 0.15
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, progress=False)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all()
    assert tenant.paths().count("/oauth/token") >= 3 and judge._api.api.tokens_fetched >= 3
    assert len({h["Authorization"] for _, h in _completions(tenant)}) >= 3  # later completions carried new tokens


def test_cascade_guard_and_compare_take_the_provider(tenant, cli, tmp_path, monkeypatch):
    code, out, err = cli("score", "--judge", "cascade", "--then", "llm", "--provider", "sap-ai-core",
                         "--cache", tmp_path / "c", *ARGS)
    assert code == 0, err
    assert 0 < len(tenant.completions) <= ANSWERED
    assert "on SAP AI Core at" in err
    asked = len(tenant.completions)
    code, out, err = cli("compare", CASES, CASES_B, "--passages", NOTES, *SAP, "--cache", tmp_path / "c")
    assert code == 0, err
    assert len(tenant.completions) > asked
    import io
    import sys

    record = {"id": "g1", "question": "Who approves a refund?",
              "retrieved": [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead."}],
              "answer": "The team lead approves refunds over 500 EUR [KB-7]."}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((json.dumps(record) + "\n").encode()),
                                                       encoding="utf-8"))
    before = len(tenant.completions)
    code, out, err = cli("guard", *SAP, "--no-cache")
    assert code == 0, err
    assert len(tenant.completions) == before + 1
    assert json.loads(out)["claims"][0]["verdict"] == "supported"


def test_label_export_takes_the_provider_and_reuses_scores_replies(tenant, cli, tmp_path):
    code, _, err = cli("score", *SAP, "--cache", tmp_path / "c", *ARGS)
    assert code == 0, err
    code, out, err = cli("label", "export", *SAP, "--cache", tmp_path / "c", *ARGS, "--show-judge",
                         "--out", tmp_path / "sheet.csv")
    assert code == 0, err
    assert len(tenant.completions) == ANSWERED and "0 requests sent, 10 answered from the cache" in err


def test_the_notebooks_take_the_provider(tenant, tmp_path):
    """What every notebook calls with its provider parameter: the llm judge through the provider."""
    from groundlab import workbook

    judged = workbook.judged_cases(CASES, NOTES, ["llm"], provider="sap-ai-core")
    assert len(tenant.completions) == ANSWERED and judged.get("llm").claims["error"].isna().all()
    assert judged.get("llm").claims.attrs["judge"]["provider"] == "sap-ai-core"
    assert type(judged.judge("llm").inner if hasattr(judged.judge("llm"), "inner") else
                judged.judge("llm")).__name__ == "LLMJudge"
    assert judged.judge("llm").provider == "sap-ai-core"


def test_run_passes_the_provider_to_its_judging_and_its_notebooks(tenant, cli, tmp_path):
    import nbformat

    folder = tmp_path / "nbs"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    params = nbformat.v4.new_code_cell('judge: str = "signals"  # the judge\n'
                                       'provider: str = ""  # the provider\n'
                                       'judged_file: str = ""  # shared')
    params.metadata["tags"] = ["parameters"]
    nb.cells += [params, nbformat.v4.new_code_cell("print(judge, provider, bool(judged_file))")]
    nbformat.write(nb, folder / "01-one.ipynb")
    code, out, err = cli("run", "--judge", "llm", "--provider", "sap-ai-core", *ARGS, "--notebooks", folder,
                         "--out", tmp_path / "out")
    assert code == 0, err
    assert len(tenant.completions) == ANSWERED
    ran = nbformat.read(tmp_path / "out" / "01-one.ipynb", as_version=4)
    assert "llm sap-ai-core True" in json.dumps(ran.cells[-1].outputs)
    code, _, err = cli("run", "--provider", "azure", *ARGS, "--notebooks", folder, "--out", tmp_path / "out2")
    assert code == 2 and "--provider 'azure' is not a provider of the llm judge; use anthropic or sap-ai-core." in err


# ---------------------------------------------------------------- credentials, in the SDK's order


def _unset(monkeypatch):
    for name in ("AICORE_AUTH_URL", "AICORE_CLIENT_ID", "AICORE_CLIENT_SECRET", "AICORE_BASE_URL",
                 "AICORE_RESOURCE_GROUP"):
        monkeypatch.delenv(name, raising=False)


def _key_file(path, tenant, **extra):
    key = {"clientid": CLIENT, "clientsecret": SECRET, "url": tenant.url, "identityzone": "tenant",
           "serviceurls": {"AI_API_URL": tenant.url}, "appname": "aicore!b540", **extra}
    path.write_text(json.dumps(key), encoding="utf-8")
    return path


def test_a_service_key_file_gives_the_credentials(tenant, elsewhere, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("AICORE_AUTH_URL", elsewhere.url)  # the environment's settings are left aside
    monkeypatch.setenv("AICORE_BASE_URL", elsewhere.url)
    key = _key_file(tmp_path / "key.json", tenant)
    code, _, err = cli("score", *SAP, "--no-cache", "--service-key", key, *ARGS)
    assert code == 0, err
    assert len(tenant.completions) == ANSWERED and elsewhere.requests == []
    assert "left aside: the client secret comes from the service key" in err
    wrapped = tmp_path / "wrapped.json"  # as the cf CLI prints it
    wrapped.write_text(json.dumps({"credentials": json.loads(key.read_text())}), encoding="utf-8")
    assert get_judge("llm", provider="sap-ai-core", service_key=wrapped, cache=None)._api.credentials.client_id == CLIENT
    x509 = _key_file(tmp_path / "x509.json", tenant, clientsecret=None, certificate="-----BEGIN", **{
        "credential-type": "x509"})
    code, _, err = cli("score", *SAP, "--no-cache", "--service-key", x509, *ARGS)
    assert code == 2 and "holds an X.509 certificate, not a client secret" in err


def test_the_profile_configuration_file_and_vcap_services_come_after_the_environment(tenant, elsewhere, cli, tmp_path,
                                                                                     monkeypatch):
    _unset(monkeypatch)
    home = tmp_path / "aicore-home"
    home.mkdir()
    config = {"AICORE_AUTH_URL": tenant.url, "AICORE_CLIENT_ID": CLIENT, "AICORE_CLIENT_SECRET": SECRET,
              "AICORE_BASE_URL": tenant.url + "/v2", "AICORE_RESOURCE_GROUP": "grounding"}
    (home / "config_dev.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("AICORE_HOME", str(home))
    monkeypatch.setenv("AICORE_PROFILE", "dev")
    vcap = {"aicore": [{"label": "aicore", "name": "my-aicore", "credentials": {
        "clientid": CLIENT, "clientsecret": "another-secret-456789", "url": elsewhere.url,
        "serviceurls": {"AI_API_URL": elsewhere.url}}}]}
    monkeypatch.setenv("VCAP_SERVICES", json.dumps(vcap))
    judge = get_judge("llm", provider="sap-ai-core", cache=None, progress=False)
    assert judge._api.credentials.origin == f"the configuration file {home / 'config_dev.json'}"
    assert judge._api.credentials.resource_group == "grounding"
    evaluate(load_cases(CASES, NOTES)[:2], judge)
    assert len(tenant.completions) == 2 and elsewhere.requests == []
    monkeypatch.delenv("AICORE_PROFILE")  # no config.json in the home: VCAP_SERVICES is next
    judge = get_judge("llm", provider="sap-ai-core", cache=None)
    assert judge._api.credentials.origin == "VCAP_SERVICES (service my-aicore)"
    assert judge._api.credentials.base_url == elsewhere.url
    monkeypatch.setenv("AICORE_PROFILE", "prod")
    code, _, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert code == 2 and f"the SAP AI Core configuration file {home / 'config_prod.json'} (AICORE_PROFILE names it) " \
                          "does not exist" in err


def test_missing_credentials_are_one_sentence_naming_every_place_looked(tenant, cli, tmp_path, monkeypatch):
    _unset(monkeypatch)
    code, out, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert ("the llm judge on --provider sap-ai-core needs AICORE_AUTH_URL, AICORE_CLIENT_ID, AICORE_CLIENT_SECRET, "
            "AICORE_BASE_URL from a service key (--service-key FILE), the environment or .env, the configuration file"
            ) in err and "VCAP_SERVICES" in err
    code, out, err = cli("score", *SAP, "--dry-run", "--no-cache", *ARGS)  # a dry run needs none
    assert code == 0 and "Nothing was sent" in out and tenant.requests == []
    assert "no price: SAP AI Core bills anthropic--claude-4-sonnet's tokens at the tenant's rates" in out


def test_options_that_do_not_go_with_the_provider_are_refused(tenant, cli, tmp_path):
    for extra, says in ((("--batch",), "--batch sends through Anthropic's Message Batches API, which SAP AI Core's "
                                       "orchestration does not offer; drop --batch"),
                        (("--base-url", "https://x.example"), "--base-url is the Anthropic API's endpoint"),
                        (("--deployment-id", "../../etc"), "--deployment-id '../../etc' is not a deployment id")):
        code, out, err = cli("score", *SAP, *extra, *ARGS)
        assert code == 2 and says in err and err.count("\n") == 1, err
    code, _, err = cli("score", "--judge", "llm", "--service-key", "key.json", *ARGS)
    assert code == 2 and "--service-key is SAP AI Core's; add --provider sap-ai-core" in err
    code, _, err = cli("score", "--judge", "llm", "--provider", "openai", *ARGS)
    assert code == 2 and "--provider 'openai' is not a provider of the llm judge; use anthropic or sap-ai-core." in err
    code, _, err = cli("score", "--judge", "rules", "--provider", "sap-ai-core", *ARGS)
    assert code == 2 and "--provider does not apply to the rules judge" in err
    assert tenant.requests == []


def test_a_named_deployment_is_used_without_listing(tenant, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("AICORE_DEPLOYMENT_ID", DEPLOYMENT)
    code, _, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert code == 0, err
    assert "/v2/lm/deployments" not in tenant.paths()
    assert f"deployment {DEPLOYMENT} (named)" in err
    code, out, err = cli("score", *SAP, "--no-cache", "--deployment-id", "dmissing0000", *ARGS)
    assert code == 2 and ("answered 404 (Deployment dmissing0000 not found): --deployment-id (or "
                          "AICORE_DEPLOYMENT_ID) names a deployment the resource group does not have") in err


# ---------------------------------------------------------------- the secret and the token stay where they belong


def test_neither_secret_nor_token_reaches_any_output_or_file(tenant, cli, tmp_path):
    """A full run with a report, the claims and cases frames and the cache, and runs whose errors
    echo the secret and the token: neither appears anywhere, in any encoding."""
    tenant.script = [Fail(400, f"bad request from {TOKEN}", "Request Body")] + [None] * 3 + [
        Fail(500, f"{quote(TOKEN, safe='')} upstream {base64.b64encode(SECRET.encode()).decode()}")]
    outputs = []
    code, out, err = cli("score", *SAP, "--cache", tmp_path / "cache", "--report", tmp_path / "report.md",
                         "--claims-out", tmp_path / "claims.csv", "--cases-out", tmp_path / "cases.parquet", *ARGS)
    assert code == 0, err
    outputs += [out, err]
    assert "[key removed]" in out + err
    tenant.token_status = 401  # the token endpoint's refusal echoes the secret
    code, out, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert code == 2 and "refused the client (401: invalid_client: Bad credentials for [key removed])" in err
    outputs += [out, err]
    _nowhere(tmp_path, *outputs)
    assert list((tmp_path / "cache").rglob("*.json"))


def test_a_redirect_from_the_token_endpoint_carries_the_secret_nowhere(tenant, elsewhere, cli):
    tenant.redirect_to = elsewhere.url
    code, out, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert elsewhere.requests == []
    assert _stop(code, out, err).endswith(
        "answered with a redirect (307), which groundlab does not follow, so the secret stayed here; check "
        "AICORE_AUTH_URL (the environment) is the service key's url.")
    assert SECRET not in err


def test_a_redirect_from_the_orchestration_carries_the_token_nowhere(tenant, elsewhere, cli):
    tenant.redirect_to, tenant.redirect_what = elsewhere.url, "completion"
    code, out, err = cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 2 and elsewhere.requests == []
    assert f"to {elsewhere.url}{COMPLETION}, which groundlab does not follow, so the token stayed here" in err
    assert TOKEN not in err


def test_a_deployment_on_another_host_gets_no_token(tenant, elsewhere, cli):
    tenant.deployments[0]["deploymentUrl"] = f"{elsewhere.url}/v2/inference/deployments/{DEPLOYMENT}"
    code, out, err = cli("score", *SAP, "--no-cache", *ARGS)
    assert code == 2 and elsewhere.requests == []
    assert "is not on the AI API of the credentials" in err and "so the token was not sent there" in err


def test_the_secrets_redactor_removes_each_form():
    from groundlab.judges.llm.aicore import Credentials

    secrets = Credentials("https://auth.example", CLIENT, SECRET, "https://api.example").secrets()
    secrets.add(TOKEN)
    for form in _forms(SECRET, TOKEN):
        assert form not in secrets.text(f"x {form} y"), form
    assert secrets.text("an ordinary sentence about tokens") == "an ordinary sentence about tokens"


def test_a_token_added_while_a_reply_is_cleaned_leaves_the_secret_removed(monkeypatch):
    """A token renewed in one thread while another cleans a reply: the cleaning goes on with the
    secrets it had, never with none (a list sorted in place reads empty meanwhile)."""
    from groundlab.core import redact

    secrets = redact.Redactor(SECRET, users=[CLIENT])
    echo = f"error for Basic {base64.b64encode(f'{CLIENT}:{SECRET}'.encode()).decode()} and {SECRET}"
    cleaned = []

    class Renewed(redact._Secret):  # a reply is cleaned at the moment the new token is put in order
        @property
        def secret(self):
            if not cleaned:
                cleaned.append(secrets.text(echo))
            return self._value

        @secret.setter
        def secret(self, value):
            self._value = value

    monkeypatch.setattr(redact, "_Secret", Renewed)
    secrets.add(TOKEN)
    assert cleaned == ["error for Basic [key removed] and [key removed]"]
    assert TOKEN not in secrets.text(f"x {TOKEN} y")


# ---------------------------------------------------------------- the platform's answers as clear outcomes


def _stop(code, out, err):
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and "Traceback" not in err and len(lines) <= 2, err
    return lines[-1]


@pytest.mark.parametrize("setup, says", [
    (lambda t, mp: setattr(t, "token_status", 401),
     "the token endpoint {url}/oauth/token refused the client (401: invalid_client: Bad credentials for [key removed]); "
     "check AICORE_CLIENT_ID and AICORE_CLIENT_SECRET (the environment) against the service key's clientid and "
     "clientsecret."),
    (lambda t, mp: mp.setenv("AICORE_RESOURCE_GROUP", "wrong-group"),
     "the AI API at {url} does not let the client list the deployments in resource group wrong-group (403: Resource "
     "group wrong-group is not accessible); check AICORE_RESOURCE_GROUP and the service key's roles."),
    (lambda t, mp: t.deployments.clear(),
     "resource group grounding of the AI API at {url} has no running orchestration deployment (scenario "
     "orchestration, status RUNNING); start one"),
    (lambda t, mp: t.deployments[0].update(status="STOPPED"),
     "has no running orchestration deployment"),
])
def test_the_tenants_refusals_stop_the_run_with_one_sentence(tenant, cli, monkeypatch, setup, says):
    setup(tenant, monkeypatch)
    line = _stop(*cli("score", *SAP, "--no-cache", *ARGS))
    assert says.format(url=tenant.url) in line
    assert tenant.completions == []


def test_a_model_the_tenant_does_not_offer_stops_the_run(tenant, cli):
    line = _stop(*cli("score", *SAP, "--no-cache", "--model", "gpt-9", "--concurrency", "1", *ARGS))
    assert (f"SAP AI Core's orchestration at {tenant.url} (deployment {DEPLOYMENT}) does not offer the model 'gpt-9' "
            "(--model) (400: 400 - Request Body: Model gpt-9 not supported.); pass a model the tenant's "
            "generative AI hub offers with --model or LLM_MODEL") in line
    assert tenant.paths().count(COMPLETION) == 1  # the first refusal stops it


def test_the_content_filter_leaves_its_cases_unjudged_with_the_reason_and_counted(tenant, cli, tmp_path):
    tenant.script = [INPUT_FILTER, OUTPUT_FILTER]
    code, out, err = cli("score", *SAP, "--no-cache", "--concurrency", "1", "--json", *ARGS)
    assert code == 0, err
    result = json.loads(out)
    assert result["errors"] > 0 and len(tenant.completions) == ANSWERED  # filtered once, not retried
    code, out, err = cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS)  # the script is spent: all judged
    assert code == 0 and "content filter" not in out, out
    tenant.script = [INPUT_FILTER, OUTPUT_FILTER]
    code, out, err = cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0, err
    assert ("SAP AI Core's content filter blocked the request (400 - Filtering Module - Input Filter: "
            "Content filtered due to safety violations. Please modify the prompt and try again.); the case is left "
            "unjudged") in out
    assert ("SAP AI Core's content filter withheld the model's reply (output filter: 1 of 1 choices failed the "
            "output filter.); the case is left unjudged") in out
    assert "; 2 blocked by the content filter (their cases left unjudged)" in err
    assert "1 request failed" in err  # the input filter's; the output filter's reply came and was counted


def test_rate_limits_and_server_errors_are_retried_with_the_wait_asked_for(tenant, tmp_path):
    tenant.script = [Fail(429, "429 - Too many requests.", "LLM", headers={"Retry-After": "0"}),
                     Fail(503, "busy", "LLM Module"),
                     Fail(429, "429 - Too many requests.", "LLM", body={"error": [{
                         "request_id": "r", "code": 429, "message": "429 - Too many requests.", "location": "LLM",
                         "headers": {"x-retry-after": "0"}}]})]
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, backoff=0.01, progress=False)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all() and judge.usage.retries == 3
    assert len(tenant.completions) == ANSWERED + 3
    tenant.script = [Fail(429, "slow down", "LLM", headers={"Retry-After": "600"})]
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, max_retries=1, max_retry_after=0.05,
                      progress=False)
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge)
    assert ev.claims["error"].isna().all() and judge.usage.retries == 1  # waited 0.05 s, not 600


def test_a_request_that_keeps_failing_becomes_unscored_verdicts_not_a_crash(tenant, tmp_path):
    tenant.script = [Fail(500, "internal")] * 5
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, backoff=0.01, progress=False)
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge)
    assert ev.claims["error"].str.startswith("the request failed after 5 attempts (HTTP 500: LLM Module: "
                                             "internal)").all()
    assert ev.claims["verdict"].isna().all()


def test_an_orchestration_that_does_not_answer_in_time_is_retried_then_given_up(tenant):
    tenant.script = [Silent(2)] * 2
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, backoff=0.01, timeout=0.4,
                      progress=False)
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge)
    assert ev.claims["error"].isna().all() and judge.usage.retries == 2
    tenant.script = [Silent(2)] * 6
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, backoff=0.01, timeout=0.3,
                      progress=False)
    with pytest.raises(Exception) as stopped:
        evaluate(load_cases(CASES, NOTES), judge)
    assert f"the endpoint {tenant.url} did not answer 5 requests in a row (the last: no complete reply within " \
           "0.3 s)" in str(stopped.value)


def test_a_reply_that_is_not_the_verdicts_is_an_unscored_verdict_and_many_stop_the_run(tenant, cli):
    page = Raw(200, b"<!doctype html><html><body>Sign in</body></html>", "text/html")
    prose = lambda body: completion("They all look fine to me.", body)  # noqa: E731
    tenant.script = [prose]
    code, out, err = cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0, err
    assert "the reply held no JSON object of verdicts (its text starts 'They all look fine to me.')" in out
    tenant.script = [page] * 3
    line = _stop(*cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS))
    assert ("answered the first 3 requests alike with no usable message (the endpoint answered with a body that is "
            "not JSON (text/html, starting '<!doctype html><html><body>Sign in</body></html>')), so it would answer "
            "every one so") in line
    tenant.script = [lambda body: {"request_id": "r", "intermediate_results": {}}] * 3
    line = _stop(*cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS))
    assert "without final_result.choices (not an orchestration v2 completion)" in line


def test_a_refusal_of_the_response_format_names_the_model_table_entry(tenant, cli, tmp_path):
    tenant.script = [Fail(400, "400 - LLM Module: response_format json_schema is not supported by this model",
                          "LLM Module")] * 3
    line = _stop(*cli("score", *SAP, "--no-cache", "--concurrency", "1", *ARGS))
    assert ('groundlab sends it to a hub model its model table has no entry for (anthropic--claude-4-sonnet), so give '
            'it "structured_outputs": false in a model table of your own') in line
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"models": {"anthropic--claude-4-sonnet": {
        "forced_tool": False, "temperature": False, "thinking": "off", "structured_outputs": False,
        "effort": False}}}), encoding="utf-8")
    code, out, err = cli("score", *SAP, "--no-cache", "--model-table", table, *ARGS)
    assert code == 0, err
    prompt = tenant.completions[-1]["config"]["modules"]["prompt_templating"]
    assert "response_format" not in prompt["prompt"] and "temperature" not in prompt["model"]["params"]
    assert "JSON answer asked for in the prompt (no response_format), default temperature" in err
    judge = get_judge("llm", provider="sap-ai-core", model="anthropic--claude-4-sonnet:latest", model_table=table,
                      dry_run=True)  # a version pinned: the name's entry
    assert not judge.shape.response_format and not judge.shape.temperature


# ---------------------------------------------------------------- the data policy and masking


def test_the_data_policy_names_the_provider_and_masking_works_as_with_anthropic(tenant, cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    rows = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj["classification"] = "business" if obj["id"] != "c01" else "confidential"
        if obj["id"] == "c02":
            obj["question"] += " Reply to anna.weber@example.com."
        rows.append(json.dumps(obj))
    cases.write_text("\n".join(rows) + "\n", encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[classes.confidential]\njudges = ["offline"]\n'
                      '[classes.business]\njudges = ["llm"]\nproviders = ["sap-ai-core"]\n'
                      'models = ["anthropic--claude-*", "gpt-4.1"]\nmask = true\n', encoding="utf-8")
    code, out, err = cli("score", *SAP, "--no-cache", "--policy", policy, "--cases", cases, "--passages", NOTES)
    assert code == 0, err
    assert len(tenant.completions) == ANSWERED - 1  # c01 stays here
    sent = json.dumps([c["placeholder_values"] for c in tenant.completions])
    assert "anna.weber@example.com" not in sent and "MASKED_EMAIL_1" in sent
    assert "the data policy" in err and "held back 1 case from llm" in err
    # the same cases may not go to Anthropic's API, nor to a hub model the policy does not name
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", "--policy", policy, "--cases", cases,
                         "--passages", NOTES)
    assert code == 0 and "the data policy holds back 10 cases" in out  # every answered one
    code, out, err = cli("score", *SAP, "--model", "mistralai--mistral-large-instruct", "--dry-run", "--no-cache",
                         "--policy", policy, "--cases", cases, "--passages", NOTES)
    assert code == 0 and "the data policy holds back 10 cases" in out
    policy.write_text('[classes.x]\njudges = ["llm"]\nproviders = ["azure"]\n', encoding="utf-8")
    code, out, err = cli("score", *SAP, "--policy", policy, *ARGS)
    assert code == 2 and "providers names 'azure'; the llm judge's providers are anthropic, sap-ai-core." in err


def test_the_stub_fills_placeholders_as_the_templating_module_does(tenant, tmp_path):
    """A case text that holds a placeholder of its own goes through as text: it is a value."""
    case = load_cases(CASES, NOTES)[1]
    from dataclasses import replace

    tricky = replace(case, answer=case.answer + " See {{?judge_request}} and {{ ?other }}.", labels=None)
    judge = get_judge("llm", provider="sap-ai-core", cache=None, progress=False)
    ev = evaluate([tricky], judge)
    assert ev.claims["error"].isna().all()
    assert "{{?judge_request}}" in parse_prompt(tenant.completions[0])["answer"]


def test_a_token_endpoint_that_cannot_be_reached_is_said_as_such(tenant, monkeypatch, tmp_path):
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    monkeypatch.setenv("AICORE_AUTH_URL", f"http://127.0.0.1:{port}")
    judge = get_judge("llm", provider="sap-ai-core", cache=None, concurrency=1, backoff=0.01, progress=False)
    with pytest.raises(Exception) as stopped:
        evaluate(load_cases(CASES, NOTES)[:1], judge)
    assert (f"did not answer 5 requests in a row (the last: could not reach the token endpoint "
            f"http://127.0.0.1:{port}/oauth/token (ConnectError") in str(stopped.value)
    assert tenant.requests == []


def test_a_price_table_of_ones_own_prices_a_hub_model(tenant, cli, tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"date": "2027-01-01", "models": {"anthropic--claude-4-sonnet": {
        "input": 3, "output": 15}}}), encoding="utf-8")
    code, _, err = cli("score", *SAP, "--no-cache", "--price-table", table, *ARGS)
    assert code == 0, err
    assert "as the orchestration counted them, about $0.0" in err and f"the price table {table} of 2027-01-01" in err


def test_the_two_providers_compared_claim_by_claim(tenant, cli, tmp_path, monkeypatch):
    """One provider's agree --json as the baseline of the other's: which claims moved, and the paired
    difference in agreement with people."""
    from messages_stub import KEY, MessagesStub

    anthropic = MessagesStub().start()
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic.url)
        code, out, err = cli("agree", "--judge", "llm", "--no-cache", "--json", *ARGS)
        assert code == 0, err
        (tmp_path / "anthropic.json").write_text(out, encoding="utf-8")
    finally:
        anthropic.stop()
    tenant.oracle = labels_of(CASES)
    code, out, err = cli("agree", *SAP, "--no-cache", "--baseline", tmp_path / "anthropic.json", *ARGS)
    assert code == 0, err
    assert "against the baseline" in out and "judge llm 1 · model 'claude-sonnet-5-5'" in out
    assert "20 claims compared" in out and "now" in out and "points, 95% range" in out
    assert KEY not in out + err and SECRET not in out + err


def test_a_run_of_the_notebooks_judges_inside_the_tenant_and_writes_no_secret(tenant, cli, tmp_path):
    """groundlab run --provider sap-ai-core: the shared judging, notebook 01, and notebook 03's guard
    examples, which build their judge in the notebook, all through the tenant; nothing the run writes
    holds the secret or the token."""
    import shutil

    from conftest import ROOT

    folder = tmp_path / "nbs"
    folder.mkdir()
    for name in ("01-groundedness.ipynb", "03-risk-report.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, folder)
    code, out, err = cli("run", "--judge", "llm", "--provider", "sap-ai-core", *ARGS, "--notebooks", folder,
                         "--out", tmp_path / "out")
    assert code == 0, err
    assert len(tenant.completions) == ANSWERED  # judged once; the guard examples' requests from the cache
    assert "provider `sap-ai-core`" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    _nowhere(tmp_path, out, err)


def test_the_guard_lets_each_credential_go_to_its_own_place_only():
    """The request hook of the tenant's HTTP client, on requests as httpx builds them (a host in
    capitals is lowercased there): the basic credential to the token URL only, the token to the AI
    API only, nothing elsewhere."""
    import httpx

    from groundlab.judges.llm.aicore import AICore, Credentials, NotSent

    api = AICore(Credentials("https://Sub.Authentication.eu10.hana.ondemand.com", CLIENT, SECRET,
                             "https://api.ai.prod.eu-central-1.aws.ml.hana.ondemand.com/v2"))
    token_url = "https://Sub.Authentication.eu10.hana.ondemand.com/oauth/token"
    basic = {"Authorization": "Basic " + base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()}
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    api._guard(httpx.Request("POST", token_url, headers=basic))
    api._guard(httpx.Request("GET", "https://api.ai.prod.eu-central-1.aws.ml.hana.ondemand.com/v2/lm/deployments",
                             headers=bearer))
    for method, url, headers in (
            ("POST", "https://api.ai.prod.eu-central-1.aws.ml.hana.ondemand.com/oauth/token", basic),
            ("POST", "https://sub.authentication.eu10.hana.ondemand.com/other", basic),
            ("GET", "https://sub.authentication.eu10.hana.ondemand.com/v2/lm/deployments", bearer),
            ("GET", "https://elsewhere.example/v2/lm/deployments", {}),
            ("POST", "http://api.ai.prod.eu-central-1.aws.ml.hana.ondemand.com/v2/x", bearer)):
        with pytest.raises(NotSent):
            api._guard(httpx.Request(method, url, headers=headers))
    api.close()
