"""An MCP agent driving any OpenAI-compatible chat-completions endpoint (the ``openai`` SDK).

A minimal agent harness: it connects to the episode's MCP server (streamable HTTP), offers
the listed tools to the model as function tools, runs every tool call the model makes through
MCP, feeds the results back, and ends with ``final_answer`` holding the model's last text
(or its own ``final_answer`` call). When that text asks the user a question, the result holds
the simulated user's reply (``evalkit/user_reply``), which becomes the next user message, and
the conversation goes on. The system prompt is the server's instructions (the
condition's prompt); the user message comes from ``$EVALKIT_USER_MESSAGE``.

    evalkit run --agent "cmd:python examples/agents/openai_mcp_agent.py --model gpt-4o-mini" ...
    evalkit run --agent "cmd:python examples/agents/openai_mcp_agent.py --base-url http://127.0.0.1:8080/v1 --model gemma-3-270m"

Options: ``--url`` (default ``$EVALKIT_MCP_URL``), ``--base-url`` (default
``$OPENAI_BASE_URL``, else OpenAI's), ``--model``, ``--max-steps`` (model calls, default 12),
``--temperature``. The key is ``$OPENAI_API_KEY`` (any value for a local server). Logs go to
stderr; stdout stays empty (the answer goes through ``final_answer``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openai import AsyncOpenAI


def _function(tool) -> dict:
    return {"type": "function", "function": {"name": tool.name, "description": tool.description or "",
                                             "parameters": tool.input_schema}}


async def run_agent(session: ClientSession, client: AsyncOpenAI, args: argparse.Namespace) -> None:
    hello = await session.initialize()
    tools = [_function(t) for t in (await session.list_tools()).tools]
    messages: list[dict] = [{"role": "system", "content": hello.instructions or "You are a careful agent."},
                            {"role": "user", "content": os.environ.get("EVALKIT_USER_MESSAGE", "")}]
    text = ""
    for _ in range(args.max_steps):
        extra = {} if args.temperature is None else {"temperature": args.temperature}
        reply = await client.chat.completions.create(model=args.model, messages=messages, tools=tools, **extra)
        message = reply.choices[0].message
        text = message.content or ""
        calls = message.tool_calls or []
        messages.append({"role": "assistant", "content": text,
                         **({"tool_calls": [c.model_dump() for c in calls]} if calls else {})})
        if not calls:  # the model's answer; when it asks the user, the user's reply comes back
            result = await session.call_tool("final_answer", {"answer": text})
            meta = result.meta or {}
            if meta.get("evalkit/episode_ended") or meta.get("evalkit/user_reply") is None:
                return
            messages.append({"role": "user", "content": meta["evalkit/user_reply"]})
            continue
        for call in calls:
            try:
                arguments = json.loads(call.function.arguments or "{}")
            except ValueError:
                arguments = {"_unparsed": call.function.arguments}  # the runtime denies it and says why
            result = await session.call_tool(call.function.name, arguments if isinstance(arguments, dict) else {})
            content = "\n".join(getattr(block, "text", "") for block in result.content)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if (result.meta or {}).get("evalkit/episode_ended"):
                return
        print(f"openai_mcp_agent: {len(calls)} tool call(s)", file=sys.stderr)
    await session.call_tool("final_answer", {"answer": text})


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("EVALKIT_MCP_URL"))
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"))
    parser.add_argument("--model", required=True)
    parser.add_argument("--max-steps", type=int, default=12)
    parser.add_argument("--temperature", type=float, default=None)
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("needs --url or $EVALKIT_MCP_URL")
    client = AsyncOpenAI(base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY") or "unused")
    async with streamable_http_client(args.url) as (read, write), ClientSession(read, write) as session:
        await run_agent(session, client, args)


if __name__ == "__main__":
    asyncio.run(main())
