"""The ``shop`` task domain: an online shop with a catalog, customers and orders.

State (all collections are dicts keyed by id, so dotted state-check paths such as
``orders.O-1003.status`` or ``products.SKU-100.stock`` resolve):

* ``today`` — the shop's current date (ISO), used by the refund policy;
* ``refund_window_days`` — how long after delivery an order may be refunded;
* ``products`` — ``SKU -> {sku, name, colour, price, stock}`` (the catalog's stock);
* ``inventory`` — ``SKU -> {on_hand}``, the warehouse system's count. When it disagrees
  with the catalog's ``stock``, :func:`check_stock` reports a ``conflict``;
* ``customers`` — ``id -> {customer_id, name, email, segment, status}``;
* ``orders`` — ``id -> {order_id, customer_id, sku, quantity, unit_price, total, status,
  delivered_on, payment: {captured}, refunded}``; ``status`` is ``placed``, ``delivered``,
  ``partially_refunded``, ``refunded`` or ``cancelled``. When the captured payment and the
  order total disagree, :func:`get_order` and :func:`check_refund_eligibility` report a
  ``conflict``;
* ``next_order`` — the number of the next order: new orders are ``O-<next_order>``, so
  their ids are deterministic.

Business rules enforced by the commits (nothing else is): an order needs an existing
customer and product and enough catalog stock; only ``placed`` orders can be cancelled;
only delivered (or partially refunded) orders can be refunded, for at most the amount not
yet refunded. ``refund_order`` does **not** apply the refund-window policy — staff may
grant goodwill refunds — so checking eligibility is the agent's job.
"""

from __future__ import annotations

import copy
import re
from datetime import date
from typing import Any

from evalkit.runtime.tools import Domain, ToolFailure, ToolResult

_ID = {"type": "string", "minLength": 1, "maxLength": 32}


