// The Now page: asks /now/board once a second and puts the new board in place when its version
// changed (also a 503's board: "the journal cannot be read now" replaces a stale table). The
// board is drawn on the server, every name escaped there (no drawing code here).
"use strict";
(function () {
  var board = document.getElementById("board");
  if (!board) { return; }
  var last = board.getAttribute("data-version") || "";
  function poll() {
    fetch("/now/board", { cache: "no-store" }).then(function (r) {
      var version = r.headers.get("X-Board-Version");
      return r.text().then(function (html) {
        if (version && version !== last) {
          last = version;
          board.setAttribute("data-version", last);
          board.innerHTML = html;
        }
      });
    }).catch(function () {}).then(function () { setTimeout(poll, 1000); });
  }
  setTimeout(poll, 1000);
})();
