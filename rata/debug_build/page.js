/*
 * rata dev page script: eyes and hands for a coding agent in the app's own windows.
 *
 * Installed in dev mode only (`rata dev`), at the start of every document, before the
 * page's own scripts. Never in a normal start. Plain ES2019, no dependencies, ASCII only
 * (pywebview's GTK backend cuts a script at its first non-ASCII character), so every
 * non-ASCII character below is written as a \u escape.
 *
 * Everything lives under one non-enumerable global, window.__rata_dev. Every function is
 * synchronous and returns plain JSON, so any webview that can evaluate a script and read
 * back JSON can drive it; waiting happens in the host, by polling settleState().
 *
 *   __rata_dev.snapshot({maxLines: 1000, maxText: 200, refBase: N, root: "eN", fromLine: 0, moreLine: true})
 *       -> {doc, url, title, text, lines, fromLine, totalLines, truncatedLines, nextRef,
 *           viewport: {w, h, dpr}, showing: [...], dialogs: N}
 *       The page as an accessibility tree, one node a line (roles, names, states), with
 *       [ref=eN] on what an agent can point at. Refs are numbered from refBase, which the
 *       host keeps per window (the largest nextRef it has seen), so a ref is never given
 *       to two elements in one window, even across navigations. Only refs of the latest
 *       snapshot of this document resolve. `root` limits the snapshot to one ref's subtree.
 *       `fromLine` leaves out the first fromLine lines (rendered to count them and number
 *       their refs, not returned): the text holds lines fromLine+1 to maxLines, so a host
 *       gets a long page part by part, asking for no more than it can show. Refs of the
 *       earlier parts still resolve. totalLines counts every line, the ones past maxLines
 *       estimated (their names are not computed); truncatedLines is how many of them were
 *       not returned, and the text ends with a line saying so unless moreLine is false.
 *
 *   __rata_dev.act({kind, ref, text, key, values, url, submit})
 *       kind: "click" | "type" | "press" | "select" | "navigate"
 *       -> {ok: true, kind, target, did?, warning?, dialogs: [...]}
 *       or {ok: false, error} for a stale ref, a disabled or covered element, bad input.
 *
 *   __rata_dev.settleState()
 *       -> {doc, url, readyState, msSinceMutation, pendingFetch, dialogSeq}
 *       The host polls this after an action: the page is settled when nothing is in
 *       flight and the DOM has been quiet for a while.
 *
 *   __rata_dev.inspect(element) -> {role, name}
 *       One element's role and accessible name, as the snapshot computes them (for tests
 *       that compare with the browser's own accessibility tree).
 *
 *   __rata_dev.dialogs(sinceSeq) -> [{seq, kind, message, answer}]
 *       alert/confirm/prompt never block: they are recorded and answered at once
 *       (alert: OK, confirm: OK, prompt: its default). setDialogAnswers({confirm: false,
 *       prompt: "text"}) changes the answers.
 *
 * The live-query hook, for the frontend runtime (rata/windows/runtime.js):
 *
 *   var id = window.__rata_dev && window.__rata_dev.noteLive(command, args);
 *       when the page starts a live query (rata.live); returns an id (a number).
 *   window.__rata_dev && window.__rata_dev.dropLive(id);
 *       when it stops.
 *
 *   snapshot().showing lists the live queries, newest first, at most 16, each cut at 200
 *   characters: `customers_index {"search":"ad"}`. Look the hook up at call time
 *   (window.__rata_dev may be installed after the runtime in some webviews).
 */
