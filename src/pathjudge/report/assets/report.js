/* pathjudge HTML report behaviour: table sort/filter and the lazy trajectory viewer.
   Safety: every piece of agent or judge text reaches the page through textContent only, never through
   HTML parsing; the data comes from the inert JSON blob in the element with id "pj-data". */
(function () {
  "use strict";
  var blob = document.getElementById("pj-data");
  var data = blob ? JSON.parse(blob.textContent) : { runs: [] };

  /* Steps and checks arrive as arrays; data.step_fields / data.check_fields name their positions. */
  function record(fields, values) {
    var out = {};
    fields.forEach(function (name, index) { out[name] = values[index]; });
    return out;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  /* A clipped text is either a string or [kept prefix, full length]. */
  function clipped(value) {
    if (Array.isArray(value)) { return { text: value[0], full: value[1] }; }
    return { text: value === null || value === undefined ? "" : String(value), full: 0 };
  }

  function textBlock(value) {
    var c = clipped(value);
    var wrap = el("div");
    wrap.appendChild(el("pre", "text", c.text));
    if (c.full) {
      wrap.appendChild(el("div", "trunc", "truncated (" + c.full + " chars; first " + c.text.length + " shown)"));
    }
    return wrap;
  }

  function badge(status) {
    return el("span", "badge " + String(status).replace(/[^a-z_]/g, ""), String(status).replace("_", " "));
  }

  function kv(parent, key, node) {
    parent.appendChild(el("div", "k", key));
    var v = el("div", "v");
    v.appendChild(node);
    parent.appendChild(v);
  }

  function verdictNode(v) {
    var box = el("div", "verdict");
    var head = el("div", "step-head");
    head.appendChild(badge(v.verdict));
    head.appendChild(el("strong", null, v.criterion));
    if (v.detail) { head.appendChild(el("span", "muted", v.detail)); }
    box.appendChild(head);
    if (v.reasoning !== null && v.reasoning !== undefined) { box.appendChild(textBlock(v.reasoning)); }
    return box;
  }

  function renderRun(run) {
    var body = el("div", "body");
    var meta = el("div", "kv");
    if (run.has_steps) {
      kv(meta, "input", textBlock(run.input));
      kv(meta, "final answer", run.answer === null ? el("span", "empty", "no final answer") : textBlock(run.answer));
      kv(meta, "stop reason", el("span", null, run.stop === null ? "—" : run.stop));
    }
    kv(meta, "grade", el("span", null, clipped(run.reason).text));
    if (run.alignment !== null) { kv(meta, "path diff", textBlock(run.alignment)); }
    body.appendChild(meta);

    body.appendChild(el("h3", null, run.has_steps ? "Steps (" + run.steps.length + ")" : "Steps"));
    if (!run.has_steps) {
      body.appendChild(el("div", "empty", "this report carries no trajectory for the run; pass the runs file to see its steps"));
    } else if (!run.steps.length) { body.appendChild(el("div", "empty", "no tool calls")); }
    var list = el("ol", "steps");
    run.steps.forEach(function (values, index) {
      var step = record(data.step_fields, values);
      var item = el("li", step.error ? "errored" : null);
      var head = el("div", "step-head");
      head.appendChild(el("span", "muted", "#" + (index + 1) + " · turn " + step.turn));
      head.appendChild(el("span", "tool", step.tool));
      if (step.error) { head.appendChild(badge("error")); }
      if (step.latency !== null) { head.appendChild(el("span", "muted", step.latency + " ms")); }
      item.appendChild(head);
      if (step.decision !== null) { item.appendChild(el("div", "decision", clipped(step.decision).text)); }
      var grid = el("div", "kv");
      kv(grid, "arguments", textBlock(step.args));
      if (step.args_error !== null) { kv(grid, "bad arguments", el("span", null, step.args_error)); }
      kv(grid, step.error ? "error result" : "result", step.result === null ? el("span", "empty", "no result") : textBlock(step.result));
      item.appendChild(grid);
      (step.verdicts || []).forEach(function (v) { item.appendChild(verdictNode(v)); });
      list.appendChild(item);
    });
    body.appendChild(list);

    if (run.verdicts.length) {
      body.appendChild(el("h3", null, "Judge verdicts"));
      run.verdicts.forEach(function (v) { body.appendChild(verdictNode(v)); });
    }
    if (run.checks.length) {
      body.appendChild(el("h3", null, "Checks"));
      var table = el("table");
      var headRow = el("tr");
      ["status", "check", "axis", "score", "reason"].forEach(function (h) { headRow.appendChild(el("th", null, h)); });
      var thead = el("thead");
      thead.appendChild(headRow);
      table.appendChild(thead);
      var tbody = el("tbody");
      run.checks.forEach(function (values) {
        var c = record(data.check_fields, values);
        var row = el("tr");
        var cell = el("td");
        cell.appendChild(badge(c.status));
        row.appendChild(cell);
        row.appendChild(el("td", null, c.check + (c.gating ? "" : " (diagnostic)")));
        row.appendChild(el("td", null, c.axis));
        row.appendChild(el("td", "num", c.score === null ? "—" : c.score.toFixed(2)));
        row.appendChild(el("td", "reason", clipped(c.reason).text));
        tbody.appendChild(row);
      });
      table.appendChild(tbody);
      body.appendChild(table);
    }
    return body;
  }

  document.querySelectorAll("details.run[data-run]").forEach(function (details) {
    details.addEventListener("toggle", function () {
      if (!details.open || details.getAttribute("data-built") === "1") { return; }
      var run = data.runs[Number(details.getAttribute("data-run"))];
      if (!run) { return; }
      details.appendChild(renderRun(run));
      details.setAttribute("data-built", "1");
    });
  });

  /* Text filter: <input data-filter="ID"> hides rows (or run entries) of #ID not containing the text. */
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var target = document.getElementById(input.getAttribute("data-filter"));
    var counter = document.getElementById(input.getAttribute("data-filter") + "-count");
    if (!target) { return; }
    var items = target.tagName === "TABLE" ? Array.prototype.slice.call(target.tBodies[0].rows)
      : Array.prototype.slice.call(target.children);
    function apply() {
      var needle = input.value.trim().toLowerCase();
      var shown = 0;
      items.forEach(function (item) {
        var hay = (item.getAttribute("data-search") || item.textContent).toLowerCase();
        var hit = !needle || hay.indexOf(needle) !== -1;
        item.hidden = !hit;
        if (hit) { shown += 1; }
      });
      if (counter) { counter.textContent = shown + " of " + items.length + " shown"; }
    }
    input.addEventListener("input", apply);
    apply();
  });

  /* Sorting: click a header; cells sort by data-sort (numbers) or text. */
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var descending = th.getAttribute("aria-sort") === "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[column];
          var raw = cell.getAttribute("data-sort");
          if (raw !== null && raw !== "" && !isNaN(Number(raw))) { return { n: Number(raw), s: "" }; }
          return { n: null, s: (raw !== null ? raw : cell.textContent).toLowerCase() };
        }
        rows.sort(function (a, b) {
          var ka = key(a), kb = key(b), order;
          if (ka.n !== null && kb.n !== null) { order = ka.n - kb.n; }
          else if (ka.n !== null) { order = -1; }
          else if (kb.n !== null) { order = 1; }
          else { order = ka.s < kb.s ? -1 : ka.s > kb.s ? 1 : 0; }
          return descending ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) { if (event.key === "Enter") { sort(); } });
    });
  });

  /* Links with data-jump (a task's "runs", a weak path's run id) filter the trajectory viewer to that text. */
  document.querySelectorAll("a.jump[data-jump]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var input = document.getElementById("runs-filter");
      if (!input) { return; }
      input.value = link.getAttribute("data-jump");
      input.dispatchEvent(new Event("input"));
      document.getElementById("trajectories").scrollIntoView();
    });
  });
})();
