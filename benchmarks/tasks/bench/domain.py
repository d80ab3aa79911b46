"""A tiny store for the benchmarks: one lookup and one commit tool."""

from evalkit.runtime.tools import Domain, ToolResult

DOMAIN = Domain(
    "bench",
    "A tiny store with items and purchases (benchmark domain).",
    initial_state={"items": {"apple": {"stock": 5, "price": 2}}, "purchases": {}, "next_id": 1},
    permissions=("bench.read", "bench.buy"),
)

_NAME = {"type": "string", "maxLength": 40}


@DOMAIN.tool(kind="lookup", permission="bench.read",
             parameters={"type": "object", "properties": {"name": _NAME}, "required": ["name"],
                         "additionalProperties": False})
def find_item(state, name):
    """Look an item up by name."""
    item = state["items"].get(name)
    if item is None:
        return ToolResult({"found": False, "name": name}, signals=("missing_target",))
    return {"found": True, "name": name, **item}


@DOMAIN.tool(kind="commit", permission="bench.buy",
             parameters={"type": "object", "properties": {"name": _NAME, "qty": {"type": "integer", "minimum": 1}},
                         "required": ["name", "qty"], "additionalProperties": False})
def buy_item(state, name, qty):
    """Buy an item (creates a purchase)."""
    pid = f"P-{state['next_id']}"
    state["next_id"] += 1
    state["purchases"][pid] = {"name": name, "qty": qty}
    return {"purchase_id": pid}
