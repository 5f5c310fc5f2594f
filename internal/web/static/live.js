// Follows a live session: the server sends the page's changing sections,
// re-rendered, each time the transcript grows. Without JavaScript the page
// is the same, as of when it was loaded.
"use strict";
(function () {
  var src = document.body.getAttribute("data-live");
  if (!src || !window.EventSource) {
    return;
  }
  var status = document.createElement("p");
  status.id = "live-status";
  status.textContent = "live: connecting";
  document.querySelector("main").prepend(status);
  var es = new EventSource(src);
  es.onopen = function () {
    status.textContent = "live: following the transcript";
  };
  es.onerror = function () {
    status.textContent = "live: reconnecting";
  };
  es.addEventListener("update", function (e) {
    var d = JSON.parse(e.data);
    Object.keys(d.parts).forEach(function (id) {
      var el = document.getElementById(id);
      if (el) {
        el.innerHTML = d.parts[id];
      }
    });
    status.textContent = "live: " + d.turns + " turns, updated " + new Date().toLocaleTimeString();
  });
})();
