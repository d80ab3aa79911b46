"""A scripted judge server on 127.0.0.1: an OpenAI-compatible endpoint whose answer depends on
the judge model named in the request and on the text being judged."""

from __future__ import annotations

import json
from typing import Callable

from werkzeug import Request, Response


def completion(content: str, usage=(50, 20)) -> dict:
    return {"id": "chatcmpl-judge", "object": "chat.completion", "model": "judge",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}}


def verdict(label: str, metas=(), reason: str = "scripted") -> str:
    return json.dumps({"label": label, "meta_requests": list(metas), "reason": reason})


def judged_text(body: dict) -> str:
    """The final text inside the judge's user message."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]


def serve_judges(server, script: Callable[[str, str], "str | int"]) -> list[dict]:
    """Answer every chat completion with ``script(model, text)``: a string is the judge's answer,
    a ``(answer, finish_reason)`` pair an answer that stopped so, an int an HTTP error status.
    Returns the list the request bodies are appended to."""
    seen: list[dict] = []

    def handler(request: Request) -> Response:
        body = json.loads(request.get_data(as_text=True))
        seen.append(body)
        answer = script(body["model"], judged_text(body))
        if isinstance(answer, int):
            return Response(json.dumps({"error": {"message": "scripted failure"}}), status=answer,
                            content_type="application/json")
        if isinstance(answer, tuple):
            body = completion(answer[0])
            body["choices"][0]["finish_reason"] = answer[1]
            return Response(json.dumps(body), content_type="application/json")
        return Response(json.dumps(completion(answer)), content_type="application/json")

    server.expect_request("/v1/chat/completions", method="POST").respond_with_handler(handler)
    return seen