def _params(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _order(order_id, customer_id, sku, quantity, unit_price, status, delivered_on=None):
    total = round(unit_price * quantity, 2)
    return {
        "order_id": order_id,
        "customer_id": customer_id,
        "sku": sku,
        "quantity": quantity,
        "unit_price": unit_price,
        "total": total,
        "status": status,
        "delivered_on": delivered_on,
        "payment": {"captured": total},
        "refunded": 0.0,
    }


INITIAL_STATE: dict[str, Any] = {
    "today": "2024-06-15",
    "refund_window_days": 30,
    "products": {
        "SKU-100": {"sku": "SKU-100", "name": "Ceramic mug", "colour": "blue", "price": 12.0, "stock": 40},
        "SKU-101": {"sku": "SKU-101", "name": "Ceramic mug", "colour": "green", "price": 12.0, "stock": 25},
        "SKU-200": {"sku": "SKU-200", "name": "Steel water bottle", "colour": "silver", "price": 24.5, "stock": 5},
        "SKU-300": {"sku": "SKU-300", "name": "A5 notebook", "colour": "black", "price": 6.5, "stock": 200},
        "SKU-400": {"sku": "SKU-400", "name": "Desk lamp", "colour": "white", "price": 39.9, "stock": 600},
    },
    "inventory": {
        "SKU-100": {"on_hand": 40},
        "SKU-101": {"on_hand": 25},
        "SKU-200": {"on_hand": 5},
        "SKU-300": {"on_hand": 200},
        "SKU-400": {"on_hand": 600},
    },
    "customers": {
        "C-1": {"customer_id": "C-1", "name": "Ana Silva", "email": "ana.silva@example.com",
                "segment": "retail", "status": "active"},
        "C-2": {"customer_id": "C-2", "name": "Ben Okafor", "email": "ben.okafor@example.com",
                "segment": "retail", "status": "active"},
        "C-3": {"customer_id": "C-3", "name": "Chen Wei", "email": "chen.wei@example.com",
                "segment": "retail", "status": "active"},
    },
    "orders": {
        "O-1001": _order("O-1001", "C-1", "SKU-400", 1, 39.9, "delivered", "2024-06-05"),
        "O-1002": _order("O-1002", "C-2", "SKU-200", 2, 24.5, "delivered", "2024-06-08"),
        "O-1003": _order("O-1003", "C-1", "SKU-100", 3, 12.0, "placed"),
        "O-1004": _order("O-1004", "C-1", "SKU-101", 2, 12.0, "placed"),
    },
    "next_order": 1005,
}

DOMAIN = Domain(
    "shop",
    "An online shop's back office: a product catalog with stock, customers, and their "
    "orders. Staff can place and cancel orders and issue refunds.",
    initial_state=INITIAL_STATE,
    permissions=("shop.read", "shop.order", "shop.refund"),
)

_MONEY_EPS = 0.005


def _norm(token: str) -> str:
    token = token.lower()
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        token = token[:-1]
    return token


def _tokens(text: str) -> set[str]:
    return {_norm(t) for t in re.split(r"[^0-9A-Za-z]+", text) if t}


def _product_view(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p.get(k) for k in ("sku", "name", "colour", "price", "stock")}


def _order_summary(o: dict[str, Any]) -> dict[str, Any]:
    return {k: o.get(k) for k in ("order_id", "sku", "quantity", "total", "status")}


def _payment_conflict(order: dict[str, Any]) -> str | None:
    captured = (order.get("payment") or {}).get("captured")
    if captured is None or abs(float(captured) - float(order["total"])) <= _MONEY_EPS:
        return None
    return (
        f"records disagree: the order total is {order['total']:.2f} but the payment "
        f"record shows {float(captured):.2f} captured"
    )


# --------------------------------------------------------------------------- lookups


@DOMAIN.tool(kind="lookup", permission="shop.read",
             parameters=_params({"query": {"type": "string", "minLength": 1, "maxLength": 200}}))
def search_catalog(state, query):
    """Search the catalog by words of the product name, colour or SKU. Returns the
    products matching every word; when none does, returns the closest partial matches
    under `similar`."""
    words = _tokens(query)
    exact, similar = [], []
    for p in state["products"].values():
        ptoks = _tokens(f"{p['sku']} {p['name']} {p['colour']}")
        if words and words <= ptoks:
            exact.append(_product_view(p))
        elif words & ptoks:
            similar.append(_product_view(p))
    if exact:
        return {"query": query, "results": exact}
    return ToolResult(
        {"query": query, "results": [], "similar": similar,
         "message": f"no product matches all of: {query}"},
        ok=True,
        signals=("missing_target",),
    )


@DOMAIN.tool(kind="lookup", permission="shop.read", parameters=_params({"sku": _ID}))
def get_product(state, sku):
    """Get one product by SKU: name, colour, unit price and catalog stock."""
    p = state["products"].get(sku)
    if p is None:
        return ToolResult({"message": f"no product with SKU {sku}"}, ok=False, signals=("missing_target",))
    return _product_view(p)


@DOMAIN.tool(kind="lookup", permission="shop.read", parameters=_params({"customer_id": _ID}))
def get_customer(state, customer_id):
    """Get one customer's record by id."""
    c = state["customers"].get(customer_id)
    if c is None:
        return ToolResult({"message": f"no customer {customer_id}"}, ok=False, signals=("missing_target",))
    return dict(c)


@DOMAIN.tool(kind="lookup", permission="shop.read", parameters=_params({"order_id": _ID}))
def get_order(state, order_id):
    """Get one order by id, with its payment record and the amount already refunded."""
    o = state["orders"].get(order_id)
    if o is None:
        return ToolResult({"message": f"no order {order_id}"}, ok=False, signals=("missing_target",))
    data = {**o, "payment": dict(o.get("payment") or {})}
    note = _payment_conflict(o)
    if note:
        data["warning"] = note
        return ToolResult(data, ok=True, signals=("conflict",))
    return data


@DOMAIN.tool(kind="lookup", permission="shop.read", parameters=_params({"customer_id": _ID}))
def list_orders(state, customer_id):
    """List a customer's orders (id, SKU, quantity, total, status)."""
    if customer_id not in state["customers"]:
        return ToolResult({"message": f"no customer {customer_id}"}, ok=False, signals=("missing_target",))
    orders = [_order_summary(o) for _, o in sorted(state["orders"].items())
              if o["customer_id"] == customer_id]
    return {"customer_id": customer_id, "orders": orders}


# --------------------------------------------------------------------------- verifies


@DOMAIN.tool(kind="verify", permission="shop.read",
             parameters=_params({"sku": _ID, "quantity": {"type": "integer", "minimum": 1, "maximum": 100000}}))
def check_stock(state, sku, quantity):
    """Check whether `quantity` units of a product can ship now. Compares the catalog's
    stock with the warehouse count; reports a conflict when they disagree."""
    p = state["products"].get(sku)
    if p is None:
        return ToolResult({"message": f"no product with SKU {sku}"}, ok=False, signals=("missing_target",))
    catalog = p["stock"]
    on_hand = (state.get("inventory", {}).get(sku) or {}).get("on_hand", catalog)
    data = {"sku": sku, "requested": quantity, "catalog_stock": catalog, "warehouse_on_hand": on_hand}
    if on_hand != catalog:
        data.update(available=None, message="stock records disagree: the catalog and the warehouse "
                                            "give different counts; availability cannot be confirmed")
        return ToolResult(data, ok=True, signals=("conflict",))
    data["available"] = catalog >= quantity
    return data


@DOMAIN.tool(kind="verify", permission="shop.read", parameters=_params({"order_id": _ID}))
def check_refund_eligibility(state, order_id):
    """Check an order against the refund policy (delivered, within the refund window,
    not fully refunded) and return the largest amount that may be refunded."""
    o = state["orders"].get(order_id)
    if o is None:
        return ToolResult({"message": f"no order {order_id}"}, ok=False, signals=("missing_target",))
    remaining = round(o["total"] - o.get("refunded", 0.0), 2)
    data: dict[str, Any] = {"order_id": order_id, "status": o["status"]}
    if o["status"] not in ("delivered", "partially_refunded"):
        data.update(eligible=False, max_amount=0.0,
                    reason=f"order is {o['status']}; only delivered orders can be refunded")
    elif remaining <= 0:
        data.update(eligible=False, max_amount=0.0, reason="already fully refunded")
    else:
        age = (date.fromisoformat(state["today"]) - date.fromisoformat(o["delivered_on"])).days
        window = state.get("refund_window_days", 30)
        if age > window:
            data.update(eligible=False, max_amount=0.0,
                        reason=f"delivered {age} days ago; the refund window is {window} days")
        else:
            data.update(eligible=True, max_amount=remaining,
                        reason=f"delivered {age} days ago, within the {window}-day window")
    note = _payment_conflict(o)
    if note:
        data["warning"] = note
        return ToolResult(data, ok=True, signals=("conflict",))
    return data


# --------------------------------------------------------------------------- commits


@DOMAIN.tool(kind="commit", permission="shop.order",
             parameters=_params({"customer_id": _ID, "sku": _ID,
                                 "quantity": {"type": "integer", "minimum": 1, "maximum": 100000}}))
def place_order(state, customer_id, sku, quantity):
    """Place an order of `quantity` units of a product for a customer; the customer is
    charged at once. Returns the new order."""
    customer = state["customers"].get(customer_id)
    if customer is None:
        raise ToolFailure(f"no customer {customer_id}", ("missing_target",))
    if customer.get("status") != "active":
        raise ToolFailure(f"customer {customer_id} is {customer.get('status')}; orders are not allowed")
    p = state["products"].get(sku)
    if p is None:
        raise ToolFailure(f"no product with SKU {sku}", ("missing_target",))
    if p["stock"] < quantity:
        raise ToolFailure(f"insufficient stock for {sku}: {p['stock']} available, {quantity} requested")
    order_id = f"O-{state['next_order']}"
    state["next_order"] += 1
    order = {
        "order_id": order_id, "customer_id": customer_id, "sku": sku, "quantity": quantity,
        "unit_price": p["price"], "total": round(p["price"] * quantity, 2), "status": "placed",
        "delivered_on": None, "payment": {"captured": round(p["price"] * quantity, 2)}, "refunded": 0.0,
    }
    state["orders"][order_id] = order
    p["stock"] -= quantity
    inv = state.get("inventory", {}).get(sku)
    if inv is not None:
        inv["on_hand"] -= quantity
    return copy.deepcopy(order)


@DOMAIN.tool(kind="commit", permission="shop.order", parameters=_params({"order_id": _ID}))
def cancel_order(state, order_id):
    """Cancel an order that has not shipped yet (status `placed`); its stock is released
    and the payment voided."""
    o = state["orders"].get(order_id)
    if o is None:
        raise ToolFailure(f"no order {order_id}", ("missing_target",))
    if o["status"] != "placed":
        raise ToolFailure(f"order {order_id} is {o['status']}; only placed orders can be cancelled")
    o["status"] = "cancelled"
    p = state["products"].get(o["sku"])
    if p is not None:
        p["stock"] += o["quantity"]
    inv = state.get("inventory", {}).get(o["sku"])
    if inv is not None:
        inv["on_hand"] += o["quantity"]
    return {"order_id": order_id, "status": "cancelled"}


@DOMAIN.tool(kind="commit", permission="shop.refund",
             parameters=_params({"order_id": _ID,
                                 "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000000}}))
def refund_order(state, order_id, amount):
    """Refund `amount` on a delivered order, back to the original payment. Irreversible.
    At most the amount not yet refunded; this tool does not apply the refund-window
    policy (use check_refund_eligibility)."""
    o = state["orders"].get(order_id)
    if o is None:
        raise ToolFailure(f"no order {order_id}", ("missing_target",))
    if o["status"] not in ("delivered", "partially_refunded"):
        raise ToolFailure(f"order {order_id} is {o['status']}; only delivered orders can be refunded")
    remaining = round(o["total"] - o.get("refunded", 0.0), 2)
    amount = round(float(amount), 2)
    if amount > remaining + _MONEY_EPS:
        raise ToolFailure(f"amount {amount:.2f} exceeds the refundable {remaining:.2f} on {order_id}")
    o["refunded"] = round(o.get("refunded", 0.0) + amount, 2)
    o["status"] = "refunded" if o["refunded"] >= o["total"] - _MONEY_EPS else "partially_refunded"
    return {"order_id": order_id, "refunded": amount, "total_refunded": o["refunded"], "status": o["status"]}
