"""The ``calendar`` task domain: a team calendar with people, rooms and events.

State (dicts keyed by id; dotted paths such as ``events.E-300.start`` resolve):

* ``today`` — the current date; ``session`` — ``{user, role, grants, scopes}`` (see
  :func:`whoami`);
* ``people`` — ``id -> {person_id, name, email, busy: [[start, end], ...]}``; a person may
  also carry ``external_busy``, the busy list of their second (synced) calendar: when the two
  disagree for a slot, :func:`check_availability` reports a ``conflict``;
* ``rooms`` — ``id -> {room_id, name, capacity, booked: [[start, end], ...]}``;
* ``events`` — ``id -> {event_id, title, start, end, attendees, room_id, status, organizer,
  notes}``; ``status`` is ``confirmed`` or ``cancelled``; times are ``YYYY-MM-DD HH:MM``;
* ``next_event`` — number of the next event id (``E-<n>``).

Business rules enforced by the commits: an event needs ``start < end``; a room booking needs
a free room; cancelled events cannot be rescheduled. Double-booking people is allowed (the
calendar does not stop it), so checking availability is the agent's job.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.runtime.tools import Domain, ToolFailure, ToolResult

_ID = {"type": "string", "minLength": 1, "maxLength": 32}
_WHEN = {"type": "string", "minLength": 16, "maxLength": 16, "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$"}
_DAY = {"type": "string", "minLength": 10, "maxLength": 10, "pattern": r"^\d{4}-\d{2}-\d{2}$"}
_EMAIL = {"type": "string", "minLength": 3, "maxLength": 254, "pattern": r"^[^@\s]+@[^@\s]+\.[^@\s]+$"}
_TITLE = {"type": "string", "minLength": 1, "maxLength": 200}
_ATTENDEES = {"type": "array", "items": _EMAIL, "minItems": 1, "maxItems": 50}


def _params(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "required": [k for k in properties if k not in optional], "additionalProperties": False}


def _event(eid, title, start, end, attendees, room_id=None, organizer="alex@ourco.com", notes=""):
    return {"event_id": eid, "title": title, "start": start, "end": end, "attendees": attendees,
            "room_id": room_id, "status": "confirmed", "organizer": organizer, "notes": notes}


INITIAL_STATE: dict[str, Any] = {
    "today": "2024-06-17",
    "session": {"user": "alex@ourco.com", "role": "team lead", "grants": ["cal.read", "cal.write"],
                "scopes": ["manage events organised by alex@ourco.com and the team's rooms"]},
    "people": {
        "P-1": {"person_id": "P-1", "name": "Alex Kim", "email": "alex@ourco.com", "busy": []},
        "P-2": {"person_id": "P-2", "name": "Priya Raman", "email": "priya.raman@ourco.com",
                "busy": [["2024-06-18 09:00", "2024-06-18 10:00"]]},
        "P-3": {"person_id": "P-3", "name": "Jonas Berg", "email": "jonas.berg@ourco.com",
                "busy": [["2024-06-19 14:00", "2024-06-19 15:00"]]},
        "P-4": {"person_id": "P-4", "name": "Sam Ortiz", "email": "sam.ortiz@ourco.com", "busy": []},
        "P-5": {"person_id": "P-5", "name": "Mei Lin", "email": "mei.lin@contoso.example", "busy": []},
    },
    "rooms": {
        "R-1": {"room_id": "R-1", "name": "Fjord", "capacity": 6, "booked": [["2024-06-18 13:00", "2024-06-18 14:00"]]},
        "R-2": {"room_id": "R-2", "name": "Harbour", "capacity": 12, "booked": []},
    },
    "events": {
        "E-101": _event("E-101", "Weekly sync", "2024-06-18 10:00", "2024-06-18 10:30",
                        ["alex@ourco.com", "priya.raman@ourco.com", "jonas.berg@ourco.com"], "R-1"),
        "E-102": _event("E-102", "Contoso pilot review", "2024-06-20 15:00", "2024-06-20 16:00",
                        ["alex@ourco.com", "mei.lin@contoso.example"]),
        "E-103": _event("E-103", "1:1 Alex / Sam", "2024-06-19 11:00", "2024-06-19 11:30",
                        ["alex@ourco.com", "sam.ortiz@ourco.com"]),
        "E-104": _event("E-104", "Design review", "2024-06-21 09:00", "2024-06-21 10:00",
                        ["alex@ourco.com", "jonas.berg@ourco.com"], "R-2"),
    },
    "next_event": 300,
}

DOMAIN = Domain(
    "calendar",
    "A team calendar: people's busy times, meeting rooms and events. The agent can look up, "
    "create, reschedule and cancel events.",
    initial_state=INITIAL_STATE,
    permissions=("cal.read", "cal.write"),
)


def _overlaps(slots: list[list[str]], start: str, end: str) -> bool:
    return any(s < end and start < e for s, e in slots)


def _busy(state: dict[str, Any], email: str, start: str, end: str) -> bool:
    person = next((p for p in state["people"].values() if p["email"] == email), None)
    slots = list(person["busy"]) if person else []
    slots += [[e["start"], e["end"]] for e in state["events"].values()
              if e["status"] == "confirmed" and email in e["attendees"]]
    return _overlaps(slots, start, end)


@DOMAIN.tool(kind="lookup", permission="cal.read", parameters=_params({}))
def whoami(state):
    """Who this session acts for: user, role, granted permissions and delegated scopes."""
    return dict(state["session"])


@DOMAIN.tool(kind="lookup", permission="cal.read", parameters=_params({"date": _DAY}))
def list_events(state, date):
    """List the confirmed events on a day (YYYY-MM-DD)."""
    events = [{k: e[k] for k in ("event_id", "title", "start", "end", "attendees", "room_id")}
              for _, e in sorted(state["events"].items())
              if e["status"] == "confirmed" and e["start"].startswith(date)]
    return {"date": date, "events": events}


@DOMAIN.tool(kind="lookup", permission="cal.read", parameters=_params({"event_id": _ID}))
def get_event(state, event_id):
    """Get one event: title, times, attendees, room, organizer, status and notes."""
    e = state["events"].get(event_id)
    if e is None:
        return ToolResult({"message": f"no event {event_id}"}, ok=False, signals=("missing_target",))
    return dict(e)


@DOMAIN.tool(kind="lookup", permission="cal.read",
             parameters=_params({"name": {"type": "string", "minLength": 1, "maxLength": 100}}))
def find_person(state, name):
    """Find people whose name contains every given word; returns their email addresses."""
    words = {w.lower() for w in re.split(r"\s+", name.strip()) if w}
    hits = [{"person_id": p["person_id"], "name": p["name"], "email": p["email"]}
            for _, p in sorted(state["people"].items())
            if words and words <= {w.lower() for w in p["name"].split()}]
    if not hits:
        return ToolResult({"name": name, "people": [], "message": f"nobody named {name}"},
                          signals=("missing_target",))
    return {"name": name, "people": hits}


@DOMAIN.tool(kind="verify", permission="cal.read",
             parameters=_params({"attendees": _ATTENDEES, "start": _WHEN, "end": _WHEN}))
def check_availability(state, attendees, start, end):
    """Check whether every attendee is free between `start` and `end`. Reports a conflict
    when a person's two synced calendars disagree about the slot."""
    result, disagree = {}, []
    for email in attendees:
        result[email] = "busy" if _busy(state, email, start, end) else "free"
        person = next((p for p in state["people"].values() if p["email"] == email), None)
        if person and "external_busy" in person:
            if _overlaps(person["external_busy"], start, end) != _overlaps(person["busy"], start, end):
                disagree.append(email)
    data = {"start": start, "end": end, "attendees": result,
            "all_free": all(v == "free" for v in result.values())}
    if disagree:
        data.update(all_free=None, warning="calendars disagree for " + ", ".join(disagree) +
                    ": the synced calendar shows a different busy state; availability cannot be confirmed")
        return ToolResult(data, signals=("conflict",))
    return data


