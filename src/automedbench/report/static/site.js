/* AutoMedBench site behaviour: sortable tables, leaderboard filters, the tier picker, the run
   page's search and evidence links, and the comparison view. Plain ES2017, no dependencies;
   works from file:// (data comes from inline JSON or <script> files, never fetch()). */
(function () {
  "use strict";
  // the rubric's stages, in order, as the page's data gives them ({id, label, name, weight}):
  // the script knows none of its own (docs/site.md "Stages come from the rubric")
  var STAGES = [];
  // the built-in baseline agents among the page's runs, shown with a "baseline" badge so that
  // they are never read as the ground truth (docs/site.md "Ground truth, baseline and the published reference")
  var BASELINES = [];
  function baselineBadge(agent) {
    return BASELINES.indexOf(agent) >= 0 ? '<span class="badge baseline" title="the built-in baseline agent, not the ground truth">baseline</span>' : "";
  }

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
    var label = {missing: "missing", invalid: "invalid", reference_error: "ground-truth error"}[status] || status;
    return '<span class="badge ' + (status === "reference_error" ? "warn" : "bad") + ' case-' + esc(status) + '">' + esc(label) + "</span> ";
  }
  function score(v) { return v == null ? "—" : (v * 100).toFixed(1); }
  function heat(v) {
    if (v == null) return "background:#eceff1;color:#4b5563";
    v = Math.min(Math.max(v, 0), 1);
    return "background:hsl(" + Math.round(v * 120) + ",65%," + Math.round(86 - 6 * Math.abs(v - 0.5)) + "%)";
  }
  function ci(s) {
    if (!s || !s.n || s.ci_low == null) return "—";
    if (s.n1) return "n=1";
    // every repeat the same: the interval measures no spread (docs/site.md "Honest numbers")
    if (Math.abs(s.ci_low - s.ci_high) < 5e-5) return (s.ci_low * 100).toFixed(1) + " (identical repeats)";
    return (s.ci_low * 100).toFixed(1) + "–" + (s.ci_high * 100).toFixed(1);
  }
  function duration(sec) {
    sec = Math.round(sec);
    if (sec < 60) return sec + "s";
    if (sec < 3600) return Math.floor(sec / 60) + "m " + String(sec % 60).padStart(2, "0") + "s";
    return Math.floor(sec / 3600) + "h " + String(Math.floor((sec % 3600) / 60)).padStart(2, "0") + "m";
  }
  function tokens(n) { return n >= 1e6 ? (n / 1e6).toFixed(2) + "M" : n >= 1e3 ? (n / 1e3).toFixed(1) + "k" : String(Math.round(n)); }
  // one number format (docs/site.md "One number format"; number_format.py, whose patterns these
  // are: tests/report/test_site_statements.py): a count as an integer, a flag as yes/no, else 3
  // decimals; toFixed rounds half away from zero, as number_format.fixed does
  var COUNT_NAMES = /^n_|_(voxels|count|boxes|pixels)$/;
  var FLAG_NAMES = /^(correct|placeholder)$|^is_|_flag$/;
  function metricText(k, v) {
    if (v == null) return "—";
    if (FLAG_NAMES.test(k) && (v === 0 || v === 1)) return v ? "yes" : "no";
    return Number.isInteger(v) && (Math.abs(v) > 1 || COUNT_NAMES.test(k)) ? String(v) : v.toFixed(3);
  }
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
      if (typeof x === "number") return -1;   // numbers before text, empty last either way
      if (typeof y === "number") return 1;
      return dir * String(x).localeCompare(String(y));
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
    $$("th", table.tHead).forEach(function (th, i) {
      th.classList.remove("sorted-asc", "sorted-desc");
      if (th.classList.contains("sortable")) th.setAttribute("aria-sort", i === col ? (dir > 0 ? "ascending" : "descending") : "none");
      if (i === col) th.classList.add(dir > 0 ? "sorted-asc" : "sorted-desc");
    });
    table.dataset.sortCol = col;
    table.dataset.sortDir = dir;
  }
  function clearSort(table) {
    $$("th", table.tHead).forEach(function (th) {
      th.classList.remove("sorted-asc", "sorted-desc");
      if (th.classList.contains("sortable")) th.setAttribute("aria-sort", "none");
    });
    delete table.dataset.sortCol;
    delete table.dataset.sortDir;
  }
  function resort(table) {  // after the rows were re-rendered: keep the order the header says
    if (table.dataset.sortCol != null) sortTable(table, Number(table.dataset.sortCol), Number(table.dataset.sortDir));
  }
  function initSorting(root) {
    $$("table.sortable", root).forEach(function (table) {
      if (table.dataset.sortInit) return;
      table.dataset.sortInit = "1";
      $$("th", table.tHead).forEach(function (th, i) {
        if (th.classList.contains("nosort")) return;
        th.classList.add("sortable");
        th.tabIndex = 0;
        th.setAttribute("aria-sort", "none");
        th.title = (th.title ? th.title + " · " : "") + "sort (click or Enter)";
        function go() {
          var dir = th.classList.contains("sorted-desc") ? 1 : th.classList.contains("sorted-asc") ? -1 :
            (th.dataset.first === "asc" ? 1 : -1);
          sortTable(table, i, dir);
          table.dispatchEvent(new CustomEvent("amb-sorted"));
        }
        th.addEventListener("click", go);
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
        });
      });
    });
  }

  /* ---- view state in the URL hash: #track=x&task=y&tier=z&sort=col.dir (shareable) ---- */
  function hashParams() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) out[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
    });
    return out;
  }
  function setHash(params) {
    var h = Object.keys(params).filter(function (k) { return params[k] !== "" && params[k] != null; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
    history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
  }

  /* ---- the overall leaderboard: agent rows for the chosen track / task / tier ---- */
  function agentRow(a, rank, plots) {
    var flags = "";
    if (a.unisolated_runs) flags += '<span class="badge warn">no isolation</span>';
    if (a.disqualified) flags += '<span class="badge bad">' + a.disqualified + " DQ</span>";
    if (a.infra_runs) flags += '<span class="badge warn infra-count" title="ended on an infrastructure fault: counted, never averaged in">' + a.infra_runs + " infra</span>";
    if (a.judge_incomplete) flags += '<span class="badge warn judge-count" title="a stage the judge could not score: counted, never averaged in">' + a.judge_incomplete + " judge incomplete</span>";
    var span = STAGES.length ? STAGES[0].label + "–" + STAGES[STAGES.length - 1].label : "";
    var bars = '<div class="bars" title="' + esc(span) + ' means">' + STAGES.map(function (s) {
      var m = a.stages[s.id].mean;
      return '<span class="' + (m == null ? "" : esc(s.id)) + '" style="height:' + (m == null ? 2 : Math.max(2, m * 30)) + 'px" title="' + esc(s.label + " " + s.name) + " " + score(m) + '"></span>';
    }).join("") + "</div>";
    function sc(s, label) {
      var small = s.n && s.n < a.n_complete ? "<small>n=" + s.n + "/" + a.n_complete + "</small>" : "";
      return '<td class="score" data-v="' + (s.mean == null ? "" : s.mean) + '" title="' + esc(label) + '">' + score(s.mean) + small + "</td>";
    }
    var stageCells = STAGES.map(function (s) {
      var st = a.stages[s.id];
      return '<td class="score" data-v="' + (st.mean == null ? "" : st.mean) + '" style="' + heat(st.mean) + '">' + score(st.mean) + "</td>";
    }).join("");
    return '<tr class="' + (a.unisolated_runs ? "unisolated" : "") + '" data-agent="' + esc(a.agent) + '">' +
      '<td class="rank" data-v="' + rank + '">' + rank + "</td>" +
      '<td class="agent" data-v="' + esc(a.agent.toLowerCase()) + '"><span class="name">' + esc(a.agent) + "</span>" + baselineBadge(a.agent) + flags + "</td>" +
      // the row's scaffold and model, each its own column (docs/leaderboard.md "Scaffold and model")
      '<td class="scaffold">' + esc(a.scaffold || "unknown") + '</td><td class="model">' + (a.model ? esc(a.model) : "—") + "</td>" +
      sc(a.overall, "Overall") + '<td class="num" data-v="' + (a.overall.ci_low == null ? "" : a.overall.ci_low) + '" title="sorted by the lower bound">' + ci(a.overall) + "</td>" +
      sc(a.agentic, "Agentic") + sc(a.task_score, "Task") + stageCells + "<td>" + bars + "</td>" +
      '<td class="num" data-v="' + a.avg_turns + '">' + a.avg_turns.toFixed(1) + "</td>" +
      '<td class="num" data-v="' + a.avg_wall_time_s + '">' + duration(a.avg_wall_time_s) + "</td>" +
      '<td class="num" data-v="' + a.avg_tokens + '">' + tokens(a.avg_tokens) + "</td>" +
      '<td class="num" data-v="' + a.avg_cost_usd + '">' + cost(a.avg_cost_usd) + "</td>" +
      '<td class="num" data-v="' + a.failure_rate + '">' + Math.round(a.failure_rate * 100) + "%</td>" +
      '<td class="num" data-v="' + a.n_complete + '">' + a.n_complete + (a.n_complete < a.n_runs ? "<small>/" + a.n_runs + "</small>" : "") + "</td></tr>";
  }
  function errorRow(a, cats) {
    var e = a.errors || {by_category: {}, total: 0, runs_with_errors: 0, infrastructure: {}};
    var infra = Object.keys(e.infrastructure || {}).map(function (c) { return esc(c) + " ×" + e.infrastructure[c]; }).join(", ");
    return '<tr class="' + (a.unisolated_runs ? "unisolated" : "") + '" data-agent="' + esc(a.agent) + '"><td class="agent" data-v="' + esc(a.agent.toLowerCase()) + '"><span class="name">' + esc(a.agent) + "</span>" + baselineBadge(a.agent) + "</td>" +
      cats.map(function (c) { var k = e.by_category[c] || 0; return '<td class="num' + (k ? "" : " zero") + '" data-v="' + k + '">' + k + "</td>"; }).join("") +
      '<td class="num" data-v="' + e.total + '"><strong>' + e.total + "</strong></td>" +
      '<td class="num" data-v="' + e.runs_with_errors + '">' + e.runs_with_errors + "/" + a.n_runs + "</td>" +
      '<td class="infra">' + (infra || "—") + "</td></tr>";
  }
  function initBoard() {
    var data = jsonData("board-data");
    if (!data) return;
    STAGES = data.stages || [];
    BASELINES = data.baseline_agents || [];
    var track = $("#f-track"), task = $("#f-task"), tier = $("#f-tier");
    var table = $("#agents-table"), tbody = $("#agents-table tbody");
    var etable = $("#errors-table");
    var sortable = ["agents-table", "groups-table", "errors-table", "runs-table"];
    // the scoring profile of the Task column (docs/site.md "Scoring profile"): only it switches
    var byProfile = data.task_by_profile || null;
    var profile = data.profile || "ours";
    var profileButtons = $$("#profile-toggle [data-profile]");
    function taskCell(td, v, n, nTotal) {
      td.setAttribute("data-v", v == null ? "" : v);
      td.innerHTML = score(v) + (n && nTotal && n < nTotal ? "<small>n=" + n + "/" + nTotal + "</small>" : "");
    }
    function showProfile() {
      profileButtons.forEach(function (b) { b.setAttribute("aria-pressed", b.dataset.profile === profile ? "true" : "false"); });
      if (!byProfile) return;
      $$("#groups-table tbody tr[data-group]").forEach(function (r) {
        var s = (byProfile.groups[profile] || {})[r.dataset.group];
        var td = $("td.task-score", r);
        if (s && td) taskCell(td, s.mean, s.n, Number(r.dataset.n));
      });
      $$("#runs-table tbody tr[data-run]").forEach(function (r) {
        var td = $("td.task-score", r), runs = byProfile.runs[profile] || {};
        if (td && r.dataset.run in runs) taskCell(td, runs[r.dataset.run]);
      });
    }
    function saveHash() {
      var p = {track: track.value, task: task.value, tier: tier.value};
      if (profile !== (data.profile || "ours")) p.profile = profile;
      sortable.forEach(function (id) {
        var t = document.getElementById(id);
        if (t && t.dataset.sortCol != null) p["sort-" + id.replace("-table", "")] = t.dataset.sortCol + "." + (t.dataset.sortDir > 0 ? "a" : "d");
      });
      setHash(p);
    }
    function apply() {
      var tr = track.value, tk = task.value, ti = tier.value;
      $$("option", task).forEach(function (o) {  // tasks of the chosen track only
        o.hidden = !!(tr && o.value && data.task_track[o.value] !== tr);
      });
      if (tk && tr && data.task_track[tk] !== tr) { task.value = ""; tk = ""; }
      var key = (tk ? data.task_track[tk] : tr || "*") + "|" + (tk || "*") + "|" + (ti || "*");
      var rows = data.views[key] || [];
      var tasks = byProfile && (byProfile.views[profile] || {})[key];
      if (tasks) rows = rows.map(function (a) {
        return Object.assign({}, a, {task_score: a.agent in tasks ? tasks[a.agent] : {mean: null, n: 0}});
      });
      tbody.innerHTML = rows.map(function (a, i) { return agentRow(a, i + 1); }).join("");
      if (etable) etable.tBodies[0].innerHTML = rows.map(function (a) { return errorRow(a, data.error_categories || []); }).join("");
      $("#agents-empty").classList.toggle("hidden", rows.length > 0);
      $$("[data-filter-row]").forEach(function (r) {
        var ok = (!tr || r.dataset.track === tr) && (!tk || r.dataset.task === tk) && (!ti || r.dataset.tier === ti);
        r.classList.toggle("hidden", !ok);
      });
      $("#view-key").textContent = key === "*|*|*" ? "all runs" : [tr || (tk ? data.task_track[tk] : ""), tk, ti].filter(Boolean).join(" · ");
      // the rows were rebuilt in rank order: re-apply the header's sort, so the arrow never lies
      resort(table);
      if (etable) resort(etable);
    }
    function fromHash() {
      var h = hashParams();
      function pick(sel, v) { if (v != null && $$("option", sel).some(function (o) { return o.value === v; })) sel.value = v; else sel.value = ""; }
      pick(track, h.track); pick(task, h.task); pick(tier, h.tier);
      profile = (data.profiles || []).indexOf(h.profile) >= 0 ? h.profile : (data.profile || "ours");
      showProfile();
      sortable.forEach(function (id) {
        var t = document.getElementById(id), v = h["sort-" + id.replace("-table", "")];
        if (!t) return;
        var m = /^(\d+)\.([ad])$/.exec(v || "");
        if (m && t.tHead.rows[0].cells[Number(m[1])]) { t.dataset.sortCol = m[1]; t.dataset.sortDir = m[2] === "a" ? 1 : -1; }
        else clearSort(t);
      });
      apply();
      sortable.forEach(function (id) { var t = document.getElementById(id); if (t) resort(t); });
    }
    [track, task, tier].forEach(function (s) { s.addEventListener("change", function () { apply(); saveHash(); }); });
    profileButtons.forEach(function (b) {
      b.addEventListener("click", function () {
        profile = b.dataset.profile;
        showProfile(); apply(); saveHash();
        sortable.forEach(function (id) { var t = document.getElementById(id); if (t) resort(t); });
      });
    });
    sortable.forEach(function (id) { var t = document.getElementById(id); if (t) t.addEventListener("amb-sorted", saveHash); });
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  /* ---- per-task page: the tier picker (also from #tier=NAME) ---- */
  function initTierPicker() {
    var picker = $(".tierpicker");
    if (!picker) return;
    function show(t) {
      $$("button", picker).forEach(function (b) {
        b.classList.toggle("active", b.dataset.tier === t);
        b.setAttribute("aria-pressed", b.dataset.tier === t ? "true" : "false");
      });
      $$("[data-tier-section]").forEach(function (s) { s.classList.toggle("hidden", s.dataset.tierSection !== t); });
    }
    function fromHash() {
      var m = /tier=([\w-]+)/.exec(location.hash);
      var first = $("button", picker);
      show(m && $('button[data-tier="' + m[1] + '"]', picker) ? m[1] : first && first.dataset.tier);
    }
    $$("button", picker).forEach(function (b) {
      b.addEventListener("click", function () { show(b.dataset.tier); history.replaceState(null, "", "#tier=" + b.dataset.tier); });
    });
    window.addEventListener("hashchange", fromHash);
    fromHash();
    // compare: tick two runs of one tier; each tier's section has its own link
    $$("[data-tier-section]").forEach(function (section) {
      var go = $(".compare-go", section);
      if (!go) return;
      section.addEventListener("change", function () {
        var ids = $$("input.cmp:checked", section).map(function (c) { return c.value; });
        go.classList.toggle("hidden", ids.length !== 2);
        if (ids.length === 2) go.href = "../compare.html?a=" + encodeURIComponent(ids[0]) + "&b=" + encodeURIComponent(ids[1]);
      });
    });
  }

  /* ---- run page: evidence links open the right call; search filters calls ---- */
  function showTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id || id.indexOf("=") >= 0) return;
    var el = document.getElementById(id);
    if (!el) return;
    var next = el.nextElementSibling;  // a turn anchor sits just before its first call
    if (el.matches("tr") && el.classList.contains("hidden")) {  // a case hidden by the case filter
      var all = $('[data-case-filter="all"]');
      if (all) all.click();
    }
    var call = el.matches("details.call") ? el : el.closest("details.call") ||
      (next && next.matches("details.call") ? next : null);
    $$("details.call.target").forEach(function (d) { d.classList.remove("target"); });
    if (call) { call.open = true; call.classList.add("target"); call.classList.remove("hidden"); }
    el.scrollIntoView({block: "start"});
  }
  function initCaseFilter() {
    var buttons = $$("[data-case-filter]");
    if (!buttons.length) return;
    function show(kind) {
      buttons.forEach(function (b) { b.setAttribute("aria-pressed", b.dataset.caseFilter === kind ? "true" : "false"); });
      $$("#cases-table tbody tr").forEach(function (r) {
        r.classList.toggle("hidden", kind !== "all" && r.getAttribute("data-" + kind) !== "1");
      });
      var h = hashParams();
      if (!/^(case|call|turn|code)-/.test(location.hash.slice(1))) { h.cases = kind === "all" ? "" : kind; setHash(h); }
    }
    buttons.forEach(function (b) { b.addEventListener("click", function () { show(b.dataset.caseFilter); }); });
    var h = hashParams();
    if (h.cases && $('[data-case-filter="' + h.cases + '"]')) show(h.cases);
  }
  function initRunPage() {
    initCaseFilter();
    if (!$("#calls")) return;
    window.addEventListener("hashchange", showTarget);
    showTarget();
    var box = $("#call-search");
    var count = $("#call-count");
    if (box) box.addEventListener("input", function () {
      var q = box.value.trim().toLowerCase();
      var shown = 0;
      $$("#transcript > div").forEach(function (d) { d.classList.toggle("hidden", !!q); });
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
  function loadRun(id, slug, done) {
    if (loaded[id]) return done(loaded[id]);
    var s = document.createElement("script");
    s.src = "runs/" + encodeURIComponent(slug || id) + ".js";
    s.onload = function () { done(loaded[id] || null); };
    s.onerror = function () { done(null); };
    document.head.appendChild(s);
  }
  function renderCompare(a, b) {
    var out = $("#compare-out");
    if (!a || !b) { out.innerHTML = '<p class="notice">Could not load one of the runs.</p>'; return; }
    function row(label, x, y, fmt, hint) {
      fmt = fmt || score;
      var d = (x != null && y != null && fmt === score) ? ((y - x) * 100).toFixed(1) : "";
      return "<tr><th" + (hint ? ' title="' + esc(hint) + '"' : "") + ">" + esc(label) + '</th><td class="score" data-label="A" style="' + (fmt === score ? heat(x) : "") + '">' + fmt(x) +
        '</td><td class="score" data-label="B" style="' + (fmt === score ? heat(y) : "") + '">' + fmt(y) + '</td><td class="num" data-label="Δ">' + d + "</td></tr>";
    }
    function ident(v) { return esc(v); }
    var html = '<div class="scroll"><table id="compare-table"><thead><tr><th></th><th><a href="runs/' + esc(a.slug || a.run.run_id) + '.html">' + esc(a.run.agent) + "</a>" + baselineBadge(a.run.agent) + "<small> " + esc(a.run.run_id) +
      '</small></th><th><a href="runs/' + esc(b.slug || b.run.run_id) + '.html">' + esc(b.run.agent) + "</a>" + baselineBadge(b.run.agent) + "<small> " + esc(b.run.run_id) + "</small></th><th>Δ (B−A)</th></tr></thead><tbody>";
    html += row("task · tier", a.run.task + " · " + a.run.tier, b.run.task + " · " + b.run.tier, ident);
    html += row("Overall", a.overall, b.overall) + row("Agentic", a.agentic, b.agentic) + row("Task", a.task.score, b.task.score);
    STAGES.forEach(function (s) { html += row(s.label, (a.stages[s.id] || {}).score, (b.stages[s.id] || {}).score, null, s.name); });
    html += row("turns", a.run.turns, b.run.turns, ident) + row("time", duration(a.run.wall_time_s), duration(b.run.wall_time_s), ident);
    html += row("cost", cost(a.run.cost_usd), cost(b.run.cost_usd), ident) + row("end", a.run.end_reason, b.run.end_reason, ident);
    html += row("error codes", a.errors.map(function (e) { return e.code; }).join(", ") || "—",
      b.errors.map(function (e) { return e.code; }).join(", ") || "—", ident);
    html += "</tbody></table></div><h2>Per case</h2>";
    var ids = [], byA = {}, byB = {};
    a.task.per_case.forEach(function (c) { byA[c.case_id] = c; ids.push(c.case_id); });
    b.task.per_case.forEach(function (c) { byB[c.case_id] = c; if (!byA[c.case_id]) ids.push(c.case_id); });
    html += '<div class="scroll"><table id="compare-cases"><thead><tr><th scope="col">case</th><th scope="col">A</th><th scope="col">B</th></tr></thead><tbody>';
    function pics(run, id) {
      return ((run.pictures || {})[id] || []).map(function (p) {
        return p.html ? '<figure class="pic-html">' + cardFrame(p, id) + '<figcaption>' + esc(p.caption) + "</figcaption></figure>"
          : '<figure class="pic-png"><a href="' + esc(p.src) + '" class="pic" title="enlarge"><img src="' + esc(p.src) + '" alt="' + esc(id + ": " + p.caption) + '" loading="lazy"></a><figcaption>' + esc(p.caption) + "</figcaption></figure>";
      }).join("");
    }
    function caseCell(c, run, label) {
      if (!c) return '<td data-label="' + label + '">—</td>';
      var m = Object.keys(c.metrics || {}).map(function (k) { return k + " " + metricText(k, c.metrics[k]); }).join(", ");
      var p = pics(run, c.case_id);
      return '<td data-label="' + label + '">' + (p ? '<div class="pics">' + p + "</div>" : "") + caseStatusBadge(c) + esc(m) + (c.reason ? "<small> " + esc(c.reason) + "</small>" : "") + "</td>";
    }
    // cases with pictures on either side first: the comparison is about seeing them
    ids.sort(function (x, y) {
      var px = ((a.pictures || {})[x] || (b.pictures || {})[x]) ? 0 : 1, py = ((a.pictures || {})[y] || (b.pictures || {})[y]) ? 0 : 1;
      return px - py;
    });
    ids.forEach(function (id) { html += '<tr id="cmp-case-' + esc(id) + '"><td class="case-id">' + esc(id) + "</td>" + caseCell(byA[id], a, "A") + caseCell(byB[id], b, "B") + "</tr>"; });
    out.innerHTML = html + "</tbody></table></div>";
  }
  function initCompare() {
    var data = jsonData("compare-runs");
    if (!data) return;
    var index = data.runs;
    STAGES = data.stages || [];
    BASELINES = index.filter(function (r) { return r.baseline; }).map(function (r) { return r.agent; });
    var sa = $("#cmp-a"), sb = $("#cmp-b");
    function fill(sel, runs, chosen) {
      sel.innerHTML = '<option value="">— choose a run —</option>' + runs.map(function (r) {
        return '<option value="' + esc(r.id) + '"' + (r.id === chosen ? " selected" : "") + ">" + esc((r.label || r.agent) + " · " + r.task + " · " + r.tier + " · " + r.id) + "</option>";
      }).join("");
    }
    var q = new URLSearchParams(location.search);
    var pending = 0;
    function slugOf(id) { var r = index.filter(function (x) { return x.id === id; })[0]; return r ? r.slug : id; }
    function update(push) {
      var a = sa.value, ra = index.filter(function (r) { return r.id === a; })[0];
      var same = ra ? index.filter(function (r) { return r.task === ra.task; }) : index;
      var b = sb.value;
      if (b && !same.some(function (r) { return r.id === b; })) b = "";   // B no longer fits A's task
      fill(sb, same, b);
      if (push) history.replaceState(null, "", "?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(sb.value));
      var token = ++pending;   // a slower, older load never overwrites a newer choice
      if (!(a && sb.value)) { $("#compare-out").innerHTML = '<p class="hint">Choose two runs.</p>'; return; }
      $("#compare-out").innerHTML = '<p class="hint">Loading…</p>';
      var bv = sb.value;
      loadRun(a, slugOf(a), function (da) { loadRun(bv, slugOf(bv), function (db) { if (token === pending) { renderCompare(da, db); focusableScrollers(); } }); });
    }
    fill(sa, index, q.get("a"));
    fill(sb, index, q.get("b"));
    sa.addEventListener("change", function () { update(true); });
    sb.addEventListener("change", function () { update(true); });
    update(false);
  }

  /* a box that scrolls sideways (wide tables on a phone) must be reachable by keyboard */
  /* ---- pictures: large, with zoom, in the page (docs/site.md "Pictures of outputs") ---- */
  var ZOOM_STEP = 1.5, ZOOM_MIN = 0.1, ZOOM_MAX = 16;
  function initZoom() {
    var dlg = document.createElement("dialog");
    if (typeof dlg.showModal !== "function") return;          // the plain link still opens the file
    dlg.id = "zoom";
    dlg.setAttribute("aria-label", "picture, enlarged");
    dlg.innerHTML = '<div class="zoom-bar"><button type="button" data-zoom="out" aria-label="zoom out">−</button>' +
      '<button type="button" data-zoom="fit">fit</button><button type="button" data-zoom="one">1:1</button>' +
      '<button type="button" data-zoom="in" aria-label="zoom in">+</button><span class="zoom-level" aria-live="polite"></span>' +
      '<a class="zoom-file" href="#">open the file</a><button type="button" data-zoom="close" aria-label="close">×</button></div>' +
      '<div class="zoom-view" tabindex="0" role="region" aria-label="enlarged picture (scrolls when zoomed)"><img alt=""></div>' +
      '<p class="zoom-cap"></p>';
    document.body.appendChild(dlg);
    var img = $("img", dlg), view = $(".zoom-view", dlg), level = $(".zoom-level", dlg), scale = 1, fit = 1;
    function apply(s) {
      scale = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, s));
      img.style.width = Math.round(img.naturalWidth * scale) + "px";
      level.textContent = Math.round(scale * 100) + "%";
    }
    function ready() {
      fit = Math.max(ZOOM_MIN, Math.min((view.clientWidth - 4) / img.naturalWidth, (view.clientHeight - 4) / img.naturalHeight));
      apply(fit);
    }
    function open(a) {
      var small = $("img", a), fig = a.closest("figure"), cap = fig && $("figcaption", fig);
      dlg.showModal();
      img.onload = ready;
      img.alt = small ? small.alt : "";
      img.src = a.getAttribute("href");
      if (img.complete && img.naturalWidth) ready();
      $(".zoom-file", dlg).href = a.getAttribute("href");
      $(".zoom-cap", dlg).textContent = cap ? cap.textContent : img.alt;
      view.focus();
    }
    document.addEventListener("click", function (e) {
      var a = e.target.closest ? e.target.closest("a.pic") : null;
      if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      open(a);
    });
    dlg.addEventListener("click", function (e) {
      if (e.target === dlg) { dlg.close(); return; }
      var b = e.target.closest("button");
      if (!b) return;
      var z = b.dataset.zoom;
      if (z === "close") dlg.close();
      else apply(z === "fit" ? fit : z === "one" ? 1 : scale * (z === "in" ? ZOOM_STEP : 1 / ZOOM_STEP));
    });
    img.addEventListener("dblclick", function () { apply(scale > fit * 1.01 ? fit : fit * 3); });
    dlg.addEventListener("keydown", function (e) {
      if (e.key === "+" || e.key === "=") apply(scale * ZOOM_STEP);
      else if (e.key === "-") apply(scale / ZOOM_STEP);
      else if (e.key === "0") apply(fit);
      else return;
      e.preventDefault();
    });
    view.addEventListener("wheel", function (e) {
      if (!e.ctrlKey) return;                                   // plain wheel scrolls the zoomed picture
      e.preventDefault();
      apply(scale * (e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP));
    }, { passive: false });
  }

  /* ---- HTML cards (docs/site.md "Phone width and card pages"): each frame as tall as its card.
     The card is inline (srcdoc) and the frame same-origin but without scripts, so this script can
     read its height from file:// too; a card framed from its file keeps the CSS height. ---- */
  function cardFrame(p, id) {
    return '<iframe sandbox="allow-same-origin" ' + (p.doc ? 'srcdoc="' + esc(p.doc) + '"' : 'src="' + esc(p.src) + '"') +
      ' title="' + esc(id + ": " + p.caption) + '" class="card-frame"></iframe>';
  }
  function fitFrame(f) {
    var d;
    try { d = f.contentDocument; } catch (e) { d = null; }
    if (!d || !d.documentElement || !d.body) return;
    f.style.height = "0px";                          // measure the card, not the frame's old height
    f.style.height = Math.ceil(d.documentElement.scrollHeight) + 2 + "px";
  }
  function fitFrames() { $$("iframe.card-frame").forEach(fitFrame); }
  document.addEventListener("load", function (e) {  // load events do not bubble: caught on the way down
    if (e.target && e.target.matches && e.target.matches("iframe.card-frame")) fitFrame(e.target);
  }, true);
  window.addEventListener("resize", fitFrames);

  function focusableScrollers() {
    $$(".scroll, table").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) { el.tabIndex = 0; if (!el.getAttribute("aria-label") && el.tagName !== "TABLE") el.setAttribute("role", "region"), el.setAttribute("aria-label", "scrollable table"); }
      else if (el.tabIndex === 0 && !el.matches("th")) el.removeAttribute("tabindex");
    });
  }
  window.addEventListener("resize", focusableScrollers);

  document.addEventListener("DOMContentLoaded", function () {
    initBoard();
    initSorting();
    initTierPicker();
    initRunPage();
    initCompare();
    initZoom();
    focusableScrollers();
  });
})();
