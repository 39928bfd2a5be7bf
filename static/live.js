// Last Trick: the table on every phone at once. The server pushes each change of the table (Server-Sent
// Events); where the phone has no EventSource or the stream keeps failing, it asks every 5 s instead.
// A pushed table never closes what a person has open (an answer panel, Undo's question) nor moves the
// names under their finger: it waits until that is closed, and keeps the names where they were.
// A phone that cannot be sure it shows the server's table (its stream down for a few seconds, no poll
// answered) says so above the table, and catches up by itself: when the network is back, and when the
// page comes back from the background.
(function () {
  "use strict";
  var POLL_MS = 5000;
  var GIVE_UP = 3; // stream failures in a row before the poll takes over (the stream keeps trying)
  var source = null;
  var failures = 0;
  var held = null; // a pushed region waiting for an open panel to close: {html, version}
  var fingerDown = false;
  var asking = []; // this phone's own requests from the table under way (sent: their answer is newer than a push)
  var ASKING_MS = 30000; // a request still counted after this got no answer event: it no longer holds pushes
  var BEHIND_MS = 3000; // not sure of the table this long (a stream that drops reconnects within 2 s): say so
  var sure = Date.now(); // when this phone last knew it showed the server's table
  // The stream pings as it opens and every beat (its data: the beat in seconds). An open stream silent a beat
  // and a half may be dead with no error (a Wi-Fi or a proxy gone quiet, which the browser notices minutes
  // later, if at all): the phone says it is behind and opens the stream again, once a beat at most.
  var beatMs = 30000;
  var said = 0; // when the stream last said something (or was opened: it has a beat and a half to speak)
  var spoken = false; // the stream open now said something: its first ping comes with the server's answer
  var reopened = 0;
  var hiddenAt = 0;

  function live() { return document.querySelector("[data-events]"); }
  function versionOf(element) { return Number(element && element.dataset.version) || 0; }
  function streaming() {
    return source && source.readyState === 1 && failures === 0 && Date.now() - said < 1.5 * beatMs;
  }
  function heard() { sure = Date.now(); sayBehind(); }
  function streamSaid() { said = Date.now(); spoken = true; failures = 0; heard(); }
  // Silent: quiet a beat and a half, or never through 10 s after opening. The poll asks meanwhile (the stream
  // keeps trying): a phone never waits on a stream that passes no byte.
  function silent() { return source && Date.now() - said >= (spoken ? 1.5 * beatMs : 2 * POLL_MS); }
  function waiting() {
    var now = Date.now();
    asking = asking.filter(function (config) { return now - config.heldPushes < ASKING_MS; });
    return asking.length;
  }

  function connect() {
    var region = live();
    if (!region || !window.EventSource || source || !navigator.onLine) return;
    source = new EventSource(region.dataset.events + "?v=" + (region.dataset.version || ""));
    said = Date.now();
    spoken = false;
    source.addEventListener("open", function () { // the server answers again: offline.js stops saying otherwise
      heard(); // (its first ping, sent with the answer, says the stream itself is through)
      document.dispatchEvent(new CustomEvent("lasttrick:answered"));
    });
    source.addEventListener("table", function (event) {
      streamSaid();
      hold(event.data, Number(event.lastEventId));
    });
    source.addEventListener("changed", function () { streamSaid(); refreshGroup(); });
    source.addEventListener("ping", function (event) {
      streamSaid();
      beatMs = 1000 * Number(event.data) || beatMs;
    });
    source.addEventListener("gone", function (event) {
      stop();
      if (event.data) window.location.assign(event.data); else window.location.reload();
    });
    source.addEventListener("error", function () {
      failures += 1; // the browser reconnects by itself, sending the last event's id
      if (source.readyState === 2) { // closed for good (an error answer): try again later
        source = null;
        setTimeout(connect, POLL_MS * Math.min(failures, 2)); // a group page has no poll: back within 10 s
      }
    });
  }
  function stop() {
    if (source) source.close();
    source = null;
  }
  function restart() { // a stream that may have died quietly (the phone slept, the network changed)
    stop();
    failures = 0;
    connect();
  }

  // --- not sure of the table: said above it, so that nobody trusts an old score ---
  function behind() {
    if (!live() || document.querySelector("#offline .offline-line")) return false; // offline.js says it (a table)
    if (!navigator.onLine && !document.getElementById("table")) return true; // a group page: offline.js is a table's
    if (streaming()) return false;
    return Date.now() - sure > (polling() ? 2 * POLL_MS + BEHIND_MS : BEHIND_MS);
  }
  function sayBehind() {
    var line = document.getElementById("behind");
    var words = document.body.dataset.behind;
    if (!behind() || !words) { if (line) line.remove(); return; }
    if (line) return;
    var region = live();
    line = document.createElement("p");
    line.id = "behind"; // above the table region, so that a fresh region leaves it as it is
    line.className = "notice behind";
    line.setAttribute("role", "status");
    line.textContent = words + " ";
    var reload = document.createElement("a");
    reload.href = window.location.pathname;
    reload.textContent = document.body.dataset.behindReload || "";
    line.appendChild(reload);
    region.parentNode.insertBefore(line, region);
  }
  function reopenIfSilent() {
    var now = Date.now();
    if (!source || now - said < 1.5 * beatMs || now - reopened < beatMs) return;
    reopened = now;
    failures += 1; // counted as a failure: a stream that stays silent leaves the table to the poll meanwhile
    stop();
    connect();
  }
  setInterval(function () { reopenIfSilent(); sayBehind(); }, 1000);

  // --- a pushed table: shown unless it is older than the one on screen, once nothing is open ---
  function hold(html, version) {
    if (version <= versionOf(live())) return; // a tap's own answer already showed it
    held = { html: html, version: version };
    showOrSay();
  }
  function showOrSay() {
    show();
    // (not while this phone's own request is on its way: the push is most likely of its own change,
    // and its answer says whether another phone's came first)
    if (held && !waiting()) sayHeld(live());
  }
  // Someone has a panel open (about to answer for a hand another phone may just have recorded): say
  // the table changed, and that closing the panel shows it.
  function sayHeld(region) {
    if (!region || !document.body.dataset.held) return;
    region.querySelectorAll("details[open]").forEach(function (open) {
      if (open.querySelector(".held")) return;
      var note = document.createElement("p");
      note.className = "notice held";
      note.setAttribute("role", "status");
      // a hand's answers: that hand may be recorded already; another panel (an undo, new chips) just moved on
      note.textContent = open.closest(".ask") ? document.body.dataset.held : document.body.dataset.heldOther;
      open.appendChild(note);
    });
  }
  function busy(region) {
    return fingerDown || waiting() > 0 || region.querySelector("details[open]") ||
      (document.activeElement && region.contains(document.activeElement) && document.activeElement.matches("input, select, textarea"));
  }
  function show() {
    var region = live();
    if (!held || !region || !window.htmx || busy(region)) return;
    var pushed = held;
    held = null;
    if (pushed.version <= versionOf(region)) return;
    var anchor = region.querySelector(".taps, .tally");
    var before = anchor ? anchor.getBoundingClientRect().top : 0;
    var place = placeOf(region);
    window.htmx.swap(region, pushed.html, { swapStyle: "outerHTML" });
    var after = document.querySelector("#table " + (anchor && anchor.matches(".taps") ? ".taps" : ".tally"));
    if (anchor && after) window.scrollBy(0, after.getBoundingClientRect().top - before);
    focusPlace(live(), place);
    tell(live());
    document.dispatchEvent(new CustomEvent("lasttrick:table", { detail: { version: pushed.version } }));
  }

  // --- a keyboard or a screen reader keeps its place through a fresh table ---
  // Another phone's change: the focus goes back to the same control (the same name's button, Undo...), else
  // to one of its kind, else to the control at its place; and the change is told (the polite #told line: the
  // hands played and who won the last). This phone's own change: its answer's notice takes the focus, which a
  // screen reader then reads.
  var FOCUSABLE = "button, a[href], summary, input, select, textarea";
  function placeOf(region) {
    var active = document.activeElement;
    if (!region || !active || !region.contains(active)) return null;
    var form = active.closest("form");
    return {
      kind: active.tagName + "." + active.className, action: form && form.getAttribute("action"),
      name: active.getAttribute("name"), value: active.getAttribute("value"), text: active.textContent.trim(),
      index: Array.prototype.indexOf.call(region.querySelectorAll(FOCUSABLE), active),
    };
  }
  function focusFree(mine) { // nowhere (the swap took it away), or on `mine`; else kept, or moved by a finger
    var active = document.activeElement;
    return !active || active === document.body || active === mine;
  }
  function focusPlace(region, place) {
    if (!region || !place || !focusFree()) return;
    var all = Array.prototype.slice.call(region.querySelectorAll(FOCUSABLE));
    var kind = all.filter(function (control) { return control.tagName + "." + control.className === place.kind; });
    var same = kind.filter(function (control) { // the same form's same button (a name's answers: by their words)
      var form = control.closest("form");
      return (form && form.getAttribute("action")) === place.action && control.getAttribute("name") === place.name &&
        control.getAttribute("value") === place.value;
    });
    var named = function (control) { return control.textContent.trim() === place.text; };
    var found = same.filter(named)[0] || kind.filter(named)[0] || same[0] || kind[0] ||
      all[Math.min(place.index, all.length - 1)];
    if (found) found.focus({ preventScroll: true });
  }
  function tell(region) {
    var told = document.getElementById("told");
    var parts = region && region.querySelectorAll("[data-fingerprint] span");
    if (!told || !parts || !parts.length) return;
    var words = Array.prototype.slice.call(parts, 0, 2).map(function (part) { return part.textContent; });
    told.textContent = words.join(""); // the hands played and who won the last, not the change's number
  }
  function quiet() { // an older change's words would stay above a table that moved on, read first
    var told = document.getElementById("told");
    if (told) told.textContent = "";
  }
  var swapping = null; // the table htmx is swapping in: a poll's (another phone's change) or this phone's answer
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target, config = event.detail.requestConfig;
    swapping = target && target.id === "table" ?
      { place: placeOf(target), polled: !config || config.verb === "get" } : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var swapped = swapping, region = live(), notice = region && region.querySelector(".notice[role=status]");
    swapping = null;
    if (!swapped || !region) return;
    if (swapped.polled) tell(region);
    else quiet(); // this phone's own answer is told by its notice
    if (!focusFree()) return;
    if (swapped.polled || !notice) { focusPlace(region, swapped.place); return; }
    notice.setAttribute("tabindex", "-1"); // (the tapped button was disabled while its answer came: no place)
    notice.focus({ preventScroll: true });
  });
  // Counted once sent (htmx:beforeSend): a request cancelled before (offline.js, with no network) never
  // gets an answer event to count it off.
  document.addEventListener("htmx:beforeSend", function (event) {
    var region = live();
    if (!region || !region.contains(event.detail.elt) || !event.detail.requestConfig) return;
    event.detail.requestConfig.heldPushes = Date.now();
    asking.push(event.detail.requestConfig);
  });
  function answered(event) { // an answer, or none (no network, timeout): each request counted off once
    var config = event.detail.requestConfig;
    if (!config || !config.heldPushes) return;
    var xhr = event.detail.xhr;
    if (event.type === "htmx:afterRequest" && xhr && xhr.status && xhr.status < 500) heard(); // the server's table
    config.heldPushes = 0;
    asking = asking.filter(function (other) { return other !== config; });
    setTimeout(showOrSay, 0); // (a push older than the answer is dropped there)
  }
  ["htmx:afterRequest", "htmx:sendError", "htmx:timeout", "htmx:sendAbort"].forEach(function (name) {
    document.addEventListener(name, answered);
  });
  document.addEventListener("toggle", function () { setTimeout(show, 0); }, true); // a panel closed
  document.addEventListener("focusout", function () { setTimeout(show, 0); });
  document.addEventListener("pointerdown", function () { fingerDown = true; }, true);
  ["pointerup", "pointercancel"].forEach(function (name) {
    document.addEventListener(name, function () {
      fingerDown = false;
      setTimeout(show, 400); // after the click that may follow: a tap names the hand it saw
    }, true);
  });
  // Any new table (a tap's answer, a poll, a push): a held one may be out of date, and the stream
  // must follow the region (a rematch, or an error page in its place).
  document.addEventListener("htmx:afterSettle", function () {
    if (held && held.version <= versionOf(live())) held = null;
    if (!live()) stop(); else connect();
    newest(live());
  });

  // --- never older than this phone has seen: a page loaded while a tap was on its way may have been
  // read before the tap was saved; its answer (or a push) told this phone the newer version ---
  function newest(region) { // the newest version of this table this phone was shown, now this one's too
    if (!region) return 0;
    var key = "lasttrick-version:" + region.dataset.events, seen = 0;
    try {
      seen = Number(localStorage.getItem(key)) || 0;
      if (versionOf(region) > seen) localStorage.setItem(key, String(versionOf(region)));
    } catch (error) { /* no storage (a private window): the stream still catches up */ }
    return seen;
  }
  function freshIfOlder() {
    var region = live();
    var copy = document.querySelector('meta[name="offline-copy"]'); // offline: as last seen, on purpose
    if (region && window.htmx && region.hasAttribute("hx-get") && !copy && versionOf(region) < newest(region)) {
      window.htmx.trigger(region, "poll");
    }
  }

  // --- the group page: a change reloads its region (rarely: a match ended, a player renamed) ---
  // What this phone typed and has not sent (a name to add, a Paid amount, one handed back with a refusal)
  // goes into the fresh region's same box (data-keep names it), with the focus and caret; an open panel
  // stays open; what it was last told (a notice) stays. A finger on the page or text in any other box hold
  // the fetch instead.
  function typed(region) {
    return Array.prototype.some.call(region.querySelectorAll('input[type="text"]:not([data-keep])'), function (field) {
      return field.value !== field.defaultValue;
    });
  }
  function groupBusy(region) {
    var active = document.activeElement;
    var typing = active && region.contains(active) && active.matches("input, select, textarea") && !active.dataset.keep;
    return fingerDown || typing || typed(region);
  }
  function keptOf(region) {
    var kept = { region: region, fields: {}, notices: [], focus: null, open: [] };
    region.querySelectorAll("details[open][class]").forEach(function (panel) { kept.open.push(panel.className); });
    region.querySelectorAll("input[data-keep]").forEach(function (field) {
      if (field.value !== field.defaultValue || field.getAttribute("aria-invalid") === "true") {
        kept.fields[field.dataset.keep] = field;
      }
      if (field === document.activeElement) {
        kept.focus = { key: field.dataset.keep, start: field.selectionStart, end: field.selectionEnd };
      }
    });
    region.querySelectorAll("[id] > .notice").forEach(function (notice) {
      kept.notices.push({ under: notice.parentNode.id, notice: notice });
    });
    return kept;
  }
  function putBack(region, kept) {
    var lost = Object.keys(kept.fields).filter(function (key) { return kept.fields[key].value.trim(); });
    region.querySelectorAll("input[data-keep]").forEach(function (field) {
      var key = field.dataset.keep, old = kept.fields[key];
      if (old) {
        lost = lost.filter(function (other) { return other !== key; });
        field.value = old.value;
      }
      // Back where the swap took it from (htmx may have focused the new box already), unless a finger put it
      // elsewhere meanwhile; after the value: setting it moves the caret to the end
      if (kept.focus && kept.focus.key === key && focusFree(field)) {
        field.focus({ preventScroll: true });
        field.setSelectionRange(kept.focus.start, kept.focus.end);
      }
      if (!old || old.getAttribute("aria-invalid") !== "true") return;
      field.setAttribute("aria-invalid", "true"); // and the words of its refusal, where they were
      var said = old.getAttribute("aria-describedby"), words = said && kept.region.querySelector("#" + said);
      if (words && !document.getElementById(said)) {
        field.setAttribute("aria-describedby", said);
        (field.closest("label, .inline") || field).after(words);
      }
    });
    kept.open.forEach(function (name) {
      var panel = region.querySelector("details." + name.split(" ").join("."));
      if (panel) panel.open = true;
    });
    kept.notices.forEach(function (old) {
      var under = old.under === region.id ? region : region.querySelector("#" + old.under);
      var heading = under && under.querySelector(":scope > h1, :scope > h2");
      if (heading && !under.querySelector(":scope > .notice")) heading.after(old.notice);
    });
    var notice = document.getElementById("notice"), words = document.body.dataset.paidGone;
    if (lost.length && notice && words) { // a Paid amount whose payment is no longer owed: not sent, and said
      var line = document.createElement("p");
      line.className = "notice error";
      var amounts = lost.map(function (key) { return kept.fields[key].value.trim(); });
      line.textContent = words.replace("{amount}", amounts.join(", "));
      notice.replaceChildren(line);
    }
  }
  // One fetch at a time: a second one queued behind it would aim at the region the first replaces (and be
  // lost). A change heard meanwhile fetches again once the first is in; one that failed, a moment later.
  var refreshing = false;
  var again = false;
  function refreshGroup() {
    var group = document.getElementById("group");
    if (!group || !window.htmx) return;
    if (refreshing) { again = true; return; }
    if (groupBusy(group)) { setTimeout(refreshGroup, 1000); return; }
    refreshing = true;
    again = false;
    var kept = null;
    function swapping(event) { // what the phone does meanwhile counts: it may have begun to type
      if (event.detail.target !== group) return;
      if (groupBusy(group)) { event.detail.shouldSwap = false; again = true; } else kept = keptOf(group);
    }
    document.addEventListener("htmx:beforeSwap", swapping);
    function done() {
      document.removeEventListener("htmx:beforeSwap", swapping);
      refreshing = false;
      var now = document.getElementById("group");
      if (now && now !== group && kept) putBack(now, kept);
      // Not swapped in (a 503, no answer): again in a moment; offline, once the stream is back.
      if (again) refreshGroup();
      else if (now === group && navigator.onLine) setTimeout(refreshGroup, POLL_MS); // (the same element: not swapped)
    }
    window.htmx.ajax("GET", window.location.pathname, { target: "#group", select: "#group", swap: "outerHTML" })
      .then(done, done);
  }
  // The group's links were made new on another phone (its page answers 404 now): the page says so, as a table's.
  document.addEventListener("htmx:afterRequest", function (event) {
    var asked = event.detail.pathInfo && event.detail.pathInfo.requestPath;
    if (!document.getElementById("group") || asked !== window.location.pathname) return;
    if (!event.detail.xhr || event.detail.xhr.status !== 404) return;
    stop();
    window.location.reload();
  });

  // --- the fallback: ask every 5 s (204 while nothing changed) where the stream cannot be had ---
  function polling() { return !window.EventSource || failures >= GIVE_UP || !source || silent(); }
  function poll() {
    var region = document.querySelector("[data-poll]");
    if (!region || !window.htmx || document.visibilityState !== "visible" || streaming()) return;
    if (window.EventSource && live() && !polling()) return; // reconnecting: give it time
    if (busy(region)) return;
    window.htmx.trigger(region, "poll");
  }
  setInterval(poll, POLL_MS);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") { hiddenAt = Date.now(); return; }
    if (hiddenAt && Date.now() - hiddenAt > BEHIND_MS) restart(); // it may have slept: a fresh stream catches up
    hiddenAt = 0;
    poll();
    sayBehind();
  });
  // The back/forward cache: a page put away (another page opened over it) keeps no stream open, which would
  // keep it out of the cache (or have it thrown out at the next heartbeat). Shown again from the cache (Back),
  // it is as a page just loaded: the stream opens again (from the version shown: the server sends anything
  // newer at once, a group page's change too), and the current table is asked for at once as well (a tap made
  // on another phone meanwhile; a 204 when none was), unless a panel is open: then the push waits for it.
  window.addEventListener("pagehide", stop);
  // A plain form sent (new links, a seat claimed): the page is on its way to the answer. A push meanwhile (these
  // very links made new) must not take it elsewhere first: that would drop the answer, and the new links in it.
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented && !event.target.hasAttribute("hx-post")) stop();
  });
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    sure = Date.now();
    restart();
    var region = document.querySelector("[data-poll]");
    if (region && window.htmx && !busy(region)) window.htmx.trigger(region, "poll");
  });
  document.addEventListener("resume", restart); // a page the browser froze in the background
  document.addEventListener("DOMContentLoaded", connect);
  document.addEventListener("DOMContentLoaded", freshIfOlder);
  document.addEventListener("lasttrick:table", function () { newest(live()); });
  // No network: no stream to keep trying (offline.js keeps the taps); back online: the stream catches up.
  window.addEventListener("offline", function () { stop(); sayBehind(); });
  window.addEventListener("online", function () { restart(); if (!window.EventSource) poll(); });
})();
