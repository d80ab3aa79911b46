"""``request_tool`` under the ``meta`` condition: a named tool or a recorded gap, never a look-alike.

Seed ``000`` §3.2: the runtime may disclose an existing tool, use a substitute, refuse, ask the
user or record a capability gap. A substitute chosen because its name shares a word with the
request (``send_message`` for ``schedule_message``, ``approve_refund`` for ``approve_exchange``)
is the very mistake the ``tool_gap`` pairs test, so the runtime offers a registered tool only
when the request names it (:func:`evalkit.runtime.meta_requests.tool_named`).
"""

from __future__ import annotations

import pytest

from evalkit.harness.episode import DEFAULT_SETUP, EpisodeSpec, execute
from evalkit.models.registry import get_model
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import MetaRequestUpdated
from evalkit.runtime.meta_requests import tool_named
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

MAIL = ("check_recipient", "send_message", "read_message", "forward_message", "delete_message")


@pytest.mark.parametrize(("capability", "named"), [
    ("send_message", "send_message"),
    ("Send Message", "send_message"),
    ("  send-message ", "send_message"),
    ("read.message", "read_message"),
    ("schedule_message", None),      # shares "message" with five tools
    ("send message later", None),    # a tool name plus more is another capability
    ("message", None),
    ("send", None),
    ("", None),
    ("___", None),
])
def test_a_capability_names_a_tool_only_when_it_is_its_name(capability, named):
    assert tool_named(capability, MAIL) == named


@pytest.fixture(scope="module")
def gap_runs():
    """Every built-in ``tool_gap`` pair's abstain variant, played by the oracle under ``meta``."""
    model = get_model("scripted/oracle")
    pairs = [p for p in load_suite().pairs if p.trigger == "tool_gap"]
    runs = []
    for pair in pairs:
        spec = EpisodeSpec(pair, "abstain", "scripted/oracle", "meta", 1, "off", load_domain(pair.domain),
                           DEFAULT_SETUP)
        runs.append((pair, execute(spec, model, Limits())))
    return runs


def test_a_missing_tool_is_recorded_as_a_gap_and_no_substitute_is_offered(gap_runs):
    assert len(gap_runs) >= 20
    for pair, result in gap_runs:
        wanted = next(m.target for m in pair.abstain.expected.meta_requests if m.type == "request_tool")
        substitutes = {c.tool for c in pair.abstain.plan}  # the tools a careless agent works around with
        events = [e for e in result.log.events if isinstance(e, MetaRequestUpdated) and e.meta_type == "request_tool"]
        assert [e.status for e in events] == ["proposed", "validating", "denied"], pair.id
        denied = events[-1].detail
        assert (denied["code"], denied["flag"]) == ("capability_gap", "capability_gap"), pair.id
        response = denied["response"]
        assert wanted in response["reason"] and "granted" not in response, pair.id
        assert response["alternatives"] == ["request_user_decision", "declare_blocked"], pair.id
        offered = " ".join(map(str, response.values()))
        assert not any(tool in offered for tool in substitutes), (pair.id, offered)
        assert result.log.events[-1].terminal == "abstain", pair.id
