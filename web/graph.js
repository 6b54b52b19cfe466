// The replay's evaluation graph: the engine's value after every move, all from South's view
// (each value's `south`, turned by the server), up good for South; the graph says so on
// itself. A click on it goes to that move.

import { t } from './i18n.js';
import { h, s } from './dom.js';
import { valueText } from './value.js';

const W = 600;
const H = 160;
const PAD = 24;

// `values`: the replay's values (null where none), `n` the plies; `go(k)` shows ply k.
// Answers the figure and a function that marks ply k on it.
export function evalGraph(values, n, misere, go) {
  const pts = (values || []).map((v, i) => (v && v.south ? { k: i + 1, e: v.south } : null));
  const scores = pts.filter(Boolean).map((p) => p.e.score);
  const top = Math.max(4, ...scores.map((x) => Math.abs(x)));
  const x = (k) => PAD + ((W - 2 * PAD) * k) / Math.max(1, n);
  const y = (v) => H / 2 - ((H / 2 - PAD / 2) * v) / top;
  // One line per run of judged plies.
  const runs = [];
  let run = [];
  for (const p of pts) {
    if (p) run.push(p);
    else if (run.length) { runs.push(run); run = []; }
  }
  if (run.length) runs.push(run);
  const title = t('web.graph.title');
  const legend = t(misere ? 'web.graph.legend-misere' : 'web.graph.legend', { top });
  // Drawn with its own strokes (no style sheet needed): the text's colour, the zero dashed.
  const marker = s('line', { class: 'graph-now', x1: x(0), x2: x(0), y1: PAD / 2, y2: H - PAD / 2, stroke: '#c0392b', 'stroke-width': 2 });
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}. ${legend}`, class: 'eval-graph', id: 'replay-graph', width: '100%', style: 'max-width: 40rem; cursor: pointer' },
    s('line', { class: 'graph-zero', x1: PAD, x2: W - PAD, y1: y(0), y2: y(0), stroke: 'currentColor', 'stroke-opacity': 0.5, 'stroke-dasharray': '4 4' }),
    s('text', { x: 4, y: PAD / 2 + 4, class: 'graph-label', 'font-size': 11, fill: 'currentColor', text: t('web.graph.good', { side: t('side.south'), n: `+${top}` }) }),
    s('text', { x: 4, y: H - 4, class: 'graph-label', 'font-size': 11, fill: 'currentColor', text: t('web.graph.bad', { side: t('side.south'), n: `−${top}` }) }),
    runs.map((r) => s('polyline', { class: 'graph-line', fill: 'none', stroke: 'currentColor', 'stroke-width': 2, points: r.map((p) => `${x(p.k)},${y(p.e.score)}`).join(' ') })),
    pts.filter(Boolean).map((p) => s('circle', { cx: x(p.k), cy: y(p.e.score), r: 3, class: p.e.proven ? 'graph-dot proven' : 'graph-dot', fill: p.e.proven ? 'currentColor' : 'none', stroke: 'currentColor', 'data-ply': p.k, 'data-score': p.e.score },
      s('title', { text: `${p.k}: ${valueText(p.e)}` }))),
    marker);
  svg.addEventListener('click', (ev) => {
    const box = svg.getBoundingClientRect();
    const at = ((ev.clientX - box.left) / box.width) * W;
    go(Math.round(((at - PAD) / (W - 2 * PAD)) * n));
  });
  const figure = h('figure', { class: 'eval-graph-box' }, svg, h('figcaption', { id: 'replay-graph-caption', text: `${title}: ${legend}` }));
  const mark = (k) => {
    marker.setAttribute('x1', x(k));
    marker.setAttribute('x2', x(k));
  };
  return { figure, mark };
}
