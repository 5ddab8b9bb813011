// The HTML report's findings: the filters (kind, scope, text; preset from
// ?kind=&scope=&text=), node links that outline a node in the graph (and
// #<node id> in the URL), and clicks on graph nodes. The timeline has its own
// script (html_timeline.js).
(function () {
  var all = document.getElementById('all-findings');
  var tbody = document.querySelector('#findings tbody');
  // A large report's rows wait as markup in this block until the table is
  // opened: tether writes them there above 500 findings.
  var deferred = document.getElementById('findings-rows');
  var rows = [];
  var selected = null;  // the node whose finding rows are marked
  function loadRows() {
    if (deferred) {
      tbody.insertAdjacentHTML('beforeend', deferred.textContent);
      deferred.remove();
      deferred = null;
    }
    rows = Array.prototype.slice.call(tbody.querySelectorAll('tr'));
    rows.forEach(function (r) { r.classList.toggle('sel', r.dataset.node === selected); });
  }
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
    selected = id;
    rows.forEach(function (r) { r.classList.toggle('sel', r.dataset.node === id); });
  }
  kind.addEventListener('change', apply);
  scope.addEventListener('change', apply);
  text.addEventListener('input', apply);
  // One listener for every node link, those of rows parsed later too.
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest ? ev.target.closest('a.node-link') : null;
    if (!a) return;
    ev.preventDefault();
    highlight(a.dataset.node);
    history.replaceState(null, '', '#' + a.dataset.node);
  });
  document.querySelectorAll('#graph g.node').forEach(function (g) {
    g.addEventListener('click', function () { highlight(g.id); });
  });
  // ?kind=&scope=&text= preset the filters, so a link can open a filtered view.
  var preset = new URLSearchParams(location.search);
  if (preset.has('kind')) kind.value = preset.get('kind');
  if (preset.has('scope')) scope.value = preset.get('scope');
  if (preset.has('text')) text.value = preset.get('text');
  if (all && (preset.has('kind') || preset.has('scope') || preset.has('text') || location.hash.length > 1)) {
    all.open = true;
  }
  if (all) {
    all.addEventListener('toggle', function () {
      if (all.open && deferred) {
        loadRows();
        apply();
      }
    });
  }
  if (!deferred || (all && all.open)) {
    loadRows();
    apply();
  }
  if (location.hash.length > 1) highlight(decodeURIComponent(location.hash.slice(1)));
})();
