// The explorer as an anywidget module: the transport asks the kernel for a
// view's data through the model (trait `request`, answered in `payload`) and
// keeps the state in the `view` and `query` traits, which Python reads and sets.
function render({ model, el }) {
  var waiting = {}, seq = 0;
  model.on("change:payload", function () {
    var msg = JSON.parse(model.get("payload") || "{}"), w = waiting[msg.seq];
    if (!w) return;
    delete waiting[msg.seq];
    if (msg.error) w[1](new Error(msg.error)); else w[0](msg.data);
  });
  var transport = {
    fetch: function (view, query) {
      var n = ++seq;
      return new Promise(function (resolve, reject) {
        waiting[n] = [resolve, reject];
        model.set("request", { view: view, query: query, seq: n });
        model.save_changes();
      });
    },
    navigate: function (view, query) {
      model.set("view", view); model.set("query", query); model.save_changes();
    }
  };
  var root = document.createElement("div");
  root.className = "px-widget";
  el.appendChild(root);
  var ex = window.pprofcoreExplorer(root, JSON.parse(model.get("meta")), transport);
  ex.show(model.get("view"), model.get("query"));
  function fromPython() {
    if (model.get("view") !== ex.view || model.get("query") !== ex.query) ex.show(model.get("view"), model.get("query"));
  }
  model.on("change:view", fromPython);
  model.on("change:query", fromPython);
  return function () { waiting = {}; };
}
export default { render };
