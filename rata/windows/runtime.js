/*
 * rata frontend runtime: what an app's page calls to reach its Python commands.
 *
 *   rata.invoke("customers_store", {name: "Ada", email: "ada@example.com"})
 *     -> Promise: resolves with the command's JSON result; rejects with an Error that has
 *        .code ("validation", "forbidden", "unknown_command", "invalid_request", "error",
 *        "internal"), .fields ({field: [messages]} for validation errors) and maybe .hint
 *   rata.live("customers_index", {search: "ada"}, function (rows) {...}, onError?)
 *     -> unsubscribe(); the callback gets the result now and again each time the app's live
 *        registry says the data it read may have changed (a write from any window or agent)
 *   rata.on("rata:mcp", function (payload) {...}) -> unsubscribe(); messages of an app channel
 *   rata.window -> this window's label ("main", ...)
 *
 * Injected at the start of every document of every window, before the page's own scripts.
 * Plain ES5, no dependencies, ASCII only (pywebview's GTK backend cuts a script at its first
 * non-ASCII character). Everything rides on two globals every window backend provides:
 * the page sends with window.__rata_post(text); the app delivers with window.__rata_receive(text).
 *
 * The protocol: one JSON object per message. "doc" names the document (a random id made
 * when this runtime starts), so the app can drop a document's subscriptions when it goes and
 * the page ignores replies meant for an earlier document. "id" counts from 1 per document.
 *
 *   page -> app
 *     {"t":"hello",  "doc":D, "late":bool}           this document started; late: the page's own
 *                                                      scripts ran before the runtime did
 *     {"t":"invoke", "doc":D, "id":N, "command":C, "args":{...}}
 *     {"t":"live",   "doc":D, "id":N, "command":C, "args":{...}}
 *     {"t":"unlive", "doc":D, "id":N}
 *     {"t":"on",     "doc":D, "id":N, "channel":CH}
 *     {"t":"off",    "doc":D, "id":N}
 *     {"t":"bye",    "doc":D}                         the document is going away
 *   app -> page
 *     {"t":"reply",  "doc":D, "id":N, "ok":true, "value":V}
 *     {"t":"reply",  "doc":D, "id":N, "ok":false, "error":{"code":..,"message":..,"hint":..,"fields":{..}}}
 *     {"t":"live",   "doc":D, "id":N, "ok":true, "value":V}      (or ok:false with "error")
 *     {"t":"channel","doc":D, "id":N, "payload":P}
 *     {"t":"reload", "doc":D}                         load the page again (after a late start)
 *
 * Dev mode: when window.__rata_dev exists (the dev page script), live queries are reported to
 * it (id = noteLive(command, args), later dropLive(id)) so a snapshot can say what the page is
 * showing. rata._inflight counts commands and first live results still awaited, for settle
 * checks.
 */
