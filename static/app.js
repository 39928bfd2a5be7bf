// Last Trick: keep the match table fresh, keep the screen awake, say when a tap did not get through,
// and help share the match link. Everything here is optional: the app works without JavaScript.
(function () {
  "use strict";
  var POLL_MS = 5000;
  var body = document.body;

  // --- live table: ask every 5 s while visible (the server answers 204 when nothing changed) ---
  function poll() {
    var region = document.querySelector("[data-poll]");
    if (region && window.htmx && document.visibilityState === "visible") {
      window.htmx.trigger(region, "poll");
    }
  }
  setInterval(poll, POLL_MS);

  // --- taps on a flaky network: show at once that a tap is being recorded; if it fails,
  // say so on the button; tapping again sends the same hand number, so it never counts twice ---
  var submitters = new WeakMap();
  document.addEventListener("submit", function (event) {
    if (event.submitter) submitters.set(event.target, event.submitter);
  }, true);

  function tapped(event) {
    var form = event.detail.elt;
    return form && form.tagName === "FORM" ? submitters.get(form) : null;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var button = tapped(event);
    if (!button) return;
    button.classList.remove("failed");
    button.classList.add("pending");
    button.setAttribute("aria-busy", "true");
  });
  function failed(event) {
    var button = tapped(event);
    if (!button) return;
    button.classList.remove("pending");
    button.classList.add("failed");
    button.removeAttribute("aria-busy");
    var notice = document.getElementById("notice");
    if (notice) {
      var message = document.createElement("p");
      message.className = "notice error";
      message.textContent = body.dataset.failed || "";
      notice.replaceChildren(message);
    }
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:timeout", failed);
  document.addEventListener("htmx:afterRequest", function (event) {
    var button = tapped(event);
    if (button && event.detail.successful) {
      button.classList.remove("pending");
      button.removeAttribute("aria-busy");
    }
  });
  // Fresh table (an answer or a poll): whatever the connection warning said is out of date.
  document.addEventListener("htmx:afterSwap", function (event) {
    var notice = document.getElementById("notice");
    if (notice && event.detail.target && event.detail.target.id === "table") notice.replaceChildren();
  });

  // --- keep the screen awake while a sitting is open (Screen Wake Lock API), with a toggle ---
  var lock = null;
  var wanted = localStorage.getItem("lasttrick-wake") !== "off";
  function wakeButton() {
    return document.querySelector("[data-wake]");
  }
  function showWake() {
    var button = wakeButton();
    if (!button) return;
    button.hidden = false;
    button.setAttribute("aria-pressed", wanted ? "true" : "false");
    button.textContent = wanted ? button.dataset.on : button.dataset.off;
  }
  function acquire() {
    if (!wanted || lock || !wakeButton() || document.visibilityState !== "visible") return;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      lock.addEventListener("release", function () { lock = null; });
    }).catch(function () {});
  }
  if ("wakeLock" in navigator) {
    document.addEventListener("DOMContentLoaded", function () { showWake(); acquire(); });
    document.addEventListener("click", function (event) {
      if (!event.target.closest("[data-wake]")) return;
      wanted = !wanted;
      localStorage.setItem("lasttrick-wake", wanted ? "on" : "off");
      if (wanted) acquire(); else if (lock) lock.release();
      showWake();
    });
  }

  document.addEventListener("visibilitychange", function () {
    poll();
    if ("wakeLock" in navigator) acquire();
  });

  // --- copy and share the match link (buttons stay hidden where the phone cannot do it) ---
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      if (navigator.clipboard) button.hidden = false;
    });
    document.querySelectorAll("[data-share]").forEach(function (button) {
      if (navigator.share) button.hidden = false;
    });
  });
  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var field = document.querySelector(copy.dataset.copy);
      navigator.clipboard.writeText(field.value).then(function () {
        copy.textContent = copy.dataset.done;
      });
    }
    var share = event.target.closest("[data-share]");
    if (share) {
      navigator.share({ title: share.dataset.shareTitle, url: share.dataset.share }).catch(function () {});
    }
  });
})();
