/* Prescient: load search (its index, search/search_index.json, ~250 KB at the demo's size, and its
   worker, assets/javascripts/workers/search.*.js) only when the reader first uses search, not on
   every page view. Material's bundle requests the index with XMLHttpRequest and starts the worker
   as soon as a page loads; this script, loaded just before the bundle (overrides/main.html), holds
   that one request and hands Material a stand-in for the worker that keeps its listeners and
   messages, until the search box is first focused (a click, a tap on the phone's search icon, or
   Material's keyboard shortcuts, which all focus it). Then the request is sent unchanged, the real
   worker is started, and the stand-in passes it everything it kept, in order. Every other request
   and worker passes through untouched. */
(function () {
  "use strict";
  var proto = XMLHttpRequest.prototype, open = proto.open, send = proto.send;
  var RealWorker = window.Worker;
  var held = [], released = false;
  proto.open = function (method, url) {
    this._prescientSearchIndex = /(^|\/)search\/search_index\.json(\?|$)/.test(String(url));
    return open.apply(this, arguments);
  };
  proto.send = function () {
    if (released || !this._prescientSearchIndex) { return send.apply(this, arguments); }
    var request = this, args = arguments;
    held.push(function () { send.apply(request, args); });
  };

  /* What Material's bundle uses of its search worker: addEventListener("message" | "error"),
     removeEventListener, postMessage and terminate. */
  function StandIn(url, options) {
    var real = null, calls = [];
    function later(name) {
      return function () {
        if (real) { return real[name].apply(real, arguments); }
        calls.push([name, arguments]);
      };
    }
    this.addEventListener = later("addEventListener");
    this.removeEventListener = later("removeEventListener");
    this.postMessage = later("postMessage");
    this.terminate = later("terminate");
    held.push(function () {
      real = new RealWorker(url, options);
      calls.splice(0).forEach(function (call) { real[call[0]].apply(real, call[1]); });
    });
  }
  if (RealWorker) {
    window.Worker = function (url, options) {
      if (released || !/(^|\/)workers\/search\.[^/]*\.js(\?|$)/.test(String(url))) { return new RealWorker(url, options); }
      return new StandIn(url, options);
    };
    window.Worker.prototype = RealWorker.prototype;
  }

  function release() {
    if (released) { return; }
    released = true;
    held.splice(0).forEach(function (go) { go(); });
  }
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("input.md-search__input")) { release(); }
  });
})();
