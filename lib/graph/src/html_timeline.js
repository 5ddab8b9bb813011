// The HTML report's timeline draws only the lanes on screen.
//
// tether writes every lane's SVG markup, one lane per line, into the
// text/plain block #tl-lanes: the HTML parser keeps that as one string, not
// as elements, so a report of 100,000 tasks costs the browser the DOM of the
// few lanes in view, not of every bar. The <svg id="timeline"> is as tall as
// all lanes (so the scroll bar is true) and holds the axis and an empty
// layer; the lanes that come into view (plus a margin above and below, so a
// scroll rarely shows an empty band) are parsed into the layer, and those
// that leave it are removed. A lane is the unit because its spawn and join
// arrows and its scope's end line stay inside it.
(function () {
  var svg = document.getElementById('timeline');
  var data = document.getElementById('tl-lanes');
  var layer = document.getElementById('tl-layer');
  if (!svg || !data || !layer) return;
  var wrap = document.getElementById('tl-wrap');
  var detail = document.getElementById('tl-detail');
  // Drawn beyond the visible band on each side, in px.
  var MARGIN = 600;

  // Each lane's place on the time axis is in its own markup (data-top,
  // data-height): the block carries it once, where the lane carries it.
  var lanes = [];
  data.textContent.split('\n').forEach(function (line) {
    var m = /data-top="([0-9.]+)" data-height="([0-9.]+)"/.exec(line);
    if (m) lanes.push({top: Number(m[1]), bottom: Number(m[1]) + Number(m[2]), markup: line, el: null});
  });
  var first = 0, end = 0;  // lanes [first, end) are in the DOM, in order
  var selected = null;     // the clicked bar: {lane, nth}, so a redrawn lane keeps it

  // The first lane whose bottom is at or below y (lanes are sorted by top).
  function laneAt(y) {
    var lo = 0, hi = lanes.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (lanes[mid].bottom < y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // Parses lane i's markup next to `ref` ('beforebegin' an element,
  // 'afterend' an element, or 'beforeend' the layer) and keeps its selection.
  function drawLane(i, ref, where) {
    ref.insertAdjacentHTML(where, lanes[i].markup);
    var el = where === 'beforebegin' ? ref.previousElementSibling
           : where === 'afterend' ? ref.nextElementSibling : ref.lastElementChild;
    lanes[i].el = el;
    if (selected && selected.lane === i) {
      var bar = el.querySelectorAll('g.tl-bar')[selected.nth];
      if (bar) bar.classList.add('tl-sel');
    }
  }

  // Draws lanes [a, b) and removes the others. The lanes kept are
  // contiguous: new ones go right above them (bottom-up) or below them.
  function show(a, b) {
    for (var i = first; i < end; i++) {
      if (i < a || i >= b) {
        lanes[i].el.remove();
        lanes[i].el = null;
      }
    }
    var keptA = Math.max(a, first), keptB = Math.min(b, end);
    if (keptA >= keptB) {
      for (i = a; i < b; i++) drawLane(i, layer, 'beforeend');
    } else {
      for (i = keptA - 1; i >= a; i--) drawLane(i, lanes[i + 1].el, 'beforebegin');
      for (i = keptB; i < b; i++) drawLane(i, lanes[i - 1].el, 'afterend');
    }
    first = a;
    end = b;
  }

  // The visible band of the timeline: where the wrap's own scroll box and the
  // window overlap, in the SVG's coordinates (its user units are CSS px).
  function update() {
    var s = svg.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    var y0 = Math.max(w.top, 0) - s.top - MARGIN;
    var y1 = Math.min(w.bottom, window.innerHeight) - s.top + MARGIN;
    var a = laneAt(y0), b = a;
    while (b < lanes.length && lanes[b].top <= y1) b++;
    if (a !== first || b !== end) show(a, Math.max(a, b));
  }

  // A click (on any bar, present or drawn later: one listener on the SVG)
  // shows the bar's site, context chain and cut (its <title>, which hovering
  // shows too) and outlines its graph node.
  svg.addEventListener('click', function (ev) {
    var bar = ev.target.closest ? ev.target.closest('g.tl-bar') : null;
    if (!bar) return;
    svg.querySelectorAll('.tl-sel').forEach(function (e) { e.classList.remove('tl-sel'); });
    bar.classList.add('tl-sel');
    var laneEl = bar.closest('g.tl-lane');
    for (var i = first; i < end; i++) {
      if (lanes[i].el === laneEl) {
        selected = {lane: i, nth: Array.prototype.indexOf.call(laneEl.querySelectorAll('g.tl-bar'), bar)};
      }
    }
    var title = bar.querySelector('title');
    if (detail && title) detail.textContent = title.textContent;
    if (bar.dataset.node) {
      document.querySelectorAll('#graph .hl').forEach(function (e) { e.classList.remove('hl'); });
      var node = document.getElementById(bar.dataset.node);
      if (node) node.classList.add('hl');
    }
  });

  // Scroll events come at most once a frame, so drawing in the handler
  // costs no more than deferring it.
  wrap.addEventListener('scroll', update, {passive: true});
  window.addEventListener('scroll', update, {passive: true});
  window.addEventListener('resize', update);
  update();

  // ?bar=<node id> clicks that timeline bar, so a link can open a task's
  // detail (and a test can drive the click handler in a headless browser);
  // a lane not on screen is scrolled to first.
  var want = new URLSearchParams(location.search).get('bar');
  if (want) {
    var needle = 'data-node="' + want + '"';
    for (var i = 0; i < lanes.length; i++) {
      if (lanes[i].markup.indexOf(needle) < 0) continue;
      if (!lanes[i].el) {
        wrap.scrollTop = lanes[i].top - 30;
        update();
      }
      if (!lanes[i].el) {
        wrap.scrollIntoView({block: 'start'});
        update();
      }
      var bars = lanes[i].el ? lanes[i].el.querySelectorAll('g.tl-bar') : [];
      for (var k = 0; k < bars.length; k++) {
        if (bars[k].dataset.node === want) {
          bars[k].dispatchEvent(new MouseEvent('click', {bubbles: true}));
          break;
        }
      }
      break;
    }
  }
})();
