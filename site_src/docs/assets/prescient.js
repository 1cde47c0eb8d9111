/* Prescient: render every chart from its data-figure JSON, sort tables, follow the palette. */
(function () {
  "use strict";

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

  function renderCharts() {
    if (!window.Plotly) { return; }
    document.querySelectorAll(".prescient-chart[data-figure]").forEach(function (el) {
      var figure = JSON.parse(el.getAttribute("data-figure"));
      el._prescientLayout = figure.layout || {};
      window.Plotly.newPlot(el, figure.data || [], themed(el._prescientLayout),
        { responsive: true, displaylogo: false });
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

  function sortBy(table, th, index) {
    var numeric = th.getAttribute("data-sort") === "number";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (numeric) {
        x = x === "" ? Infinity : parseFloat(x);
        y = y === "" ? Infinity : parseFloat(y);
        return ascending ? x - y : y - x;
      }
      return ascending ? x.localeCompare(y) : y.localeCompare(x);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function sortableTables() {
    document.querySelectorAll("table.prescient-table").forEach(function (table) {
      table.querySelectorAll("thead th").forEach(function (th, index) {
        th.addEventListener("click", function () { sortBy(table, th, index); });
      });
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
        document.querySelectorAll(".prescient-panel").forEach(function (panel) {
          var show = panel.getAttribute("data-board") === board && panel.getAttribute("data-view") === view;
          panel.hidden = !show;
          if (show && window.Plotly) {
            // relayout at once (Plots.resize waits on a timer that background tabs throttle)
            panel.querySelectorAll(".prescient-chart.js-plotly-plot").forEach(function (el) {
              window.Plotly.relayout(el, { autosize: true });
            });
          }
        });
      });
    });
  }

  function start() {
    renderCharts();
    sortableTables();
    switches();
    new MutationObserver(recolour).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
