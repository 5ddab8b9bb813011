// The HTML report's findings: the filters (kind, scope, text; preset from
// ?kind=&scope=&text=), node links that outline a node in the graph (and
// #<node id> in the URL), and clicks on graph nodes. The timeline has its own
// script (html_timeline.js).
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('#findings tbody tr'));
  var kind = document.getElementById('f-kind');
  var scope = document.getElementById('f-scope');
  var text = document.getElementById('f-text');
  function apply() {
    var k = kind.value, s = scope.value, t = text.value.toLowerCase(), shown = 0;
    rows.forEach(function (r) {
      var ok = (!k || r.dataset.kind === k) && (!s || r.dataset.scope === s) &&
               (!t || r.textContent.toLowerCase().indexOf(t) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('f-count').textContent = shown + ' of ' + rows.length + ' findings shown';
  }
  function highlight(id) {
    document.querySelectorAll('#graph .hl').forEach(function (e) { e.classList.remove('hl'); });
    var node = document.getElementById(id);
    if (node) {
      node.classList.add('hl');
      node.scrollIntoView({block: 'center', inline: 'center'});
    }
    rows.forEach(function (r) { r.classList.toggle('sel', r.dataset.node === id); });
  }
  kind.addEventListener('change', apply);
  scope.addEventListener('change', apply);
  text.addEventListener('input', apply);
  document.querySelectorAll('a.node-link').forEach(function (a) {
    a.addEventListener('click', function (ev) {
      ev.preventDefault();
      highlight(a.dataset.node);
      history.replaceState(null, '', '#' + a.dataset.node);
    });
  });
  document.querySelectorAll('#graph g.node').forEach(function (g) {
    g.addEventListener('click', function () { highlight(g.id); });
  });
  // ?kind=&scope=&text= preset the filters, so a link can open a filtered view.
  var preset = new URLSearchParams(location.search);
  if (preset.has('kind')) kind.value = preset.get('kind');
  if (preset.has('scope')) scope.value = preset.get('scope');
  if (preset.has('text')) text.value = preset.get('text');
  var all = document.getElementById('all-findings');
  if (all && (preset.has('kind') || preset.has('scope') || preset.has('text') || location.hash.length > 1)) {
    all.open = true;
  }
  apply();
  if (location.hash.length > 1) highlight(decodeURIComponent(location.hash.slice(1)));
})();
