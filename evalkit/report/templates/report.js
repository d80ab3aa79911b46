// evalkit report: the trace viewer. Every string from the data goes into the page through
// textContent (never innerHTML), so model text is shown as text and never runs.
(function () {
  "use strict";
  // served by `evalkit view`: show the links into the viewer (they are relative to it)
  if (/^https?:$/.test(location.protocol)) { document.documentElement.classList.add("served"); }
  var dataEl = document.getElementById("ek-traces");
  var view = document.getElementById("trace-view");
  var list = document.getElementById("trace-list");
  if (!dataEl || !view || !list) { return; }
  var traces = JSON.parse(dataEl.textContent || "{}");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function tag(text, cls) { return el("span", "tag" + (cls ? " " + cls : ""), text); }
  function line(cls, label, text) {
    var d = el("div", "it " + cls);
    d.appendChild(el("span", "lbl", label));
    if (text !== undefined && text !== null && text !== "") { d.appendChild(document.createTextNode(String(text))); }
    return d;
  }
  function block(text) { return el("pre", null, text); }

  function item(it) {
    var d;
    switch (it.k) {
      case "model":
        d = line("model", "model", (it.calls.length ? it.calls.length + " tool call(s)" : "") +
                 (it.stop && it.stop !== "end_turn" && it.stop !== "tool_use" ? "  [stop: " + it.stop + "]" : ""));
        if (it.thinking) { d.appendChild(block("thinking: " + it.thinking)); }
        if (it.text !== null && it.text !== undefined && it.text !== "") { d.appendChild(block(it.text)); }
        if (it.refusal) { d.appendChild(block("refusal: " + it.refusal)); }
        it.calls.forEach(function (c) {
          d.appendChild(block(c.name + "(" + c.args + ")" + (c.error ? "  parse error: " + c.error : "")));
        });
        return d;
      case "action":
        d = line(it.action === "deny" ? "deny" : "action", "controller",
                 it.action + " " + it.tool + (it.code ? "  [" + it.code + "]" : ""));
        if (it.msg) { d.appendChild(block(it.msg)); }
        return d;
      case "gate":
        d = line("gate", "gate", it.decision + " " + (it.tool || "") + (it.code ? "  [" + it.code + "]" : "") +
                 (it.rule ? "  rule " + it.rule : ""));
        if (it.msg) { d.appendChild(block(it.msg)); }
        return d;
      case "tool":
        d = line("tool", "observation", it.tool + " (" + it.kind + ") " + (it.ok ? "ok" : "failed"));
        d.appendChild(block("args: " + it.args + "\nresult: " + it.result));
        if (it.signals && it.signals.length) {
          var s = el("div", "sigs");
          s.appendChild(el("span", "lbl", "signals"));
          it.signals.forEach(function (x) { s.appendChild(tag(x)); s.appendChild(document.createTextNode(" ")); });
          d.appendChild(s);
        }
        return d;
      case "meta":
        d = line("meta", "meta request", it.type + " → " + it.status);
        if (it.reason) { d.appendChild(block("reason: " + it.reason)); }
        if (it.detail) { d.appendChild(block(it.detail)); }
        return d;
      case "error":
        return line("error", "error", (it.source ? it.source + ": " : "") + it.msg);
      case "end":
        d = line("end", "end", it.reason + (it.terminal ? " (" + it.terminal + ")" : "") +
                 (it.same ? ": the last model text above" : ""));
        if (it.text) { d.appendChild(block(it.text)); }
        return d;
      default:
        d = line("event", it.type || "event", "");
        d.appendChild(block(it.fields || ""));
        return d;
    }
  }

  function render(id) {
    var t = traces[id];
    view.textContent = "";
    if (!t) {
      view.appendChild(el("p", "empty", id ? "This episode's trace is not embedded; open traces/" + id +
        ".jsonl in the run directory." : "Choose an episode on the left, or a card in the failure gallery."));
      return;
    }
    var h = t.head;
    view.appendChild(el("h3", null, h.pair_id + " · " + h.variant + " side"));
    var th = el("div", "thead");
    [h.model, h.condition, "gate " + h.gate, "epoch " + h.epoch, h.trigger, h.phase].forEach(function (x) {
      th.appendChild(tag(x));
    });
    th.appendChild(tag(h.status === "error" ? "error" : (h.correct ? "right" : "wrong"), h.correct ? "on" : ""));
    th.appendChild(tag("decision " + h.decision + " (expected " + h.expected_decision + ")"));
    if (h.lag !== null && h.lag !== undefined) { th.appendChild(tag("lag " + h.lag + (h.timely === false ? " (late)" : ""))); }
    if (h.post_hoc) { th.appendChild(tag("post-hoc")); }
    view.appendChild(th);
    if (h.error) { view.appendChild(line("error", "error", h.error)); }
    t.user.forEach(function (u) { var d = line("user", "user"); d.appendChild(block(u)); view.appendChild(d); });
    t.turns.forEach(function (turn) {
      var box = el("div", "turn");
      box.appendChild(el("div", "tn", turn.t === 0 ? "start" : "turn " + turn.t));
      turn.items.forEach(function (it) { box.appendChild(item(it)); });
      view.appendChild(box);
    });
    if (t.omitted > 0) { view.appendChild(el("p", "note", t.omitted + " more events not embedded (see the trace file).")); }
    Array.prototype.forEach.call(list.querySelectorAll("a"), function (a) {
      a.classList.toggle("sel", a.getAttribute("data-id") === id);
    });
  }

  function route() {
    var m = /^#trace\/(.+)$/.exec(window.location.hash);
    if (m) {
      render(decodeURIComponent(m[1]));
      if (window.location.hash.indexOf("#trace/") === 0) {
        document.getElementById("traces").scrollIntoView();
      }
    }
  }

  var filter = document.getElementById("trace-filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      Array.prototype.forEach.call(list.querySelectorAll("a"), function (a) {
        a.style.display = a.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
      });
    });
  }
  window.addEventListener("hashchange", route);
  render(null);
  route();
})();
