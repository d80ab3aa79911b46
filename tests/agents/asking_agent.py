"""A test agent that keeps asking the user and never acts: every call is a question
(``request_user_decision`` or, with ``context``, a ``request_context`` nothing serves; a
``final_answer`` asking under ``nl``), numbered so that the meta protocol does not refuse it as
a repeat without new evidence, until the episode ends. Its in-process twin is
``KeepsAsking`` in test_followup_over_mcp.py."""

from __future__ import annotations

import asyncio
import os
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

QUESTION = "Before I go ahead, could you confirm the quantity?"
TARGET = "the customer's standing order sheet"


def question_call(channel: str, offered: set[str], n: int) -> tuple[str, dict]:
    """The ``n``-th call (from 1) asking the user on the channel ``channel`` (``decision``/``context``)
    among ``offered`` tools."""
    mtype = "request_user_decision" if channel == "decision" else "request_context"
    args = {"question": f"{QUESTION} ({n})", "reason": "missing detail"} if channel == "decision" else \
        {"target": f"{TARGET} ({n})", "reason": "missing detail"}
    if "meta_request" in offered:
        return "meta_request", {"type": mtype, **args}
    if mtype in offered:
        return mtype, args
    return "final_answer", {"answer": QUESTION}


async def main(channel: str) -> None:
    async with streamable_http_client(os.environ["EVALKIT_MCP_URL"]) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        offered = {t.name for t in (await session.list_tools()).tools}
        for n in range(1, 200):
            name, args = question_call(channel, offered, n)
            result = await session.call_tool(name, args)
            if (result.meta or {}).get("evalkit/episode_ended"):
                return


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
