"""A toy live provider, ``refuser/NAME``: a chat-completions "API" in process that refuses every
request in text, reports usage and has its own price.

It goes through the whole live-model path (settings validated as a model config, the
registered client, the OpenAI chat-completions translator, usage by token class, cost from the
provider's ``prices``), without a network.
"""

from __future__ import annotations

from typing import Any

from evalkit.models.registry import Provider, register

REFUSAL = "I'm sorry, but I cannot do this request."
PRICE = {"input_per_mtok": 2.0, "output_per_mtok": 10.0}
"""USD per million tokens (the provider's own price: the price table has no ``refuser/`` entry)."""


class RefuserClient:
    """``complete(messages, tools)`` → a chat-completions body: the refusal, with usage
    ``prompt_tokens`` = 100 per message and ``completion_tokens`` = 9."""

    def __init__(self, settings: Any):
        self.model = settings.model

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "toy-1", "object": "chat.completion", "model": self.model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": REFUSAL}}],
            "usage": {"prompt_tokens": 100 * len(messages), "completion_tokens": 9,
                      "total_tokens": 100 * len(messages) + 9},
        }


PROVIDER = register(Provider(
    "refuser", "a toy in-process API that refuses in text", client=RefuserClient,
    defaults={"cache": False, "max_connections": 2}, prices={"*": PRICE}, api_key=False,
))
