// Pan (drag) and zoom (wheel) for pprofcore's call-graph SVG: moves the
// transform of the <g id="viewport"> group that wraps Graphviz's drawing.
(function () {
  var svg = document.documentElement;
  var view = document.getElementById("viewport");
  if (!view || !svg.createSVGPoint) return;
  var m = view.getCTM();
  var drag = null;
  function apply() {
    view.setAttribute("transform", "matrix(" + [m.a, m.b, m.c, m.d, m.e, m.f].join(",") + ")");
  }
  function point(ev) {
    var p = svg.createSVGPoint();
    p.x = ev.clientX;
    p.y = ev.clientY;
    return p;
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var k = Math.pow(1.1, ev.deltaY < 0 ? 1 : -1);
    var p = point(ev).matrixTransform(m.inverse());
    m = m.translate(p.x, p.y).scale(k).translate(-p.x, -p.y);
    apply();
  }, { passive: false });
  svg.addEventListener("mousedown", function (ev) {
    drag = point(ev).matrixTransform(m.inverse());
  });
  svg.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    var p = point(ev).matrixTransform(m.inverse());
    m = m.translate(p.x - drag.x, p.y - drag.y);
    apply();
  });
  svg.addEventListener("mouseup", function () {
    drag = null;
  });
})();
