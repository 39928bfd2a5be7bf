// Last Trick with no network: register the service worker (/sw.js), keep the last table shown for it,
// say when the phone is offline, and keep taps (and undos) made meanwhile on the phone, shown on the
// table as waiting, then send them in order when the network is back. Each tap names its hand
// (`number`), so a tap sent twice counts once; a tap the server refuses is said, never dropped.
(function () {
  "use strict";
  var body = document.body;
  var words = body.dataset;  // the texts, translated by the server: data-offline-* on <body>
  var RETRY_MS = 4000;

  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  }

  // The worker keeps the page it shows for a page never opened here: tell it this phone's language.
  if ("serviceWorker" in navigator && navigator.serviceWorker.controller) {
    navigator.serviceWorker.controller.postMessage({ language: document.documentElement.lang });
  }

  // The page shown for a page never opened here: the page itself as soon as the server answers again.
  // Asked, not assumed: "online" can come before the network carries requests, or never on a flaky one.
  if (document.querySelector("[data-reload-when-online]")) {
    var probing = false;
    var probe = function () {
      if (probing) return;
      probing = true;
      fetch(location.href, { method: "HEAD", cache: "no-store" }).then(function () {
        location.reload();
      }, function () {
        probing = false;
        setTimeout(probe, RETRY_MS);
      });
    };
    window.addEventListener("online", probe);
    setTimeout(probe, RETRY_MS);
  }

  var section = document.getElementById("table");
  var sitting = location.pathname.match(/^\/[sw]\/[A-Za-z0-9_-]+\//);
  if (!section || !sitting) return;  // only a match table keeps taps
  var base = sitting[0];
  var QUEUE = "lasttrick-queue:" + base, SEEN = "lasttrick-seen:" + base, FLYING = "lasttrick-flying:" + base;
  // The page as the server sent it, before any script touched it: the shell of the copy kept offline.
  var shell = "<!doctype html>\n" + document.documentElement.outerHTML;

  function read() {
    try {
      var kept = JSON.parse(localStorage.getItem(QUEUE) || "{}");
      return { ops: kept.ops || [], refused: kept.refused || [] };
    } catch (error) {
      return { ops: [], refused: [] };
    }
  }
  var state = read();
  // A tap on its way when the page went (reloaded, or the tab dropped by the phone): it waits with the
  // others, as sent (the server may have it); its key makes a second copy count once.
  try {
    var flown = JSON.parse(localStorage.getItem(FLYING) || "null");
    localStorage.removeItem(FLYING);
    if (flown && !state.ops.some(function (op) { return sameChange(op, flown); })) {
      flown.sent = true;
      state.ops.push(flown);
      save();
    }
  } catch (error) {}
  function save() {
    if (!state.ops.length && !state.refused.length) localStorage.removeItem(QUEUE);
    else localStorage.setItem(QUEUE, JSON.stringify(state));
  }
  function fill(text, values) {
    return (text || "").replace(/\{(\w+)\}/g, function (all, key) { return key in values ? values[key] : all; });
  }
  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    node.dataset.overlay = "";
    return node;
  }

  // --- offline, and since when: the time of the last answer from the server ---
  var noAnswer = false;  // a request got no answer although the phone thinks it is online
  var ignored = null;  // the second tap of a double tap just dropped: {number, next}, said in the box
  function answered() {
    noAnswer = false;
    localStorage.setItem(SEEN, String(Date.now()));
  }
  function offline() {
    return !navigator.onLine || noAnswer;
  }
  function box() {
    var found = document.getElementById("offline");
    if (found) return found;
    found = document.createElement("div");
    found.id = "offline";  // above the table region, so that a fresh region leaves it as it is
    found.setAttribute("role", "status");
    var table = document.getElementById("table");
    if (table) table.parentNode.insertBefore(found, table);
    return found;
  }
  function showBox() {
    var shown = box();
    shown.replaceChildren();
    if (offline()) {
      var since = Number(localStorage.getItem(SEEN) || 0);
      var time = since ? new Date(since).toLocaleTimeString(document.documentElement.lang, { hour: "2-digit", minute: "2-digit" }) : "";
      shown.appendChild(element("p", "notice offline-line", since ? fill(words.offlineSince, { time: time }) : words.offline));
    }
    if (ignored) shown.appendChild(element("p", "notice double-tap", fill(words.doubleTap, ignored)));
    state.refused.forEach(function (refusal, index) {
      var line = element("div", "notice error refused");
      line.appendChild(element("p", "", refusal.what));
      var said = document.createElement("p");
      said.append.apply(said, Array.from(new DOMParser().parseFromString(refusal.html, "text/html").body.childNodes));
      line.appendChild(said);
      var ok = element("button", "small", words.offlineSeen);
      ok.type = "button";
      ok.dataset.refusalSeen = String(index);
      line.appendChild(ok);
      shown.appendChild(line);
    });
  }
  document.addEventListener("click", function (event) {
    var ok = event.target.closest("[data-refusal-seen]");
    if (ok) {
      state.refused.splice(Number(ok.dataset.refusalSeen), 1);
      save();
      showBox();
    }
    var drop = event.target.closest("[data-waiting-drop]");
    if (drop) {  // the last waiting tap, taken back before it was sent
      state.ops.pop();
      save();
      apply();
    }
  });

  // --- the waiting taps on the table: their lines, and the next hand open to tap ---
  function remember(node, key, value) {
    if (!(key in node.dataset)) node.dataset[key] = value;
  }
  function clear(table) {
    table.querySelectorAll("[data-overlay]").forEach(function (node) { node.remove(); });
    table.querySelectorAll("[data-overlay-value]").forEach(function (input) {
      input.value = input.dataset.overlayValue;
      delete input.dataset.overlayValue;
    });
    table.querySelectorAll("[data-overlay-text]").forEach(function (node) {
      node.textContent = node.dataset.overlayText;
      delete node.dataset.overlayText;
    });
    table.querySelectorAll("[data-overlay-hid]").forEach(function (node) {
      node.hidden = false;
      delete node.dataset.overlayHid;
    });
  }
  function hide(node) {
    if (!node || node.hidden) return;
    node.hidden = true;
    node.dataset.overlayHid = "";
  }
  function tapInputs(table) {
    return table.querySelectorAll('form[action$="/tap/"] input[name="number"]');
  }
  function describe(op, onTable) {
    if (op.kind === "undo") return fill(words.offlineUndo, { number: op.number });
    var said = onTable ? words.offlineOnTable : op.sent ? words.offlineSent : words.offlineWaiting;
    var line = fill(said, { number: op.number, name: op.name });
    return op.how ? line + " (" + op.how + ")" : line;
  }
  function apply() {
    var table = document.getElementById("table");
    if (!table) return;
    clear(table);
    showBox();
    var inputs = tapInputs(table);
    var open = inputs.length ? Number(inputs[0].value) : null;
    var served = open;  // the server's open hand: a waiting tap before it found its hand recorded already
    state.ops.forEach(function (op) { open = op.kind === "tap" ? Number(op.number) + 1 : Number(op.number); });
    var ops = state.ops;
    var fingerprint = table.querySelector("[data-fingerprint]");
    if (fingerprint && base.indexOf("/s/") === 0) {  // a member's phone taps; a watch link does not
      var count = ops.length;
      fingerprint.appendChild(element("span", "waiting-count",
        " · " + (count ? fill(count === 1 ? words.offlineOne : words.offlineMany, { count: count }) : words.offlineNone)));
    }
    if (!ops.length) return;
    if (open !== null) {
      inputs.forEach(function (input) {
        remember(input, "overlayValue", input.value);
        input.value = String(open);
      });
      var legend = table.querySelector(".legend .hand");
      if (legend) {
        remember(legend, "overlayText", legend.textContent);
        legend.textContent = fill(words.offlineHand, { number: open });
      }
      var deal = table.querySelector(".taps .deal");
      if (deal) {  // who deals is the server's to say: it says so once the taps are sent
        hide(deal);
        deal.parentNode.insertBefore(element("p", "deal", words.offlineDeal), deal);
      }
    }
    hide(table.querySelector("details.undo"));  // Undo takes back the last waiting tap first
    var list = element("ol", "waiting");
    ops.forEach(function (op, index) {
      // Recorded already (its answer lost, or another phone agreed): sending it confirms it or says who won
      // instead. Not to be taken back here: it counts, and Undo takes it back once it is sent.
      // Sent with no answer (it may have been recorded): the same, once the server answers.
      var onTable = op.kind === "tap" && served !== null && Number(op.number) < served;
      var item = element("li", "", describe(op, onTable));
      if (index === ops.length - 1 && !onTable && !op.sent) {
        var drop = element("button", "small", words.offlineDrop);
        drop.type = "button";
        drop.dataset.waitingDrop = "";
        item.append(" ", drop);
      }
      list.appendChild(item);
    });
    var where = table.querySelector(".taps") || table.querySelector("#table > div");
    if (where) where.insertBefore(list, where.firstChild);
  }

  // --- the copy the service worker shows offline: the latest table, without the waiting lines ---
  function keepPage(region) {
    if (!("caches" in window)) return;
    var page = new DOMParser().parseFromString(shell, "text/html");
    var old = page.getElementById("table");
    var fresh = page.importNode(region, true);
    clear(fresh);
    fresh.querySelectorAll(".notice").forEach(function (notice) { notice.remove(); });
    fresh.querySelectorAll("details[open]").forEach(function (open) { open.open = false; });
    if (!old) return;
    old.replaceWith(fresh);
    if (!page.querySelector("meta[name=offline-copy]")) {
      var mark = page.createElement("meta");
      mark.name = "offline-copy";
      page.head.prepend(mark);
    }
    var notice = page.getElementById("notice");
    if (notice) notice.replaceChildren();
    var html = "<!doctype html>\n" + page.documentElement.outerHTML;
    var headers = { "Content-Type": "text/html; charset=utf-8" };
    caches.open("lasttrick-pages").then(function (cache) {
      return cache.put(location.origin + location.pathname, new Response(html, { headers: headers }));
    }).catch(function () {});
  }
  // The table gone from its link (made new, or deleted): the phone keeps no copy of it.
  function forgetPage() {
    if (!("caches" in window)) return;
    caches.open("lasttrick-pages").then(function (cache) {
      return cache.delete(location.origin + location.pathname);
    }).catch(function () {});
  }
  function replaced() {
    var table = document.getElementById("table");
    if (!table) return;
    if (table.classList.contains("gone")) forgetPage();
    else if (!table.querySelector("[data-overlay]")) keepPage(table);
    apply();
  }
  document.addEventListener("lasttrick:answered", function () {  // the live stream is open again
    if (noAnswer) { answered(); showBox(); }
    if (state.ops.length) schedule(0);
  });
  document.addEventListener("lasttrick:table", function () {
    answered();  // a fresh table (a push, an answer) came from the server: the phone is online
    replaced();
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (event.target.id === "table" || (target && target.id === "table")) replaced();
  });

  // --- taps and undos: kept while offline or while others wait (they go in order) ---
  var sent = new WeakMap();  // form -> what it sent, kept in case no answer comes
  function entry(form, submitter) {
    var fields = Array.from(new FormData(form, submitter || null).entries()).filter(function (pair) {
      return pair[0] !== "csrfmiddlewaretoken";
    });
    var values = Object.fromEntries(fields);
    var undo = /\/undo\/$/.test(form.getAttribute("action"));
    var ask = form.closest("details.ask");
    var name = ask ? ask.querySelector("summary .name") : submitter && submitter.querySelector(".name");
    var how = form.dataset.how || "";  // the answer as running text says it (its short form), not its button
    return {
      kind: undo ? "undo" : "tap",
      action: form.getAttribute("action"),
      fields: fields,
      number: values.number,
      winner: values.winner,
      name: name ? name.textContent.trim() : "",
      how: how,
    };
  }
  function ours(form) {
    return form && form.tagName === "FORM" && /\/(tap|undo)\/$/.test(form.getAttribute("action") || "");
  }
  function keep(op) {
    if (op.kind === "undo") {
      var last = state.ops[state.ops.length - 1];
      if (last && last.kind === "tap" && !last.sent) state.ops.pop();  // a tap never sent: just forget it
      else if (!last || last.kind === "tap") state.ops.push(op);  // after one that may be recorded: in order
    } else {
      state.ops.push(op);
    }
    save();
    document.querySelectorAll("#table details[open]").forEach(function (open) { open.open = false; });
    apply();
    schedule(0);
  }
  // A double tap (the next hand's names are under the finger as soon as the first tap is answered,
  // or at once offline, and the page may have moved) would record the next hand too, for whichever
  // name is there: no table plays a hand that fast. Checked before htmx or the browser sends it.
  // The tap dropped is said above the table (never a silent drop) until the next tap is taken.
  var DOUBLE_TAP_MS = 700;
  var lastTap = null;
  function doubleTap(op) {
    if (op.kind !== "tap") return false;
    var now = Date.now();
    if (lastTap && lastTap.number !== op.number && now - lastTap.at < DOUBLE_TAP_MS) {
      ignored = { number: lastTap.number, next: op.number };
      showBox();
      return true;
    }
    lastTap = { number: op.number, at: now };  // (a dropped tap is no new start: a triple tap drops two)
    if (ignored) {
      ignored = null;
      showBox();
    }
    return false;
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (ours(form) && doubleTap(entry(form, event.submitter))) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.detail.elt;
    if (!ours(form)) return;
    var trigger = event.detail.triggeringEvent;
    var op = entry(form, trigger && trigger.submitter);
    if (offline() || state.ops.length) {
      event.preventDefault();
      keep(op);
    } else {
      sent.set(form, op);
      localStorage.setItem(FLYING, JSON.stringify(op));  // until its answer comes (beforeOnLoad), or none (lost)
      var count = document.querySelector("#table .waiting-count");  // "every tap sent" no longer holds
      if (count) count.textContent = " · " + words.offlineSending;
    }
  }, true);
  function lost(event) {
    localStorage.removeItem(FLYING);  // kept with the waiting taps below, if it is ours
    noAnswer = true;
    var op = sent.get(event.detail.elt);
    if (op) {
      sent.delete(event.detail.elt);
      op.sent = true;  // it left the phone: the server may have recorded it
      event.detail.queued = true;  // app.js: no "not saved" mark, the tap waits on the table instead
      keep(op);
    } else {
      showBox();
    }
    schedule(RETRY_MS);
  }
  document.addEventListener("htmx:sendError", lost, true);
  document.addEventListener("htmx:timeout", lost, true);
  // The server answered but could not save it now (its database away: 503 "try again"): the tap waits
  // on the table like one made offline, and is sent again by itself.
  document.addEventListener("htmx:afterRequest", function (event) {
    var op = event.detail.xhr && event.detail.xhr.status >= 500 && sent.get(event.detail.elt);
    if (!op) return;
    sent.delete(event.detail.elt);
    op.sent = event.detail.xhr.status !== 503;  // the app's 503 saved nothing; a proxy's 502 or 504 cannot say
    event.detail.queued = true;  // app.js: no "not saved" mark, the tap waits on the table instead
    keep(op);
    schedule(RETRY_MS);
  }, true);
  document.addEventListener("htmx:beforeOnLoad", function (event) {  // any answer, before it is swapped in
    if (ours(event.detail.elt)) localStorage.removeItem(FLYING);  // (a 5xx's tap waits with the others, below)
  }, true);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.xhr && event.detail.xhr.status) {
      var wasOffline = noAnswer;
      answered();
      if (wasOffline) showBox();
    }
  });
  // No polling while the phone knows it has no network: it would only fail.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!navigator.onLine && event.detail.elt && event.detail.elt.id === "table") event.preventDefault();
  }, true);

  // --- sending, in order: one at a time, the answer is the fresh table ---
  var sending = false, timer = null;
  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(flush, delay);
  }
  function token() {
    try {
      return JSON.parse(body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }
  function swapIn(html) {
    var table = document.getElementById("table");
    if (!table || !window.htmx) return;
    window.htmx.swap(table, html, { swapStyle: "outerHTML" });
    var fresh = document.getElementById("table");
    document.dispatchEvent(new CustomEvent("lasttrick:table", { detail: { version: fresh && fresh.dataset.version } }));
  }
  function refusal(op, html) {
    var found = new DOMParser().parseFromString(html, "text/html").querySelector(".notice");
    var name = op.how ? op.name + " (" + op.how + ")" : op.name;
    var what = fill(op.kind === "undo" ? words.offlineUndoRefused : words.offlineRefused, { number: op.number, name: name });
    state.refused.push({ what: what, html: found ? found.innerHTML : "" });
  }
  function sameChange(one, other) {  // by the key made when the person acted (another tab's copy is another object)
    var key = function (op) { return (op.fields.filter(function (pair) { return pair[0] === "key"; })[0] || [])[1]; };
    return one === other || (key(one) !== undefined && key(one) === key(other));
  }
  function flush() {
    if (sending || !state.ops.length || !navigator.onLine) return;
    sending = true;
    var op = state.ops[0];
    if (!op.sent) { op.sent = true; save(); apply(); }  // on its way: the server may record it whatever comes back
    var headers = {
      "HX-Request": "true",
      "HX-Target": "table",
      "HX-Current-URL": location.href,
      "X-CSRFToken": token(),
      "Content-Type": "application/x-www-form-urlencoded",
    };
    fetch(op.action, { method: "POST", body: new URLSearchParams(op.fields), headers: headers, credentials: "same-origin" })
      .then(function (response) {
        return response.text().then(function (html) {
          sending = false;
          answered();
          var renewed = response.status === 403 && response.headers.get("X-CSRF-Token");
          if (renewed) {  // the page's token went stale: take the fresh one and send again
            body.setAttribute("hx-headers", JSON.stringify({ "X-CSRFToken": renewed }));
            if (!op.renewed) { op.renewed = true; schedule(0); return; }
          }
          if (response.status >= 500 || response.status === 429) {
            // The app's 503 and a rate limit saved nothing: it waits as if never sent (a proxy's 502 cannot say).
            if (response.status === 503 || response.status === 429) { op.sent = false; save(); apply(); }
            showBox();
            schedule(RETRY_MS);
            return;
          }
          state.ops = state.ops.filter(function (other) { return !sameChange(other, op); });
          if (response.status >= 400) refusal(op, html);
          save();
          // Most answers are the table region; a few refusals are a notice alone (aimed at #notice).
          if (response.headers.get("HX-Retarget") !== "#notice" && /id="table"/.test(html)) swapIn(html);
          if (response.status >= 400) {  // its words stay above the table, with a way to say they were seen
            document.querySelectorAll("#table .notice").forEach(function (notice) { notice.remove(); });
          }
          apply();
          schedule(0);
        });
      })
      .catch(function () {
        sending = false;
        noAnswer = true;
        showBox();
        schedule(RETRY_MS);
      });
  }
  setInterval(function () {
    if (state.ops.length) flush();
  }, RETRY_MS);
  window.addEventListener("online", function () { noAnswer = false; showBox(); flush(); });
  window.addEventListener("offline", showBox);
  // Another tab of this phone sent or kept taps of this table: show the same.
  window.addEventListener("storage", function (event) {
    if (event.key === QUEUE) { state = read(); apply(); }
  });

  // Each change gets its key when the person acts (the server keeps it with what the change did), so
  // a copy sent again, whenever it arrives, gets the first answer and never does it twice. A region
  // pushed to every phone carries none: its forms get a new one at every submit.
  function newKey() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);  // (crypto.randomUUID needs a secure context; this does not)
    return Array.from(bytes, function (byte) { return ("0" + byte.toString(16)).slice(-2); }).join("");
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.tagName !== "FORM" || form.method !== "post" || !form.closest("#table")) return;
    var field = form.querySelector("input[name=key]");
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "key";
      form.appendChild(field);
    }
    field.value = newKey();
  }, true);

  if (navigator.onLine && !document.querySelector("meta[name=offline-copy]")) {
    answered();
    // A table opened before the worker was in control (a shared link's first visit): the worker did
    // not see it come, so the copy is kept from here.
    if (!("serviceWorker" in navigator && navigator.serviceWorker.controller)) keepPage(section);
  }
  apply();
  flush();
})();
