"""Agent specs: parsing, placeholders, the registry, and the CLI option."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalkit.agents.spec import AgentModel, fill, parse_command
from evalkit.errors import ConfigError
from evalkit.harness.config import RunConfig
from evalkit.models.registry import get_model


def test_parse_and_fill():
    argv = parse_command("cmd:python agent.py --url {mcp_url} --msg '{user_message_file}' --json '{\"a\": 1}'")
    assert argv == ["python", "agent.py", "--url", "{mcp_url}", "--msg", "{user_message_file}", "--json", '{"a": 1}']
    assert fill(argv, {"{mcp_url}": "http://127.0.0.1:5/mcp", "{user_message_file}": "/tmp/m.txt"}) == [
        "python", "agent.py", "--url", "http://127.0.0.1:5/mcp", "--msg", "/tmp/m.txt", "--json", '{"a": 1}']


@pytest.mark.parametrize(("name", "words"), [
    ("python agent.py", "must look like cmd:COMMAND"),
    ("cmd:", "the command is empty"),
    ("cmd:python 'unbalanced", "does not split into arguments"),
])
def test_bad_specs_are_one_line_errors(name, words):
    with pytest.raises(ConfigError, match=words):
        get_model(f"agent/{name}")


def test_registry_builds_an_agent_with_the_run_bounds():
    model = get_model("agent/cmd:python agent.py {oracle_spec_file}")
    assert isinstance(model, AgentModel) and model.name == "agent/cmd:python agent.py {oracle_spec_file}"
    assert model.oracle and not AgentModel("cmd:python agent.py").oracle
    model.bind_run(RunConfig(models=[model.name], agent_timeout=12.5, agent_max_calls=7))
    assert model.describe()["timeout_s"] == 12.5 and model.describe()["max_calls"] == 7


def test_config_refuses_bad_bounds_and_dask():
    with pytest.raises(ValueError, match="agent_timeout"):
        RunConfig(agent_timeout=0)
    with pytest.raises(ValueError, match="local executor"):
        RunConfig(models=["agent/cmd:x"], executor="dask")


def test_cli_adds_agents_beside_models_and_import_stays_light():
    code = ("import sys, evalkit, evalkit.cli; from evalkit.models.registry import get_model; "
            "assert 'mcp' not in sys.modules and 'uvicorn' not in sys.modules, 'imported at start'")
    subprocess.run([sys.executable, "-c", code], check=True)
    out = subprocess.run([sys.executable, "-m", "evalkit", "run", "--help"], capture_output=True, text=True,
                         env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": sys.path[0]})
    assert "--agent" in out.stdout and "--agent-timeout" in out.stdout and "--agent-max-calls" in out.stdout