(function () {
  "use strict";
  if (Object.prototype.hasOwnProperty.call(window, "__rata_dev") || window !== window.top) return;

  var ELLIPSIS = "\u2026";
  var MASK = "\u2022\u2022\u2022\u2022";
  var now = function () { return performance.now(); };
  var docId = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);

  /* ---------------------------------------------------------------- settle state */

  var lastMutation = now();
  var pendingFetch = 0;
  new MutationObserver(function () { lastMutation = now(); })
    .observe(document, {childList: true, subtree: true, attributes: true, characterData: true});

  if (typeof window.fetch === "function") {
    var realFetch = window.fetch;
    window.fetch = function () {
      pendingFetch++;
      var done = function () { pendingFetch = Math.max(0, pendingFetch - 1); };
      try {
        var promise = realFetch.apply(this, arguments);
        promise.then(done, done);
        return promise;
      } catch (error) { done(); throw error; }
    };
  }
  var realSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    var xhr = this;
    pendingFetch++;
    xhr.addEventListener("loadend", function () { pendingFetch = Math.max(0, pendingFetch - 1); }, {once: true});
    try { return realSend.apply(xhr, arguments); } catch (error) { pendingFetch = Math.max(0, pendingFetch - 1); throw error; }
  };

  function settleState() {
    return {doc: docId, url: location.href, readyState: document.readyState,
      msSinceMutation: Math.round(now() - lastMutation), pendingFetch: pendingFetch, dialogSeq: dialogSeq};
  }

  /* ---------------------------------------------------------------- dialogs */

  var dialogLog = [];
  var dialogSeq = 0;
  var answers = {confirm: true, prompt: null};
  function noteDialog(kind, message, answer) {
    dialogSeq++;
    dialogLog.push({seq: dialogSeq, kind: kind, message: cut(String(message === undefined ? "" : message), 200), answer: answer});
    if (dialogLog.length > 20) dialogLog.shift();
  }
  window.alert = function (message) { noteDialog("alert", message, null); };
  window.confirm = function (message) { noteDialog("confirm", message, answers.confirm); return answers.confirm; };
  window.prompt = function (message, fallback) {
    var answer = answers.prompt !== null ? answers.prompt : (fallback === undefined ? "" : String(fallback));
    noteDialog("prompt", message, answer);
    return answer;
  };
  function dialogsSince(seq) {
    return dialogLog.filter(function (d) { return d.seq > (seq || 0); });
  }

  /* ---------------------------------------------------------------- live queries */

  var live = [];
  var liveSeq = 0;
  function noteLive(command, args) {
    liveSeq++;
    var text;
    try { text = String(command) + (args === undefined ? "" : " " + JSON.stringify(args)); } catch (error) { text = String(command) + " (arguments not shown)"; }
    live.push({id: liveSeq, text: cut(text, 200)});
    return liveSeq;
  }
  function dropLive(id) {
    live = live.filter(function (q) { return q.id !== id; });
  }
  function showing() {
    return live.slice(-16).reverse().map(function (q) { return q.text; });
  }

  /* ---------------------------------------------------------------- text helpers */

  function norm(text) { return String(text).replace(/[\s\u00a0]+/g, " ").trim(); }
  function cut(text, max) { return text.length > max ? text.slice(0, max) + ELLIPSIS : text; }
  function quote(text) { return JSON.stringify(text); }

  /* ---------------------------------------------------------------- the DOM as rendered */

  var SKIP_TAGS = {SCRIPT: 1, STYLE: 1, TEMPLATE: 1, NOSCRIPT: 1, HEAD: 1, META: 1, LINK: 1, TITLE: 1, BASE: 1};
  var INLINE = {inline: 1, contents: 1, "inline-block": 1, "inline-flex": 1, "inline-grid": 1, ruby: 1};

  function styleOf(el) { return el.ownerDocument.defaultView.getComputedStyle(el); }

  /* The nodes a reader meets inside el: its shadow tree if it has one, slots flattened. */
  function childNodesOf(el) {
    return specialChildren(el) || el.childNodes;
  }

  /* The children of the elements whose reading order is not their DOM children; null for the rest. */
  function specialChildren(el) {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.tagName === "SLOT" && el.assignedNodes) {
      var assigned = el.assignedNodes({flatten: true});
      return assigned.length ? assigned : el.childNodes;
    }
    if (el.tagName === "IFRAME") {
      try { return el.contentDocument && el.contentDocument.body ? [el.contentDocument.body] : []; } catch (error) { return []; }
    }
    if (el.tagName === "DETAILS" && !el.open) {
      return Array.prototype.filter.call(el.childNodes, function (n) { return n.tagName === "SUMMARY"; });
    }
    return null;
  }

  function deepActiveElement() {
    var active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return active;
  }

  /* ---------------------------------------------------------------- roles (html-aam) */

  var ARIA_ROLES = ("alert alertdialog application article banner blockquote button caption cell checkbox code columnheader " +
    "combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid " +
    "gridcell group heading img insertion link list listbox listitem log main mark marquee math menu menubar menuitem " +
    "menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup " +
    "region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript " +
    "switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem").split(" ");
  var KNOWN_ROLE = {};
  ARIA_ROLES.forEach(function (r) { KNOWN_ROLE[r] = 1; });

  var TAG_ROLE = {ADDRESS: "group", ARTICLE: "article", ASIDE: "complementary", BLOCKQUOTE: "blockquote", BUTTON: "button", CAPTION: "caption",
    CODE: "code", DATALIST: "listbox", DD: "definition", DEL: "deletion", DETAILS: "group", DFN: "term", DIALOG: "dialog",
    DT: "term", FIELDSET: "group", FIGURE: "figure", H1: "heading", H2: "heading", H3: "heading", H4: "heading", H5: "heading",
    H6: "heading", HR: "separator", IFRAME: "iframe", INS: "insertion", LI: "listitem", MAIN: "main", MARK: "mark", MATH: "math",
    MENU: "list", METER: "meter", NAV: "navigation", OL: "list", OPTGROUP: "group", OPTION: "option", OUTPUT: "status",
    P: "paragraph", PROGRESS: "progressbar", SEARCH: "search", SUMMARY: "button", TABLE: "table",
    TEXTAREA: "textbox", TIME: "time", TR: "row", UL: "list"};
  var INPUT_ROLE = {button: "button", submit: "button", reset: "button", image: "button", file: "button", checkbox: "checkbox",
    radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", hidden: ""};
  var LANDMARK_SCOPE = "article, aside, main, nav, section, [role=article], [role=complementary], [role=main], [role=navigation], [role=region]";
  var GLOBAL_ARIA = ["aria-label", "aria-labelledby", "aria-describedby", "aria-live", "aria-owns", "aria-controls", "aria-details", "aria-keyshortcuts", "aria-roledescription"];

  function focusable(el) {
    if (el.hasAttribute("tabindex")) return true;
    if (el.isContentEditable) return true;
    switch (el.tagName) {
      case "A": case "AREA": return el.hasAttribute("href");
      case "BUTTON": case "INPUT": case "SELECT": case "TEXTAREA": return !el.disabled;
      case "SUMMARY": case "IFRAME": return true;
    }
    return false;
  }

  function implicitRole(el) {
    var tag = el.tagName;
    if (tag === "INPUT") {
      var type = (el.getAttribute("type") || "text").toLowerCase();
      if (type in INPUT_ROLE) return INPUT_ROLE[type];
      if (el.getAttribute("list")) return "combobox";
      return "textbox";
    }
    if (tag === "A" || tag === "AREA") return el.hasAttribute("href") ? "link" : "";
    if (tag === "SELECT") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "IMG") {
      if (el.getAttribute("alt") === "" && !el.hasAttribute("title") && !hasGlobalAria(el)) return "none";
      return "img";
    }
    if (tag === "SVG" || tag === "svg") return "img";
    if (tag === "HEADER" || tag === "FOOTER") {
      var scoped = el.parentElement && el.parentElement.closest(LANDMARK_SCOPE);
      return scoped ? "" : (tag === "HEADER" ? "banner" : "contentinfo");
    }
    if (tag === "FORM") return hasOwnName(el) ? "form" : "";
    if (tag === "SECTION") return hasOwnName(el) ? "region" : "";
    if (tag === "TD") return gridLike(el) ? "gridcell" : "cell";
    if (tag === "TH") {
      var scope = (el.getAttribute("scope") || "").toLowerCase();
      if (scope === "row" || scope === "rowgroup") return "rowheader";
      if (scope === "col" || scope === "colgroup") return "columnheader";
      var row = el.parentElement;
      if (row && row.querySelector(":scope > td") && !(row.parentElement && row.parentElement.tagName === "THEAD")) return "rowheader";
      return "columnheader";
    }
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return "textbox";
    return TAG_ROLE[tag] || "";
  }

  var gridCache = null;  // row group -> in a grid?, during one snapshot: one lookup per table section, not per cell

  function gridLike(el) {
    var section = el.parentElement && el.parentElement.parentElement;
    if (gridCache && section && gridCache.has(section)) return gridCache.get(section);
    var table = el.closest("table, [role=grid], [role=treegrid], [role=table]");
    var role = table && table.getAttribute("role");
    var grid = role === "grid" || role === "treegrid";
    if (gridCache && section) gridCache.set(section, grid);
    return grid;
  }

  function hasGlobalAria(el) {
    for (var i = 0; i < GLOBAL_ARIA.length; i++) if (el.hasAttribute(GLOBAL_ARIA[i])) return true;
    return false;
  }

  function hasOwnName(el) {
    return !!(norm(el.getAttribute("aria-label") || "") || el.getAttribute("aria-labelledby") || norm(el.getAttribute("title") || ""));
  }

  function roleOf(el) {
    var explicit = (el.getAttribute("role") || "").trim().toLowerCase().split(/\s+/);
    for (var i = 0; i < explicit.length; i++) {
      var r = explicit[i];
      if (!KNOWN_ROLE[r]) continue;
      if (r === "none" || r === "presentation") {
        if (focusable(el) || hasGlobalAria(el)) break;  // a presentational role cannot hide something you can use
        return "none";
      }
      return r;
    }
    return implicitRole(el);
  }

  /* ---------------------------------------------------------------- names (accname 1.2) */

  var NAME_FROM_CONTENT = {button: 1, cell: 1, checkbox: 1, columnheader: 1, gridcell: 1, heading: 1, link: 1, menuitem: 1,
    menuitemcheckbox: 1, menuitemradio: 1, option: 1, radio: 1, rowheader: 1, switch: 1, tab: 1, tooltip: 1, treeitem: 1,
    term: 1};
  var NO_NAME = {generic: 1, none: 1, presentation: 1, paragraph: 1, caption: 1, code: 1, deletion: 1, emphasis: 1,
    insertion: 1, mark: 1, strong: 1, subscript: 1, superscript: 1, time: 1, definition: 1};
  var TEXT_FIELDS = {textbox: 1, searchbox: 1, combobox: 1, spinbutton: 1};

  function secretField(el) {
    if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return false;
    if ((el.getAttribute("type") || "").toLowerCase() === "password") return true;
    var auto = (el.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/);
    for (var i = 0; i < auto.length; i++) {
      var token = auto[i];
      if (token === "current-password" || token === "new-password" || token === "one-time-code" || token.indexOf("cc-") === 0) return true;
    }
    return false;
  }

  function hiddenForName(el) {
    if (el.hidden || el.getAttribute("aria-hidden") === "true" || SKIP_TAGS[el.tagName]) return true;
    var style = styleOf(el);
    return style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse";
  }

  function byIds(el, attr) {
    var ids = (el.getAttribute(attr) || "").trim().split(/\s+/);
    var root = el.getRootNode ? el.getRootNode() : document;
    var found = [];
    for (var i = 0; i < ids.length; i++) {
      if (!ids[i]) continue;
      var target = root.getElementById ? root.getElementById(ids[i]) : document.getElementById(ids[i]);
      if (target) found.push(target);
    }
    return found;
  }

  /* The value a form control contributes when it sits inside another element's label. */
  function controlValue(el, role) {
    if (secretField(el)) return el.value ? MASK : "";
    if (role === "textbox" || role === "searchbox") return el.value !== undefined ? el.value : norm(el.textContent);
    if (el.tagName === "SELECT") {
      var selected = el.selectedOptions && el.selectedOptions[0];
      return selected ? norm(selected.label || selected.textContent) : "";
    }
    if (role === "combobox" || role === "listbox") {
      var chosen = el.querySelector("[aria-selected=true]");
      return chosen ? norm(chosen.textContent) : (el.value !== undefined ? el.value : "");
    }
    if (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "meter" || role === "scrollbar") {
      return el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || (el.value !== undefined ? String(el.value) : "");
    }
    return null;
  }

  function nativeName(el, role, ctx) {
    var tag = el.tagName;
    if (tag === "INPUT") {
      var type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "button" || type === "submit" || type === "reset") {
        var labelled = labelsText(el, ctx);
        if (labelled) return labelled;
        if (el.hasAttribute("value")) return el.value;
        return type === "submit" ? "Submit" : type === "reset" ? "Reset" : "";
      }
      if (type === "image") return el.getAttribute("alt") || el.getAttribute("value") || "";
    }
    if (el.labels && el.labels.length && tag !== "BUTTON") return labelsText(el, ctx);
    if (tag === "IMG" || tag === "AREA") return el.getAttribute("alt") || "";
    if (tag === "FIELDSET") return firstChildText(el, "LEGEND", ctx);
    if (tag === "TABLE") return firstChildText(el, "CAPTION", ctx);
    if (tag === "OPTGROUP") return el.getAttribute("label") || "";
    if (tag === "OPTION" && el.hasAttribute("label")) return el.getAttribute("label");
    if (tag.toLowerCase() === "svg") {
      var title = el.querySelector(":scope > title");
      return title ? title.textContent : "";
    }
    if (tag === "BUTTON" && el.labels && el.labels.length) {
      var text = labelsText(el, ctx);
      if (text) return text;
    }
    return "";
  }

  function labelsText(el, ctx) {
    var parts = [];
    for (var i = 0; i < el.labels.length; i++) parts.push(contentText(el.labels[i], childCtx(ctx, false)));
    return norm(parts.join(" "));
  }

  function firstChildText(el, tag, ctx) {
    for (var child = el.firstElementChild; child; child = child.nextElementSibling) {
      if (child.tagName === tag) return contentText(child, childCtx(ctx, false));
    }
    return "";
  }

  function childCtx(ctx, labelledBy) {
    return {root: ctx.root, inLabelledBy: ctx.inLabelledBy || labelledBy, includeHidden: ctx.includeHidden, seen: ctx.seen};
  }

  /* The accessible name of el: aria-labelledby, aria-label, native label, content, title, placeholder. */
  function nameOf(el, role) {
    if (NO_NAME[role] && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) return "";
    return norm(computeName(el, role, {root: el, inLabelledBy: false, includeHidden: false, seen: []}));
  }

  function computeName(el, role, ctx) {
    if (ctx.seen.indexOf(el) >= 0) return "";
    ctx.seen.push(el);
    var isRoot = el === ctx.root;
    if (!ctx.inLabelledBy && el.hasAttribute("aria-labelledby")) {
      var refs = byIds(el, "aria-labelledby");
      if (refs.length) {
        var parts = refs.map(function (target) {
          if (target === el) return norm(el.getAttribute("aria-label") || "") || contentText(el, ctx);  // a node may name itself in part
          var hidden = hiddenForName(target);
          return contentTextOrName(target, {root: ctx.root, inLabelledBy: true, includeHidden: ctx.includeHidden || hidden, seen: ctx.seen});
        });
        var joined = norm(parts.join(" "));
        if (joined) return joined;
      }
    }
    if (!isRoot) {
      var value = controlValue(el, role);
      if (value !== null) return value;
    }
    var label = norm(el.getAttribute("aria-label") || "");
    if (label) return label;
    if (role !== "none" || isRoot) {
      var native = norm(nativeName(el, role, ctx));
      if (native) return native;
    }
    if (!isRoot || NAME_FROM_CONTENT[role]) {
      var content = norm(contentText(el, ctx));
      if (content) return content;
    }
    var title = norm(el.getAttribute("title") || "");
    if (title) return title;
    if (isRoot && TEXT_FIELDS[role]) return norm(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder") || "");
    return "";
  }

  function contentTextOrName(el, ctx) {
    return computeName(el, el === ctx.root ? "" : roleOf(el), ctx);
  }

  function pseudoText(el, which) {
    var content = el.ownerDocument.defaultView.getComputedStyle(el, which).content;
    if (!content || content === "none" || content === "normal") return "";
    var match = content.match(/^"((?:[^"\\]|\\.)*)"/);
    return match ? match[1].replace(/\\(.)/g, "$1") : "";
  }

  function contentText(el, ctx) {
    var parts = [pseudoText(el, "::before")];
    var nodes = childNodesOf(el);
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      if (node.nodeType === 3) { parts.push(node.data); continue; }
      if (node.nodeType !== 1) continue;
      if (node.tagName === "BR") { parts.push(" "); continue; }
      if (!ctx.includeHidden && hiddenForName(node)) continue;
      var text = computeName(node, roleOf(node), childCtx(ctx, false));
      var display = styleOf(node).display;
      parts.push(INLINE[display] ? text : " " + text + " ");
    }
    parts.push(pseudoText(el, "::after"));
    return parts.join("");
  }

  /* ---------------------------------------------------------------- states */

  var CHECKABLE = {checkbox: 1, radio: 1, "switch": 1, menuitemcheckbox: 1, menuitemradio: 1};
  var REF_ROLES = {button: 1, link: 1, textbox: 1, searchbox: 1, combobox: 1, listbox: 1, option: 1, checkbox: 1, radio: 1,
    "switch": 1, slider: 1, spinbutton: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, treeitem: 1,
    gridcell: 1, cell: 1, row: 1, columnheader: 1, rowheader: 1, heading: 1, listitem: 1, img: 1, dialog: 1, alertdialog: 1,
    status: 1, alert: 1, iframe: 1, scrollbar: 1, tabpanel: 1, menu: 1, menubar: 1, tree: 1, grid: 1, table: 1, form: 1};
  var DISABLEABLE = {button: 1, textbox: 1, searchbox: 1, combobox: 1, listbox: 1, option: 1, checkbox: 1, radio: 1,
    "switch": 1, slider: 1, spinbutton: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, treeitem: 1,
    gridcell: 1, row: 1, link: 1, group: 1, scrollbar: 1, generic: 1};

  function disabled(el, role) {
    if (el.matches(":disabled")) return true;
    if (el.getAttribute("aria-disabled") === "true") return true;
    if (!DISABLEABLE[role]) return false;
    var owner = el.parentElement && el.parentElement.closest("[aria-disabled]");
    return !!owner && owner.getAttribute("aria-disabled") === "true";
  }

  function stateFlags(el, role) {
    var flags = [];
    if (CHECKABLE[role]) {
      var checked = el.getAttribute("aria-checked");
      if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) checked = el.indeterminate ? "mixed" : String(el.checked);
      if (checked === "true") flags.push("[checked]");
      else if (checked === "mixed") flags.push("[checked=mixed]");
    }
    if (disabled(el, role)) flags.push("[disabled]");
    var expanded = el.getAttribute("aria-expanded");
    if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") expanded = String(el.parentElement.open);
    if (expanded === "true") flags.push("[expanded]");
    var selected = el.getAttribute("aria-selected");
    if (el.tagName === "OPTION") selected = String(el.selected);
    if (selected === "true") flags.push("[selected]");
    var pressed = el.getAttribute("aria-pressed");
    if (pressed === "true") flags.push("[pressed]");
    else if (pressed === "mixed") flags.push("[pressed=mixed]");
    var current = (el.getAttribute("aria-current") || "").toLowerCase();
    if (current && current !== "false") flags.push(current === "true" ? "[current]" : "[current=" + current + "]");
    var level = levelOf(el, role);
    if (level) flags.push("[level=" + level + "]");
    var invalid = (el.getAttribute("aria-invalid") || "").toLowerCase();
    if (invalid && invalid !== "false") flags.push(invalid === "true" ? "[invalid]" : "[invalid=" + invalid + "]");
    else if (el.willValidate && userInvalid(el)) flags.push("[invalid]");
    if (el.getAttribute("aria-required") === "true" || el.required) flags.push("[required]");
    if (el === focusedElement) flags.push("[focused]");
    return flags;
  }

  function userInvalid(el) {
    try { return el.matches(":user-invalid"); } catch (error) { return false; }
  }

  function levelOf(el, role) {
    var aria = parseInt(el.getAttribute("aria-level"), 10);
    if (aria > 0 && (role === "heading" || role === "listitem" || role === "row" || role === "treeitem")) return aria;
    if (role === "heading" && /^H[1-6]$/.test(el.tagName)) return parseInt(el.tagName.charAt(1), 10);
    return 0;
  }

  function valueOf(el, role) {
    if (TEXT_FIELDS[role] && el.tagName !== "SELECT") {
      if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
        if (!el.value) return "";
        return secretField(el) ? MASK : el.value;
      }
      return "";  // contenteditable: its text is printed as its content
    }
    if (role === "slider" || role === "progressbar" || role === "meter" || role === "scrollbar") {
      return el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") ||
        (el.value !== undefined && el.value !== "" ? String(el.value) : "");
    }
    return "";
  }

  /* ---------------------------------------------------------------- the tree */

  var focusedElement = null;
  var owned = null;  // elements moved elsewhere by aria-owns

  /* Items for the nodes inside `parent`: {el, role, kids} nodes, strings of text, and BREAK between blocks. */
  var BREAK = {brk: true};

  function build(parentEl, visible, out) {
    var nodes = parentEl.nodeType === 1 ? specialChildren(parentEl) : null;
    if (nodes) for (var i = 0; i < nodes.length; i++) visit(nodes[i], visible, out);
    else for (var node = parentEl.firstChild; node; node = node.nextSibling) visit(node, visible, out);
    if (parentEl.nodeType === 1 && parentEl.hasAttribute("aria-owns")) {
      byIds(parentEl, "aria-owns").forEach(function (target) {
        if (!target.contains(parentEl)) visitElement(target, out);
      });
    }
    return out;
  }

  function visit(node, visible, out) {
    if (node.nodeType === 3) {
      if (visible && node.data) out.push(node.data);
    } else if (node.nodeType === 1) {
      if (owned && owned.has(node)) return;
      if (node.tagName === "BR") { if (visible) out.push(" "); return; }
      visitElement(node, out);
    }
  }

  /* Roles whose children are presentational: their content is their name, not nodes of their own. */
  var LEAF_ROLES = {img: 1, separator: 1, progressbar: 1, meter: 1, slider: 1, scrollbar: 1};

  var CHECKS_VISIBILITY = typeof Element.prototype.checkVisibility === "function";
  var VISIBILITY_PROPERTY = {visibilityProperty: true};

  /* Shown (0), hidden with children that may show (1: visibility), or left out with its subtree (2). */
  function visibility(el) {
    // checkVisibility is several times cheaper than a computed style, which is only read when it says no.
    if (CHECKS_VISIBILITY && el.checkVisibility(VISIBILITY_PROPERTY)) return 0;
    var style = styleOf(el);
    if (style.display === "none") return 2;
    if (CHECKS_VISIBILITY && style.display !== "contents" && !el.checkVisibility()) return 2;  // content-visibility:hidden
    return style.visibility === "visible" ? 0 : 1;  // computed visibility is inherited: a child can undo a hidden parent
  }

  function visitElement(el, out) {
    if (SKIP_TAGS[el.tagName] || el.getAttribute("aria-hidden") === "true" || el.inert) return;
    var shown = visibility(el);
    if (shown === 2) return;
    var visible = shown === 0;
    var role = visible ? roleOf(el) : "";
    if (role === "" || role === "none" || role === "generic" || role === "presentation") {
      var style = styleOf(el);
      var block = !INLINE[style.display];
      if (visible && role !== "none" && interactiveGeneric(el, style)) role = "generic";
      else {
        if (block) out.push(BREAK);
        build(el, visible, out);
        if (block) out.push(BREAK);
        return;
      }
    }
    if (!visible) { build(el, visible, out); return; }
    var node = {el: el, role: role, kids: []};
    if (el.tagName === "SELECT") node.kids = selectOptions(el);
    else if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA" && !LEAF_ROLES[role]) build(el, visible, node.kids);
    out.push(node);
  }

  function selectOptions(el) {
    if (el.tagName !== "SELECT") return [];
    var items = [];
    var options = el.options;
    for (var i = 0; i < options.length; i++) {
      var option = options[i];
      if (option.hidden || styleOf(option).display === "none") continue;
      items.push({el: option, role: "option", kids: []});
    }
    return items;
  }

  function interactiveGeneric(el, style) {
    if (el.hasAttribute("onclick") || el.hasAttribute("tabindex")) return true;
    if (style.cursor === "pointer") {
      var parent = el.parentElement;
      return !parent || styleOf(parent).cursor !== "pointer";  // only the outermost of a pointer-cursor run
    }
    return false;
  }

  /* Merge text runs between breaks; drop empty ones. */
  function tidy(items) {
    var result = [];
    var text = null;
    for (var i = 0; i <= items.length; i++) {
      var item = i < items.length ? items[i] : BREAK;
      if (typeof item === "string") { text = text === null ? item : text + item; continue; }
      if (text !== null) {
        text = norm(text);
        if (text) result.push(text);
        text = null;
      }
      if (item !== BREAK) result.push(item);
    }
    return result;
  }

  /* ---------------------------------------------------------------- rendering */

  var refOf = new WeakMap();
  var latest = new Map();
  var counter = 1;

  function Renderer(maxLines, maxText, refBase, fromLine) {
    this.lines = [];
    this.count = 0;
    this.fromLine = fromLine;
    this.maxLines = maxLines;
    this.maxText = maxText;
    this.refs = new Map();
    if (refBase > counter) counter = refBase;
  }

  Renderer.prototype.emit = function (indent, text) {
    this.count++;
    if (this.count > this.fromLine && this.count <= this.maxLines) this.lines.push(indent + text);
  };

  Renderer.prototype.full = function () { return this.count >= this.maxLines; };

  Renderer.prototype.ref = function (el) {
    var ref = refOf.get(el);
    if (!ref) {
      ref = "e" + counter++;
      refOf.set(el, ref);
    }
    this.refs.set(ref, el);
    return ref;
  };

  /* Tidied items (see tidy) at one level. */
  Renderer.prototype.items = function (items, indent) {
    for (var i = 0; i < items.length; i++) {
      var item = items[i];
      if (typeof item === "string") this.emit(indent, "- text: " + cut(item, this.maxText));
      else this.node(item, indent);
    }
  };

  /* One node: its line, then its properties and children. Past the line limit it only counts. */
  Renderer.prototype.node = function (node, indent) {
    var el = node.el;
    var role = node.role;
    var counting = this.full();
    var kids = tidy(node.kids);
    var props = [];
    var name = "";
    var needName = !counting || (TEXT_FIELDS[role] && el.hasAttribute("placeholder"));
    if (needName) name = nameOf(el, role);
    if (role === "link" && el.hasAttribute("href")) props.push("- /url: " + cut(el.getAttribute("href"), this.maxText));
    if (TEXT_FIELDS[role] || role === "slider" || role === "progressbar" || role === "meter" || role === "scrollbar") {
      var value = valueOf(el, role);
      if (value) props.push("- /value: " + quote(cut(value, this.maxText)));
      var placeholder = norm(el.getAttribute("placeholder") || "");
      if (placeholder && placeholder !== name) props.push("- /placeholder: " + quote(cut(placeholder, this.maxText)));
    }
    if (counting) {
      // Without computing the name, assume content gives it, as it does unless a label or CSS says otherwise.
      var named = NAME_FROM_CONTENT[role] && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby");
      this.count += 1 + props.length;
      if (!(named && kids.length === 1 && typeof kids[0] === "string")) this.countItems(kids);
      return;
    }
    var line = "- " + role;
    if (name) line += " " + quote(cut(name, this.maxText));
    var flags = stateFlags(el, role);
    if (flags.length) line += " " + flags.join(" ");
    if (REF_ROLES[role] || role === "generic" || focusable(el)) line += " [ref=" + this.ref(el) + "]";
    if (kids.length === 1 && kids[0] === name) kids = [];  // the name says it already
    var onlyText = kids.length === 1 && typeof kids[0] === "string" && !props.length;
    if (!kids.length && !props.length) this.emit(indent, line);
    else if (onlyText) this.emit(indent, line + ": " + cut(kids[0], this.maxText));
    else {
      this.emit(indent, line + ":");
      for (var i = 0; i < props.length; i++) this.emit(indent + "  ", props[i]);
      this.items(kids, indent + "  ");
    }
  };

  Renderer.prototype.countItems = function (items) {
    for (var i = 0; i < items.length; i++) {
      var item = items[i];
      if (typeof item === "string") this.count++;
      else this.node(item, "");
    }
  };

  function snapshot(options) {
    options = options || {};
    var maxLines = options.maxLines > 0 ? options.maxLines : 1000;
    var maxText = options.maxText > 0 ? options.maxText : 200;
    var fromLine = options.fromLine > 0 ? Math.min(Math.floor(options.fromLine), maxLines) : 0;
    var renderer = new Renderer(maxLines, maxText, options.refBase || 1, fromLine);
    focusedElement = deepActiveElement();
    owned = ownedElements();
    gridCache = new Map();
    var top;
    if (options.root) {
      var found = resolve(options.root);
      if (found.error) return {ok: false, error: found.error};
      top = [];
      visitElement(found.el, top);
    } else {
      var modal = openModal();
      var body = document.body || document.documentElement;
      top = modal || !body ? [] : build(body, true, []);
      if (modal) visitElement(modal, top);
    }
    renderer.items(tidy(top), "");
    owned = null;
    gridCache = null;
    var more = Math.max(0, renderer.count - Math.max(fromLine, maxLines));
    var lines = renderer.lines;
    if (more > 0 && options.moreLine !== false) lines = lines.concat(["# " + ELLIPSIS + " " + more + " more lines not shown (limit " + maxLines + ")"]);
    if (!lines.length && !fromLine) lines = ["# the page shows nothing"];
    if (options.root || fromLine) {
      latest.forEach(function (el, ref) { if (!renderer.refs.has(ref) && el.isConnected) renderer.refs.set(ref, el); });
    }
    latest = renderer.refs;
    return {ok: true, doc: docId, url: location.href, title: document.title, text: lines.join("\n"), lines: renderer.lines.length,
      fromLine: fromLine, totalLines: renderer.count, truncatedLines: more, nextRef: counter, viewport: {w: innerWidth, h: innerHeight, dpr: devicePixelRatio},
      showing: showing(), dialogs: dialogSeq};
  }

  function ownedElements() {
    var set = null;
    var owners = document.querySelectorAll("[aria-owns]");
    for (var i = 0; i < owners.length; i++) {
      byIds(owners[i], "aria-owns").forEach(function (el) {
        set = set || new Set();
        set.add(el);
      });
    }
    return set;
  }

  function openModal() {
    try { return document.querySelector("dialog:modal"); } catch (error) { return null; }
  }

  /* ---------------------------------------------------------------- acting */

  function resolve(ref) {
    var el = latest.get(String(ref));
    if (!el) return {error: "Ref " + ref + " is not in the latest snapshot of this page (it changed or navigated). Take a new snapshot and use a ref from it."};
    if (!el.isConnected) return {error: "Ref " + ref + " (" + describe(el) + ") is no longer on the page. Take a new snapshot and use a ref from it."};
    return {el: el};
  }

  function describe(el) {
    var role = roleOf(el) || "generic";
    var name = nameOf(el, role);
    var ref = refOf.get(el);
    return role + (name ? " " + quote(cut(name, 60)) : "") + (ref ? " [ref=" + ref + "]" : "");
  }

  /* The nearest element around `el` worth naming (a dialog, a button, ...): what covers a target. */
  function describeCover(el) {
    for (var node = el; node && node.nodeType === 1; node = node.parentElement || (node.getRootNode && node.getRootNode().host)) {
      var role = roleOf(node);
      if (role && role !== "none" && role !== "generic") return describe(node);
    }
    var tag = el.tagName.toLowerCase();
    return tag + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
  }

  function deepElementFromPoint(doc, x, y) {
    var hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      var inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function composedContains(outer, inner) {
    for (var node = inner; node; node = node.parentNode || node.host) if (node === outer) return true;
    return false;
  }

  function checkClickable(el) {
    var role = roleOf(el) || "generic";
    if (disabled(el, role)) return describe(el) + " is disabled.";
    var modal = openModal();
    if (modal && !composedContains(modal, el)) return describe(el) + " is behind the open " + describe(modal) + "; close it first (press Escape).";
    el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    var rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) return describe(el) + " has no size on screen, so it cannot be clicked.";
    var x = rect.left + rect.width / 2;
    var y = rect.top + rect.height / 2;
    var hit = deepElementFromPoint(el.ownerDocument, x, y);
    if (!hit) return describe(el) + " is outside the visible part of the page.";
    if (hit === el || composedContains(el, hit) || composedContains(hit, el)) return null;
    if (hit.tagName === "LABEL" && hit.control === el) return null;
    return describe(el) + " is covered by " + describeCover(hit) + " at (" + Math.round(x) + ", " + Math.round(y) + "); close or act on that first.";
  }

  function mouse(el, type, x, y) {
    var Ctor = type.indexOf("pointer") === 0 && typeof PointerEvent === "function" ? PointerEvent : MouseEvent;
    var init = {bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, button: 0, buttons: type.indexOf("down") >= 0 ? 1 : 0,
      detail: type === "click" || type.indexOf("mouse") === 0 ? 1 : 0, view: el.ownerDocument.defaultView};
    if (Ctor === PointerEvent) { init.pointerId = 1; init.pointerType = "mouse"; init.isPrimary = true; }
    return el.dispatchEvent(new Ctor(type, init));
  }

  function click(el) {
    if (el.tagName === "OPTION") {
      if (el.disabled || (el.parentElement && el.parentElement.disabled)) return {ok: false, error: describe(el) + " is disabled."};
      return {ok: true, did: chooseOption(el)};
    }
    var problem = checkClickable(el);
    if (problem) return {ok: false, error: problem};
    var rect = el.getBoundingClientRect();
    var x = rect.left + rect.width / 2;
    var y = rect.top + rect.height / 2;
    var target = deepElementFromPoint(el.ownerDocument, x, y) || el;
    if (!composedContains(el, target)) target = el;
    mouse(target, "pointerover", x, y);
    mouse(target, "mouseover", x, y);
    var down = mouse(target, "pointerdown", x, y);
    if (down) down = mouse(target, "mousedown", x, y);
    if (down) focusFor(el);
    mouse(target, "pointerup", x, y);
    mouse(target, "mouseup", x, y);
    mouse(target, "click", x, y);
    return {ok: true};
  }

  function focusFor(el) {
    for (var node = el; node && node.nodeType === 1; node = node.parentElement) {
      if (focusable(node) && typeof node.focus === "function") { node.focus({preventScroll: true}); return; }
    }
  }

  function chooseOption(option) {
    var select = option.closest("select");
    if (!select) return "";
    if (select.multiple) option.selected = !option.selected;
    else option.selected = true;
    fire(select, "input");
    fire(select, "change");
    return "chose " + quote(norm(option.label || option.textContent));
  }

  function fire(el, type) {
    var event = type === "input" ? new InputEvent("input", {bubbles: true, composed: true}) : new Event(type, {bubbles: true});
    return el.dispatchEvent(event);
  }

  var TEXT_INPUT_TYPES = {text: 1, search: 1, email: 1, url: 1, tel: 1, password: 1, number: 1, date: 1, time: 1,
    "datetime-local": 1, month: 1, week: 1, color: 1, "": 1};

  function editable(el) {
    if (el.tagName === "TEXTAREA") return true;
    if (el.tagName === "INPUT") return !!TEXT_INPUT_TYPES[(el.getAttribute("type") || "").toLowerCase()];
    return el.isContentEditable;
  }

  /* Set a field's value so frameworks notice: the prototype's setter, not the instance's. */
  function setValue(el, value) {
    var view = el.ownerDocument.defaultView;
    var proto = el.tagName === "TEXTAREA" ? view.HTMLTextAreaElement.prototype : view.HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
  }

  function insertText(el, text, inputType) {
    var before = new InputEvent("beforeinput", {bubbles: true, cancelable: true, composed: true, inputType: inputType, data: text});
    if (!el.dispatchEvent(before)) return false;
    return true;
  }

  function typeInto(el, text, submit) {
    var role = roleOf(el) || "generic";
    if (!editable(el)) return {ok: false, error: describe(el) + " is not a text field; use click or select."};
    if (disabled(el, role)) return {ok: false, error: describe(el) + " is disabled."};
    if (el.readOnly) return {ok: false, error: describe(el) + " is read-only."};
    el.scrollIntoView({block: "center", behavior: "instant"});
    el.focus({preventScroll: true});
    var warning;
    if (el.isContentEditable) {
      var selection = el.ownerDocument.getSelection();
      selection.selectAllChildren(el);
      if (!el.ownerDocument.execCommand("insertText", false, text)) {
        el.textContent = text;
        fire(el, "input");
      }
    } else {
      if (insertText(el, text, "insertReplacementText")) {
        setValue(el, text);
        el.dispatchEvent(new InputEvent("input", {bubbles: true, composed: true, inputType: "insertReplacementText", data: text}));
        fire(el, "change");
      }
      if (el.value !== text && !secretField(el)) warning = "the field now holds " + quote(cut(el.value, 60)) + " (it did not take the text as typed)";
      else if (el.value !== text) warning = "the field did not take the text as typed";
    }
    var result = {ok: true};
    if (warning) result.warning = warning;
    if (submit) {
      var pressed = press(el, "Enter");
      if (pressed.did) result.did = pressed.did;
      if (pressed.warning) result.warning = (result.warning ? result.warning + "; " : "") + pressed.warning;
    }
    return result;
  }

  /* ---------------------------------------------------------------- keys */

  var KEY_CODES = {Enter: 13, Tab: 9, Escape: 27, " ": 32, Backspace: 8, Delete: 46, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39,
    ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34};
  var KEY_ALIASES = {Space: " ", Esc: "Escape", Return: "Enter", Up: "ArrowUp", Down: "ArrowDown", Left: "ArrowLeft", Right: "ArrowRight", Del: "Delete"};

  function parseKey(spec) {
    var parts = String(spec).split("+");
    var key = parts.pop();
    if (key === "" && parts.length) { parts.pop(); key = "+"; }
    key = KEY_ALIASES[key] || key;
    var mods = {ctrlKey: false, shiftKey: false, altKey: false, metaKey: false};
    for (var i = 0; i < parts.length; i++) {
      var m = parts[i].toLowerCase();
      if (m === "control" || m === "ctrl") mods.ctrlKey = true;
      else if (m === "shift") mods.shiftKey = true;
      else if (m === "alt" || m === "option") mods.altKey = true;
      else if (m === "meta" || m === "cmd" || m === "command") mods.metaKey = true;
      else return null;
    }
    if (key.length !== 1 && !(key in KEY_CODES) && !/^F\d{1,2}$/.test(key)) return null;
    return {key: key, mods: mods};
  }

  function keyEvent(el, type, parsed) {
    var key = parsed.key;
    var code = key.length === 1 ? (/[a-z]/i.test(key) ? "Key" + key.toUpperCase() : /\d/.test(key) ? "Digit" + key : key === " " ? "Space" : "") : key;
    var keyCode = KEY_CODES[key] || (key.length === 1 ? key.toUpperCase().charCodeAt(0) : 0);
    var init = {key: key, code: code, bubbles: true, cancelable: true, composed: true, view: el.ownerDocument.defaultView};
    for (var m in parsed.mods) init[m] = parsed.mods[m];
    var event = new KeyboardEvent(type, init);
    var legacy = type === "keypress" ? (key === "Enter" ? 13 : key.charCodeAt(0)) : keyCode;
    Object.defineProperty(event, "keyCode", {get: function () { return legacy; }});
    Object.defineProperty(event, "which", {get: function () { return legacy; }});
    if (type === "keypress") Object.defineProperty(event, "charCode", {get: function () { return legacy; }});
    return el.dispatchEvent(event);
  }

  function press(el, spec) {
    var parsed = parseKey(spec);
    if (!parsed) return {ok: false, error: "Unknown key " + quote(String(spec)) + "; use a key name such as Enter, Tab, Shift+Tab, Escape, Space, ArrowDown, Backspace or one character."};
    var target = el || deepActiveElement() || document.body;
    if (el && el !== deepActiveElement()) focusFor(el);
    var result = {ok: true};
    var proceed = keyEvent(target, "keydown", parsed);
    var printable = parsed.key.length === 1 && !parsed.mods.ctrlKey && !parsed.mods.metaKey && !parsed.mods.altKey;
    if (proceed && (printable || parsed.key === "Enter")) proceed = keyEvent(target, "keypress", parsed);
    if (proceed) {
      var did = defaultAction(target, parsed, printable);
      if (did && did.warning) result.warning = did.warning;
      else if (did) result.did = did;
    }
    keyEvent(deepActiveElement() || target, "keyup", parsed);
    return result;
  }

  function defaultAction(target, parsed, printable) {
    var key = parsed.key;
    var tag = target.tagName;
    var textLike = tag === "TEXTAREA" || (tag === "INPUT" && editable(target));
    if (key === "Tab") return moveFocus(target, parsed.mods.shiftKey ? -1 : 1);
    if (key === "Escape") return closeTopmost();
    if (key === "Enter") {
      if (tag === "TEXTAREA") return editAtCaret(target, "\n");
      if (textLike || (tag === "INPUT" && target.form)) return submitForm(target);
      if (activatable(target)) { mouse(target, "click", 0, 0); return "clicked " + describe(target); }
      return "";
    }
    if (key === " ") {
      if (textLike) return editAtCaret(target, " ");
      if (activatable(target) || (tag === "INPUT" && (target.type === "checkbox" || target.type === "radio"))) {
        if (disabled(target, roleOf(target))) return "";
        mouse(target, "click", 0, 0);
        return "clicked " + describe(target);
      }
      return "";
    }
    if (key === "Backspace" && textLike) return editAtCaret(target, "", -1);
    if (key === "Delete" && textLike) return editAtCaret(target, "", 1);
    if (printable && (textLike || target.isContentEditable)) return editAtCaret(target, key);
    return "";
  }

  function activatable(el) {
    return el.tagName === "BUTTON" || el.tagName === "SUMMARY" || (el.tagName === "A" && el.hasAttribute("href")) ||
      (el.tagName === "INPUT" && /^(button|submit|reset|image)$/i.test(el.type));
  }

  /* Insert `text` at the caret (or delete one character either side), as typing would. */
  function editAtCaret(el, text, deleteDirection) {
    if (el.isContentEditable) {
      el.ownerDocument.execCommand(deleteDirection ? (deleteDirection < 0 ? "delete" : "forwardDelete") : "insertText", false, text);
      return "";
    }
    if (el.readOnly || el.disabled) return "";
    var value = el.value;
    var start = el.selectionStart;
    var end = el.selectionEnd;
    if (start === null || start === undefined) { start = value.length; end = value.length; }
    if (deleteDirection && start === end) {
      if (deleteDirection < 0) start = Math.max(0, start - 1); else end = Math.min(value.length, end + 1);
    }
    var inputType = deleteDirection ? (deleteDirection < 0 ? "deleteContentBackward" : "deleteContentForward") : (text === "\n" ? "insertLineBreak" : "insertText");
    if (!insertText(el, text, inputType)) return "";
    setValue(el, value.slice(0, start) + text + value.slice(end));
    try { el.setSelectionRange(start + text.length, start + text.length); } catch (error) { /* types without a selection */ }
    el.dispatchEvent(new InputEvent("input", {bubbles: true, composed: true, inputType: inputType, data: text || null}));
    return "";
  }

  function submitForm(field) {
    var form = field.form;
    if (!form) return "";
    var button = null;
    for (var i = 0; i < form.elements.length; i++) {
      var candidate = form.elements[i];
      if ((candidate.tagName === "BUTTON" && (candidate.getAttribute("type") || "submit").toLowerCase() === "submit") ||
        (candidate.tagName === "INPUT" && /^(submit|image)$/i.test(candidate.type))) { button = candidate; break; }
    }
    if (button && button.disabled) return {warning: "Enter did not submit: " + describe(button) + " is disabled."};
    var invalid = Array.prototype.filter.call(form.elements, function (c) { return c.willValidate && !c.checkValidity(); });
    if (button) mouse(button, "click", 0, 0);
    else form.requestSubmit();
    if (invalid.length && !form.noValidate && !(button && button.formNoValidate)) {
      return {warning: "the form was not submitted: " + invalid.slice(0, 5).map(function (c) {
        return describe(c) + " (" + c.validationMessage + ")";
      }).join(", ")};
    }
    return "submitted " + (describe(form) === "generic" ? "the form" : describe(form));
  }

  function tabbables(scope) {
    var all = scope.querySelectorAll("a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]");
    var list = [];
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      var index = el.tabIndex;
      if (index < 0 || el.disabled || (el.tagName === "INPUT" && el.type === "hidden")) continue;
      if (el.closest("[inert], [aria-hidden=true]")) continue;
      if (!el.checkVisibility || !el.checkVisibility({visibilityProperty: true})) continue;
      list.push({el: el, index: index, order: i});
    }
    list.sort(function (a, b) {
      if (a.index !== b.index) {
        if (a.index === 0) return 1;
        if (b.index === 0) return -1;
        return a.index - b.index;
      }
      return a.order - b.order;
    });
    return list.map(function (item) { return item.el; });
  }

  function moveFocus(from, step) {
    var list = tabbables(openModal() || document);
    if (!list.length) return "";
    var at = list.indexOf(from);
    var next = list[(at < 0 ? (step > 0 ? 0 : list.length - 1) : (at + step + list.length) % list.length)];
    next.focus();
    return "focused " + describe(next);
  }

  function closeTopmost() {
    var popovers = [];
    try { popovers = document.querySelectorAll(":popover-open"); } catch (error) { /* no popover support */ }
    if (popovers.length) {
      var popover = popovers[popovers.length - 1];
      popover.hidePopover();
      return "closed " + describe(popover);
    }
    var dialogs = document.querySelectorAll("dialog[open]");
    if (!dialogs.length) return "";
    var dialog = openModal() || dialogs[dialogs.length - 1];
    if (!dialog.dispatchEvent(new Event("cancel", {cancelable: true}))) return "";
    var name = describe(dialog);
    dialog.close();
    return "closed " + name;
  }

  function selectValues(el, values) {
    if (el.tagName !== "SELECT") return {ok: false, error: describe(el) + " is not a native select; click its options instead."};
    if (disabled(el, roleOf(el))) return {ok: false, error: describe(el) + " is disabled."};
    values = [].concat(values || []);
    if (!values.length) return {ok: false, error: "Say which option to select (values: [\"...\"])."};
    var chosen = [];
    for (var i = 0; i < values.length; i++) {
      var wanted = String(values[i]);
      var match = null;
      for (var j = 0; j < el.options.length && !match; j++) {
        var option = el.options[j];
        if (option.value === wanted || norm(option.label || option.textContent) === norm(wanted)) match = option;
      }
      if (!match) {
        var labels = Array.prototype.slice.call(el.options, 0, 20).map(function (o) { return quote(norm(o.label || o.textContent)); });
        return {ok: false, error: describe(el) + " has no option " + quote(wanted) + "; it has " + labels.join(", ") + (el.options.length > 20 ? ", " + ELLIPSIS : "") + "."};
      }
      if (match.disabled) return {ok: false, error: "Option " + quote(wanted) + " of " + describe(el) + " is disabled."};
      chosen.push(match);
      if (!el.multiple) break;
    }
    el.focus({preventScroll: true});
    for (var k = 0; k < el.options.length; k++) el.options[k].selected = chosen.indexOf(el.options[k]) >= 0;
    fire(el, "input");
    fire(el, "change");
    return {ok: true, did: "selected " + chosen.map(function (o) { return quote(norm(o.label || o.textContent)); }).join(", ")};
  }

  function navigate(url) {
    var target;
    try { target = new URL(String(url), location.href); } catch (error) { return {ok: false, error: "Not a URL: " + quote(String(url)) + "."}; }
    if (target.origin !== location.origin) return {ok: false, error: "navigate stays within the app (" + location.origin + "); " + quote(target.href) + " is outside it."};
    location.assign(target.href);
    return {ok: true, did: "navigating to " + target.href.slice(location.origin.length)};
  }

  function act(request) {
    request = request || {};
    var kind = request.kind;
    var since = dialogSeq;
    var result;
    if (kind === "navigate") result = navigate(request.url);
    else if (kind === "press" && !request.ref) result = press(null, request.key);
    else if (kind === "click" || kind === "type" || kind === "press" || kind === "select") {
      if (!request.ref) return {ok: false, error: kind + " needs a ref from the latest snapshot."};
      var found = resolve(request.ref);
      if (found.error) return {ok: false, error: found.error};
      var el = found.el;
      var label = describe(el);
      if (kind === "click") result = click(el);
      else if (kind === "type") result = typeof request.text === "string" ? typeInto(el, request.text, !!request.submit) : {ok: false, error: "type needs text."};
      else if (kind === "press") result = press(el, request.key);
      else result = selectValues(el, request.values);
      if (result.ok) result.target = label;
    } else {
      return {ok: false, error: "Unknown action " + quote(String(kind)) + "; use click, type, press, select or navigate."};
    }
    result.kind = kind;
    if (result.ok) result.dialogs = dialogsSince(since);
    return result;
  }

  /* ---------------------------------------------------------------- the namespace */

  var api = Object.freeze({
    version: 1,
    snapshot: snapshot,
    act: act,
    settleState: settleState,
    dialogs: dialogsSince,
    setDialogAnswers: function (given) {
      if (given && "confirm" in given) answers.confirm = !!given.confirm;
      if (given && "prompt" in given) answers.prompt = given.prompt === null ? null : String(given.prompt);
      return {confirm: answers.confirm, prompt: answers.prompt};
    },
    noteLive: noteLive,
    dropLive: dropLive,
    inspect: function (el) {
      var role = roleOf(el);
      return {role: role, name: role ? nameOf(el, role) : ""};
    }
  });
  Object.defineProperty(window, "__rata_dev", {value: api, enumerable: false, configurable: false, writable: false});
})();
