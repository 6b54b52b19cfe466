// The board, drawn from one player's side: his pits along the bottom (his pit 1 at the left),
// his store at the right, the opponent's row along the top (right to left) and store at the
// left. Places are ring indices: 0..m-1 South's pits, m South's store, m+1..2m North's pits,
// 2m+1 North's store.

import { t, tn, side } from './i18n.js';
import { motion } from './prefs.js';
import { sound } from './sound.js';

const SVGNS = 'http://www.w3.org/2000/svg';

export function letter(notation, side, pit0) {
  if (notation === 'digits') return String(pit0 + 1);
  const upper = notation === 'letters' ? side === 'south' : side === 'north';
  const c = String.fromCharCode(97 + pit0);
  return upper ? c.toUpperCase() : c;
}

export function other(side) { return side === 'south' ? 'north' : 'south'; }

// Seeds of a ring place on a board object ({south, north, stores, cowries?}).
function get(board, m, i) {
  if (i < m) return board.south[i];
  if (i === m) return board.stores[0];
  if (i <= 2 * m) return board.north[i - m - 1];
  return board.stores[1];
}
function add(board, m, i, d) {
  if (i < m) board.south[i] += d;
  else if (i === m) board.stores[0] += d;
  else if (i <= 2 * m) board.north[i - m - 1] += d;
  else board.stores[1] += d;
}
function cowries(board, m, i) {
  if (!board.cowries) return 0;
  if (i < m) return board.cowries.south[i];
  if (i > m && i <= 2 * m) return board.cowries.north[i - m - 1];
  return 0;
}
function addCowrie(board, m, i, d) {
  if (!board.cowries) return;
  if (i < m) board.cowries.south[i] += d;
  else if (i > m && i <= 2 * m) board.cowries.north[i - m - 1] += d;
}
function clone(board) { return JSON.parse(JSON.stringify(board)); }

// Deterministic seed positions inside a pit (a sunflower spiral), in a 100x100 box.
function seedSpots(n, big) {
  const spots = [];
  const shown = Math.min(n, big ? 40 : 20);
  const golden = Math.PI * (3 - Math.sqrt(5));
  const radius = big ? 34 : 30 + Math.min(6, shown / 3);
  for (let k = 0; k < shown; k++) {
    const r = radius * Math.sqrt((k + 0.5) / Math.max(shown, 6));
    const a = k * golden + 0.7;
    spots.push([50 + r * Math.cos(a), 50 + r * Math.sin(a)]);
  }
  return spots;
}
const SEED_COLOURS = ['#f2d492', '#e8a33d', '#d9c8a6', '#c7763a', '#efe3c2'];

const svgEl = (tag, attrs) => {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
};

