// pathjudge label: the keyboard-first labelling page. Item text is hostile data: it is only ever
// written with textContent (never innerHTML), and the page's CSP allows no other script.
"use strict";

(function () {
  var state = null;
  var position = 0;
  var current = null;
  var busy = false;

  function $(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = shown(String(text)); }
    return node;
  }

  // control characters (other than tab and newline) are drawn as their visible symbols
  function shown(text) {
    return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, function (c) {
      var code = c.charCodeAt(0);
      return String.fromCharCode(code === 0x7f ? 0x2421 : 0x2400 + code);
    });
  }

  function say(text) { $("banner").textContent = text; }

  function api(method, path, body) {
    var init = { method: method, credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) { throw new Error(data.error || ("HTTP " + response.status)); }
        return data;
      });
    });
  }

  function renderCriterion() {
    var c = state.criterion;
    $("criterion-title").textContent = c.title || c.id;
    $("criterion-version").textContent = c.id + " v" + c.version;
    $("mode").textContent = state.mode === "adjudication" ? "adjudication" :
      (state.blind ? "blind" : "judge shown after labelling");
    $("rater").textContent = "rater: " + state.rater;
    $("question").textContent = c.question;
    $("pass-means").textContent = c.pass_means;
    $("fail-means").textContent = c.fail_means;
    $("unsure-means").textContent = c.unsure_means || "You cannot decide from what is shown.";
  }

  function renderProgress() {
    var s = state;
    var pct = s.total ? Math.round(100 * s.labelled / s.total) : 100;
    $("bar-fill").style.width = pct + "%";
    $("progress-text").textContent = "labelled " + s.labelled + " of " + s.total +
      " · pass " + s.counts.pass + " · fail " + s.counts.fail + " · unsure " + s.counts.unsure;
    var parts = [];
    Object.keys(s.slices).forEach(function (key) {
      var v = s.slices[key];
      parts.push(key + ": " + v.labelled + "/" + v.total);
    });
    $("slices").textContent = parts.length ? "slices · " + parts.join(" · ") : "";
  }

  function textBlock(name, value) {
    var box = el("section", "input");
    box.appendChild(el("h2", null, name));
    box.appendChild(el("div", "text", value));
    return box;
  }

  function json(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  function pick(step, keys) {
    for (var i = 0; i < keys.length; i++) {
      if (step[keys[i]] !== undefined && step[keys[i]] !== null) { return [keys[i], step[keys[i]]]; }
    }
    return null;
  }

  function stepBlock(step, index) {
    var box = el("div", "step" + (step.is_error ? " error" : ""));
    var used = {};
    var tool = pick(step, ["tool", "name", "tool_name"]);
    var head = el("div", "step-head");
    head.appendChild(el("span", "step-no", "#" + (index + 1)));
    if (tool) { used[tool[0]] = 1; head.appendChild(el("span", "tool", String(tool[1]))); }
    if (step.is_error) { head.appendChild(el("span", "tag fail", "error")); }
    used.is_error = 1;
    box.appendChild(head);
    [["decision", ["decision", "thought", "text", "content"]],
     ["arguments", ["arguments", "args", "input", "tool_input", "raw_arguments"]],
     ["result", ["result", "output", "observation", "tool_result"]]].forEach(function (spec) {
      var found = pick(step, spec[1]);
      if (!found) { return; }
      used[found[0]] = 1;
      var part = el("div", "part");
      part.appendChild(el("span", "part-name", spec[0]));
      part.appendChild(el("div", "text small", json(found[1])));
      box.appendChild(part);
    });
    var rest = {};
    var any = false;
    Object.keys(step).forEach(function (key) {
      if (!used[key] && step[key] !== null) { rest[key] = step[key]; any = true; }
    });
    if (any) {
      var more = el("div", "part");
      more.appendChild(el("span", "part-name", "other"));
      more.appendChild(el("div", "text small", JSON.stringify(rest, null, 2)));
      box.appendChild(more);
    }
    return box;
  }

  function trajectoryBlock(name, value) {
    var box = el("section", "input trajectory");
    box.appendChild(el("h2", null, name + " (trajectory)"));
    var scroll = el("div", "steps");
    if (value.input !== undefined && value.input !== null) {
      var task = el("div", "step");
      task.appendChild(el("div", "step-head", "input"));
      task.appendChild(el("div", "text small", json(value.input)));
      scroll.appendChild(task);
    }
    (value.steps || []).forEach(function (step, i) {
      scroll.appendChild(stepBlock(step && typeof step === "object" ? step : { value: step }, i));
    });
    if (value.final_answer !== undefined && value.final_answer !== null) {
      var last = el("div", "step final");
      last.appendChild(el("div", "step-head", "final answer"));
      last.appendChild(el("div", "text small", json(value.final_answer)));
      scroll.appendChild(last);
    }
    box.appendChild(scroll);
    return box;
  }

  function renderItem(item) {
    current = item;
    $("item-id").textContent = item.item_id;
    $("item-position").textContent = "item " + (item.position + 1) + " of " + state.total;
    $("item-reason").textContent = "why next: " + item.reason;
    var tag = $("item-label");
    tag.textContent = item.label ? "labelled " + item.label : "not labelled";
    tag.className = "tag " + (item.label || "none");
    var inputs = $("inputs");
    inputs.textContent = "";
    inputs.className = item.layout;
    item.inputs.forEach(function (entry) {
      inputs.appendChild(entry.kind === "trajectory" ? trajectoryBlock(entry.name, entry.value) :
        textBlock(entry.name, entry.value));
    });
    var judge = $("judge");
    if (item.judge) {
      judge.hidden = false;
      judge.textContent = "judge: " + item.judge;
      judge.className = "tag " + item.judge;
    } else {
      judge.hidden = true;
      judge.textContent = "";
    }
    var others = $("others");
    others.textContent = "";
    item.others.forEach(function (o) {
      var line = el("p", "other");
      line.appendChild(el("span", "tag " + o.label, o.rater + ": " + o.label));
      if (o.note) { line.appendChild(el("span", "other-note", " " + o.note)); }
      others.appendChild(line);
    });
    $("note").value = item.note || "";
    window.scrollTo(0, 0);
    document.body.setAttribute("data-item", item.item_id);
  }

  function show(pos) {
    if (!state.total) {
      $("inputs").textContent = state.mode === "adjudication" ? "Nothing to settle: no disagreements." : "No items to label.";
      document.body.setAttribute("data-ready", "1");
      return Promise.resolve();
    }
    position = Math.max(0, Math.min(state.total - 1, pos));
    return api("GET", "/api/item/" + position).then(function (item) {
      renderItem(item);
      document.body.setAttribute("data-ready", "1");
    });
  }

  function refresh() {
    return api("GET", "/api/state").then(function (s) {
      state = s;
      renderProgress();
      document.body.setAttribute("data-labelled", String(s.labelled));
    });
  }

  function nextUnlabelled(from) {
    for (var i = from + 1; i < state.items.length; i++) {
      if (!state.items[i].label) { return i; }
    }
    for (var j = 0; j <= from && j < state.items.length; j++) {
      if (!state.items[j].label) { return j; }
    }
    return Math.min(from + 1, state.total - 1);
  }

  // keys are queued and run one at a time, each reading the item shown when its turn comes, so a
  // quick "p p" labels two items in turn and none is dropped
  var queue = [];

  function run(work) {
    if (queue.length >= 8) { say("slow down: " + queue.length + " keys waiting"); return; }
    queue.push(work);
    if (!busy) { pump(); }
  }

  function pump() {
    var work = queue.shift();
    if (!work) {
      busy = false;
      document.body.removeAttribute("data-busy");
      return;
    }
    busy = true;
    document.body.setAttribute("data-busy", "1");
    work().catch(function (error) { say("error: " + error.message); }).then(pump);
  }

  function label(value) {
    run(function () {
      if (!current || !state.total) { return Promise.resolve(); }
      var labelled = current;
      var note = $("note").value.trim();
      return api("POST", "/api/label", { position: labelled.position, label: value, note: note || null })
        .then(refresh)
        .then(function () {
          if (state.mode === "label" && !state.blind) {
            return api("GET", "/api/item/" + labelled.position).then(function (item) {
              say("item " + item.item_id + ": you said " + value +
                (item.judge ? " · the judge said " + item.judge : ""));
            });
          }
          say("item " + labelled.item_id + ": " + value + " saved");
        })
        .then(function () {
          var done = state.labelled >= state.total;
          if (done) { say("all " + state.total + " items labelled."); }
          return show(done ? labelled.position : nextUnlabelled(labelled.position));
        });
    });
  }

  function undo() {
    run(function () {
      return api("POST", "/api/undo", {}).then(function (result) {
        if (result.position === null) { say("nothing to undo"); return null; }
        say("undone: item " + (result.position + 1) + (result.label ? " is " + result.label + " again" : " is open again"));
        return refresh().then(function () { return show(result.position); });
      });
    });
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var inNote = event.target === $("note");
    if (inNote) {
      if (event.key === "Escape" || (event.key === "Enter" && !event.shiftKey)) {
        event.preventDefault();
        $("note").blur();
        say(event.key === "Enter" ? "note kept: it is saved with the label" : "");
      }
      return;
    }
    if (!state) { return; }
    var key = event.key;
    var handled = true;
    if (key === "p") { label("pass"); }
    else if (key === "f") { label("fail"); }
    else if (key === "u") { label("unsure"); }
    else if (key === "j" || key === "ArrowRight") { run(function () { return show(position + 1); }); }
    else if (key === "k" || key === "ArrowLeft") { run(function () { return show(position - 1); }); }
    else if (key === "n") { $("note").focus(); }
    else if (key === "z") { undo(); }
    else { handled = false; }
    if (handled) { event.preventDefault(); }
  }

  document.addEventListener("keydown", onKey);
  document.addEventListener("DOMContentLoaded", function () {
    run(function () {
      return refresh().then(function () {
        renderCriterion();
        return show(state.cursor);
      });
    });
  });
})();
