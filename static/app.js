// Last Trick: keep the match table fresh and help share its link. Works without it too.
(function () {
  "use strict";
  var POLL_MS = 5000;

  // Ask the server every 5 s, only while the page is visible, whether the table changed
  // (it answers 204 when not); ask at once when the page becomes visible again.
  function poll() {
    var region = document.querySelector("[data-poll]");
    if (region && window.htmx && document.visibilityState === "visible") {
      window.htmx.trigger(region, "poll");
    }
  }
  setInterval(poll, POLL_MS);
  document.addEventListener("visibilitychange", poll);

  // Copy and Share buttons stay hidden where the phone cannot do them.
  function ready() {
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      if (navigator.clipboard) button.hidden = false;
    });
    document.querySelectorAll("[data-share]").forEach(function (button) {
      if (navigator.share) button.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", ready);

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var field = document.querySelector(copy.dataset.copy);
      navigator.clipboard.writeText(field.value).then(function () {
        copy.textContent = copy.dataset.done || "Copied";
      });
    }
    var share = event.target.closest("[data-share]");
    if (share) {
      navigator.share({ title: share.dataset.shareTitle, url: share.dataset.share }).catch(function () {});
    }
  });
})();