// Seeds as stones with volume (a body, a shade below and a highlight above) and Kauri's
// cowries as shells (an oval with the toothed slit of a cowrie), spread over the pit.
function drawSeeds(svg, n, c, big) {
  svg.replaceChildren();
  const spots = seedSpots(n + c, big);
  const r = spots.length > 24 ? 5.5 : spots.length > 12 ? 7 : 9.5;
  spots.forEach(([x, y], k) => {
    const isCowrie = k >= spots.length - Math.min(c, spots.length) && c > 0;
    const g = svgEl('g', { transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) rotate(${(k * 47) % 180})` });
    if (isCowrie) {
      g.setAttribute('class', 'cowrie');
      g.append(svgEl('ellipse', { rx: r * 1.25, ry: r * 0.85, class: 'shell' }),
        svgEl('path', { d: `M${-r * 0.8} 0 Q 0 ${r * 0.22} ${r * 0.8} 0`, class: 'slit' }),
        svgEl('path', { d: `M${-r * 0.45} -1.2 v2.4 M0 -1.4 v2.8 M${r * 0.45} -1.2 v2.4`, class: 'teeth' }));
    } else {
      g.setAttribute('class', 'seed');
      const fill = SEED_COLOURS[(k * 7 + n) % SEED_COLOURS.length];
      g.append(svgEl('circle', { r, fill, class: 'body' }),
        svgEl('ellipse', { cx: 0, cy: r * 0.35, rx: r * 0.8, ry: r * 0.5, class: 'shade' }),
        svgEl('ellipse', { cx: -r * 0.3, cy: -r * 0.38, rx: r * 0.38, ry: r * 0.26, class: 'shine' }));
    }
    svg.appendChild(g);
  });
}

export class Board {
  // opts: {onPlay(pit1), interactive, onSown(board): after each piece sown and at the end}
  constructor(root, opts = {}) {
    this.root = root;
    this.opts = opts;
    this.bottom = 'south';
    this.m = 0;
    this.board = null;
    this.places = [];
    this.marks = { origin: null, last: null, taken: [], swept: [], hint: null };
    this.legal = [];
    this.names = { south: side('south'), north: side('north') };
    this.notation = 'letters';
    this.animating = false;
  }

  // Lays out the board for `m` pits a side, seen by `bottom`.
  layout(m, bottom, notation, names) {
    this.m = m;
    this.bottom = bottom;
    this.notation = notation;
    this.names = names;
    const top = other(bottom);
    const root = this.root;
    root.replaceChildren();
    root.classList.add('board');
    root.style.setProperty('--pits', m);
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', t('web.board.label', { who: names[bottom] }));
    this.places = new Array(2 * m + 2);
    const ringOf = (side, i) => (side === 'south' ? i : m + 1 + i);
    const storeOf = (side) => (side === 'south' ? m : 2 * m + 1);

    const mkStore = (side, cls) => {
      const el = document.createElement('div');
      el.className = `store ${cls}`;
      el.innerHTML = `<svg viewBox="0 0 100 100" aria-hidden="true" class="seeds"></svg><span class="count"></span><span class="label"></span>`;
      el.querySelector('.label').textContent = names[side];
      el.setAttribute('role', 'img');
      this.places[storeOf(side)] = { el, side, store: true };
      return el;
    };
    const mkPit = (side, i, row) => {
      const mine = side === bottom && this.opts.interactive;
      const el = document.createElement(mine ? 'button' : 'div');
      el.className = `pit ${row}`;
      if (mine) {
        el.type = 'button';
        el.addEventListener('click', () => {
          if (el.getAttribute('aria-disabled') === 'true') return;
          this.opts.onPlay && this.opts.onPlay(i + 1);
        });
        el.addEventListener('keydown', (ev) => this.arrowKeys(ev, i));
      } else {
        el.setAttribute('role', 'img');
      }
      el.dataset.ring = ringOf(side, i);
      // The letter before the count, a space between: a button's visible words ("A 4") are
      // then words of its name ("Your pit A: 4 seeds"), as a voice command needs.
      el.innerHTML = `<svg viewBox="0 0 100 100" aria-hidden="true" class="seeds"></svg><span class="tag" aria-hidden="true">${letter(notation, side, i)}</span> <span class="count"></span>`;
      this.places[ringOf(side, i)] = { el, side, i };
      return el;
    };
    root.appendChild(mkStore(top, 'store-left'));
    const topRow = document.createElement('div');
    topRow.className = 'row row-top';
    for (let i = m - 1; i >= 0; i--) topRow.appendChild(mkPit(top, i, 'top'));
    const bottomRow = document.createElement('div');
    bottomRow.className = 'row row-bottom';
    for (let i = 0; i < m; i++) bottomRow.appendChild(mkPit(bottom, i, 'bottom'));
    root.appendChild(topRow);
    root.appendChild(bottomRow);
    root.appendChild(mkStore(bottom, 'store-right'));
  }

  // New names for the two sides (a friend who joined): store labels and pit labels follow.
  setNames(names) {
    this.names = names;
    for (const side of ['south', 'north']) {
      const p = this.places[side === 'south' ? this.m : 2 * this.m + 1];
      if (p) p.el.querySelector('.label').textContent = names[side];
    }
    if (this.board) for (let r = 0; r < 2 * this.m + 2; r++) this.drawPlace(r);
  }

  // A short note over the board (an extra turn, a pass), gone after a moment.
  note(text) {
    const n = document.createElement('div');
    n.className = 'board-note';
    n.setAttribute('aria-hidden', 'true');
    n.textContent = text;
    this.root.appendChild(n);
    setTimeout(() => n.remove(), 1400);
  }

  arrowKeys(ev, i) {
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -99, End: 99 }[ev.key];
    if (step === undefined) return;
    ev.preventDefault();
    const j = Math.max(0, Math.min(this.m - 1, i + step));
    this.focusPit(j);
  }

  focusPit(i) {
    const p = this.places[this.bottom === 'south' ? i : this.m + 1 + i];
    if (p && p.el.focus) p.el.focus();
  }

  // Draws `board`, with `legal` own pits (1-based) playable.
  render(board, legal = [], you = null) {
    this.board = clone(board);
    this.legal = legal;
    const m = this.m;
    for (let r = 0; r < 2 * m + 2; r++) this.drawPlace(r);
    this.setPlayable(legal, you);
  }

  setPlayable(legal, you) {
    const m = this.m;
    for (let i = 0; i < m; i++) {
      const p = this.places[this.bottom === 'south' ? i : m + 1 + i];
      if (p.el.tagName !== 'BUTTON') continue;
      const ok = you === this.bottom && legal.includes(i + 1) && !this.animating;
      p.el.setAttribute('aria-disabled', ok ? 'false' : 'true');
      p.el.classList.toggle('playable', ok);
    }
  }

  drawPlace(r) {
    const p = this.places[r];
    if (!p || !this.board) return;
    const n = get(this.board, this.m, r);
    const c = cowries(this.board, this.m, r);
    drawSeeds(p.el.querySelector('svg'), n, c, !!p.store);
    p.el.querySelector('.count').textContent = c ? `${n}+${c}` : String(n);
    const yours = p.side === this.bottom && this.opts.interactive;
    const seeds = tn('web.board.seeds', n);
    const cow = c ? tn('web.board.cowries', c) : '';
    if (p.store) {
      p.el.setAttribute('aria-label', yours ? t('web.board.your-store', { seeds }) : t('web.board.store', { who: this.names[p.side], seeds }));
    } else {
      let extra = '';
      if (this.marks.origin === r) extra += t('web.board.origin');
      if (this.marks.last === r) extra += t('web.board.last');
      if (this.marks.taken.includes(r)) extra += t('web.board.taken');
      if (this.marks.swept.includes(r)) extra += t('web.board.swept');
      if (this.marks.hint === r) extra += t('web.board.hint');
      const pit = letter(this.notation, p.side, p.i);
      p.el.setAttribute('aria-label', `${yours ? t('web.board.your-pit', { pit, seeds }) : t('web.board.pit', { who: this.names[p.side], pit, seeds })}${cow}${extra}`);
    }
    p.el.classList.toggle('mark-origin', this.marks.origin === r);
    p.el.classList.toggle('mark-last', this.marks.last === r);
    p.el.classList.toggle('mark-taken', this.marks.taken.includes(r));
    p.el.classList.toggle('mark-swept', this.marks.swept.includes(r));
    p.el.classList.toggle('mark-hint', this.marks.hint === r);
  }

  setMarks(marks) {
    const placesOf = (k) => [k.origin, k.last, k.hint, ...k.taken, ...k.swept];
    const before = placesOf(this.marks);
    this.marks = { origin: null, last: null, taken: [], swept: [], hint: null, ...marks };
    const after = placesOf(this.marks);
    for (const r of new Set([...before, ...after])) if (r !== null && r !== undefined) this.drawPlace(r);
  }

  markMove(mv) {
    if (!mv) return this.setMarks({});
    this.setMarks({ origin: mv.origin, last: mv.path.length ? mv.path[mv.path.length - 1] : null, taken: mv.taken, swept: mv.swept || [] });
  }

  // The analysis board's value of each own pit of the bottom row: {pit1: text}; others none.
  // It is drawn from its `data-value` (style.css): no words of the pit's button, whose name
  // says the seeds (the table beside says the values in full).
  setValues(values = {}) {
    for (let i = 0; i < this.m; i++) {
      const p = this.places[this.bottom === 'south' ? i : this.m + 1 + i];
      if (!p) continue;
      let v = p.el.querySelector('.pit-value');
      const text = values[i + 1];
      if (text === undefined) { if (v) v.remove(); continue; }
      if (!v) {
        v = document.createElement('span');
        v.className = 'pit-value';
        v.setAttribute('aria-hidden', 'true');
        p.el.appendChild(v);
      }
      v.dataset.value = text;
    }
  }

  hint(pit1) {
    const r = pit1 == null || pit1 === 0 ? null : this.bottom === 'south' ? pit1 - 1 : this.m + pit1;
    this.setMarks({ ...this.marks, hint: r });
  }

  // The centre of ring place `r` within the board, in pixels.
  centre(r) {
    const el = this.places[r].el;
    const a = el.getBoundingClientRect();
    const b = this.root.getBoundingClientRect();
    return [a.left - b.left + a.width / 2, a.top - b.top + a.height / 2];
  }

  // A stone (or a cowrie) over the board at place `r`, to be moved with flyTo.
  flyer(r, cowrie) {
    const f = document.createElement('div');
    f.className = `flyer${cowrie ? ' cowrie' : ''}`;
    f.setAttribute('aria-hidden', 'true');
    const [x, y] = this.centre(r);
    f.style.transform = `translate(${x}px, ${y}px)`;
    this.root.appendChild(f);
    return f;
  }

  flyTo(f, r, ms) {
    const [x, y] = this.centre(r);
    f.style.transition = `transform ${Math.round(ms)}ms ease-in-out`;
    f.style.transform = `translate(${x}px, ${y}px)`;
  }

  // Animates `mv` (a move view with `before`), seed by seed, then shows `after`.
  async animate(mv, before, after, speed = 1) {
    if (mv.pit === 0) {
      // The pie rule's swap sows nothing: the rows and stores change places at once.
      this.board = clone(after);
      for (let r = 0; r < 2 * this.m + 2; r++) this.drawPlace(r);
      this.setMarks({});
      return;
    }
    this.animating = true;
    this.setPlayable([], null);
    const m = this.m;
    this.board = clone(before);
    const n0 = get(this.board, m, mv.origin);
    const c0 = cowries(this.board, m, mv.origin);
    add(this.board, m, mv.origin, -n0);
    addCowrie(this.board, m, mv.origin, -c0);
    this.setMarks({ origin: mv.origin });
    for (let r = 0; r < 2 * m + 2; r++) this.drawPlace(r);
    // The reader's animation speed (prefs.js); none where the system asks for reduced motion.
    const factor = motion();
    const reduce = factor === 0;
    const step = reduce ? 0 : Math.max(45, Math.min(190, 2600 / Math.max(1, mv.path.length))) / (speed * factor);
    // The hand: a stone that travels from place to place as the pieces are dropped.
    const hand = step ? this.flyer(mv.origin, mv.cowries_from === 0) : null;
    await sleep(step);
    for (let k = 0; k < mv.path.length; k++) {
      const r = mv.path[k];
      if (hand) {
        if (k === mv.cowries_from) hand.classList.add('cowrie');
        this.flyTo(hand, r, step * 0.8);
        await sleep(step * 0.8);
      }
      if (k >= mv.cowries_from) addCowrie(this.board, m, r, 1);
      else add(this.board, m, r, 1);
      this.drawPlace(r);
      if (this.opts.onSown) this.opts.onSown(this.board);
      const el = this.places[r].el;
      el.classList.remove('drop');
      void el.offsetWidth; // restart the animation
      el.classList.add('drop');
      sound('sow');
      if (step) await sleep(step * 0.2);
    }
    if (hand) hand.remove();
    if (mv.taken.length || (mv.swept && mv.swept.length)) {
      this.setMarks({ origin: mv.origin, last: mv.path[mv.path.length - 1], taken: mv.taken, swept: mv.swept || [] });
      // Captured seeds fly to the mover's store.
      if (mv.taken.length) sound('capture');
      const store = mv.side === 'south' ? m : 2 * m + 1;
      const flying = reduce ? [] : mv.taken.map((r) => this.flyer(r, false));
      await sleep(reduce ? 0 : 60);
      for (const f of flying) this.flyTo(f, store, 360 / (speed * factor));
      await sleep(reduce ? 0 : 420 / (speed * factor));
      for (const f of flying) f.remove();
    }
    this.animating = false;
    this.board = clone(after);
    for (let r = 0; r < 2 * m + 2; r++) this.drawPlace(r);
    if (this.opts.onSown) this.opts.onSown(this.board);
    this.markMove(mv);
  }
}

export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