(function () {
  "use strict";
  var w = window;
  if (w.rata && w.rata.__doc) {
    return; /* already running in this document */
  }
  var LABEL = /*RATA_WINDOW*/"main";
  var doc = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  var nextId = 1;
  var pending = {};
  var lives = {};
  var channels = {};
  var inflight = 0;
  var outbox = [];
  var flushTimer = null;

  function dev(name, a, b) {
    var d = w.__rata_dev;
    if (d && typeof d[name] === "function") {
      try {
        return d[name](a, b);
      } catch (e) {
        /* the dev script's trouble is not the page's */
      }
    }
    return undefined;
  }

  function flush() {
    flushTimer = null;
    while (outbox.length && typeof w.__rata_post === "function") {
      w.__rata_post(outbox.shift());
    }
    if (outbox.length) {
      flushLater();
    }
  }

  function flushLater() {
    if (flushTimer === null) {
      flushTimer = setTimeout(flush, 20);
    }
  }

  function send(message) {
    message.doc = doc;
    outbox.push(JSON.stringify(message));
    if (typeof w.__rata_post === "function") {
      flush(); /* the backend's bridge may arrive after us; until then messages wait in order */
    } else {
      flushLater();
    }
  }

  function makeError(info) {
    info = info || {};
    var error = new Error(info.message || "the command failed");
    error.code = info.code || "error";
    error.fields = info.fields || {};
    if (info.hint) {
      error.hint = info.hint;
    }
    return error;
  }

  function report(error) {
    /* a page callback that throws must not stop the messages after it */
    setTimeout(function () {
      throw error;
    }, 0);
  }

  function safeCall(fn, value) {
    try {
      fn(value);
    } catch (e) {
      report(e);
    }
  }

  function checkArgs(command, args, what) {
    if (typeof command !== "string" || !command) {
      return makeError({code: "invalid_request", message: what + " needs a command name (a string)"});
    }
    if (args !== undefined && args !== null && (typeof args !== "object" || Object.prototype.toString.call(args) !== "[object Object]")) {
      return makeError({code: "invalid_request", message: what + "(" + JSON.stringify(command) + ", args): args must be an object of named arguments"});
    }
    return null;
  }

  function invoke(command, args) {
    return new Promise(function (resolve, reject) {
      var problem = checkArgs(command, args, "rata.invoke");
      if (problem) {
        reject(problem);
        return;
      }
      var id = nextId++;
      pending[id] = {resolve: resolve, reject: reject};
      inflight++;
      send({t: "invoke", id: id, command: command, args: args || {}});
    });
  }

  function live(command, args, callback, onError) {
    var problem = checkArgs(command, args, "rata.live");
    if (!problem && typeof callback !== "function") {
      problem = makeError({code: "invalid_request", message: "rata.live needs a callback function"});
    }
    if (problem) {
      throw problem;
    }
    var id = nextId++;
    var entry = {callback: callback, onError: onError, waiting: true};
    lives[id] = entry;
    inflight++;
    var devId = dev("noteLive", command, args || {});
    send({t: "live", id: id, command: command, args: args || {}});
    return function unsubscribe() {
      if (lives[id] !== entry) {
        return;
      }
      delete lives[id];
      if (entry.waiting) {
        inflight--;
      }
      if (devId !== undefined) {
        dev("dropLive", devId);
      }
      send({t: "unlive", id: id});
    };
  }

  function on(channel, callback) {
    if (typeof channel !== "string" || !channel || typeof callback !== "function") {
      throw makeError({code: "invalid_request", message: "rata.on needs a channel name and a callback function"});
    }
    var id = nextId++;
    var entry = {callback: callback};
    channels[id] = entry;
    send({t: "on", id: id, channel: channel});
    return function unsubscribe() {
      if (channels[id] !== entry) {
        return;
      }
      delete channels[id];
      send({t: "off", id: id});
    };
  }

  function receive(text) {
    var message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return;
    }
    if (!message || message.doc !== doc) {
      return; /* meant for an earlier document of this window */
    }
    var t = message.t;
    if (t === "reply") {
      var call = pending[message.id];
      if (!call) {
        return;
      }
      delete pending[message.id];
      inflight--;
      if (message.ok) {
        call.resolve(message.value);
      } else {
        call.reject(makeError(message.error));
      }
    } else if (t === "live") {
      var entry = lives[message.id];
      if (!entry) {
        return;
      }
      if (entry.waiting) {
        entry.waiting = false;
        inflight--;
      }
      if (message.ok) {
        safeCall(entry.callback, message.value);
      } else if (typeof entry.onError === "function") {
        safeCall(entry.onError, makeError(message.error));
      } else {
        report(makeError(message.error));
      }
    } else if (t === "channel") {
      var listener = channels[message.id];
      if (listener) {
        safeCall(listener.callback, message.payload);
      }
    } else if (t === "reload") {
      w.location.reload();
    }
  }

  function startedLate() {
    var scripts = document.getElementsByTagName("script");
    for (var i = 0; i < scripts.length; i++) {
      if (scripts[i] !== document.currentScript && !scripts[i].hasAttribute("data-rata")) {
        return true;
      }
    }
    return false;
  }

  var api = {
    invoke: invoke,
    live: live,
    on: on,
    window: LABEL,
    __doc: doc
  };
  Object.defineProperty(api, "_inflight", {
    get: function () {
      return inflight;
    }
  });
  Object.defineProperty(w, "__rata_receive", {value: receive, configurable: true, writable: true});
  Object.defineProperty(w, "rata", {value: api, configurable: true, writable: false, enumerable: false});
  w.addEventListener("pagehide", function () {
    send({t: "bye"});
  });
  w.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      w.location.reload(); /* back from the page cache: the app has let this document go */
    }
  });
  send({t: "hello", late: startedLate()});
})();
