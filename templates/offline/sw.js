// Last Trick's service worker (served by matches/web/views/offline.py, version {{ version }}).
// Keeps the static files of this deploy and, network first, the last copy of each match table
// this phone showed, so that a table opens with no network (until its link answers 404 or 410); other
// pages get a small offline page.
"use strict";
var VERSION = "{{ version }}";
var STATIC = "lasttrick-static-" + VERSION;
var PAGES = "lasttrick-pages";  // shared with offline.js, which stores the table after each change
var KEPT = {{ urls|safe }};
var OFFLINE = "/offline/";
var TABLE = /^\/[sw]\/[A-Za-z0-9_-]+\/$/;

// The page for a page never opened here, in the phone's language (the request carries its cookie).
// The language last said wins: an answer for the language before a change, come late, is not kept.
var language = "";
function keepOfflinePage(said) {
  language = said || language;
  return caches.open(PAGES).then(function (cache) {
    return cache.match(OFFLINE).then(function (kept) {
      if (kept && (!language || kept.headers.get("Content-Language") === language)) return;
      return fetch(OFFLINE, { credentials: "same-origin" }).then(function (response) {
        var late = language && response.headers.get("Content-Language") !== language;
        if (response.ok && !late) return cache.put(OFFLINE, response);
      });
    });
  }).catch(function () {});
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(STATIC).then(function (cache) {
    return cache.addAll(KEPT);
  }).then(function () {
    return keepOfflinePage("");
  }).then(function () { return self.skipWaiting(); }));
});

// offline.js says the language of each page it loads: the offline page follows a change of language.
self.addEventListener("message", function (event) {
  if (event.data && event.data.language) event.waitUntil(keepOfflinePage(event.data.language));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("lasttrick-static-") === 0 && name !== STATIC;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

// A page kept before a deploy names the old hashed files: serve this deploy's file of that name.
function plainName(path) {
  return path.replace(/\.[0-9a-f]{12}(\.[a-z]+)$/, "$1");
}
function fromStatic(request) {
  var path = new URL(request.url).pathname;
  return caches.open(STATIC).then(function (cache) {
    return cache.match(request).then(function (hit) {
      if (hit) return hit;
      return fetch(request).catch(function (error) {
        var same = KEPT.filter(function (url) { return plainName(url) === plainName(path); })[0];
        if (!same) throw error;
        return cache.match(same);
      });
    });
  });
}

function page(request) {
  var url = new URL(request.url);
  var key = url.origin + url.pathname;
  var table = TABLE.test(url.pathname);
  return fetch(request).then(function (response) {
    // Its links were made new (a link leaked) or it is gone: no copy of the old table, its names, its old link.
    if (table && (response.status === 404 || response.status === 410)) {
      return caches.open(PAGES).then(function (cache) {
        return cache.delete(key);
      }).catch(function () {}).then(function () { return response; });
    }
    if (table && response.ok) {  // marked as a copy: offline.js then knows it is not a server answer
      response.clone().text().then(function (html) {
        var copy = html.replace("<head>", '<head>\n  <meta name="offline-copy" content="">');
        return caches.open(PAGES).then(function (cache) {
          return cache.put(key, new Response(copy, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
        });
      }).catch(function () {});
    }
    return response;
  }).catch(function () {
    return caches.open(PAGES).then(function (cache) {
      return (table ? cache.match(key) : Promise.resolve(null)).then(function (hit) {
        return hit || cache.match(OFFLINE);
      });
    }).then(function (hit) {
      return hit || new Response("", { status: 503, statusText: "Offline" });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (KEPT.indexOf(url.pathname) >= 0 || /^\/static\//.test(url.pathname)) {
    event.respondWith(fromStatic(request));
  } else if (/^\/manifest\.[a-z-]+\.webmanifest$/.test(url.pathname)) {
    event.respondWith(fetch(request).then(function (response) {
      var copy = response.clone();
      if (response.ok) caches.open(PAGES).then(function (cache) { return cache.put(request, copy); });
      return response;
    }).catch(function () {
      return caches.match(request).then(function (hit) { return hit || Response.error(); });
    }));
  }
});
