/* AutoMedBench site behaviour: sortable tables, leaderboard filters, the tier picker, the run
   page's search and evidence links, and the comparison view. Plain ES2017, no dependencies;
   works from file:// (data comes from inline JSON or <script> files, never fetch()). */
(function () {
  "use strict";
  var STAGES = ["s1", "s2", "s3", "s4", "s5"];

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
    });
  }
  // a case's status as the core decided it (missing / invalid / reference_error), never "invalid"
  // for a case the agent wrote nothing for (docs/leaderboard.md)
  function caseStatusBadge(c) {
    var status = c.status || (c.valid ? "ok" : "invalid");
    if (status === "ok") return "";
    var label = {missing: "missing", invalid: "invalid", reference_error: "reference error"}[status] || status;
    return '<span class="badge ' + (status === "reference_error" ? "warn" : "bad") + ' case-' + esc(status) + '">' + esc(label) + "</span> ";
  }
  function score(v) { return v == null ? "—" : (v * 100).toFixed(1); }
  function heat(v) {
    if (v == null) return "background:#eceff1;color:#78909c";
    v = Math.min(Math.max(v, 0), 1);
    return "background:hsl(" + Math.round(v * 120) + ",65%," + Math.round(86 - 6 * Math.abs(v - 0.5)) + "%)";
  }
  function ci(s) {
    if (!s || !s.n || s.ci_low == null) return "—";
    if (s.n1) return "n=1";
    return (s.ci_low * 100).toFixed(1) + "–" + (s.ci_high * 100).toFixed(1);
  }
  function duration(sec) {
    sec = Math.round(sec);
    if (sec < 60) return sec + "s";
    if (sec < 3600) return Math.floor(sec / 60) + "m " + String(sec % 60).padStart(2, "0") + "s";
    return Math.floor(sec / 3600) + "h " + String(Math.floor((sec % 3600) / 60)).padStart(2, "0") + "m";
  }
  function tokens(n) { return n >= 1e6 ? (n / 1e6).toFixed(2) + "M" : n >= 1e3 ? (n / 1e3).toFixed(1) + "k" : String(Math.round(n)); }
  function cost(c) { return c >= 0.01 || c === 0 ? "$" + c.toFixed(2) : "$" + c.toFixed(4); }
  function jsonData(id) { var el = document.getElementById(id); return el ? JSON.parse(el.textContent) : null; }

  /* ---- sortable tables: click a header; cells sort by data-v (number) or their text ---- */
  function cellKey(td) {
    if (!td) return "";
    var v = td.getAttribute("data-v");
    if (v !== null && v !== "" && !isNaN(Number(v))) return Number(v);
    if (v === "") return -Infinity;
    return (v !== null ? v : td.textContent).trim().toLowerCase();
  }
  function sortTable(table, col, dir) {
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
      if (typeof x === "number" && typeof y === "number") return dir * (x - y);
      return dir * String(x).localeCompare(String(y));
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
    $$("th", table.tHead).forEach(function (th, i) {
      th.classList.remove("sorted-asc", "sorted-desc");
      if (i === col) th.classList.add(dir > 0 ? "sorted-asc" : "sorted-desc");
    });
  }
  function initSorting(root) {
    $$("table.sortable", root).forEach(function (table) {
      if (table.dataset.sortInit) return;
      table.dataset.sortInit = "1";
      $$("th", table.tHead).forEach(function (th, i) {
        if (th.classList.contains("nosort")) return;
        th.classList.add("sortable");
        th.addEventListener("click", function () {
          var dir = th.classList.contains("sorted-desc") ? 1 : th.classList.contains("sorted-asc") ? -1 :
            (th.dataset.first === "asc" ? 1 : -1);
          sortTable(table, i, dir);
        });
      });
    });
  }

  /* ---- the overall leaderboard: agent rows for the chosen track / task / tier ---- */
  function agentRow(a, rank, plots) {
    var flags = "";
    if (a.unisolated_runs) flags += '<span class="badge warn">no isolation</span>';
    if (a.disqualified) flags += '<span class="badge bad">' + a.disqualified + " DQ</span>";
    if (a.infra_runs) flags += '<span class="badge warn infra-count" title="ended on an infrastructure fault: counted, never averaged in">' + a.infra_runs + " infra</span>";
    if (a.judge_incomplete) flags += '<span class="badge warn judge-count" title="a stage the judge could not score: counted, never averaged in">' + a.judge_incomplete + " judge incomplete</span>";
    var bars = '<div class="bars" title="S1–S5 means">' + STAGES.map(function (s) {
      var m = a.stages[s].mean;
      return '<span class="' + (m == null ? "" : s) + '" style="height:' + (m == null ? 2 : Math.max(2, m * 30)) + 'px" title="' + s.toUpperCase() + " " + score(m) + '"></span>';
    }).join("") + "</div>";
    function sc(s, label) {
      var small = s.n && s.n < a.n_complete ? "<small>n=" + s.n + "/" + a.n_complete + "</small>" : "";
      return '<td class="score" data-v="' + (s.mean == null ? "" : s.mean) + '" title="' + esc(label) + '">' + score(s.mean) + small + "</td>";
    }
    var stageCells = STAGES.map(function (s) {
      var st = a.stages[s];
      return '<td class="score" data-v="' + (st.mean == null ? "" : st.mean) + '" style="' + heat(st.mean) + '">' + score(st.mean) + "</td>";
    }).join("");
    return '<tr class="' + (a.unisolated_runs ? "unisolated" : "") + '" data-agent="' + esc(a.agent) + '">' +
      '<td class="rank" data-v="' + rank + '">' + rank + "</td>" +
      '<td class="agent" data-v="' + esc(a.agent.toLowerCase()) + '"><span class="name">' + esc(a.agent) + "</span>" + flags +
      (a.models && a.models.length ? "<small>" + esc(a.models.join(", ")) + "</small>" : "") + "</td>" +
      sc(a.overall, "Overall") + '<td class="num" data-v="' + (a.overall.ci_low == null ? "" : a.overall.ci_high - a.overall.ci_low) + '">' + ci(a.overall) + "</td>" +
      sc(a.agentic, "Agentic") + sc(a.task_score, "Task") + stageCells + "<td>" + bars + "</td>" +
      '<td class="num" data-v="' + a.avg_turns + '">' + a.avg_turns.toFixed(1) + "</td>" +
      '<td class="num" data-v="' + a.avg_wall_time_s + '">' + duration(a.avg_wall_time_s) + "</td>" +
      '<td class="num" data-v="' + a.avg_tokens + '">' + tokens(a.avg_tokens) + "</td>" +
      '<td class="num" data-v="' + a.avg_cost_usd + '">' + cost(a.avg_cost_usd) + "</td>" +
      '<td class="num" data-v="' + a.failure_rate + '">' + Math.round(a.failure_rate * 100) + "%</td>" +
      '<td class="num" data-v="' + a.n_complete + '">' + a.n_complete + (a.n_complete < a.n_runs ? "<small>/" + a.n_runs + "</small>" : "") + "</td></tr>";
  }
  function initBoard() {
    var data = jsonData("board-data");
    if (!data) return;
    var track = $("#f-track"), task = $("#f-task"), tier = $("#f-tier");
    var tbody = $("#agents-table tbody");
    function apply() {
      var tr = track.value, tk = task.value, ti = tier.value;
      $$("option", task).forEach(function (o) {  // tasks of the chosen track only
        o.hidden = !!(tr && o.value && data.task_track[o.value] !== tr);
      });
      if (tk && tr && data.task_track[tk] !== tr) { task.value = ""; tk = ""; }
      var key = (tk ? data.task_track[tk] : tr || "*") + "|" + (tk || "*") + "|" + (ti || "*");
      var rows = data.views[key] || [];
      tbody.innerHTML = rows.map(function (a, i) { return agentRow(a, i + 1); }).join("");
      $("#agents-empty").classList.toggle("hidden", rows.length > 0);
      $$("[data-filter-row]").forEach(function (r) {
        var ok = (!tr || r.dataset.track === tr) && (!tk || r.dataset.task === tk) && (!ti || r.dataset.tier === ti);
        r.classList.toggle("hidden", !ok);
      });
      $("#view-key").textContent = key === "*|*|*" ? "all runs" : [tr || (tk ? data.task_track[tk] : ""), tk, ti].filter(Boolean).join(" · ");
    }
    [track, task, tier].forEach(function (s) { s.addEventListener("change", apply); });
    apply();
  }

  /* ---- per-task page: the tier picker (also from #tier=NAME) ---- */
  function initTierPicker() {
    var picker = $(".tierpicker");
    if (!picker) return;
    function show(t) {
      $$("button", picker).forEach(function (b) { b.classList.toggle("active", b.dataset.tier === t); });
      $$("[data-tier-section]").forEach(function (s) { s.classList.toggle("hidden", s.dataset.tierSection !== t); });
    }
    $$("button", picker).forEach(function (b) {
      b.addEventListener("click", function () { show(b.dataset.tier); history.replaceState(null, "", "#tier=" + b.dataset.tier); });
    });
    var m = /tier=([\w-]+)/.exec(location.hash);
    var first = $("button", picker);
    show(m && $('button[data-tier="' + m[1] + '"]', picker) ? m[1] : first && first.dataset.tier);
    // compare: tick two runs
    var go = $("#compare-go");
    if (go) {
      document.addEventListener("change", function () {
        var ids = $$("input.cmp:checked").map(function (c) { return c.value; });
        go.classList.toggle("hidden", ids.length !== 2);
        if (ids.length === 2) go.href = "../compare.html?a=" + encodeURIComponent(ids[0]) + "&b=" + encodeURIComponent(ids[1]);
      });
    }
  }

  /* ---- run page: evidence links open the right call; search filters calls ---- */
  function showTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    var next = el.nextElementSibling;  // a turn anchor sits just before its first call
    var call = el.matches("details.call") ? el : el.closest("details.call") ||
      (next && next.matches("details.call") ? next : null);
    $$("details.call.target").forEach(function (d) { d.classList.remove("target"); });
    if (call) { call.open = true; call.classList.add("target"); call.classList.remove("hidden"); }
    el.scrollIntoView({block: "start"});
  }
  function initRunPage() {
    if (!$("#calls")) return;
    window.addEventListener("hashchange", showTarget);
    showTarget();
    var box = $("#call-search");
    var count = $("#call-count");
    if (box) box.addEventListener("input", function () {
      var q = box.value.trim().toLowerCase();
      var shown = 0;
      $$("details.call").forEach(function (d) {
        var hit = !q || d.textContent.toLowerCase().indexOf(q) >= 0;
        d.classList.toggle("hidden", !hit);
        d.open = !!(q && hit);
        if (hit) shown++;
      });
      count.textContent = q ? shown + " matching" : "";
    });
  }

  /* ---- comparison of two runs: loads runs/<id>.js on demand ---- */
  var loaded = {};
  window.AMB_RUN = function (d) { loaded[d.run.run_id] = d; };
  function loadRun(id, done) {
    if (loaded[id]) return done(loaded[id]);
    var s = document.createElement("script");
    s.src = "runs/" + encodeURIComponent(id) + ".js";
    s.onload = function () { done(loaded[id] || null); };
    s.onerror = function () { done(null); };
    document.head.appendChild(s);
  }
  function renderCompare(a, b) {
    var out = $("#compare-out");
    if (!a || !b) { out.innerHTML = '<p class="notice">Could not load one of the runs.</p>'; return; }
    function row(label, x, y, fmt) {
      fmt = fmt || score;
      var d = (x != null && y != null && fmt === score) ? ((y - x) * 100).toFixed(1) : "";
      return "<tr><th>" + esc(label) + '</th><td class="score" style="' + (fmt === score ? heat(x) : "") + '">' + fmt(x) +
        '</td><td class="score" style="' + (fmt === score ? heat(y) : "") + '">' + fmt(y) + '</td><td class="num">' + d + "</td></tr>";
    }
    function ident(v) { return esc(v); }
    var html = '<table id="compare-table"><thead><tr><th></th><th><a href="runs/' + esc(a.run.run_id) + '.html">' + esc(a.run.agent) + "</a><small> " + esc(a.run.run_id) +
      '</small></th><th><a href="runs/' + esc(b.run.run_id) + '.html">' + esc(b.run.agent) + "</a><small> " + esc(b.run.run_id) + "</small></th><th>Δ (B−A)</th></tr></thead><tbody>";
    html += row("task · tier", a.run.task + " · " + a.run.tier, b.run.task + " · " + b.run.tier, ident);
    html += row("Overall", a.overall, b.overall) + row("Agentic", a.agentic, b.agentic) + row("Task", a.task.score, b.task.score);
    STAGES.forEach(function (s) { html += row(s.toUpperCase(), (a.stages[s] || {}).score, (b.stages[s] || {}).score); });
    html += row("turns", a.run.turns, b.run.turns, ident) + row("time", duration(a.run.wall_time_s), duration(b.run.wall_time_s), ident);
    html += row("cost", cost(a.run.cost_usd), cost(b.run.cost_usd), ident) + row("end", a.run.end_reason, b.run.end_reason, ident);
    html += row("error codes", a.errors.map(function (e) { return e.code; }).join(", ") || "—",
      b.errors.map(function (e) { return e.code; }).join(", ") || "—", ident);
    html += "</tbody></table><h2>Per case</h2>";
    var ids = [], byA = {}, byB = {};
    a.task.per_case.forEach(function (c) { byA[c.case_id] = c; ids.push(c.case_id); });
    b.task.per_case.forEach(function (c) { byB[c.case_id] = c; if (!byA[c.case_id]) ids.push(c.case_id); });
    html += '<table id="compare-cases"><thead><tr><th>case</th><th>A</th><th>B</th></tr></thead><tbody>';
    function caseCell(c) {
      if (!c) return "<td>—</td>";
      var m = Object.keys(c.metrics || {}).map(function (k) { return k + " " + (c.metrics[k] == null ? "—" : c.metrics[k].toFixed(3)); }).join(", ");
      return "<td>" + caseStatusBadge(c) + esc(m) + (c.reason ? "<small> " + esc(c.reason) + "</small>" : "") + "</td>";
    }
    ids.forEach(function (id) { html += "<tr><td>" + esc(id) + "</td>" + caseCell(byA[id]) + caseCell(byB[id]) + "</tr>"; });
    out.innerHTML = html + "</tbody></table>";
  }
  function initCompare() {
    var index = jsonData("compare-runs");
    if (!index) return;
    var sa = $("#cmp-a"), sb = $("#cmp-b");
    function fill(sel, runs, chosen) {
      sel.innerHTML = '<option value="">— choose a run —</option>' + runs.map(function (r) {
        return '<option value="' + esc(r.id) + '"' + (r.id === chosen ? " selected" : "") + ">" + esc(r.agent + " · " + r.task + " · " + r.tier + " · " + r.id) + "</option>";
      }).join("");
    }
    var q = new URLSearchParams(location.search);
    function update(push) {
      var a = sa.value, ra = index.filter(function (r) { return r.id === a; })[0];
      var same = ra ? index.filter(function (r) { return r.task === ra.task; }) : index;
      var b = sb.value;
      fill(sb, same, b);
      if (push) history.replaceState(null, "", "?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(sb.value));
      if (a && sb.value) loadRun(a, function (da) { loadRun(sb.value, function (db) { renderCompare(da, db); }); });
    }
    fill(sa, index, q.get("a"));
    fill(sb, index, q.get("b"));
    sa.addEventListener("change", function () { update(true); });
    sb.addEventListener("change", function () { update(true); });
    update(false);
  }

  document.addEventListener("DOMContentLoaded", function () {
    initBoard();
    initSorting();
    initTierPicker();
    initRunPage();
    initCompare();
  });
})();
