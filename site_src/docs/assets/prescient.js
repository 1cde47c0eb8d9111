/* Prescient: render every chart from its data-figure JSON, sort tables, follow the palette. */
(function () {
  "use strict";

  // plotly.js (1.2 MB) is fetched only by a page that draws a chart, from beside this script's
  // folder: <site>/assets/prescient.js -> <site>/generated/assets/plotly.min.js.
  var PLOTLY = new URL("../generated/assets/plotly.min.js", document.currentScript.src).href;
  // A chart whose figure is a file of its own (data-figure-src, a path from the site's root: the home
  // page's boards and views other than the first, and its Score over time charts) is fetched and
  // drawn when its panel is first shown (drawWhenNear: a shown one when it nears the screen).
  var ROOT = new URL("../", document.currentScript.src).href;

  function loadPlotly(then) {
    if (window.Plotly) { then(); return; }
    var script = document.createElement("script");
    script.src = PLOTLY;
    script.onload = then;
    document.head.appendChild(script);
  }

  function colours() {
    var style = getComputedStyle(document.body);
    var pick = function (name) { return style.getPropertyValue(name).trim(); };
    return { fg: pick("--prescient-chart-fg"), grid: pick("--prescient-chart-grid"), bg: pick("--prescient-chart-bg") };
  }

  function themed(layout) {
    var c = colours();
    var axis = { color: c.fg, gridcolor: c.grid, zerolinecolor: c.grid, linecolor: c.grid };
    return Object.assign({}, layout || {}, {
      paper_bgcolor: c.bg, plot_bgcolor: c.bg, font: { color: c.fg },
      xaxis: Object.assign({}, (layout || {}).xaxis, axis),
      yaxis: Object.assign({}, (layout || {}).yaxis, axis)
    });
  }

  // A question's chart marks its rounds' freeze and due times and its resolution (data-marks:
  // [kind, date] pairs from generator/site/questions.py time_marks) as vertical lines.
  var MARK_DASH = { freeze: "dot", due: "dash", resolved: "solid" };
  function markTimes(el, layout) {
    var marks = JSON.parse(el.getAttribute("data-marks") || "[]");
    if (!marks.length) { return layout; }
    var line = { width: 1, color: "rgba(128, 128, 128, 0.85)" };
    return Object.assign({}, layout, {
      shapes: marks.map(function (m) {
        return { type: "line", xref: "x", yref: "paper", x0: m[1], x1: m[1], y0: 0, y1: 1,
                 line: Object.assign({ dash: MARK_DASH[m[0]] || "solid" }, line) };
      }),
      annotations: marks.length > 6 ? [] : marks.map(function (m) {
        return { x: m[1], y: 1, xref: "x", yref: "paper", text: m[0], showarrow: false, textangle: -90,
                 xanchor: "right", yanchor: "top", font: { size: 10 } };
      })
    });
  }

  function renderCharts() {
    if (!window.Plotly) { return; }
    document.querySelectorAll(".prescient-chart[data-figure]").forEach(function (el) {
      draw(el, JSON.parse(el.getAttribute("data-figure")));
    });
  }

  function drawOnDemand(root) {
    var waiting = Array.prototype.filter.call(root.querySelectorAll(".prescient-chart[data-figure-src]"), function (el) {
      return !el._prescientFetched;
    });
    if (!waiting.length) { return; }
    waiting.forEach(function (el) { el._prescientFetched = true; });
    loadPlotly(function () {
      waiting.forEach(function (el) {
        fetch(new URL(el.getAttribute("data-figure-src"), ROOT).href).then(function (r) {
          if (!r.ok) { throw new Error(r.status); }
          return r.json();
        }).then(function (figure) { draw(el, figure); }).catch(function () {
          el._prescientFetched = false;
          el.textContent = "This chart could not be loaded here.";
        });
      });
    });
  }

  // A shown chart whose figure is a file (the home page's Score over time: its lines grow every
  // night, so the page does not carry them) is fetched when it comes near the screen, so a first
  // visit that stays at the board does not load it; without IntersectionObserver, at once.
  function drawWhenNear() {
    var shown = Array.prototype.filter.call(document.querySelectorAll(".prescient-chart[data-figure-src]"), function (el) {
      return !el.closest("[hidden]");
    });
    if (!shown.length) { return; }
    if (!("IntersectionObserver" in window)) { shown.forEach(function (el) { drawOnDemand(el.parentNode); }); return; }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) { return; }
        observer.unobserve(entry.target);
        drawOnDemand(entry.target.parentNode);
      });
    }, { rootMargin: "200px 0px" });
    shown.forEach(function (el) { observer.observe(el); });
  }

  function draw(el, figure) {
    figure.layout = markTimes(el, figure.layout || {});
    el._prescientLayout = figure.layout || {};
    // no toolbar on a phone: it covers the chart, and a tap cannot hover to reach it anyway
    var narrow = window.matchMedia("(max-width: 44.9375em)").matches;
    var legend = (figure.data || []).filter(function (t) { return t.name; }).length;
    if (narrow && legend > 4) {  // a phone's legend stacks one entry a line: give it room below the plot
      el._prescientLayout = Object.assign({}, el._prescientLayout,
        { height: (el._prescientLayout.height || 400) + 20 * legend });
    }
    window.Plotly.newPlot(el, figure.data || [], themed(el._prescientLayout),
      { responsive: true, displaylogo: false, displayModeBar: narrow ? false : "hover" });
    if ((figure.layout.updatemenus || []).some(function (m) { return m.name === PERCENT_SWITCH; })) { percentSwitch(el); }
  }

  // The Arena chart's $/% switch (generator/site/charts.py arena_portfolios): its lines are values
  // in dollars, each with its cohort's starting balance as its meta; "%" draws each as its return
  // in percent, to a tenth, and "$" draws the values again.
  var PERCENT_SWITCH = "prescient-dollars-percent";
  function percentSwitch(el) {
    var dollars = el.data.map(function (t) { return (t.y || []).slice(); });
    el.on("plotly_buttonclicked", function (event) {
      if (!event || !event.menu || event.menu.name !== PERCENT_SWITCH) { return; }
      var percent = event.button.label === "%";
      window.Plotly.restyle(el, { y: el.data.map(function (t, i) {
        return percent ? dollars[i].map(function (v) { return Math.round((v / t.meta - 1) * 1000) / 10; }) : dollars[i];
      }) });
    });
  }

  function recolour() {
    document.querySelectorAll(".prescient-chart.js-plotly-plot").forEach(function (el) {
      window.Plotly.relayout(el, themed(el._prescientLayout));
    });
  }

  function cellValue(row, index) {
    var cell = row.children[index];
    if (!cell) { return ""; }
    return cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
  }

  // The first sort of a column puts the best first: a header says which way is better
  // (data-better="higher": the Brier Index, % #1; otherwise lower first: Rank, Log); a second
  // sort of the same column reverses it.
  function sortBy(table, th, index) {
    var numeric = th.getAttribute("data-sort") === "number";
    var current = th.getAttribute("aria-sort");
    var ascending = current ? current !== "ascending" : th.getAttribute("data-better") !== "higher";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    if (table._prescientForecasts) { sortForecasts(table, index, numeric, ascending); return; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (numeric) {  // an empty cell (not ranked, no value) sorts last either way
        x = x === "" ? NaN : parseFloat(x);
        y = y === "" ? NaN : parseFloat(y);
        if (isNaN(x) || isNaN(y)) { return isNaN(x) - isNaN(y); }
        return ascending ? x - y : y - x;
      }
      return ascending ? x.localeCompare(y) : y.localeCompare(x);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  // Headers sort by click and by keyboard: each is a tab stop, Enter or Space sorts.
  function sortableTables() {  // the Questions page sorts its own data (questionIndex)
    document.querySelectorAll("table.prescient-table:not(.prescient-questions)").forEach(function (table) {
      table.querySelectorAll("thead th").forEach(function (th, index) {
        th.tabIndex = 0;
        th.addEventListener("click", function () { sortBy(table, th, index); });
        th.addEventListener("keydown", function (event) {
          if (event.target !== th || (event.key !== "Enter" && event.key !== " ")) { return; }
          event.preventDefault();
          sortBy(table, th, index);
        });
      });
    });
  }

  // "Open now" counts down in the reader's browser from the round's UTC due time (data-due), so a
  // page built days ago never says "open" past the deadline (say, after a failed nightly). A replay
  // (the demo) gives its own clock in data-now, the time of its data: its countdown runs from that.
  function countdownText(due, now, replay) {
    var seconds = Math.floor((due - now) / 1000);
    if (seconds <= 0) { return replay ? "deadline passed in the replay" : "deadline passed \u00b7 closed, scored by the next nightly run"; }
    var days = Math.floor(seconds / 86400), hours = Math.floor(seconds % 86400 / 3600), minutes = Math.floor(seconds % 3600 / 60);
    var left = days ? days + " d " + hours + " h" : hours ? hours + " h " + minutes + " min" : Math.max(minutes, 1) + " min";
    return (replay ? "open in the replay \u00b7 closes in " : "open \u00b7 closes in ") + left;
  }

  function countdowns() {
    var marks = document.querySelectorAll(".prescient-countdown[data-due]");
    if (!marks.length) { return; }
    var tick = function () {
      marks.forEach(function (el) {
        var due = Date.parse(el.getAttribute("data-due"));
        var replay = el.hasAttribute("data-now");
        var now = replay ? Date.parse(el.getAttribute("data-now")) : Date.now();
        if (isNaN(due) || isNaN(now)) { return; }
        el.textContent = countdownText(due, now, replay);
        el.classList.toggle("prescient-status-passed", due <= now);
      });
    };
    tick();
    window.setInterval(tick, 30000);
  }

  // A question page ships its forecasts as compact columns (generator/site/questions.py
  // forecast_payload); draw them as table rows. Every value goes in as text, never as HTML.
  function fixed(x, digits) { return x === null || x === undefined ? "\u2013" : x.toFixed(digits); }

  function cell(row, text, value) {
    var td = row.insertCell();
    td.textContent = text;
    if (value !== undefined) { td.setAttribute("data-value", value === null ? "" : String(value)); }
    return td;
  }

  function linkCell(row, text, href) {
    var a = document.createElement("a");
    a.textContent = text;
    a.href = href;
    row.insertCell().appendChild(a);
  }

  // Rows are kept as data and only the first page is drawn: a dataset question asked in every round
  // can have >10,000 forecasts, and drawing them all takes seconds. Sorting sorts the data.
  // Models are indexes into the list all question pages share (generated/assets/question-models.js);
  // a unit's forecasts come in model order, its indexes as runs [gap, length, ...].
  function forecastRows(data) {
    var why = {}, models = window.prescientModels || [], rows = [];
    data.why.forEach(function (pair) { why[pair[0]] = pair[1]; });
    data.units.forEach(function (unit) {
      var outcome = unit[2], runs = unit[3], at = 0;
      for (var k = 0; k < runs.length; k += 2) {
        at += runs[k];
        for (var end = at + runs[k + 1]; at < end; at++) {
          var i = rows.length, p = data.p[i];
          var brier = outcome === null || p === null ? null : (p - outcome) * (p - outcome);
          rows.push({ round: data.rounds[unit[0]], model: models[at], date: unit[1], p: p,
                      outcome: outcome, brier: brier, why: why[i] || "", position: i });
        }
      }
    });
    return rows;
  }

  var FORECAST_KEYS = ["round", "model", "date", "p", "outcome", "brier", "why"];  // the sort key of each column, in order

  function drawForecasts(table) {
    var state = table._prescientForecasts, prefix = table.getAttribute("data-prefix") || "";
    var body = document.createElement("tbody");
    state.rows.slice(0, state.shown).forEach(function (f) {
      var row = body.insertRow();
      linkCell(row, f.round, prefix + "rounds/" + encodeURIComponent(f.round) + "/");
      linkCell(row, f.model, prefix + "models/" + encodeURIComponent(f.model) + "/");
      cell(row, f.date || "\u2013");
      cell(row, fixed(f.p, 3), f.p);
      cell(row, fixed(f.outcome, 0), f.outcome);
      cell(row, fixed(f.brier, 4), f.brier);
      cell(row, f.why);
    });
    table.replaceChild(body, table.tBodies[0]);
    state.more.hidden = state.shown >= state.rows.length;
  }

  function sortForecasts(table, index, numeric, ascending) {
    var key = FORECAST_KEYS[index], collator = new Intl.Collator();
    var value = function (f) {
      var v = f[key];
      return numeric ? (v === null || v === undefined ? Infinity : v) : String(v || "");
    };
    table._prescientForecasts.rows.sort(function (a, b) {
      var x = value(a), y = value(b);
      var order = numeric ? (x === y ? 0 : x < y ? -1 : 1) : collator.compare(x, y);
      return (ascending ? order : -order) || a.position - b.position;
    });
    drawForecasts(table);
  }

  function forecastTables() {
    document.querySelectorAll("table.prescient-table[data-forecasts]").forEach(function (table) {
      var source = document.getElementById(table.getAttribute("data-forecasts"));
      if (!source) { return; }
      var rows = forecastRows(JSON.parse(source.textContent));
      var more = document.createElement("button");
      more.type = "button";
      more.className = "md-button prescient-more";
      more.textContent = "Show all " + rows.length.toLocaleString("en") + " forecasts";
      more.addEventListener("click", function () {
        table._prescientForecasts.shown = rows.length;
        drawForecasts(table);
      });
      table.parentNode.insertBefore(more, table.nextSibling);
      table._prescientForecasts = { rows: rows, more: more, shown: parseInt(table.getAttribute("data-page-size"), 10) || rows.length };
      drawForecasts(table);
    });
  }

  // Board and view switches: show the one panel matching the pressed buttons, then let its
  // charts (drawn while hidden) take their real width.
  function switches() {
    var buttons = document.querySelectorAll(".prescient-switch button[data-switch]");
    buttons.forEach(function (button) {
      button.addEventListener("click", function () {
        document.querySelectorAll('.prescient-switch button[data-switch="' + button.getAttribute("data-switch") + '"]')
          .forEach(function (b) { b.setAttribute("aria-pressed", b === button ? "true" : "false"); });
        var pick = function (name) {
          var on = document.querySelector('.prescient-switch button[data-switch="' + name + '"][aria-pressed="true"]');
          return on ? on.getAttribute("data-value") : null;
        };
        var board = pick("board"), view = pick("view");
        // a panel (its table) and its panel parts (its charts: the dots and Score over time) follow both switches
        document.querySelectorAll(".prescient-panel, .prescient-panel-part").forEach(function (panel) {
          var show = panel.getAttribute("data-board") === board && panel.getAttribute("data-view") === view;
          panel.hidden = !show;
          if (show) { drawOnDemand(panel); }
          if (show && window.Plotly) {
            // relayout at once (Plots.resize waits on a timer that background tabs throttle)
            panel.querySelectorAll(".prescient-chart.js-plotly-plot").forEach(function (el) {
              window.Plotly.relayout(el, { autosize: true });
            });
          }
        });
        skipTarget();
      });
    });
  }

  // "Skip to the leaderboard" (overrides/main.html) leads to #leaderboard-rows: the shown board's rows,
  // so one Tab after it reaches the board's first model link, whichever board and view is shown.
  function skipTarget() {
    var shown = document.querySelector(".prescient-panel:not([hidden])");
    var target = shown && (shown.querySelector("tbody") || shown);
    var old = document.getElementById("leaderboard-rows");
    if (!target || target === old) { return; }
    if (old) { old.removeAttribute("id"); old.removeAttribute("tabindex"); }
    target.id = "leaderboard-rows";
    target.setAttribute("tabindex", "-1");
  }

  // On a phone a board shows Rank, Model and the Brier Index with its CI; the other columns
  // (cells of class pc-more, hidden by prescient.css) come with this button.
  function columnToggles() {
    document.querySelectorAll(".prescient-board-wrap").forEach(function (wrap) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "prescient-columns";
      button.setAttribute("aria-pressed", "false");
      button.textContent = "All columns";
      button.addEventListener("click", function () {
        var all = wrap.classList.toggle("prescient-all-columns");
        button.setAttribute("aria-pressed", all ? "true" : "false");
        button.textContent = all ? "Fewer columns" : "All columns";
      });
      wrap.insertBefore(button, wrap.firstChild);
    });
  }

  // On a phone the board's Rank and Model columns stick to the left edge while the other columns
  // scroll (prescient.css); Model sticks right after Rank, whose width is measured here, as drawn.
  function stickyColumns() {
    var measure = function () {
      document.querySelectorAll("table.prescient-board").forEach(function (table) {
        var rank = table.tHead && table.tHead.rows[0] && table.tHead.rows[0].cells[0];
        if (rank && rank.offsetWidth) { table.style.setProperty("--prescient-rank-width", rank.offsetWidth + "px"); }
      });
    };
    measure();
    window.addEventListener("resize", measure);
    document.addEventListener("click", function (event) {  // "All columns" and the board switches change what is drawn
      if (event.target.closest && event.target.closest(".prescient-columns, .prescient-switch")) { window.setTimeout(measure, 0); }
    });
  }

  // A column's definition by tap, click or keyboard, not only by hover: each header with a
  // data-definition gets a "?" button; pressing it shows the definition in a note above the table
  // (one note per table: another "?" replaces it, the same one or Escape closes it). Not a title:
  // Material's tooltip would cover the note. The button stops its click, so it never sorts.
  function definitions() {
    var count = 0;
    document.querySelectorAll("table.prescient-table, table.prescient-meta").forEach(function (table) {
      var heads = table.querySelectorAll("th[data-definition]");
      if (!heads.length) { return; }
      var note = document.createElement("p"), open = null;
      note.className = "prescient-definition";
      note.id = "prescient-definition-" + (++count);
      note.setAttribute("role", "status");
      note.hidden = true;
      table.parentNode.insertBefore(note, table);
      var close = function () {
        if (open) { open.setAttribute("aria-expanded", "false"); }
        open = null;
        note.hidden = true;
      };
      heads.forEach(function (th) {
        var label = th.textContent.trim(), text = th.getAttribute("data-definition");
        var button = document.createElement("button");
        button.type = "button";
        button.className = "prescient-define";  // its "?" is drawn by CSS: the header's text stays its name
        button.setAttribute("aria-label", "What is " + label + "?");
        button.setAttribute("aria-expanded", "false");
        button.setAttribute("aria-controls", note.id);
        button.addEventListener("click", function (event) {
          event.stopPropagation();
          if (open === button) { close(); return; }
          close();
          var term = document.createElement("strong");
          term.textContent = label + ": ";
          note.replaceChildren(term, document.createTextNode(text));
          note.hidden = false;
          open = button;
          button.setAttribute("aria-expanded", "true");
        });
        th.appendChild(button);
      });
      table.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && open) { var was = open; close(); was.focus(); }
      });
    });
  }

  // A chart drawn inside a closed <details> has no width yet: size it when the details open.
  function disclosures() {
    document.querySelectorAll("details").forEach(function (details) {
      details.addEventListener("toggle", function () {
        if (!details.open || !window.Plotly) { return; }
        details.querySelectorAll(".prescient-chart.js-plotly-plot").forEach(function (el) {
          window.Plotly.relayout(el, { autosize: true });
        });
      });
    });
  }

  // The Questions page (generated/questions/index.md): its rows come from the API's questions.json,
  // fetched when the page opens, filtered, sorted and drawn a page at a time; every value goes in
  // as text. Links are relative to the page (the API gives them from the site root).
  function questionIndex() {
    var root = document.getElementById("prescient-question-index");
    if (!root) { return; }
    var table = root.querySelector("table"), body = table.tBodies[0], count = root.querySelector(".prescient-index-count");
    var pager = root.querySelector(".prescient-pager"), form = root.querySelector("form");
    var size = parseInt(root.getAttribute("data-page-size"), 10) || 100;
    var toRoot = new URL("../../", window.location.href);
    var state = { rows: [], shown: [], page: 0, key: "last_round", ascending: false };
    function draw() {
      var pages = Math.max(1, Math.ceil(state.shown.length / size));
      state.page = Math.min(state.page, pages - 1);
      body.replaceChildren();
      state.shown.slice(state.page * size, (state.page + 1) * size).forEach(function (q) {
        var row = body.insertRow();
        linkCell(row, q.text, new URL(q.page, toRoot).href);
        cell(row, q.source); cell(row, q.category || "\u2013"); cell(row, q.status);
        cell(row, q.resolved_on || "\u2013"); cell(row, String(q.rounds), q.rounds); cell(row, q.last_round || "\u2013");
      });
      count.textContent = state.shown.length + " of " + state.rows.length + " questions";
      pager.querySelector("span").textContent = "page " + (state.page + 1) + " of " + pages;
      pager.querySelector('[data-page="prev"]').disabled = state.page === 0;
      pager.querySelector('[data-page="next"]').disabled = state.page >= pages - 1;
    }
    function refresh() {
      var words = form.q.value.trim().toLowerCase(), picks = {};
      form.querySelectorAll("select").forEach(function (s) { picks[s.name] = s.value; });
      state.shown = state.rows.filter(function (q) {
        for (var name in picks) { if (picks[name] && String(q[name] || "") !== picks[name]) { return false; } }
        return !words || (q.text + " " + q.id).toLowerCase().indexOf(words) >= 0;
      });
      var key = state.key, sign = state.ascending ? 1 : -1;
      state.shown.sort(function (a, b) {
        var x = a[key], y = b[key];
        if (x === null || x === "") { return (y === null || y === "") ? 0 : 1; }
        if (y === null || y === "") { return -1; }
        return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y)));
      });
      draw();
    }
    form.addEventListener("input", function () { state.page = 0; refresh(); });
    pager.addEventListener("click", function (event) {
      var which = event.target.getAttribute && event.target.getAttribute("data-page");
      if (!which) { return; }
      state.page += which === "next" ? 1 : -1;
      draw();
    });
    table.querySelectorAll("thead th").forEach(function (th) {
      th.tabIndex = 0;
      var sort = function () {
        var key = th.getAttribute("data-key"), current = th.getAttribute("aria-sort");
        state.ascending = current ? current !== "ascending" : th.getAttribute("data-better") !== "higher";
        state.key = key;
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.ascending ? "ascending" : "descending");
        refresh();
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
    fetch(root.getAttribute("data-src")).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.json();
    }).then(function (data) {
      state.rows = data.questions || [];
      refresh();
    }).catch(function () {
      count.textContent = "The list could not be loaded here; it is in questions.csv (linked above).";
    });
  }

  // The Arena's decisions (tbody[data-decisions]: a file beside the page, one a model) are fetched
  // when a reader opens them; each cell is {t: text, v: sort value, href: link, c: class}, written as text.
  function decisionTables() {
    document.querySelectorAll("details tbody[data-decisions]").forEach(function (body) {
      var details = body.closest("details");
      var load = function () {
        if (!details.open || body._prescientLoaded) { return; }
        body._prescientLoaded = true;
        body.textContent = "";
        fetch(body.getAttribute("data-decisions")).then(function (r) {
          if (!r.ok) { throw new Error(r.status); }
          return r.json();
        }).then(function (data) {
          (data.rows || []).forEach(function (cells) {
            var row = document.createElement("tr");
            cells.forEach(function (c) {
              var td = document.createElement("td");
              if (c.href) {
                var a = document.createElement("a");
                a.href = c.href;
                a.textContent = c.t;
                td.appendChild(a);
              } else {
                td.textContent = c.t;
              }
              if (c.v !== undefined) { td.setAttribute("data-value", c.v); }
              if (c.c) { td.className = c.c; }
              row.appendChild(td);
            });
            body.appendChild(row);
          });
        }).catch(function () {
          body._prescientLoaded = false;
          var row = document.createElement("tr"), td = document.createElement("td");
          td.colSpan = 11;
          td.textContent = "The decisions could not be loaded here; the JSON link below has them.";
          row.appendChild(td);
          body.appendChild(row);
        });
      };
      details.addEventListener("toggle", load);
      load();
    });
  }

  function start() {
    decisionTables();
    disclosures();
    forecastTables();
    definitions();
    columnToggles();
    stickyColumns();
    if (document.querySelector(".prescient-chart[data-figure]")) { loadPlotly(renderCharts); }
    drawWhenNear();
    sortableTables();
    countdowns();
    questionIndex();
    switches();
    new MutationObserver(recolour).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
