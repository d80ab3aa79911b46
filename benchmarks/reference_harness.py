"""The reference figure of the scripted-throughput benchmark, measured on this machine.

Runs an equivalent 3-turn task (lookup tool → commit tool → final answer, a mock model,
default logging) through the reference harness in its own virtual environment (never the
project's) and prints one JSON line: ``{"samples", "seconds", "per_second", "version"}``.
``run_all.py`` calls it with that environment's interpreter when ``--reference-python`` is
given (or ``/tmp/reference-venv/bin/python`` exists).

    python -m venv /tmp/reference-venv && /tmp/reference-venv/bin/pip install inspect-ai
    /tmp/reference-venv/bin/python benchmarks/reference_harness.py --samples 300
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args()

    from importlib.metadata import version

    from inspect_ai import Task, eval as run_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    @tool
    def find_item():
        async def execute(name: str):
            """Look an item up by name.

            Args:
                name: Item name.
            """
            return json.dumps({"found": True, "name": name, "stock": 5, "price": 2})
        return execute

    @tool
    def buy_item():
        async def execute(name: str, qty: int):
            """Buy an item (creates a purchase).

            Args:
                name: Item name.
                qty: Quantity.
            """
            return json.dumps({"purchase_id": "P-1"})
        return execute

    def respond(messages, tools, tool_choice, config):
        done = sum(1 for m in messages if m.role == "tool")
        if done == 0:
            out = ModelOutput.for_tool_call("mockllm/model", "find_item", {"name": "apple"})
        elif done == 1:
            out = ModelOutput.for_tool_call("mockllm/model", "buy_item", {"name": "apple", "qty": 2})
        else:
            out = ModelOutput.from_content("mockllm/model", "Done: I have completed your request.")
        # token counts given, as the scripted model gives them (counting would fetch a tokenizer
        # over the network, which this machine has not)
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return out

    def task(n: int) -> Task:
        return Task(dataset=[Sample(input="Buy 2 apples.", target="Done", id=i) for i in range(n)],
                    solver=[use_tools(find_item(), buy_item()), generate()], scorer=includes())

    with tempfile.TemporaryDirectory() as logs:
        model = get_model("mockllm/model", custom_outputs=respond)
        run_eval(task(10), model=model, log_dir=logs, display="none")  # warm-up: imports, first log
        model = get_model("mockllm/model", custom_outputs=respond)
        t0 = time.perf_counter()
        [log] = run_eval(task(args.samples), model=model, log_dir=logs, display="none")
        seconds = time.perf_counter() - t0
        assert log.status == "success", (log.status, log.error)
        assert all(len([m for m in s.messages if m.role == "assistant"]) == 3 for s in log.samples)
    print(json.dumps({"samples": args.samples, "seconds": seconds, "per_second": args.samples / seconds,
                      "version": version("inspect-ai")}))


if __name__ == "__main__":
    main()
