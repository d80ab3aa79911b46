"""A test agent: lists the episode's tools over MCP, makes two calls the runtime must deny and one
it may run, records what it saw in DIR/<condition>-<variant>.json, then answers."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(out: Path) -> None:
    async with streamable_http_client(os.environ["EVALKIT_MCP_URL"]) as (read, write), \
            ClientSession(read, write) as session:
        hello = await session.initialize()
        tools = (await session.list_tools()).tools
        seen = []
        for name, args in (("no_such_tool", {}), (tools[0].name, {"not_an_argument": 1}), (tools[0].name, None)):
            result = await session.call_tool(name, args)
            seen.append({"name": name, "is_error": result.is_error, "text": result.content[0].text,
                         "meta": result.meta})
        if any(t.name == "meta_request" for t in tools):  # a capability no tool has: denied by the protocol
            result = await session.call_tool("meta_request", {"type": "request_tool", "reason": "needed",
                                                              "capability": "teleport_goods"})
            seen.append({"name": "meta_request", "is_error": result.is_error, "text": result.content[0].text})
        await session.call_tool("final_answer", {"answer": "Done."})
        after = await session.call_tool(tools[0].name, {})
        seen.append({"name": "after_end", "is_error": after.is_error, "text": after.content[0].text})
        record = {"instructions": hello.instructions, "tools": {t.name: t.input_schema for t in tools},
                  "results": seen, "message": Path(sys.argv[2]).read_text(encoding="utf-8"),
                  "history": json.loads(Path(os.environ["EVALKIT_HISTORY_FILE"]).read_text(encoding="utf-8")),
                  "prompt": Path(os.environ["EVALKIT_SYSTEM_PROMPT_FILE"]).read_text(encoding="utf-8")}
        name = f"{os.environ['EVALKIT_CONDITION']}-{os.environ['EVALKIT_USER_MESSAGE'][:20]}.json"
        (out / name.replace("/", "_")).write_text(json.dumps(record), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
