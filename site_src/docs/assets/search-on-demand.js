/* Prescient: fetch the search index (search/search_index.json, ~250 KB at the demo's size) only
   when the reader first uses search, not on every page view. Material's bundle requests it with
   XMLHttpRequest as soon as a page loads; this script, loaded just before the bundle
   (overrides/main.html), holds that one request until the search box is first focused (a click,
   a tap on the phone's search icon, or Material's keyboard shortcuts, which all focus it), then
   sends it unchanged. Every other request passes through untouched. */
(function () {
  "use strict";
  var proto = XMLHttpRequest.prototype, open = proto.open, send = proto.send;
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
