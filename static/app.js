// Last Trick: keep the screen awake, say when a tap did not get through, help copy and share the match
// link and the result, and say once what a plain-HTTP address cannot do. Everything here is optional:
// the app works without JavaScript.
(function () {
  "use strict";
  var body = document.body;

  // --- taps on a flaky network: show at once that a tap is being recorded; if it fails,
  // say so on the button; tapping again sends the same hand number, so it never counts twice ---
  var submitters = new WeakMap();
  document.addEventListener("submit", function (event) {
    if (event.submitter) submitters.set(event.target, event.submitter);
  }, true);
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented) withToken(event.target);  // (htmx sends its own with the token header)
  });
  // A region the server pushed or swapped in carries no CSRF field (it is rendered once for every
  // phone). A form the browser sends itself (tapped before htmx took it over) takes this page's.
  function pageToken() {
    try {
      return JSON.parse(body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }
  function withToken(form) {
    if (!form || form.tagName !== "FORM" || (form.getAttribute("method") || "").toLowerCase() !== "post") return;
    var field = form.querySelector('input[name="csrfmiddlewaretoken"]');
    if (field && field.value) return;
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "csrfmiddlewaretoken";
      form.appendChild(field);
    }
    field.value = pageToken();
  }

  function tapped(event) {
    var form = event.detail.elt;
    return form && form.tagName === "FORM" ? submitters.get(form) : null;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var button = tapped(event);
    if (!button) return;
    button.classList.remove("failed");
    button.dataset.pending = body.dataset.pending || "";  // the words the pending and failed marks show
    button.dataset.retry = body.dataset.retry || "";
    button.classList.add("pending");
    button.setAttribute("aria-busy", "true");
  });
  // htmx gives a swapped part's [autofocus] (a refused field) the focus once it has settled, 20 ms on: a box a
  // finger tapped while the answer was on its way, or while it settles, keeps it, so that what is typed next goes
  // where the finger put it (the focus still in the form that asked, or lost with the part it was in, goes there).
  var settling = false, tappedMeanwhile = null;
  document.addEventListener("htmx:afterSwap", function (event) {
    var active = document.activeElement, asked = event.detail.requestConfig && event.detail.requestConfig.elt;
    var elsewhere = active && active !== body && !active.hasAttribute("autofocus") && !(asked && asked.contains(active));
    settling = true;
    tappedMeanwhile = elsewhere ? active : null;
  });
  document.addEventListener("focusin", function (event) {
    if (settling && !event.target.hasAttribute("autofocus")) tappedMeanwhile = event.target;
  });
  function fingerMoved() { return tappedMeanwhile && tappedMeanwhile.isConnected ? tappedMeanwhile : null; }
  document.addEventListener("htmx:afterSettle", function () {
    settling = false;
    var box = fingerMoved();
    if (box && document.activeElement !== box) box.focus({ preventScroll: true });
  });
  // A form that redraws itself (the start form's seating): after the swap, the focus goes to the first of the
  // controls the tapped button names in data-then (the same player's next move, else that player's row), so a
  // keyboard keeps its place and Enter pressed again never moves a player back.
  var then = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var button = tapped(event);
    then = button && button.dataset.then ? { form: event.detail.elt.id, values: button.dataset.then.split(" ") } : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var form = then && document.getElementById(then.form);
    var next = form && then.values.map(function (value) {  // a button by its value, else an element by its id
      return form.querySelector('button[value="' + value + '"]:not([disabled])') || document.getElementById(value);
    }).filter(Boolean)[0];
    then = null;
    if (next && !fingerMoved()) next.focus();
  });
  function failed(event) {
    var button = tapped(event);
    if (!button) return;
    button.classList.remove("pending");
    if (event.detail.queued) {  // offline.js kept the tap: it shows on the table as waiting to send
      button.removeAttribute("aria-busy");
      return;
    }
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
  // The server could not do it now (5xx, not swapped): its own words when it sent them for the notice
  // area ("try again"), else the "not saved" mark; a tap offline.js keeps is sent again by itself.
  // Only for what the person asked (a form, a button, a link): a request the page made by itself (a poll,
  // a fresh group) tries again by itself, and the page says it is behind meanwhile.
  function asked(event) {
    var elt = event.detail.elt;
    return Boolean(elt && elt.matches && elt.matches("form, button, a"));
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr, notice = document.getElementById("notice");
    if (event.detail.queued || !xhr || xhr.status < 500 || !asked(event)) return;
    if (notice && xhr.getResponseHeader("HX-Retarget") === "#notice") {
      window.htmx.swap(notice, xhr.responseText, { swapStyle: "innerHTML" });
    } else {
      failed(event);
    }
  });
  // Every answer ends the pending state; a refusal's message shows in the notice area instead.
  document.addEventListener("htmx:afterRequest", function (event) {
    var button = tapped(event);
    if (!button || !event.detail.xhr || !event.detail.xhr.status) return;
    button.classList.remove("pending");
    button.removeAttribute("aria-busy");
  });

  // --- a page open too long: its CSRF token went stale. The refusal carries a fresh one:
  // take it and send the same request once more, without the player doing anything ---
  function renewToken(token) {
    body.setAttribute("hx-headers", JSON.stringify({ "X-CSRFToken": token }));
    document.querySelectorAll('input[name="csrfmiddlewaretoken"]').forEach(function (input) {
      input.value = token;
    });
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var token = xhr.status === 403 && xhr.getResponseHeader("X-CSRF-Token");
    if (!token) return;
    renewToken(token);
    var form = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!form || form.tagName !== "FORM" || form.dataset.renewed) return;
    form.dataset.renewed = "1";
    event.detail.shouldSwap = false;
    var button = submitters.get(form);
    // Once htmx has finished with this answer (and enabled the buttons again), tap again.
    form.addEventListener("htmx:afterRequest", function () {
      setTimeout(function () {
        if (button) button.click(); else window.htmx.trigger(form, "submit");
      }, 0);
    }, { once: true });
  });

  // --- a table pushed by the server was rendered once for every phone: its plain forms take this
  // page's CSRF token, and the result to share its links whole, on this phone's address ---
  function completePushed() {
    var token = pageToken();
    document.querySelectorAll("input[data-csrf-from-page]").forEach(function (input) { input.value = token; });
    document.querySelectorAll("textarea[data-link-from-page]").forEach(function (box) {
      box.value = box.value.replace(/(^|\s)(\/w\/[A-Za-z0-9_-]+\/)/g, "$1" + window.location.origin + "$2");
      box.removeAttribute("data-link-from-page");
    });
  }
  document.addEventListener("lasttrick:table", completePushed);
  document.addEventListener("htmx:afterSettle", completePushed);

  // --- a tapped name opens its answers: one at a time, scrolled so that they are on screen ---
  document.addEventListener("toggle", function (event) {
    var panel = event.target;
    if (!panel.matches || !panel.matches("details.ask") || !panel.open) return;
    document.querySelectorAll("details.ask[open]").forEach(function (other) {
      if (other !== panel) other.open = false;
    });
    // (measured on the answers as shown: a button inside a closed answer that asks more has no box)
    var answers = panel.querySelector(".answers");
    var below = function () { return answers && answers.getBoundingClientRect().bottom > window.innerHeight; };
    if (panel.getBoundingClientRect().top < 0 || below()) panel.scrollIntoView({ block: "start" });
    if (below()) answers.scrollIntoView({ block: "end" });
  }, true);

  // An answer that asks more (Cat Tê's sweep) opens its question under it, and Undo or handing out
  // chips open what they will do: their confirming button on screen too.
  document.addEventListener("toggle", function (event) {
    var more = event.target;
    if (!more.matches || !more.matches("details.more, details.undo, details.reissue") || !more.open) return;
    var record = more.querySelector("button");
    if (record && record.getBoundingClientRect().bottom > window.innerHeight) record.scrollIntoView({ block: "end" });
  }, true);

  // Escape closes the panel the focus is in (a name's answers, Undo's question), back on its summary.
  document.addEventListener("keydown", function (event) {
    var open = event.key === "Escape" && event.target.closest && event.target.closest("details[open]");
    if (!open) return;
    open.open = false;
    var summary = open.querySelector("summary");
    if (summary) summary.focus();
  });

  // Fresh table (an answer or a poll): whatever the connection warning said is out of date.
  document.addEventListener("htmx:afterSwap", function (event) {
    var notice = document.getElementById("notice");
    if (notice && event.detail.target && event.detail.target.id === "table") notice.replaceChildren();
  });

  // --- keep the screen awake while a sitting is open, with a toggle. The Screen Wake Lock API where the
  // phone has it; where not (a plain-HTTP address is no secure context) NoSleep.js, loaded only then
  // (static/vendor/nosleep): a tiny looping video with a silent sound track, which a phone plays only after
  // a tap, so the first tap on the page starts it (muted, it would let chromium and Safari sleep) ---
  var native = "wakeLock" in navigator;
  var lock = null, video = null, loading = false;
  var wanted = localStorage.getItem("lasttrick-wake") !== "off";
  function wakeButton() {
    return document.querySelector("[data-wake]");
  }
  // On only once it is: the video waits for the page's first tap, and until then the toggle says so.
  function isOn() {
    return wanted && (native || Boolean(video && video.isEnabled));
  }
  function showWake() {
    var button = wakeButton();
    if (!button || !(native || video)) return;
    button.hidden = false;
    button.setAttribute("aria-pressed", isOn() ? "true" : "false");
    button.textContent = (isOn() ? body.dataset.wakeOn : body.dataset.wakeOff) || "";
  }
  function loadVideo() {
    var source = body.dataset.wakeVideo;
    if (native || video || loading || !source || !wakeButton()) return;
    loading = true;
    var script = document.createElement("script");
    script.src = source;
    script.addEventListener("load", function () {
      video = new window.NoSleep();
      showWake();
    });
    document.head.appendChild(script);
  }
  // `tapped`: called on a tap, which lets the video start; otherwise only once the page has had a tap.
  function acquire(tapped) {
    if (!wanted || !wakeButton() || document.visibilityState !== "visible") return;
    if (native && !lock) {
      navigator.wakeLock.request("screen").then(function (sentinel) {
        lock = sentinel;
        lock.addEventListener("release", function () { lock = null; });
      }).catch(function () {});
    }
    var activated = !navigator.userActivation || navigator.userActivation.hasBeenActive;
    if (video && (tapped || activated)) video.enable().then(showWake).catch(function () {});  // refused: the next tap
  }
  function release() {
    if (lock) lock.release();
    if (video) video.disable();
  }
  document.addEventListener("DOMContentLoaded", function () { loadVideo(); showWake(); acquire(false); });
  document.addEventListener("click", function (event) {
    if (!event.target.closest("[data-wake]")) return acquire(true);
    if (wanted && !isOn()) return acquire(true);  // "tap to keep it on": this tap starts the video
    wanted = !wanted;
    localStorage.setItem("lasttrick-wake", wanted ? "on" : "off");
    if (wanted) acquire(true); else release();
    showWake();
  });
  // Hidden, the video would go on playing (and holding the phone's sound); the wake lock goes by itself.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") acquire(false); else if (video) video.disable();
  });
  // Put away (another page opened over it), the page holds no wake lock, which would keep it out of the
  // back/forward cache; shown again from it (Back), the screen is kept awake again.
  window.addEventListener("pagehide", release);
  window.addEventListener("pageshow", function (event) { if (event.persisted) acquire(false); });
  // The match ended (its region came back without the toggle): let the screen sleep again.
  document.addEventListener("htmx:afterSettle", function () {
    if (!wakeButton()) return release();
    loadVideo();
    showWake();
    acquire(false);
  });

  // --- copy and share the match link and the result. Copy: the Clipboard API where the phone has it,
  // else (a plain-HTTP address) a selected text box out of sight and the browser's copy command ---
  function copyText(text) {
    if (navigator.clipboard) return navigator.clipboard.writeText(text);
    var box = document.createElement("textarea"), focused = document.activeElement, copied = false;
    box.value = text;
    box.readOnly = true;  // no keyboard comes up
    box.className = "copy-source";
    box.setAttribute("aria-hidden", "true");
    body.appendChild(box);
    box.focus({ preventScroll: true });
    box.select();
    box.setSelectionRange(0, text.length);
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    box.remove();
    if (focused && focused.focus) focused.focus({ preventScroll: true });
    return copied ? Promise.resolve() : Promise.reject(new Error("not copied"));
  }
  function offer() {
    document.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = false; });
    document.querySelectorAll("[data-share]").forEach(function (button) {
      if (navigator.share) button.hidden = false;
    });
    // The result at the match end: one button (share sheet or copy) instead of the text box.
    document.querySelectorAll("[data-share-result][hidden]").forEach(function (button) {
      if (!navigator.share) button.textContent = button.dataset.copyWords;
      button.hidden = false;
      var box = button.closest(".share-result").querySelector("[data-result-box]");
      if (box) box.hidden = true;
    });
  }
  document.addEventListener("DOMContentLoaded", offer);
  document.addEventListener("htmx:afterSettle", offer); // the match ended on a tap: the standings came by htmx
  // The share panel's body (links, QR code, who this phone is) comes each time the panel is opened: who sits
  // at the table may have changed since. With no network, the panel says so; opened again, it tries again.
  document.addEventListener("toggle", function (event) {
    var panel = event.target, body = panel.querySelector && panel.querySelector(".share-body");
    if (!panel.open || !panel.dataset || !panel.dataset.panel || !body || !window.htmx) return;
    if (!navigator.onLine) {
      var note = document.createElement("p");
      note.className = "share-body hint";
      note.textContent = panel.dataset.offline || "";
      body.replaceWith(note);
      return;
    }
    window.htmx.ajax("GET", panel.dataset.panel, { source: body, target: body, swap: "outerHTML" });
  }, true); // (toggle does not bubble)
  // A link in a read-only box: one tap selects all of it, ready to copy by hand.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[readonly]")) event.target.select();
  });
  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var field = document.querySelector(copy.dataset.copy);
      copyText(field.value).then(function () {
        copy.textContent = copy.dataset.done;
      }, function () {
        field.focus();  // not copied: the link selected, to copy by hand
      });
    }
    var share = event.target.closest("[data-share]");
    if (share) {
      navigator.share({ title: share.dataset.shareTitle, url: share.dataset.share }).catch(function () {});
    }
    var result = event.target.closest("[data-share-result]");
    if (result) {
      var text = document.querySelector(result.dataset.shareResult);
      if (navigator.share) {
        navigator.share({ title: result.dataset.shareTitle, text: text.value }).catch(function () {});
        return;
      }
      copyText(text.value).then(function () {
        result.textContent = result.dataset.done;
      }, function () {  // not copied: the text box again, its text selected, to copy by hand
        result.closest(".share-result").querySelector("[data-result-box]").hidden = false;
        text.select();
      });
    }
  });

  // --- a refusal of a form posted from another page (End match, rematch) shows the table at that page's
  // address: the address bar says the table's, so that Reload shows the table, not the question again ---
  document.addEventListener("DOMContentLoaded", function () {
    var address = document.body.dataset.address;
    if (address && window.location.pathname !== address) window.history.replaceState(window.history.state, "", address);
  });

  // --- a plain-HTTP address (`make run` on a table's Wi-Fi) is no secure context: no service worker keeps
  // the table for a reload with no network. Said once on this phone, until it is seen ---
  document.addEventListener("DOMContentLoaded", function () {
    var note = document.getElementById("plain-http");
    if (note && !window.isSecureContext && !localStorage.getItem("lasttrick-plain-http-seen")) note.hidden = false;
  });
  document.addEventListener("click", function (event) {
    var note = event.target.closest("#plain-http");
    if (!note || !event.target.closest("button")) return;
    localStorage.setItem("lasttrick-plain-http-seen", "1");
    note.hidden = true;
  });
})();

