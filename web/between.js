// What passes between two people in a game: the clocks counting down, offers (a draw, a
// takeback, a rematch) and their answers, a claim against a player who left, and the way
// into the rematch once both want it. The server keeps every clock and decides every end;
// this only shows what its states say and sends the players' requests.

import { api, saveSeat } from './api.js';
import { t } from './i18n.js';
import { h } from './dom.js';

// A clock's time: m:ss (tenths under ten seconds) on a real-time clock; days and hours, or
// h:mm:ss, on a correspondence clock.
export function clockText(ms, realTime) {
  const left = Math.max(0, ms);
  const s = Math.floor(left / 1000);
  if (!realTime && s >= 86400) return t('web.clock.days', { days: Math.floor(s / 86400), hours: Math.floor((s % 86400) / 3600) });
  const two = (n) => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  if (realTime && left < 10000) return `0:${two(s)}.${Math.floor((left % 1000) / 100)}`;
  return `${Math.floor(s / 60)}:${two(s % 60)}`;
}

// The panel of a game between people. `els.clock(side)` is the element that shows a side's
// clock (the game screen puts it beside the name); `panel` holds offers and claims.
export function betweenPanel({ id, token, you, receive, toast, announce }) {
  const clocks = { south: h('span', { class: 'clock', 'data-side': 'south', role: 'timer', hidden: true }),
    north: h('span', { class: 'clock', 'data-side': 'north', role: 'timer', hidden: true }) };
  const note = h('p', { class: 'clock-note', id: 'clock-note', hidden: true });
  const panel = h('div', { class: 'between', id: 'between' });
  let st = null;
  let at = 0; // when `st` arrived (performance.now())
  let leaving = false;
  const call = async (fn) => {
    try { receive(await fn()); } catch (e) { toast(e.message, 'error'); announce(e.message); }
  };
  const offer = (kind) => call(() => api.offer(id, token, kind));
  const answer = (accept) => call(() => api.answer(id, token, accept));
  const btn = (idv, text, fn, primary = false) => h('button', { type: 'button', id: idv, class: primary ? 'primary' : '', text, onclick: fn });

  // Counts the running clock down from the state's reading.
  function tick() {
    if (!st || !st.clock) return;
    const c = st.clock;
    const gone = performance.now() - at;
    for (const side of ['south', 'north']) {
      const base = side === 'south' ? c.south_ms : c.north_ms;
      const running = c.running === side && c.first_move_ms === undefined;
      const left = running ? base - gone : base;
      const el = clocks[side];
      el.hidden = false;
      el.textContent = clockText(left, c.real_time);
      el.classList.toggle('running', c.running === side);
      el.classList.toggle('low', c.real_time && running && left < 10000);
    }
    if (c.first_move_ms !== undefined && c.running) {
      const left = Math.max(0, c.first_move_ms - gone);
      note.hidden = false;
      note.textContent = c.running === you ? t('web.clock.first-move-you', { seconds: Math.ceil(left / 1000) })
        : t('web.clock.first-move', { seconds: Math.ceil(left / 1000) });
    } else note.hidden = true;
    const claim = panel.querySelector('#claim');
    if (claim && st.away) {
      const wait = Math.max(0, st.away.claim_in_ms - gone);
      claim.disabled = wait > 0;
      claim.textContent = wait > 0 ? t('web.claim.wait', { seconds: Math.ceil(wait / 1000) }) : t('web.claim.now');
    }
  }
  const timer = setInterval(tick, 100);

  function update(state) {
    st = state;
    at = performance.now();
    tick();
    // Into the rematch once it exists: each player takes his new seat there.
    if (st.rematch && you && !leaving) {
      leaving = true;
      api.rematchSeat(id, token).then((r) => {
        saveSeat(r.game.id, r.seat, r.token || null);
        location.hash = `#/game/${r.game.id}`;
      }).catch((e) => { leaving = false; toast(e.message, 'error'); });
    }
    // Offers and claims are between two browsers: not for two people at one screen of the
    // static copy (`local`).
    const people = you && !st.local && !st.vs_computer && !st.waiting_for_opponent
      && st.players.south.kind === 'human' && st.players.north.kind === 'human';
    if (!people) { panel.replaceChildren(); return; }
    const parts = [];
    const o = st.offer;
    const what = (kind) => t(`web.offer.${kind}`);
    if (o && o.by !== you) {
      parts.push(h('p', { class: 'offer', id: 'offer-text', role: 'status', text: t('web.offer.from-them', { what: what(o.kind) }) }),
        h('div', { class: 'controls' }, btn('offer-accept', t('web.offer.accept'), () => answer(true), true),
          btn('offer-decline', t('web.offer.decline'), () => answer(false))));
    } else if (o) {
      parts.push(h('p', { class: 'offer', id: 'offer-text', role: 'status', text: t('web.offer.from-you', { what: what(o.kind) }) }),
        h('div', { class: 'controls' }, btn('offer-withdraw', t('web.offer.withdraw'), () => answer(false))));
    } else if (!st.over) {
      const moved = st.turns.some((x) => x.side === you);
      const take = btn('offer-takeback', t('web.offer.ask-takeback'), () => offer('takeback'));
      take.disabled = !moved;
      parts.push(h('div', { class: 'controls' }, btn('offer-draw', t('web.offer.ask-draw'), () => offer('draw')), take));
    } else if (!st.rematch && !(st.result && st.result.unfinished && st.ply === 0)) {
      parts.push(h('div', { class: 'controls' }, btn('offer-rematch', t('web.offer.ask-rematch'), () => offer('rematch'), true)));
    }
    if (st.away && st.away.side !== you && !st.over) {
      parts.push(h('p', { class: 'away', id: 'away-text', text: t('web.claim.gone') }),
        h('div', { class: 'controls' }, btn('claim', t('web.claim.now'), () => call(() => api.claim(id, token)))));
    }
    panel.replaceChildren(...parts);
    tick();
  }

  return { clocks, note, panel, update, stop: () => clearInterval(timer) };
}
