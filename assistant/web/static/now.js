// The Now page: asks /api/now once a second and redraws the board when it changed.
"use strict";
(function () {
  var board = document.getElementById("board");
  if (!board) { return; }
  var last = board.getAttribute("data-version") || "";
  function text(tag, cls, words) {
    var el = document.createElement(tag);
    if (cls) { el.className = cls; }
    el.textContent = words;
    return el;
  }
  function draw(now) {
    board.textContent = "";
    if (!now.view) { board.appendChild(text("p", "quiet", now.message)); return; }
    var v = now.view;
    board.appendChild(text("p", "quiet", "Match " + now.id + " · " + v.game));
    var names = v.game === "towers" ? v.seats : v.sides;
    board.appendChild(text("p", "score", names.map(function (n, i) { return n + " " + v.score[i]; }).join("  ·  ")));
    v.prompt.forEach(function (line) { board.appendChild(text("p", "prompt", line)); });
    var facts = [];
    if (v.trump) { facts.push("Trump: " + v.trump); }
    if (v.dealer) { facts.push("Dealer: " + v.dealer); }
    if (v.bid) { facts.push("Bid: " + v.bid + (v.bidder ? " (" + v.bidder + ")" : "")); }
    if (v.trick_no) { facts.push("Trick " + v.trick_no); }
    if (facts.length) { board.appendChild(text("p", "", facts.join(" · "))); }
    if (v.trick.length) {
      var row = text("p", "cards", "");
      v.trick.forEach(function (c) { row.appendChild(text("span", "", c.seat + ": " + c.label)); });
      board.appendChild(row);
    }
  }
  function poll() {
    fetch("/api/now", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (now) {
      if (now.version !== last) { last = now.version; board.setAttribute("data-version", last); draw(now); }
    }).catch(function () {}).then(function () { setTimeout(poll, 1000); });
  }
  setTimeout(poll, 1000);
})();
