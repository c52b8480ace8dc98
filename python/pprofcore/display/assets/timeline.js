// The timeline view (display/timeline.py): one lane per thread, time on x, each
// sample's stack drawn root first downwards, lasting until the lane's next
// sample. Dragging across the time axis (or the lanes) selects a time window
// [a, b) in nanoseconds since the first sample; onWindow(a, b) is told (null,
// null for the whole profile). flameData(data, a, b) turns the window's samples
// into the flame graph viewer's input (flamegraph.js), its Top table included.
(function () {
  "use strict";
  if (window.pprofcoreTimeline) return;
  var NS = "http://www.w3.org/2000/svg";
  var W = 1200, ROW = 16, GAP = 10, LEFT = 140, AXIS = 22;

  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return "hsl(" + h + ",60%,70%)";
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function ms(ns) {
    var v = ns / 1e6;
    return (Math.abs(v) >= 100 || v === Math.round(v) ? v.toFixed(0) : v.toFixed(2).replace(/\.?0+$/, "")) + " ms";
  }

  // The flame graph viewer's input for the samples with a <= time < b (all when
  // a is null): a call tree in pre-order (children widest first) and, per name,
  // flat (leaf) and cum (once per sample) values, as Profile.top() counts them.
  function flameData(data, a, b) {
    var names = data.names, n = names.length;
    var kids = [new Map()], frame = [0], total = [0], self = [0];
    var fself = new Array(n).fill(0), ftotal = new Array(n).fill(0), seen = new Int32Array(n).fill(-1);
    data.samples.forEach(function (s, k) {
      if (a !== null && (s[0] < a || s[0] >= b)) return;
      var v = s[2], stack = s[3], node = 0;
      total[0] += v;
      for (var i = 0; i < stack.length; i++) {
        var f = stack[i], c = kids[node].get(f);
        if (c === undefined) {
          c = frame.length;
          kids[node].set(f, c);
          kids.push(new Map()); frame.push(f); total.push(0); self.push(0);
        }
        total[c] += v;
        node = c;
        if (seen[f] !== k) { seen[f] = k; ftotal[f] += v; }
      }
      self[node] += v;
      if (stack.length) fself[stack[stack.length - 1]] += v;
    });
    var out = { frame: [], depth: [], self: [], total: [] }, todo = [[0, 0]];
    while (todo.length) {
      var top = todo.pop(), i = top[0];
      out.frame.push(frame[i]); out.depth.push(top[1]); out.self.push(self[i]); out.total.push(total[i]);
      var ch = Array.from(kids[i].values());
      ch.sort(function (x, y) { return Math.abs(total[x]) - Math.abs(total[y]) || (names[frame[y]] < names[frame[x]] ? -1 : 1); });
      ch.forEach(function (c) { todo.push([c, top[1] + 1]); });  // widest popped first
    }
    var cand = [];
    for (var f = 1; f < n; f++) if (fself[f] || ftotal[f]) cand.push(f);
    cand.sort(function (x, y) {
      return Math.abs(fself[y]) - Math.abs(fself[x]) || Math.abs(ftotal[y]) - Math.abs(ftotal[x]) || (names[x] < names[y] ? -1 : 1);
    });
    var span = a === null ? "" : " [" + ms(a) + ", " + ms(b) + ")";
    return {
      title: data.title + span, type: data.type, unit: data.unit, by: "functions", inverted: false, min_fraction: 0,
      diff: false, normalized: false, names: names, files: names.map(function () { return ""; }),
      lines: names.map(function () { return 0; }), hues: data.hues, ellipsis: -1, top: cand.slice(0, 300),
      fvals: { self: fself, total: ftotal }, frame: out.frame, depth: out.depth, self: out.self, total: out.total
    };
  }

  function Timeline(root, data, onWindow) {
    this.root = root; this.data = data; this.onWindow = onWindow || function () {};
    var svg = root.querySelector("svg.tl-lanes"), tip = root.querySelector(".tl-tip");
    this.svg = svg;
    var lanes = data.lanes, depth = {}, byLane = {};  // lanes in Python's order: thread 2 before 10
    lanes.forEach(function (l) { byLane[l] = []; depth[l] = 1; });
    data.samples.forEach(function (s) {
      byLane[s[1]].push(s);
      depth[s[1]] = Math.max(depth[s[1]], s[3].length);
    });
    var last = data.samples.length ? data.samples[data.samples.length - 1][0] : 0;
    var tail = Math.max(last / 100, 1);  // how long the last sample of a lane lasts
    var span = last + tail;  // the axis ends after the last sample, so a window can hold it
    var scale = (W - LEFT) / span;
    this.scale = scale; this.span = span;
    // The axis: ticks every tenth of the span.
    svg.appendChild(svgEl("rect", { x: LEFT, y: 0, width: W - LEFT, height: AXIS - 4, "class": "tl-axis" }));
    for (var t = 0; t <= 10; t++) {
      var x = LEFT + (t / 10) * (W - LEFT);
      svg.appendChild(svgEl("line", { x1: x, x2: x, y1: AXIS - 8, y2: AXIS - 4, "class": "tl-tick" }));
      var lab = svgEl("text", { x: Math.min(x + 2, W - 60), y: AXIS - 9, "class": "tl-tick" });
      lab.textContent = "+" + ms(t * span / 10);
      svg.appendChild(lab);
    }
    var y = AXIS;
    lanes.forEach(function (lane) {
      var label = svgEl("text", { x: 4, y: y + 12, "class": "lane" });
      label.textContent = (data.lane ? data.lane + "=" : "") + (lane || "(none)");
      svg.appendChild(label);
      var list = byLane[lane];
      list.forEach(function (s, k) {
        var next = k + 1 < list.length ? list[k + 1][0] : s[0] + tail;
        var x = LEFT + s[0] * scale, w = Math.max((next - s[0]) * scale, 1);
        s[3].forEach(function (f, d) {
          var name = data.names[f];
          var fill = data.hues ? "hsl(" + data.hues[f] + ",65%,68%)" : hue(name);  // the flame graph's colours
          var r = svgEl("rect", { x: x, y: y + d * ROW, width: w, height: ROW - 1, fill: fill, "class": "frame", "data-name": name });
          r.addEventListener("mousemove", function () {
            tip.textContent = name + " at +" + ms(s[0]) + " (" + s[2] + " " + data.unit + ")";
          });
          svg.appendChild(r);
        });
      });
      y += depth[lane] * ROW + GAP;
    });
    svg.setAttribute("width", W);
    svg.setAttribute("height", Math.max(y, AXIS + 20));
    svg.setAttribute("data-lanes", lanes.length);
    this.band = svgEl("rect", { x: LEFT, y: 0, width: 0, height: Math.max(y, AXIS + 20), "class": "tl-window" });
    this.band.style.display = "none";
    svg.appendChild(this.band);
    this.listen();
  }
  Timeline.prototype.timeAt = function (clientX) {
    var x = clientX - this.svg.getBoundingClientRect().left - LEFT;
    return Math.round(Math.min(Math.max(x, 0), W - LEFT) / this.scale);
  };
  Timeline.prototype.listen = function () {
    var self = this, start = null;
    this.svg.addEventListener("mousedown", function (ev) {
      if (ev.button !== 0) return;
      start = ev.clientX; ev.preventDefault();
    });
    window.addEventListener("mousemove", function (ev) {
      if (start === null) return;
      self.show(self.timeAt(Math.min(start, ev.clientX)), self.timeAt(Math.max(start, ev.clientX)));
    });
    window.addEventListener("mouseup", function (ev) {
      if (start === null) return;
      var x0 = Math.min(start, ev.clientX), x1 = Math.max(start, ev.clientX);
      start = null;
      if (x1 - x0 < 3) self.select(null, null);  // a click clears the window
      else self.select(self.timeAt(x0), self.timeAt(x1));
    });
  };
  Timeline.prototype.show = function (a, b) {
    if (a === null) { this.band.style.display = "none"; return; }
    this.band.style.display = "";
    this.band.setAttribute("x", LEFT + a * this.scale);
    this.band.setAttribute("width", Math.max((b - a) * this.scale, 1));
  };
  // Selects [a, b) (ns since the first sample; null: everything) and tells onWindow.
  Timeline.prototype.select = function (a, b) {
    this.show(a, b);
    if (a === null) this.root.removeAttribute("data-window");
    else this.root.setAttribute("data-window", a + "-" + b);
    this.onWindow(a, b);
  };

  window.pprofcoreTimeline = function (root, data, onWindow) {
    var tl = new Timeline(root, data, onWindow);
    root.pprofcoreTimeline = tl;
    return tl;
  };
  window.pprofcoreTimeline.flameData = flameData;
  // The standalone page: the timeline above a flame graph and Top of its window.
  window.pprofcoreTimeline.page = function (root, data) {
    var host = root.querySelector(".pprofcore-flame"), label = root.querySelector(".tl-span");
    var draw = function (a, b) {
      window.pprofcoreFlame(host, flameData(data, a, b));
      label.textContent = a === null ? "whole profile (drag across the time axis to pick a window)" :
        "window [+" + ms(a) + ", +" + ms(b) + ") (click the axis to clear)";
    };
    var tl = window.pprofcoreTimeline(root, data, draw);
    draw(null, null);
    return tl;
  };
})();
