"""A malformed endpoint is refused before any work: ``--base-url`` and a model's ``base_url``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions, check_base_url, resolve_settings

BAD = [("notaurl", "no scheme"), ("ftp://x/v1", "scheme 'ftp'"), ("", "empty"), ("   ", "empty"),
       ("http://[::1/v1", "Invalid IPv6 URL"), ("http://h:99999/v1", "Port out of range"), ("http:///v1", "no host")]


@pytest.mark.parametrize("url, needle", BAD)
def test_malformed_endpoints_are_refused(url, needle):
    with pytest.raises(ValueError, match="expected an http:// or https:// URL") as caught:
        check_base_url(url)
    assert needle in str(caught.value)
    with pytest.raises(ValidationError):
        ModelOptions(base_url=url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "https://api.openai.com/v1", "HTTP://[::1]:80",
                                 "http://localhost"])
def test_endpoints_are_kept_as_given(url):
    assert check_base_url(url) == url and ModelOptions(base_url=url).base_url == url
    assert check_base_url(None) is None


def test_a_models_base_url_in_the_config_file_is_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cfg = tmp_path / "models.yaml"
    cfg.write_text('models:\n  openai/gpt-x: {base_url: "ftp://x/v1"}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        resolve_settings("openai/gpt-x", ModelOptions(model_config_file=str(cfg)))
    message = str(caught.value)
    assert f"{cfg}: model openai/gpt-x: field base_url:" in message and "(got 'ftp://x/v1')" in message


def evalkit(*args, tmp_path):
    env = {**os.environ, "OPENAI_API_KEY": "k", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "evalkit", "run", "-m", "openai/fake", "--limit", "1", "--no-report",
                           "--no-selfcheck", "--out", str(tmp_path / "out"), *args],
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_cli_refuses_a_malformed_endpoint_before_any_episode(tmp_path):
    proc = evalkit("--base-url", "http://[::1/v1", tmp_path=tmp_path)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("evalkit: error: --base-url:") and "Invalid IPv6 URL" in line
    assert not (tmp_path / "out").exists()
    cfg = tmp_path / "models.yaml"
    cfg.write_text('defaults: {base_url: "notaurl"}\n', encoding="utf-8")
    proc = evalkit("--model-config", str(cfg), tmp_path=tmp_path)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert "field base_url:" in line and "no scheme" in line and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
