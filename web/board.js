// The board, drawn from one player's side: his pits along the bottom (his pit 1 at the left),
// his store at the right, the opponent's row along the top (right to left) and store at the
// left. Places are ring indices: 0..m-1 South's pits, m South's store, m+1..2m North's pits,
// 2m+1 North's store.

const SVGNS = 'http://www.w3.org/2000/svg';

export function letter(notation, side, pit0) {
  if (notation === 'digits') return String(pit0 + 1);
  const upper = notation === 'letters' ? side === 'south' : side === 'north';
  const c = String.fromCharCode(97 + pit0);
  return upper ? c.toUpperCase() : c;
}

export function sideName(side) { return side === 'south' ? 'South' : 'North'; }
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
  const radius = big ? 34 : 27 + Math.min(6, shown / 3);
  for (let k = 0; k < shown; k++) {
    const r = radius * Math.sqrt((k + 0.5) / Math.max(shown, 6));
    const a = k * golden + 0.7;
    spots.push([50 + r * Math.cos(a), 50 + r * Math.sin(a)]);
  }
  return spots;
}
const SEED_COLOURS = ['#f2d492', '#e8a33d', '#d9c8a6', '#c7763a', '#efe3c2'];

function drawSeeds(svg, n, c, big) {
  svg.replaceChildren();
  const spots = seedSpots(n + c, big);
  spots.forEach(([x, y], k) => {
    const isCowrie = k >= spots.length - Math.min(c, spots.length) && c > 0;
    const el = document.createElementNS(SVGNS, isCowrie ? 'ellipse' : 'circle');
    el.setAttribute('cx', x.toFixed(1));
    el.setAttribute('cy', y.toFixed(1));
    if (isCowrie) {
      el.setAttribute('rx', '8');
      el.setAttribute('ry', '5.5');
      el.setAttribute('class', 'cowrie');
    } else {
      el.setAttribute('r', spots.length > 12 ? '6' : '7.5');
      el.setAttribute('fill', SEED_COLOURS[(k * 7 + n) % SEED_COLOURS.length]);
      el.setAttribute('class', 'seed');
    }
    svg.appendChild(el);
  });
}

export class Board {
  // opts: {onPlay(pit1), interactive}
  constructor(root, opts = {}) {
    this.root = root;
    this.opts = opts;
    this.bottom = 'south';
    this.m = 0;
    this.board = null;
    this.places = [];
    this.marks = { origin: null, last: null, taken: [], hint: null };
    this.legal = [];
    this.names = { south: 'South', north: 'North' };
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
    root.setAttribute('aria-label', `Board, seen from ${names[bottom]}'s side`);
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
      el.innerHTML = `<svg viewBox="0 0 100 100" aria-hidden="true" class="seeds"></svg><span class="count"></span><span class="tag" aria-hidden="true">${letter(notation, side, i)}</span>`;
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
    const whose = p.side === this.bottom && this.opts.interactive ? 'Your' : `${this.names[p.side]}'s`;
    const seeds = `${n} seed${n === 1 ? '' : 's'}`;
    const cow = c ? `, ${c} cowrie${c === 1 ? '' : 's'}` : '';
    if (p.store) {
      p.el.setAttribute('aria-label', `${whose} store: ${seeds}`);
    } else {
      let extra = '';
      if (this.marks.origin === r) extra += ', last move sown from here';
      if (this.marks.last === r) extra += ', last seed fell here';
      if (this.marks.taken.includes(r)) extra += ', captured';
      if (this.marks.hint === r) extra += ', hint: play this pit';
      p.el.setAttribute('aria-label', `${whose} pit ${letter(this.notation, p.side, p.i)}: ${seeds}${cow}${extra}`);
    }
    p.el.classList.toggle('mark-origin', this.marks.origin === r);
    p.el.classList.toggle('mark-last', this.marks.last === r);
    p.el.classList.toggle('mark-taken', this.marks.taken.includes(r));
    p.el.classList.toggle('mark-hint', this.marks.hint === r);
  }

  setMarks(marks) {
    const before = [this.marks.origin, this.marks.last, this.marks.hint, ...this.marks.taken];
    this.marks = { origin: null, last: null, taken: [], hint: null, ...marks };
    const after = [this.marks.origin, this.marks.last, this.marks.hint, ...this.marks.taken];
    for (const r of new Set([...before, ...after])) if (r !== null && r !== undefined) this.drawPlace(r);
  }

  markMove(mv) {
    if (!mv) return this.setMarks({});
    this.setMarks({ origin: mv.origin, last: mv.path.length ? mv.path[mv.path.length - 1] : null, taken: mv.taken });
  }

  hint(pit1) {
    const r = pit1 == null || pit1 === 0 ? null : this.bottom === 'south' ? pit1 - 1 : this.m + pit1;
    this.setMarks({ ...this.marks, hint: r });
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
    const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    const step = reduce ? 0 : Math.max(45, Math.min(190, 2600 / Math.max(1, mv.path.length))) / speed;
    await sleep(step);
    for (let k = 0; k < mv.path.length; k++) {
      const r = mv.path[k];
      if (k >= mv.cowries_from) addCowrie(this.board, m, r, 1);
      else add(this.board, m, r, 1);
      this.drawPlace(r);
      const el = this.places[r].el;
      el.classList.remove('drop');
      void el.offsetWidth; // restart the animation
      el.classList.add('drop');
      if (step) await sleep(step);
    }
    if (mv.taken.length) {
      this.setMarks({ origin: mv.origin, last: mv.path[mv.path.length - 1], taken: mv.taken });
      await sleep(reduce ? 0 : 420 / speed);
    }
    this.animating = false;
    this.board = clone(after);
    for (let r = 0; r < 2 * m + 2; r++) this.drawPlace(r);
    this.markMove(mv);
  }
}

export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
