// pprofcore flame graph viewer: draws a call tree prepared by pprofcore (nodes in
// depth-first pre-order) on a canvas. Click zooms, the breadcrumb and Reset zoom
// out, hovering shows a tooltip, the search box highlights regex matches and
// shows their share, a function picked in the graph or the table opens its
// sandwich view (callers above, callees below). No network, no dependencies.
(function () {
  "use strict";
  if (window.pprofcoreFlame) return;
  var ROW = 18;

  function formatter(unit) {
    var scales = {
      nanoseconds: [[1e9, "s"], [1e6, "ms"], [1e3, "us"], [1, "ns"]],
      microseconds: [[1e6, "s"], [1e3, "ms"], [1, "us"]],
      milliseconds: [[1e3, "s"], [1, "ms"]],
      seconds: [[1, "s"]],
      bytes: [[1099511627776, "TB"], [1073741824, "GB"], [1048576, "MB"], [1024, "kB"], [1, "B"]]
    }[unit];
    return function (v) {
      if (!scales) return String(v) + (unit && unit !== "count" ? " " + unit : "");
      var a = Math.abs(v);
      for (var i = 0; i < scales.length; i++) {
        if (a >= scales[i][0] || i === scales.length - 1) {
          var x = v / scales[i][0];
          return (Math.abs(x) >= 100 || x === Math.round(x) ? x.toFixed(0) : x.toFixed(2).replace(/\.?0+$/, "")) + scales[i][1];
        }
      }
    };
  }
  function pct(a, b) { return b ? (100 * a / b).toFixed(2) + "%" : "-"; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // A tree in pre-order: frame[], depth[], total[], self[], width[] (layout
  // weights) and optional base_total[]/base_self[]; derives parent/end/x.
  function Tree(t) {
    var n = t.frame.length, i;
    this.n = n; this.frame = t.frame; this.depth = t.depth; this.total = t.total; this.self = t.self;
    this.width = t.width || t.total.map(Math.abs);
    this.base_total = t.base_total; this.base_self = t.base_self;
    this.parent = new Int32Array(n); this.end = new Int32Array(n); this.x = new Float64Array(n);
    var stack = [], cursor = new Float64Array(n), maxDepth = 0;
    this.parent[0] = -1;
    for (i = 0; i < n; i++) {
      var d = this.depth[i];
      if (d > maxDepth) maxDepth = d;
      while (stack.length > d) { var j = stack.pop(); this.end[j] = i; }
      if (i > 0) {
        var p = stack[stack.length - 1];
        this.parent[i] = p;
        this.x[i] = cursor[p];
        cursor[p] += this.width[i];
      }
      cursor[i] = this.x[i];
      stack.push(i);
    }
    while (stack.length) this.end[stack.pop()] = n;
    this.maxDepth = maxDepth;
  }

  // Merges paths into a new pre-order tree. add(path, value, selfValue) for
  // each path (frames, root first); root frame is path[0] of every path.
  function PathTree() { this.kids = [new Map()]; this.frame = [-1]; this.total = [0]; this.self = [0]; this.up = [-1]; }
  PathTree.prototype.add = function (path, value, selfValue) {
    var node = 0;
    this.total[0] += value;
    for (var i = 0; i < path.length; i++) {
      var c = this.kids[node].get(path[i]);
      if (c === undefined) {
        c = this.frame.length;
        this.kids[node].set(path[i], c);
        this.kids.push(new Map()); this.frame.push(path[i]); this.total.push(0); this.self.push(0); this.up.push(node);
      }
      this.total[c] += value;
      node = c;
    }
    this.self[node] += selfValue;
  };
  // The node for `frame` under `node`, made when new; totals are left to sumUp.
  PathTree.prototype.child = function (node, frame) {
    var c = this.kids[node].get(frame);
    if (c === undefined) {
      c = this.frame.length;
      this.kids[node].set(frame, c);
      this.kids.push(new Map()); this.frame.push(frame); this.total.push(0); this.self.push(0); this.up.push(node);
    }
    return c;
  };
  // Totals from self values for trees built with child(): children come after
  // their parents, so one backward pass adds each node into its parent.
  // Nodes with no self value below them are dropped from preorder(), as add() never makes them.
  PathTree.prototype.sumUp = function () {
    var n = this.frame.length, c;
    this.live = new Uint8Array(n);
    for (c = 0; c < n; c++) { this.total[c] = this.self[c]; this.live[c] = this.self[c] !== 0 ? 1 : 0; }
    for (c = n - 1; c > 0; c--) { this.total[this.up[c]] += this.total[c]; this.live[this.up[c]] |= this.live[c]; }
  };
  PathTree.prototype.preorder = function (skipRoot) {
    var out = { frame: [], depth: [], total: [], self: [] }, self = this;
    var first = this.kids[0].values().next().value;
    if (first !== undefined && this.live && !this.live[first]) first = undefined;
    var stack = [[skipRoot ? first : 0, 0]];
    while (stack.length) {
      var e = stack.pop(), i = e[0];
      if (i === undefined) break;
      out.frame.push(this.frame[i]); out.depth.push(e[1]); out.total.push(this.total[i]); out.self.push(this.self[i]);
      var kids = Array.from(this.kids[i].values());
      if (this.live) kids = kids.filter(function (c) { return self.live[c]; });
      kids.sort(function (a, b) { return Math.abs(self.total[a]) - Math.abs(self.total[b]); });  // widest popped first
      for (var k = 0; k < kids.length; k++) stack.push([kids[k], e[1] + 1]);
    }
    return out;
  };

  // One canvas view of a Tree. opts: {icicle, onClick(i), onHover(i, ev), colour(i), label}
  function View(app, tree, host, opts) {
    this.app = app; this.tree = tree; this.opts = opts; this.zoom = 0; this.icicle = !!opts.icicle;
    this.canvas = el("canvas"); host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.drawn = [];
    var self = this;
    this.canvas.addEventListener("click", function (ev) {
      var i = self.hit(ev);
      if (i >= 0 && opts.onClick) opts.onClick(i);
    });
    this.canvas.addEventListener("mousemove", function (ev) { opts.onHover(self, self.hit(ev), ev); });
    this.canvas.addEventListener("mouseleave", function () { opts.onHover(self, -1, null); });
  }
  View.prototype.rowOf = function (d, maxD) { return this.icicle ? d : maxD - d; };
  View.prototype.draw = function () {
    var t = this.tree, z = this.zoom, ctx = this.ctx;
    var width = Math.max(200, this.canvas.parentNode.clientWidth || 800);
    var dpr = window.devicePixelRatio || 1;
    var scale = t.width[z] > 0 ? width / t.width[z] : 0, x0 = t.x[z];
    // Depth of the deepest visible node decides the height.
    var maxD = 0, i;
    for (i = z; i < t.end[z]; i++) {
      if (t.width[i] * scale < 0.4) { i = t.end[i] - 1; continue; }
      if (t.depth[i] > maxD) maxD = t.depth[i];
    }
    var height = (maxD + 1) * ROW;
    this.canvas.width = Math.round(width * dpr); this.canvas.height = Math.round(height * dpr);
    this.canvas.style.width = width + "px"; this.canvas.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    this.drawn = []; this.maxD = maxD; this.scale = scale;
    var self = this;
    function box(i, px, pw) {
      var y = self.rowOf(t.depth[i], maxD) * ROW;
      ctx.fillStyle = self.opts.colour(i);
      ctx.fillRect(px, y, Math.max(pw - 0.5, 0.5), ROW - 1);
      var mark = self.opts.mark ? self.opts.mark(i) : 0;
      if (mark) {
        ctx.strokeStyle = mark === 2 ? "#0d47a1" : "#6a1b9a"; ctx.lineWidth = 2;
        ctx.strokeRect(px + 1, y + 1, Math.max(pw - 2.5, 0.5), ROW - 3);
      }
      if (pw > 24) {
        var name = self.opts.label(i), max = Math.floor((pw - 6) / 6.2);
        if (name.length > max) name = max > 2 ? name.slice(0, max - 2) + ".." : "";
        if (name) { ctx.fillStyle = "#111"; ctx.fillText(name, px + 3, y + ROW / 2); }
      }
      self.drawn.push(i, px, y, pw);
    }
    for (var a = t.parent[z]; a >= 0; a = t.parent[a]) box(a, 0, width);  // ancestors of the zoomed node
    for (i = z; i < t.end[z]; i++) {
      var pw = t.width[i] * scale;
      if (pw < 0.4) { i = t.end[i] - 1; continue; }  // too narrow: skip the whole subtree
      box(i, (t.x[i] - x0) * scale, pw);
    }
    var host = this.canvas.parentNode;  // keep the root row in sight
    host.scrollTop = this.icicle ? 0 : host.scrollHeight;
  };
  View.prototype.hit = function (ev) {
    var r = this.canvas.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top, d = this.drawn;
    for (var k = 0; k < d.length; k += 4) {
      if (my >= d[k + 2] && my < d[k + 2] + ROW && mx >= d[k + 1] && mx < d[k + 1] + Math.max(d[k + 3], 1)) return d[k];
    }
    return -1;
  };
  View.prototype.nodeCenter = function (i) {  // client coordinates of a drawn node (for tests)
    var d = this.drawn, r = this.canvas.getBoundingClientRect();
    for (var k = 0; k < d.length; k += 4) if (d[k] === i) return [r.left + d[k + 1] + d[k + 3] / 2, r.top + d[k + 2] + ROW / 2];
    return null;
  };

  function App(root, data) {
    this.root = root; this.data = data; this.fmt = formatter(data.unit);
    this.selected = -1; this.matches = null;
    var w = data.width || null;
    this.tree = new Tree({ frame: data.frame, depth: data.depth, total: data.total, self: data.self, width: w,
                           base_total: data.base_total, base_self: data.base_self });
    this.build();
  }
  App.prototype.build = function () {
    var self = this, d = this.data, root = this.root;
    root.textContent = "";
    var bar = el("div", "pf-bar");
    bar.appendChild(el("span", "pf-title", d.title));
    this.search = el("input", "pf-search"); this.search.placeholder = "search (regex)"; this.search.type = "search";
    bar.appendChild(this.search);
    this.matchInfo = el("span", "pf-match"); bar.appendChild(this.matchInfo);
    var reset = el("button", "pf-reset", "Reset"); bar.appendChild(reset);
    this.toggle = el("button", "pf-toggle", ""); bar.appendChild(this.toggle);
    if (d.diff) bar.appendChild(el("span", "pf-legend", "red: grew, blue: shrank" + (d.normalized ? " (base normalized to this total)" : "")));
    root.appendChild(bar);
    this.crumbs = el("div", "pf-crumbs"); root.appendChild(this.crumbs);
    var main = el("div", "pf-main"); root.appendChild(main);
    var graph = el("div", "pf-graph"); main.appendChild(graph);
    var side = el("div", "pf-side"); main.appendChild(side);
    this.sandwich = el("div", "pf-sandwich"); this.sandwich.style.display = "none"; root.appendChild(this.sandwich);
    this.tip = el("div", "pf-tip"); this.tip.style.display = "none"; root.appendChild(this.tip);

    var tree = this.tree;
    this.graph = graph;
    this.view = new View(this, tree, graph, {
      icicle: true,  // root on top, as pprof's web view; the toggle flips it
      colour: function (i) { return self.colour(tree, i, tree.frame[i]); },
      label: function (i) { return d.names[tree.frame[i]]; },
      mark: function (i) {
        if (self.selected >= 0 && tree.frame[i] === self.selected) return 2;
        return self.matches && self.matches[i] ? 1 : 0;
      },
      onClick: function (i) { self.zoomTo(i); if (i > 0 && tree.frame[i] !== d.ellipsis) self.select(tree.frame[i], false); },
      onHover: function (v, i, ev) { self.hover(v, i, ev); }
    });
    this.buildTable(side);
    reset.addEventListener("click", function () { self.select(-1); self.zoomTo(0); });
    this.toggle.addEventListener("click", function () {
      self.view.icicle = !self.view.icicle; self.updateToggle(); self.view.draw();
    });
    var pending = null;
    this.search.addEventListener("input", function () {
      clearTimeout(pending); pending = setTimeout(function () { self.runSearch(); }, 120);
    });
    this.search.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { clearTimeout(pending); self.runSearch(); } });
    this.updateToggle();
    var t0 = performance.now();
    this.zoomTo(0);
    root.setAttribute("data-render-ms", (performance.now() - t0).toFixed(1));
    if (window.ResizeObserver) {
      var lastW = graph.clientWidth;
      new ResizeObserver(function () { if (graph.clientWidth !== lastW) { lastW = graph.clientWidth; self.redraw(); } }).observe(graph);
    }
  };
  App.prototype.updateToggle = function () {
    this.toggle.textContent = this.view.icicle ? "Flame" : "Icicle";
    this.toggle.title = this.view.icicle ? "draw the root at the bottom" : "draw the root at the top";
    this.root.setAttribute("data-orientation", this.view.icicle ? "icicle" : "flame");
  };
  App.prototype.colour = function (tree, i, f) {
    var d = this.data;
    if (f === d.ellipsis) return "#ddd";
    if (i === 0 && tree === this.tree) return "#ccc";
    if (d.diff && tree.base_total) {
      var n = tree.total[i], b = tree.base_total[i], top = Math.max(Math.abs(n), Math.abs(b));
      var r = top ? (n - b) / top : 0, light = Math.round(96 - 46 * Math.min(1, Math.abs(r)));
      return "hsl(" + (r >= 0 ? 0 : 220) + ",85%," + light + "%)";
    }
    var dim = this.matches && !this.matches[i] && tree === this.tree;
    return "hsl(" + d.hues[f] + "," + (dim ? "15%,88%" : "65%,68%") + ")";
  };
  App.prototype.redraw = function () {
    this.view.draw();
    if (this.callers) { this.callers.draw(); this.callees.draw(); }
  };
  App.prototype.zoomTo = function (i) {
    var t0 = performance.now();
    this.view.zoom = i; this.view.draw();
    this.root.setAttribute("data-zoom", String(i));
    this.root.setAttribute("data-zoom-ms", (performance.now() - t0).toFixed(1));
    var c = this.crumbs, self = this, path = [];
    for (var a = i; a >= 0; a = this.tree.parent[a]) path.unshift(a);
    c.textContent = "";
    path.forEach(function (a, k) {
      if (k) c.appendChild(document.createTextNode(" \u203a "));
      var s = el("span", "", self.data.names[self.tree.frame[a]]);
      s.addEventListener("click", function () { self.zoomTo(a); });
      c.appendChild(s);
    });
  };
  App.prototype.hover = function (view, i, ev) {
    var tip = this.tip;
    if (i < 0) { tip.style.display = "none"; this.root.removeAttribute("data-hover"); return; }
    var t = view.tree, d = this.data, f = t.frame[i], fmt = this.fmt;
    var rootTotal = Math.abs(t.total[0]) || 0, parentTotal = t.parent[i] >= 0 ? Math.abs(t.total[t.parent[i]]) : rootTotal;
    var lines = [[null, d.names[f]]];
    if (d.files[f]) lines.push(["file", d.files[f] + (d.lines[f] ? ":" + d.lines[f] : "")]);
    if (d.diff && t.base_total) {
      var n = t.total[i], b = t.base_total[i];
      lines.push(["new", fmt(n) + " (self " + fmt(t.self[i]) + ")"]);
      lines.push(["base", fmt(b) + " (self " + fmt(t.base_self[i]) + ")"]);
      lines.push(["delta", (n - b >= 0 ? "+" : "") + fmt(n - b) + (b ? " (" + (n - b >= 0 ? "+" : "") + pct(n - b, Math.abs(b)) + ")" : n ? " (new)" : "")]);
      if (!n && b) lines.push([null, "vanished: only in the base profile"]);
    } else {
      lines.push(["total", fmt(t.total[i]) + "  " + pct(Math.abs(t.total[i]), rootTotal) + " of root, " +
        pct(Math.abs(t.total[i]), parentTotal) + " of parent"]);
      lines.push(["self", fmt(t.self[i]) + "  " + pct(Math.abs(t.self[i]), rootTotal) + " of root"]);
    }
    if (f === d.ellipsis) lines.push([null, "nodes narrower than " + (100 * d.min_fraction) + "% of the root, merged"]);
    tip.textContent = "";
    lines.forEach(function (l, k) {
      if (k) tip.appendChild(document.createElement("br"));
      if (l[0]) { tip.appendChild(el("b", "", l[0] + ": ")); tip.appendChild(document.createTextNode(l[1])); }
      else tip.appendChild(el(k ? "i" : "b", "", l[1]));
    });
    var rr = this.root.getBoundingClientRect();
    tip.style.display = "block";
    var x = ev.clientX - rr.left + 12, y = ev.clientY - rr.top + 14;
    if (x + tip.offsetWidth > rr.width) x = Math.max(0, ev.clientX - rr.left - tip.offsetWidth - 12);
    tip.style.left = x + "px"; tip.style.top = y + "px";
    this.root.setAttribute("data-hover", String(i));
  };
  App.prototype.runSearch = function () {
    var q = this.search.value, t = this.tree, d = this.data, rx = null;
    this.search.classList.remove("pf-bad");
    if (q) {
      try { rx = new RegExp(q); } catch (e) { this.search.classList.add("pf-bad"); this.matchInfo.textContent = "bad regex"; return; }
    }
    if (!rx) {
      this.matches = null; this.matchInfo.textContent = "";
      this.root.removeAttribute("data-match-count"); this.root.removeAttribute("data-match-share");
      this.view.draw(); return;
    }
    var hitFrame = d.names.map(function (s) { return rx.test(s); });
    var m = new Uint8Array(t.n), count = 0, covered = 0, inside = -1;
    for (var i = 1; i < t.n; i++) {
      if (hitFrame[t.frame[i]] && t.frame[i] !== d.ellipsis) {
        m[i] = 1; count++;
        if (inside < 0 || i >= t.end[inside]) { covered += t.total[i]; inside = i; }  // outermost matches only
      }
    }
    var share = t.total[0] ? covered / t.total[0] : 0;
    this.matches = m;
    this.matchInfo.textContent = count + " matches, " + (100 * share).toFixed(2) + "% of root (" + this.fmt(covered) + ")";
    this.root.setAttribute("data-match-count", String(count));
    this.root.setAttribute("data-match-share", share.toFixed(6));
    this.view.draw();
  };
  App.prototype.buildTable = function (side) {
    var self = this, d = this.data;
    var table = el("table", "pf-top"), head = el("tr");
    var cols = [["self", "pf-num"], ["self%", "pf-num"], ["total", "pf-num"], ["total%", "pf-num"]];
    if (d.diff) cols.push(["delta", "pf-num"]);  // total minus the base's total
    cols.push(["function", "pf-name"]);
    cols.forEach(function (c) { head.appendChild(el("th", c[1], c[0])); });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = el("tbody"); table.appendChild(body); side.appendChild(table);
    this.rows = {};
    var order = d.top, rootTotal = Math.abs(d.total[0]);
    var render = function (key) {
      body.textContent = ""; self.rows = {};
      var sorted = order.slice().sort(function (a, b) { return Math.abs(d.fvals[key][b]) - Math.abs(d.fvals[key][a]); });
      sorted.forEach(function (f) {
        var tr = el("tr"), s = d.fvals.self[f], tt = d.fvals.total[f];
        var cells = [self.fmt(s), pct(Math.abs(s), rootTotal), self.fmt(tt), pct(Math.abs(tt), rootTotal)];
        if (d.diff) { var dl = tt - d.fvals.base_total[f]; cells.push((dl >= 0 ? "+" : "") + self.fmt(dl)); }
        cells.forEach(function (v) { tr.appendChild(el("td", "", v)); });
        var name = el("td", "pf-name", d.names[f]); name.title = d.names[f]; tr.appendChild(name);
        tr.setAttribute("data-frame", String(f));
        if (f === self.selected) tr.className = "pf-selected";
        tr.addEventListener("click", function () { self.select(f, true); });
        body.appendChild(tr); self.rows[f] = tr;
      });
    };
    head.children[0].addEventListener("click", function () { render("self"); });
    head.children[2].addEventListener("click", function () { render("total"); });
    if (d.diff) {
      d.fvals.delta = d.fvals.total.map(function (v, i) { return v - d.fvals.base_total[i]; });
      head.children[4].addEventListener("click", function () { render("delta"); });
    }
    render("self");
  };
  App.prototype.select = function (f, fromTable) {
    var old = this.rows[this.selected];
    if (old) old.className = "";
    this.selected = f;
    this.root.setAttribute("data-selected", String(f));
    var row = this.rows[f];
    if (row) {
      row.className = "pf-selected";
      if (!fromTable) {  // bring the row into view inside the table only
        var side = row.closest(".pf-side");
        if (side) side.scrollTop = row.offsetTop - side.clientHeight / 2;
      }
    }
    this.view.draw();
    this.showSandwich(f);
  };
  // Callers (merged paths from the root to every outermost node of f, drawn
  // upwards from f) and callees (merged subtrees of those nodes, drawn downwards).
  App.prototype.showSandwich = function (f) {
    var s = this.sandwich, d = this.data, t = this.tree, self = this;
    s.textContent = "";
    this.callers = this.callees = null;
    if (f < 0 || f === d.ellipsis) { s.style.display = "none"; return; }
    var callers = new PathTree(), callees = new PathTree();
    var inside = -1, i, k;
    // Each subtree node maps to the callee-tree node of its path from f (its
    // parent's, one frame deeper): linear in the subtree, however deep.
    var at = new Int32Array(t.n);
    for (i = 1; i < t.n; i++) {
      if (inside >= 0 && i >= t.end[inside]) inside = -1;
      if (t.frame[i] !== f || inside >= 0) continue;
      inside = i;
      var chain = [];
      for (var a = i; a > 0; a = t.parent[a]) chain.push(t.frame[a]);
      callers.add(chain, t.total[i], 0);
      at[i] = callees.child(0, f);
      for (k = i; k < t.end[i]; k++) {
        if (k > i) at[k] = callees.child(at[t.parent[k]], t.frame[k]);
        callees.self[at[k]] += t.self[k];
      }
    }
    callees.sumUp();
    var ct = callees.preorder(true);
    var cl = callers.preorder(true);
    s.style.display = "block";
    s.appendChild(el("h4", "", "Sandwich: " + d.names[f] + " \u2014 callers above, callees below"));
    var up = el("div"), down = el("div");
    s.appendChild(up); s.appendChild(down);
    var mk = function (tree, host, icicle) {
      var tr = new Tree(tree);
      var v = new View(self, tr, host, {
        icicle: icicle,
        colour: function (i) { return self.colour(tr, i, tr.frame[i]); },
        label: function (i) { return d.names[tr.frame[i]]; },
        onClick: function (i) { v.zoom = i === v.zoom ? 0 : i; v.draw(); },
        onHover: function (vv, i, ev) { self.hover(vv, i, ev); }
      });
      v.draw();
      return v;
    };
    this.callers = mk(cl, up, false);
    this.callees = mk(ct, down, true);
    this.root.setAttribute("data-sandwich", String(f));
  };

  window.pprofcoreFlame = function (root, data) {
    var app = new App(root, data);
    root.pprofcore = app;
    return app;
  };
})();
