// pprofcore explorer: the page of `pprofcore -http` and of Profile.explore().
// One state (the URL's query: pprof's si, f, i, h, s, sf, tf, ti, ts, th, g,
// plus q for the search regex, p/cmp for the profile picker) drives every view;
// each view's data comes as JSON from a transport (the server's /ui/data/, or
// the notebook widget's model) and is drawn here with textContent only, so no
// name from a profile is ever parsed as markup. No network beyond the transport.
(function () {
  "use strict";
  if (window.pprofcoreExplorer) return;

  var VIEWS = [["graph", "Graph"], ["top", "Top"], ["flamegraph", "Flame graph"], ["peek", "Peek"],
               ["source", "Source"], ["disasm", "Disassemble"], ["labels", "Labels"], ["timeline", "Timeline"]];
  var PATHS = { graph: "", top: "top", flamegraph: "flamegraph", peek: "peek", source: "source", disasm: "disasm", labels: "labels",
                timeline: "timeline" };
  var REFINE = [["f", "Focus"], ["i", "Ignore"], ["h", "Hide"], ["s", "Show"], ["sf", "Show from"]];
  var FILTER_NAMES = { f: "focus", i: "ignore", h: "hide", s: "show", sf: "show_from", tf: "tagfocus",
                       ti: "tagignore", ts: "tagshow", th: "taghide", tw: "time window" };
  var GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function option(sel, value, text, selected) {
    var o = el("option", "", text); o.value = value; if (selected) o.selected = true; sel.appendChild(o); return o;
  }
  // pprof's Refine regex of a selection: each name escaped and anchored.
  function quoteRegex(s) { return s.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&"); }
  function regexOf(names) { return names.map(function (n) { return "^" + quoteRegex(n) + "$"; }).join("|"); }
  function pct(x) { return (Math.round(x * 100) / 100).toFixed(2) + "%"; }
  function searchRx(q) { if (!q) return null; try { return new RegExp(q); } catch (e) { return null; } }

  // Flame graph labels as pprof's flame graph shortens them: the whole name if
  // it fits, else without its package path, else cut.
  function shortNames(name) {
    var out = [name], paren = name.search(/[(<]/), head = paren > 0 ? name.slice(0, paren) : name;
    var slash = head.lastIndexOf("/");
    var cur = slash >= 0 ? name.slice(slash + 1) : name;
    if (cur !== name) out.push(cur);
    // then leading namespace or class qualifiers (a.b.C.m, ns::C::m), down to the last two
    for (;;) {
      var p2 = cur.search(/[(<]/), h = p2 > 0 ? cur.slice(0, p2) : cur;
      var parts = h.split(/::|\./);
      if (parts.length <= 2) break;
      var cut = h.indexOf("::") >= 0 && (h.indexOf(".") < 0 || h.indexOf("::") < h.indexOf(".")) ? h.indexOf("::") + 2 : h.indexOf(".") + 1;
      cur = cur.slice(cut);
      out.push(cur);
    }
    return out;
  }

  function Explorer(root, meta, transport) {
    this.root = root; this.meta = meta; this.transport = transport;
    this.selection = []; this.seq = 0; this.labelsCache = null;
    this.build();
  }

  Explorer.prototype.build = function () {
    var self = this, m = this.meta, root = this.root;
    root.textContent = "";
    root.classList.add("px-root");
    var head = el("div", "px-head"); root.appendChild(head);
    head.appendChild(el("span", "px-title", m.title));
    this.tabs = el("nav", "px-tabs"); head.appendChild(this.tabs);
    VIEWS.forEach(function (v) {
      var a = el("a", "px-tab", v[1]); a.setAttribute("data-view", v[0]); a.href = "#";
      a.addEventListener("click", function (ev) { ev.preventDefault(); self.openView(v[0]); });
      if (v[0] === "disasm" && m.disasm === false) a.style.display = "none";  // no binaries known
      if (v[0] === "timeline" && !m.timestamps) a.style.display = "none";  // no per-sample times
      self.tabs.appendChild(a);
    });
    var bar = el("div", "px-bar"); root.appendChild(bar);
    this.si = el("select", "px-si"); this.si.title = "sample type";
    m.sample_types.forEach(function (t) { option(self.si, t, t, false); });
    this.si.addEventListener("change", function () { self.set({ si: self.si.value }); });
    bar.appendChild(this.si);
    this.g = el("select", "px-g"); this.g.title = "granularity";
    GRANULARITIES.forEach(function (g) { option(self.g, g, g, false); });
    this.g.addEventListener("change", function () { self.set({ g: self.g.value === "functions" ? "" : self.g.value }); });
    bar.appendChild(this.g);
    this.search = el("input", "px-search"); this.search.type = "search"; this.search.placeholder = "search regex";
    var pending = null;
    this.search.addEventListener("input", function () {
      clearTimeout(pending); pending = setTimeout(function () { self.set({ q: self.search.value }, true); }, 300);
    });
    this.search.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { clearTimeout(pending); self.set({ q: self.search.value }, true); }
    });
    bar.appendChild(this.search);
    var refine = el("span", "px-refine"); bar.appendChild(refine);
    refine.appendChild(el("span", "px-label", "Refine:"));
    REFINE.forEach(function (r) {
      var b = el("button", "px-btn px-refine-" + r[0], r[1]);
      b.title = r[1] + " on the selection (or the search regex)";
      b.addEventListener("click", function () { self.refine(r[0]); });
      refine.appendChild(b);
    });
    var reset = el("button", "px-btn px-reset", "Reset"); reset.title = "drop every filter and the search";
    reset.addEventListener("click", function () { self.reset(); });
    refine.appendChild(reset);
    // Label filter: a key, then one of the values present under the current filters.
    this.lkey = el("select", "px-lkey"); this.lval = el("select", "px-lval");
    option(this.lkey, "", "label...", true);
    this.lkey.addEventListener("focus", function () { self.loadLabelKeys(); });
    this.lkey.addEventListener("mousedown", function () { self.loadLabelKeys(); });
    this.lkey.addEventListener("change", function () { self.fillLabelValues(); });
    this.lval.addEventListener("change", function () {
      if (self.lkey.value && self.lval.value) self.addTagFilter("tf", self.lkey.value, self.lval.value);
    });
    bar.appendChild(this.lkey); bar.appendChild(this.lval);
    if (m.profiles.length > 1) {
      this.p = el("select", "px-profile"); this.p.title = "profile";
      this.cmp = el("select", "px-compare"); this.cmp.title = "compare to";
      option(this.cmp, "", "compare to...", true);
      m.profiles.forEach(function (n, k) { option(self.p, String(k), n, false); option(self.cmp, String(k), "vs " + n, false); });
      this.p.addEventListener("change", function () { self.set({ p: self.p.value === "0" ? "" : self.p.value }); });
      this.cmp.addEventListener("change", function () { self.set({ cmp: self.cmp.value }); });
      bar.appendChild(this.p); bar.appendChild(this.cmp);
    }
    this.configs = el("select", "px-configs"); this.configs.title = "saved configurations";
    this.configs.addEventListener("change", function () { self.loadConfig(); });
    if (transport_can(this.transport, "saveConfig")) bar.appendChild(this.configs);  // kept by the server only
    if (transport_can(this.transport, "saveConfig")) {
      var save = el("button", "px-btn px-save", "Save"); save.title = "save this view as a named configuration";
      save.addEventListener("click", function () { self.saveConfig(); });
      bar.appendChild(save);
    }
    this.fillConfigs(m.configs || {});
    if (this.transport.href) {
      this.download = el("a", "px-download", "Download"); this.download.title = "the refined profile (.pb.gz)";
      bar.appendChild(this.download);
    }
    this.filters = el("div", "px-filters"); root.appendChild(this.filters);
    this.notes = el("div", "px-notes"); root.appendChild(this.notes);
    this.body = el("div", "px-body"); root.appendChild(this.body);
  };
  function transport_can(t, name) { return t && typeof t[name] === "function"; }

  // ---------------------------------------------------------------- state
  Explorer.prototype.params = function () { return new URLSearchParams(this.query || ""); };
  // Changes some parameters ("" removes one) and shows the result; a new history entry
  // unless `replace` (typing in the search box replaces the entry it made).
  Explorer.prototype.set = function (changes, replace) {
    var q = this.params();
    Object.keys(changes).forEach(function (k) {
      var v = changes[k];
      if (v === "" || v === null || v === undefined) q.delete(k); else q.set(k, v);
    });
    this.go(this.view, q.toString(), !replace);
  };
  Explorer.prototype.go = function (view, query, push) {
    this.view = view; this.query = query || "";
    if (this.transport.navigate) this.transport.navigate(view, this.query, push);
    this.load();
  };
  // A view tab: the listing views (peek, source, disasm) take the selection as
  // their regex (pprof's f=), as pprof's View menu does.
  Explorer.prototype.openView = function (view) {
    if (/^(peek|source|disasm)$/.test(view) && this.selection.length) {
      var q = this.params(); q.set("f", regexOf(this.selection));
      this.selection = [];
      this.go(view, q.toString(), true);
      return;
    }
    this.go(view, this.query, true);
  };
  Explorer.prototype.show = function (view, query) { this.view = view; this.query = query || ""; this.load(); };

  Explorer.prototype.refine = function (param) {
    var names = this.selection.slice(), rx = names.length ? regexOf(names) : this.params().get("q");
    if (!rx) { this.note("Select rows or nodes first (click them), or type a search regex.", true); return; }
    var ch = {}; ch[param] = rx;
    this.selection = [];
    this.set(ch);
  };
  Explorer.prototype.reset = function () {
    var q = this.params(), keep = new URLSearchParams();
    ["si", "p", "cmp"].forEach(function (k) { if (q.get(k)) keep.set(k, q.get(k)); });
    this.selection = []; this.search.value = "";
    this.go(this.view, keep.toString(), true);
  };
  Explorer.prototype.addTagFilter = function (param, key, value) {
    var part = key + "=" + value, q = this.params(), old = q.get(param);
    // pprof's tagfocus takes one key=values term; a second key replaces it.
    this.set(old && old.indexOf(key + "=") === 0 ? (function () { var c = {}; c[param] = old + "," + value; return c; })()
                                                 : (function () { var c = {}; c[param] = part; return c; })());
  };
  Explorer.prototype.select = function (name, on) {
    var k = this.selection.indexOf(name);
    if (on === undefined) on = k < 0;
    if (on && k < 0) this.selection.push(name);
    if (!on && k >= 0) this.selection.splice(k, 1);
    this.root.setAttribute("data-selection", String(this.selection.length));
    return on;
  };

  Explorer.prototype.note = function (text, bad) {
    this.notes.appendChild(el("div", bad ? "px-error" : "px-warning", text));
  };

  // ---------------------------------------------------------------- loading
  Explorer.prototype.load = function () {
    var self = this, seq = ++this.seq, q = this.params();
    this.root.setAttribute("data-view", this.view);
    this.root.setAttribute("data-busy", "1");
    Array.prototype.forEach.call(this.tabs.children, function (a) {
      var v = a.getAttribute("data-view");
      a.classList.toggle("px-active", v === self.view);
      if (self.transport.href) a.href = self.transport.href(v, self.query);
    });
    this.si.value = q.get("si") || this.meta.default_sample_type;
    if (/^\d+$/.test(this.si.value)) this.si.selectedIndex = +this.si.value;
    this.g.value = q.get("g") || "functions";
    if (document.activeElement !== this.search) this.search.value = q.get("q") || "";
    if (this.p) { this.p.value = q.get("p") || "0"; this.cmp.value = q.get("cmp") || ""; }
    this.drawFilters(q);
    if (this.download) this.download.href = "/ui/download" + (this.query ? "?" + this.query : "");
    this.labelsCache = null;
    var asked = performance.now();
    this.transport.fetch(this.view, this.query).then(function (data) {
      if (seq !== self.seq) return;  // a newer state was asked for meanwhile
      var got = performance.now();
      self.draw(data);
      void self.root.offsetHeight;  // the layout of what was drawn counts as drawing
      // how long the data took to come and to be drawn (bench/bench_explorer.py reads them)
      self.root.setAttribute("data-fetch-ms", (got - asked).toFixed(1));
      self.root.setAttribute("data-draw-ms", (performance.now() - got).toFixed(1));
      self.root.removeAttribute("data-busy");
      self.root.setAttribute("data-loaded", String(seq));
    }, function (err) {
      if (seq !== self.seq) return;
      self.notes.textContent = ""; self.body.textContent = "";
      self.note(String(err && err.message ? err.message : err), true);
      self.root.removeAttribute("data-busy");
      self.root.setAttribute("data-loaded", String(seq));
    });
  };

  Explorer.prototype.drawFilters = function (q) {
    var self = this;
    this.filters.textContent = "";
    Object.keys(FILTER_NAMES).forEach(function (k) {
      var v = q.get(k);
      if (!v) return;
      var chip = el("span", "px-chip"); chip.setAttribute("data-param", k);
      chip.appendChild(el("b", "", FILTER_NAMES[k] + "="));
      chip.appendChild(el("span", "px-chip-value", v));
      var x = el("button", "px-chip-x", "\u00d7"); x.title = "remove this filter";
      x.addEventListener("click", function () { var c = {}; c[k] = ""; self.set(c); });
      chip.appendChild(x);
      self.filters.appendChild(chip);
    });
  };

  Explorer.prototype.draw = function (d) {
    this.notes.textContent = ""; this.body.textContent = "";
    this.data = d;
    var head = el("div", "px-summary");
    head.appendChild(el("span", "", d.sample_type + " \u2014 total " + d.total_label + (d.diff ? " (difference against the base)" : "")));
    this.body.appendChild(head);
    var self = this;
    (d.warnings || []).forEach(function (w) { self.note(w, false); });
    if (d.error) this.note(d.error, true);
    var fn = this["draw_" + d.view];
    if (fn && !(d.error && d.view !== "graph")) fn.call(this, d);
    this.root.setAttribute("data-total", String(d.total));
  };

  // ---------------------------------------------------------------- Top
  Explorer.prototype.draw_top = function (d) {
    var self = this, q = this.params(), rx = searchRx(q.get("q")), sort = q.get("sort") || "flat";
    var table = el("table", "px-table px-top"), head = el("tr");
    [["flat", "flat"], ["flat%", ""], ["sum%", ""], ["cum", "cum"], ["cum%", ""], ["name", "name"]].forEach(function (c) {
      var th = el("th", c[1] ? "px-sortable" + (c[1] === sort ? " px-sorted" : "") : "", c[0]);
      if (c[0] === "name") th.className += " px-name";
      if (c[1]) th.addEventListener("click", function () { self.set({ sort: c[1] === "flat" ? "" : c[1] }); });
      head.appendChild(th);
    });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = el("tbody"); table.appendChild(body);
    // one listener for every row: thousands of rows are drawn on each state change
    body.addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr"), r = tr && d.rows[tr.rowIndex - 1];
      if (r) tr.classList.toggle("px-selected", self.select(r.name));
    });
    d.rows.forEach(function (r) {
      var tr = el("tr");
      [r.flat_label, pct(r.flat_pct), pct(r.sum_pct), r.cum_label, pct(r.cum_pct)].forEach(function (v) { tr.appendChild(el("td", "px-num", v)); });
      var name = el("td", "px-name", r.name + (r.inline ? " " + r.inline : ""));
      name.title = r.name; tr.appendChild(name);
      tr.setAttribute("data-flat", String(r.flat)); tr.setAttribute("data-cum", String(r.cum));
      if (rx && rx.test(r.name)) tr.classList.add("px-match");
      if (self.selection.indexOf(r.name) >= 0) tr.classList.add("px-selected");
      body.appendChild(tr);
    });
    var wrap = el("div", "px-scroll"); wrap.appendChild(table); this.body.appendChild(wrap);
    if (d.truncated) this.note("showing the first " + d.rows.length + " rows (the text below has them all)", false);
    var text = el("details", "px-text"); text.appendChild(el("summary", "", "as text (pprof -top)"));
    text.appendChild(el("pre", "px-top-text", d.text)); this.body.appendChild(text);
  };

  // ---------------------------------------------------------------- Graph
  // The server sends the graph laid out (boxes, routes); it is drawn here as
  // SVG, every name set as text. Routes are vertical S-curves through their
  // points, ending in an arrowhead; dashed: inlined call, dotted: residual.
  var SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  var ARROW = 7;
  function drawEdge(parent, e, nodes) {
    var p = e.points, n = p.length;
    if (n < 2) return;
    var last = p[n - 1], prev = p[n - 2], down = last[1] >= prev[1] ? 1 : -1;
    var end = [last[0], last[1] - down * ARROW], d = "M" + p[0][0] + " " + p[0][1];
    for (var i = 1; i < n; i++) {
      var a = p[i - 1], b = i === n - 1 ? end : p[i], h = (b[1] - a[1]) / 2;
      d += " C" + a[0] + " " + (a[1] + h) + " " + b[0] + " " + (b[1] - h) + " " + b[0] + " " + b[1];
    }
    var g = svgEl("g", { "class": "edge" });
    g.appendChild(svgEl("title", {}, nodes[e.src].name + (e.style === "dotted" ? " ... " : " -> ") + nodes[e.dst].name + " (" + e.label + ")"));
    var path = svgEl("path", { d: d, fill: "none", stroke: e.color, "stroke-width": e.penwidth });
    if (e.style !== "solid") path.setAttribute("stroke-dasharray", e.style === "dotted" ? "1 3" : "5 3");
    g.appendChild(path);
    var w = ARROW / 2 + e.penwidth;
    g.appendChild(svgEl("polygon", { fill: e.color, stroke: e.color,
      points: last[0] + "," + last[1] + " " + (end[0] - w) + "," + end[1] + " " + (end[0] + w) + "," + end[1] }));
    var m = n % 2 ? p[(n - 1) / 2] : [(p[n / 2 - 1][0] + p[n / 2][0]) / 2, (p[n / 2 - 1][1] + p[n / 2][1]) / 2];
    g.appendChild(svgEl("text", { x: m[0] + 4, y: m[1] + 4, "class": "px-edge-label" }, e.label));
    parent.appendChild(g);
  }
  function drawNode(parent, n) {
    var g = svgEl("g", { "class": "node" });
    g.appendChild(svgEl("title", {}, n.name));
    g.appendChild(svgEl("rect", { x: n.x - n.w / 2, y: n.y - n.h / 2, width: n.w, height: n.h, fill: n.fill, stroke: n.color }));
    var t = svgEl("text", { x: n.x, y: n.y - n.h / 2 + 4, "font-size": n.fontsize, "text-anchor": "middle" });
    n.lines.forEach(function (line) { t.appendChild(svgEl("tspan", { x: n.x, dy: n.fontsize * 1.2 }, line)); });
    g.appendChild(t);
    g.setAttribute("data-name", n.name);
    g.setAttribute("data-flat", String(n.flat)); g.setAttribute("data-cum", String(n.cum));
    parent.appendChild(g);
    return g;
  }

  Explorer.prototype.draw_graph = function (d) {
    var self = this, rx = searchRx(this.params().get("q")), lay = d.graph;
    if (!lay) return;
    var wrap = el("div", "px-graph"); this.body.appendChild(wrap);
    var legend = el("div", "px-graph-legend");
    lay.legend.forEach(function (line) { legend.appendChild(el("div", "", line)); });
    wrap.appendChild(legend);
    var view = [0, 0, Math.max(lay.width, 1), Math.max(lay.height, 1)];
    var node = svgEl("svg", { viewBox: view.join(" "), preserveAspectRatio: "xMidYMin meet" });
    var edges = svgEl("g", { "class": "px-edges" }), boxes = svgEl("g", { "class": "px-nodes" });
    node.appendChild(edges); node.appendChild(boxes);
    lay.edges.forEach(function (e) { drawEdge(edges, e, lay.nodes); });
    lay.nodes.forEach(function (n) {
      var g = drawNode(boxes, n);
      if (rx && rx.test(n.name)) g.classList.add("px-match");
      if (self.selection.indexOf(n.name) >= 0) g.classList.add("px-selected");
    });
    wrap.appendChild(node);
    function apply() { node.setAttribute("viewBox", view.join(" ")); }
    wrap.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = wrap.getBoundingClientRect(), f = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
      var fx = (ev.clientX - r.left) / r.width, fy = (ev.clientY - r.top) / r.height;
      var w = view[2] * f, h = view[3] * f;
      view = [view[0] + (view[2] - w) * fx, view[1] + (view[3] - h) * fy, w, h]; apply();
    }, { passive: false });
    var drag = null;
    wrap.addEventListener("mousedown", function (ev) { drag = [ev.clientX, ev.clientY, view[0], view[1]]; });
    window.addEventListener("mouseup", function () { drag = null; });
    wrap.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var r = wrap.getBoundingClientRect(), s = Math.max(view[2] / r.width, view[3] / r.height);
      view[0] = drag[2] - (ev.clientX - drag[0]) * s; view[1] = drag[3] - (ev.clientY - drag[1]) * s; apply();
    });
    // one listener for every node
    boxes.addEventListener("click", function (ev) {
      var g = ev.target.closest && ev.target.closest("g.node");
      if (!g) return;
      ev.stopPropagation();
      g.classList.toggle("px-selected", self.select(g.getAttribute("data-name")));
    });
  };

  // ---------------------------------------------------------------- Flame graph
  Explorer.prototype.draw_flamegraph = function (d) {
    var self = this, host = el("div", "pprofcore-flame"), q = this.params();
    this.body.appendChild(host);
    var app = window.pprofcoreFlame(host, d.flame);
    this.flame = app;
    var names = d.flame.names, view = app.view;
    view.opts.label = function (i) {
      var name = names[view.tree.frame[i]], room = Math.floor((view.tree.width[i] * view.scale - 6) / 6.2);
      var forms = shortNames(name);
      for (var k = 0; k < forms.length; k++) if (forms[k].length <= room) return forms[k];
      return forms[forms.length - 1];
    };
    var select = app.select;
    app.select = function (f, fromTable) {
      select.call(app, f, fromTable);
      self.selection = f >= 0 ? [names[f]] : [];
      self.root.setAttribute("data-selection", String(self.selection.length));
    };
    if (q.get("q")) { app.search.value = q.get("q"); app.runSearch(); } else view.draw();
  };

  // ---------------------------------------------------------------- Timeline
  // The lanes of the refined profile before its time window; dragging across
  // the axis sets tw= (ns since the epoch, added exactly with BigInt) for every view.
  Explorer.prototype.draw_timeline = function (d) {
    var self = this, host = el("div", "pprofcore-timeline");
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "tl-lanes");
    host.appendChild(svg);
    host.appendChild(el("div", "tl-tip"));
    host.appendChild(el("div", "tl-span", "drag across the time axis to keep a time window in every view; click it to clear"));
    this.body.appendChild(host);
    var t0 = BigInt(d.t0);
    var tl = window.pprofcoreTimeline(host, d.timeline, function (a, b) {
      self.set({ tw: a === null ? "" : (t0 + BigInt(a)) + "-" + (t0 + BigInt(b)) });
    });
    if (d.window) tl.show(d.window[0], d.window[1]);
  };

  // ---------------------------------------------------------------- Peek
  Explorer.prototype.draw_peek = function (d) {
    var self = this, rx = searchRx(this.params().get("q"));
    var table = el("table", "px-table px-peek"), head = el("tr");
    ["flat", "cum", "calls", "", "name"].forEach(function (c) { head.appendChild(el("th", c === "name" ? "px-name" : "", c)); });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = el("tbody"); table.appendChild(body);
    var last = null;
    d.rows.forEach(function (r) {
      if (r.focus !== last) { var sep = el("tr", "px-peek-sep"); sep.appendChild(el("td", "", "")); body.appendChild(sep); last = r.focus; }
      var tr = el("tr", "px-peek-" + r.kind);
      var node = r.kind === "node";
      tr.appendChild(el("td", "px-num", node ? r.flat_label : ""));
      tr.appendChild(el("td", "px-num", node ? r.cum_label : ""));
      tr.appendChild(el("td", "px-num", node ? "" : r.weight_label));
      tr.appendChild(el("td", "", r.kind === "caller" ? "\u2191 caller" : r.kind === "callee" ? "\u2193 callee" : "\u25b6"));
      var name = el("td", "px-name", r.name + (r.inline ? " " + r.inline : "")); tr.appendChild(name);
      if (rx && rx.test(r.name)) tr.classList.add("px-match");
      tr.addEventListener("click", function () { tr.classList.toggle("px-selected", self.select(r.name)); });
      body.appendChild(tr);
    });
    var wrap = el("div", "px-scroll"); wrap.appendChild(table); this.body.appendChild(wrap);
  };

  // ---------------------------------------------------------------- Source / Disassemble
  Explorer.prototype.draw_source = function (d) {
    var self = this, rx = searchRx(this.params().get("q")), wrap = el("div", "px-scroll");
    this.body.appendChild(wrap);
    d.routines.forEach(function (r) {
      var box = el("section", "px-routine");
      box.appendChild(el("h3", "", r.name));
      box.appendChild(el("div", "px-file", (r.file || "") + "   flat " + r.flat_label + ", cum " + r.cum_label));
      if (r.error) box.appendChild(el("div", "px-error", r.error));
      if (r.lines.length) {
        var table = el("table", "px-table px-listing"), body = el("tbody"); table.appendChild(body);
        r.lines.forEach(function (ln) {
          var tr = el("tr", ln.flat || ln.cum ? "px-hot" : "");
          tr.appendChild(el("td", "px-num", ln.flat_label)); tr.appendChild(el("td", "px-num", ln.cum_label));
          tr.appendChild(el("td", "px-num px-lineno", ln.at));
          var code = el("td", "px-code"); code.appendChild(el("pre", "", ln.text)); tr.appendChild(code);
          if (rx && rx.test(ln.text)) tr.classList.add("px-match");
          body.appendChild(tr);
        });
        box.appendChild(table);
      }
      wrap.appendChild(box);
    });
    if (!d.routines.length) this.note("nothing to list", false);
  };
  Explorer.prototype.draw_disasm = Explorer.prototype.draw_source;

  // ---------------------------------------------------------------- Labels
  Explorer.prototype.draw_labels = function (d) {
    var self = this, wrap = el("div", "px-scroll px-labels"), rx = searchRx(this.params().get("q"));
    this.body.appendChild(wrap);
    if (!d.keys.length) this.note("no labels in this profile", false);
    d.keys.forEach(function (k) {
      var box = el("section", "px-label-key"); box.setAttribute("data-key", k.key);
      box.appendChild(el("h3", "", k.key));
      var rows = k.numeric && k.histogram ? k.histogram.buckets.map(function (b) {
        return { text: b.label, total: b.total, label: String(b.total), filter: b.filter };
      }) : k.values.map(function (v) {
        return { text: v.value, total: v.total, label: v.total_label + " (" + pct(v.share) + ")",
                 filter: k.key + "=^" + quoteRegex(v.value).replace(/,/g, "\\x2c") + "$", share: v.share };
      });
      var top = rows.reduce(function (a, r) { return Math.max(a, Math.abs(r.total)); }, 0) || 1;
      var table = el("table", "px-table px-label-values"), body = el("tbody"); table.appendChild(body);
      rows.forEach(function (r) {
        var tr = el("tr"), bar = el("td", "px-barcell"), fill = el("div", "px-bar");
        fill.style.width = (100 * Math.abs(r.total) / top).toFixed(1) + "%"; bar.appendChild(fill);
        tr.appendChild(bar); tr.appendChild(el("td", "px-num", r.label));
        tr.appendChild(el("td", "px-name", r.text));
        if (rx && rx.test(r.text)) tr.classList.add("px-match");
        var f = el("td", "px-actions");
        [["tf", "focus"], ["ti", "ignore"]].forEach(function (a) {
          var b = el("button", "px-btn px-tag-" + a[0], a[1]);
          b.addEventListener("click", function () { var c = {}; c[a[0]] = r.filter; self.set(c); });
          f.appendChild(b);
        });
        tr.appendChild(f); body.appendChild(tr);
      });
      box.appendChild(table); wrap.appendChild(box);
    });
  };

  // ---------------------------------------------------------------- label filter picker
  Explorer.prototype.loadLabelKeys = function () {
    var self = this;
    if (this.labelsCache) return;
    this.labelsCache = this.transport.fetch("labels", this.query).then(function (d) {
      var keep = self.lkey.value;
      self.lkey.textContent = ""; option(self.lkey, "", "label...", !keep);
      (d.keys || []).forEach(function (k) { if (!k.numeric) option(self.lkey, k.key, k.key, k.key === keep); });
      self.labelData = d;
      self.fillLabelValues();
      return d;
    });
  };
  Explorer.prototype.fillLabelValues = function () {
    var self = this, key = this.lkey.value;
    this.lval.textContent = ""; option(this.lval, "", "value...", true);
    ((this.labelData && this.labelData.keys) || []).forEach(function (k) {
      if (k.key !== key) return;
      k.values.forEach(function (v) { option(self.lval, "^" + quoteRegex(v.value).replace(/,/g, "\\x2c") + "$", v.value + " (" + pct(v.share) + ")", false); });
    });
  };

  // ---------------------------------------------------------------- configurations
  Explorer.prototype.fillConfigs = function (configs) {
    var self = this;
    this.savedConfigs = configs;
    this.configs.textContent = ""; option(this.configs, "", "configurations...", true);
    Object.keys(configs).sort().forEach(function (n) { option(self.configs, n, n, false); });
  };
  Explorer.prototype.loadConfig = function () {
    var n = this.configs.value;
    if (n && this.savedConfigs[n] !== undefined) this.go(this.view, this.savedConfigs[n], true);
  };
  Explorer.prototype.saveConfig = function () {
    var self = this, name = window.prompt("Save this view as:");
    if (!name) return;
    this.transport.saveConfig(name, this.query).then(function (c) { self.fillConfigs(c); });
  };

  // ---------------------------------------------------------------- server transport
  function serverTransport() {
    function viewOf(path) {
      var rest = path.replace(/^.*\/ui\/?/, "").replace(/\/$/, "");
      for (var v in PATHS) if (PATHS[v] === rest) return v;
      return "graph";
    }
    return {
      initial: function () { return [viewOf(location.pathname), location.search.replace(/^\?/, "")]; },
      href: function (view, query) { return "/ui/" + PATHS[view] + (query ? "?" + query : ""); },
      navigate: function (view, query, push) {
        var url = this.href(view, query);
        if (url === location.pathname + location.search) return;
        if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
      },
      fetch: function (view, query) {
        return fetch("/ui/data/" + view + (query ? "?" + query : ""), { credentials: "same-origin" }).then(function (r) {
          return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.statusText); return j; });
        });
      },
      saveConfig: function (name, query) {
        return fetch("/ui/saveconfig?config=" + encodeURIComponent(name), {
          method: "POST", body: query, credentials: "same-origin",
          headers: { "content-type": "application/x-www-form-urlencoded" }
        }).then(function (r) { return r.json(); }).then(function (j) { return j.configs || {}; });
      },
      viewOf: viewOf
    };
  }

  window.pprofcoreExplorer = function (root, meta, transport) {
    var ex = new Explorer(root, meta, transport);
    root.pprofcoreExplorer = ex;
    return ex;
  };
  window.pprofcoreExplorer.shortNames = shortNames;  // for tests

  // The server's page: start from the URL, and follow back/forward.
  var metaEl = document.getElementById("px-meta"), rootEl = document.getElementById("px-root");
  if (metaEl && rootEl) {
    var t = serverTransport(), ex = window.pprofcoreExplorer(rootEl, JSON.parse(metaEl.textContent), t);
    var start = t.initial();
    ex.show(start[0], start[1]);
    window.addEventListener("popstate", function () {
      var now = t.initial(); ex.show(now[0], now[1]);
    });
  }
})();
