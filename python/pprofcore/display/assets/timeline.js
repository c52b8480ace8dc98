// The timeline view (display/timeline.py): one lane per thread, time on x, each
// sample's stack drawn root first downwards, lasting until the lane's next sample.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("timeline-data").textContent);
  var svg = document.getElementById("timeline");
  var tip = document.getElementById("timeline-tip");
  var NS = "http://www.w3.org/2000/svg";
  var W = 1200, ROW = 16, GAP = 10, LEFT = 140;
  var lanes = [], depth = {}, byLane = {};
  data.samples.forEach(function (s) {
    if (!(s[1] in byLane)) { byLane[s[1]] = []; lanes.push(s[1]); depth[s[1]] = 1; }
    byLane[s[1]].push(s);
    depth[s[1]] = Math.max(depth[s[1]], s[3].length);
  });
  var end = data.samples.length ? data.samples[data.samples.length - 1][0] : 0;
  var span = Math.max(end, 1);
  var scale = (W - LEFT) / span;
  var y = 0;
  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return "hsl(" + h + ",60%,70%)";
  }
  lanes.forEach(function (lane) {
    var label = document.createElementNS(NS, "text");
    label.setAttribute("x", 4);
    label.setAttribute("y", y + 12);
    label.setAttribute("class", "lane");
    label.textContent = (data.lane ? data.lane + "=" : "") + (lane || "(none)");
    svg.appendChild(label);
    var list = byLane[lane];
    list.forEach(function (s, k) {
      var next = k + 1 < list.length ? list[k + 1][0] : s[0] + span / 100;
      var x = LEFT + s[0] * scale, w = Math.max((next - s[0]) * scale, 1);
      s[3].forEach(function (f, d) {
        var r = document.createElementNS(NS, "rect");
        r.setAttribute("x", x);
        r.setAttribute("y", y + d * ROW);
        r.setAttribute("width", w);
        r.setAttribute("height", ROW - 1);
        r.setAttribute("fill", hue(data.names[f]));
        r.setAttribute("class", "frame");
        r.setAttribute("data-name", data.names[f]);
        r.addEventListener("mousemove", function () {
          tip.textContent = data.names[f] + " at +" + (s[0] / 1e6).toFixed(3) + " ms (" + s[2] + " " + data.unit + ")";
        });
        svg.appendChild(r);
      });
    });
    y += depth[lane] * ROW + GAP;
  });
  svg.setAttribute("width", W);
  svg.setAttribute("height", Math.max(y, 20));
  svg.setAttribute("data-lanes", lanes.length);
})();