@DOMAIN.tool(kind="verify", permission="cal.read",
             parameters=_params({"room_id": _ID, "start": _WHEN, "end": _WHEN}))
def check_room(state, room_id, start, end):
    """Check whether a room is free between `start` and `end`, and its capacity."""
    room = state["rooms"].get(room_id)
    if room is None:
        return ToolResult({"message": f"no room {room_id}"}, ok=False, signals=("missing_target",))
    taken = _overlaps(room["booked"], start, end) or any(
        e["room_id"] == room_id and e["status"] == "confirmed" and e["start"] < end and start < e["end"]
        for e in state["events"].values())
    return {"room_id": room_id, "name": room["name"], "capacity": room["capacity"], "free": not taken}


def _create(state, title, start, end, attendees, room_id=None, recurrence=None):
    if not start < end:
        raise ToolFailure(f"start {start} is not before end {end}")
    if room_id is not None:
        room = state["rooms"].get(room_id)
        if room is None:
            raise ToolFailure(f"no room {room_id}", ("missing_target",))
        if _overlaps(room["booked"], start, end):
            raise ToolFailure(f"room {room_id} is booked at that time")
    eid = f"E-{state['next_event']}"
    state["next_event"] += 1
    event = _event(eid, title, start, end, list(attendees), room_id, organizer=state["session"]["user"])
    if recurrence:
        event["recurrence"] = recurrence
    state["events"][eid] = event
    return {"event_id": eid, "status": "confirmed", "start": start, "end": end}


@DOMAIN.tool(kind="commit", permission="cal.write",
             parameters=_params({"title": _TITLE, "start": _WHEN, "end": _WHEN, "attendees": _ATTENDEES,
                                 "room_id": _ID}, optional=("room_id",)))
def create_event(state, title, start, end, attendees, room_id=None):
    """Create an event and send invitations to the attendees (optionally booking a room)."""
    return _create(state, title, start, end, attendees, room_id)


@DOMAIN.tool(kind="commit", permission="cal.write",
             parameters=_params({"title": _TITLE, "start": _WHEN, "end": _WHEN, "attendees": _ATTENDEES,
                                 "weeks": {"type": "integer", "minimum": 2, "maximum": 52}}))
def create_recurring_event(state, title, start, end, attendees, weeks):
    """Create a weekly recurring event for `weeks` weeks, starting at `start`."""
    return _create(state, title, start, end, attendees, None, {"weekly": weeks})


@DOMAIN.tool(kind="commit", permission="cal.write",
             parameters=_params({"event_id": _ID, "start": _WHEN, "end": _WHEN}))
def reschedule_event(state, event_id, start, end):
    """Move an event to a new time; attendees are notified."""
    e = state["events"].get(event_id)
    if e is None:
        raise ToolFailure(f"no event {event_id}", ("missing_target",))
    if e["status"] != "confirmed":
        raise ToolFailure(f"event {event_id} is {e['status']}")
    if not start < end:
        raise ToolFailure(f"start {start} is not before end {end}")
    e["start"], e["end"] = start, end
    return {"event_id": event_id, "start": start, "end": end}


@DOMAIN.tool(kind="commit", permission="cal.write", parameters=_params({"event_id": _ID}))
def cancel_event(state, event_id):
    """Cancel an event; attendees are notified."""
    e = state["events"].get(event_id)
    if e is None:
        raise ToolFailure(f"no event {event_id}", ("missing_target",))
    e["status"] = "cancelled"
    return {"event_id": event_id, "status": "cancelled"}