// --- the phone's time zone, for the forms that start a match or make a group: the new sitting keeps
// it, so its times show on the table's own clock whoever looks (left empty: the server's zone) ---
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    zone = "";
  }
  function fill(root) {
    if (!zone || !root || !root.querySelectorAll) return;
    root.querySelectorAll("input[data-time-zone]").forEach(function (input) {
      input.value = zone;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { fill(document); });
  document.addEventListener("htmx:load", function (event) { fill(event.target); }); // a form swapped in
  document.addEventListener("submit", function (event) { fill(event.target); }, true); // before htmx reads it
})();

// --- a change of an earlier hand's money shows on every phone until this phone says it saw it: kept
// here (the line comes in the table every phone is pushed); a phone without JavaScript posts it ---
(function () {
  "use strict";
  var KEY = "lasttrick-seen-changes";
  function seen() {
    try {
      return JSON.parse(localStorage.getItem(KEY) || "[]");
    } catch (error) {
      return [];
    }
  }
  function hide() {
    var said = seen();
    var told = (document.body.getAttribute("data-seen-changes") || "").split(" ").filter(function (pk) {
      return pk && said.indexOf(pk) < 0;
    });
    if (told.length) {  // seen, or made, on this phone without JavaScript's say: the server kept it
      said = said.concat(told).slice(-50);
      try { localStorage.setItem(KEY, JSON.stringify(said)); } catch (error) { /* private mode */ }
    }
    document.querySelectorAll("[data-change]").forEach(function (line) {
      if (said.indexOf(line.getAttribute("data-change")) >= 0) line.remove();
    });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || !form.matches || !form.matches("form[data-seen]")) return;
    event.preventDefault();
    event.stopPropagation();
    var line = form.closest("[data-change]");
    var said = seen().concat([line.getAttribute("data-change")]).slice(-50);
    try { localStorage.setItem(KEY, JSON.stringify(said)); } catch (error) { /* private mode: hidden for now */ }
    line.remove();
  }, true);
  document.addEventListener("DOMContentLoaded", hide);
  document.addEventListener("htmx:afterSettle", hide);
  document.addEventListener("lasttrick:table", hide);
})();

// --- A plain form posted with no network would leave the app for the browser's error page: said here
// instead, and the form stays as it was (the table's own forms wait offline: offline.js) ---
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (navigator.onLine !== false || !form || !form.matches || event.defaultPrevented) return;
    if (!form.matches("form[method=post]") || form.hasAttribute("hx-post") || form.closest("#table")) return;
    event.preventDefault();
    var text = document.body.dataset.failed || "";
    var notice = document.getElementById("notice");
    if (notice) {
      var message = document.createElement("p");
      message.className = "notice error";
      message.textContent = text;
      notice.replaceChildren(message);
    }
    var beside = form.querySelector(".offline-said") || document.createElement("p");  // where the tap was
    beside.className = "field-error offline-said";
    beside.textContent = text;
    form.appendChild(beside);
  });
})();
