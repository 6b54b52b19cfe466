// Accounts, the lobby, the leaderboard and profiles: #/account (with the lobby's open seeks),
// #/players[/PRESET], #/user/NAME[/PRESET].
// The session is an HttpOnly cookie the page never sees; requests carry it by themselves (and
// the browser's Origin, which the server checks on every change). Every name is set as text.

import { api, ApiError, saveSeat } from './api.js';
import { h, s } from './dom.js';
import { t, lang, errorText, side } from './i18n.js';

// A request to the accounts' routes: the JSON answer, or an ApiError with the answer's key.
async function call(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, t('web.offline'));
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const e = new ApiError(res.status, errorText(data) || `${res.status} ${res.statusText}`);
    e.key = data && data.key;
    throw e;
  }
  return data;
}

// The signed-in account ({name, created_ms}), or null.
export const me = () => call('GET', '/api/account').then((a) => (a && a.name ? a : null), () => null);

// Takes the free seat of a game between accounts for the signed-in account: {seat}, or null
// when nobody is signed in or the game is a guests' game (then the guest's way applies).
export async function joinAsAccount(id, invite) {
  if (!(await me())) return null;
  try {
    return await call('POST', `/api/account/games/${encodeURIComponent(id)}/join`, { invite });
  } catch (e) {
    if (e.status === 401 || e.key === 'server.account.not-account-game') return null;
    throw e;
  }
}

// The presets and their titles in this language.
let variants = null;
async function presets() {
  variants = variants || (await api.variants(lang));
  return variants.presets;
}
// A rule set's title (`kalah,seeds=4` names its changed options too).
const titles = new Map();
function title(rules) {
  if (!titles.has(rules)) titles.set(rules, api.rules(rules, lang).then((r) => r.title).catch(() => rules));
  return titles.get(rules);
}

const rating = (r) => String(Math.round(r.rating));
const provisionalMark = (r) => (r.provisional ? h('abbr', { class: 'provisional', title: t('web.players.provisional'), text: '?' }) : null);
const field = (input, label, help) => h('div', { class: 'field' }, h('label', { for: input.id, text: label }), input, help ? h('small', { text: help }) : null);

// ---------------------------------------------------------------------------------------
// #/account

function credentialsForm(id, heading, submit, path, passwordKind, done) {
  const name = h('input', { id: `${id}-name`, name: 'name', type: 'text', required: true, minlength: 2, maxlength: 24, autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' });
  const password = h('input', { id: `${id}-password`, name: 'password', type: 'password', required: true, minlength: passwordKind === 'new-password' ? 8 : null, autocomplete: passwordKind });
  const err = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary', id: `${id}-submit`, text: submit });
  const form = h('form', { class: 'card account-form', id, novalidate: true },
    h('h2', { text: heading }),
    field(name, t('web.account.name'), passwordKind === 'new-password' ? t('web.account.name-help') : null),
    field(password, t('web.account.password'), passwordKind === 'new-password' ? t('web.account.password-help') : null),
    err, button);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    try {
      await call('POST', path, { name: name.value.trim(), password: password.value });
      password.value = '';
      await done();
    } catch (e) {
      err.textContent = e.message;
      button.disabled = false;
    }
  });
  return form;
}

// The lobby's socket while the account page shows it.
let lobbySocket = null;
function closeLobby() {
  if (lobbySocket) { lobbySocket.onclose = null; lobbySocket.close(); lobbySocket = null; }
}

const openGame = (game, seat) => {
  saveSeat(game, seat, null);
  location.hash = `#/game/${game}`;
};
const seatText = (k) => (k.side === 'random' ? t('web.lobby.plays-random') : t('web.lobby.plays', { side: side(k.side) }));

// The account's challenges, live: Accept or Decline those to it; Withdraw its own, or Dismiss
// one declined.
function challengesCard() {
  const incoming = h('ul', { class: 'profile-games', id: 'challenges-in' });
  const outgoing = h('ul', { class: 'profile-games', id: 'challenges-out' });
  const empty = h('p', { id: 'challenges-empty', text: t('web.lobby.no-challenges') });
  const err = h('p', { class: 'error', role: 'alert' });
  const act = (label, primary, data, fn) => {
    const b = h('button', { type: 'button', class: primary ? 'primary' : '', text: label, ...data });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { await fn(); } catch (e) { err.textContent = e.message; b.disabled = false; }
    });
    return b;
  };
  const path = (k, tail = '') => `/api/lobby/challenges/${encodeURIComponent(k.id)}${tail}`;
  const draw = async (m) => {
    const ins = await Promise.all(m.incoming.map(async (k) => h('li', { class: 'challenge' },
      h('strong', { text: t('web.lobby.challenged-by', { name: k.from }) }),
      ` · ${await title(k.preset)} · ${k.clock || t('web.clock.none')} · ${t(k.rated ? 'web.profile.rated' : 'web.profile.casual')} · ${k.side === 'random' ? seatText(k) : t('web.lobby.they-play', { name: k.from, side: side(k.side) })} `,
      act(t('web.lobby.accept'), true, { 'data-accept': k.id }, async () => {
        const r = await call('POST', path(k, '/accept'), {});
        openGame(r.game.id, r.seat);
      }),
      ' ',
      act(t('web.lobby.decline'), false, { 'data-decline': k.id }, () => call('POST', path(k, '/decline'), {})))));
    const outs = await Promise.all(m.outgoing.map(async (k) => h('li', { class: k.declined ? 'challenge declined' : 'challenge' },
      h('strong', { text: t('web.lobby.you-challenged', { name: k.to }) }),
      ` · ${await title(k.preset)} · ${k.clock || t('web.clock.none')} · ${t(k.rated ? 'web.profile.rated' : 'web.profile.casual')} · ${seatText(k)} · `,
      h('span', { class: 'state', text: t(k.declined ? 'web.lobby.declined' : 'web.lobby.pending') }), ' ',
      act(t(k.declined ? 'web.lobby.dismiss' : 'web.lobby.withdraw'), false, { 'data-withdraw': k.id }, () => call('DELETE', path(k))))));
    incoming.replaceChildren(...ins);
    outgoing.replaceChildren(...outs);
    empty.hidden = ins.length + outs.length > 0;
  };
  const card = h('section', { class: 'card', id: 'challenges', 'aria-labelledby': 'challenges-title', 'aria-live': 'polite' },
    h('h2', { id: 'challenges-title', text: t('web.lobby.challenges') }), incoming, outgoing, empty, err);
  return { card, draw };
}

// The lobby: open seeks, live; Accept on another's, Withdraw on one's own. A game started
// from one's seek, a pool or a challenge (or accepted here) opens at once.
function lobbyCard(who, challenges) {
  const list = h('ul', { class: 'profile-games', id: 'seeks' });
  const empty = h('p', { id: 'seeks-empty', text: t('web.lobby.none') });
  const err = h('p', { class: 'error', role: 'alert' });
  const open = openGame;
  const draw = async (seeks) => {
    const items = await Promise.all(seeks.map(async (k) => {
      const mine = k.name === who.name;
      const button = h('button', { type: 'button', class: mine ? '' : 'primary', 'data-seek': k.id, text: t(mine ? 'web.lobby.withdraw' : 'web.lobby.accept') });
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          if (mine) await call('DELETE', `/api/lobby/seeks/${encodeURIComponent(k.id)}`);
          else {
            const r = await call('POST', `/api/lobby/seeks/${encodeURIComponent(k.id)}/accept`, {});
            open(r.game.id, r.seat);
          }
        } catch (e) { err.textContent = e.message; button.disabled = false; }
      });
      const seat = seatText(k);
      return h('li', { class: 'seek' }, h('strong', { text: k.name }),
        ` · ${await title(k.preset)} · ${k.clock || t('web.clock.none')} · ${t(k.rated ? 'web.profile.rated' : 'web.profile.casual')} · ${seat} `, button);
    }));
    list.replaceChildren(...items);
    empty.hidden = items.length > 0;
  };
  closeLobby();
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${proto}://${location.host}/api/lobby/ws`);
  lobbySocket = ws;
  const card = h('section', { class: 'card', id: 'lobby', 'aria-labelledby': 'lobby-title' },
    h('h2', { id: 'lobby-title', text: t('web.lobby.title') }), list, empty, err);
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    // The socket has said hello: from now on it hears what starts a game of this account's.
    card.dataset.live = 'true';
    if (m.type === 'seeks') draw(m.seeks);
    else if (m.type === 'challenges') challenges.draw(m);
    else if (m.type === 'started' && (m.south === who.name || m.north === who.name)) {
      open(m.game, m.south === who.name ? 'south' : 'north');
    }
  };
  return card;
}

// #/account: returns what stops the page's live parts when another page opens.
export async function accountScreen(screen) {
  const redraw = () => accountScreen(screen);
  closeLobby();
  const who = await me();
  const heading = h('h1', { id: 'account-title', text: t('web.account.title') });
  if (!who) {
    screen.replaceChildren(heading, h('p', { class: 'summary', text: t('web.account.why') }),
      h('div', { class: 'account-forms' },
        credentialsForm('login', t('web.account.signin'), t('web.account.signin'), '/api/account/login', 'current-password', redraw),
        credentialsForm('signup', t('web.account.signup'), t('web.account.signup'), '/api/account/signup', 'new-password', redraw)));
    return closeLobby;
  }
  const list = await presets();
  const presetSel = h('select', { id: 'account-preset', name: 'preset' }, list.map((p) => h('option', { value: p.name, text: p.title })));
  const sideSel = h('select', { id: 'account-side', name: 'side' },
    h('option', { value: 'south', text: t('web.setup.south') }),
    h('option', { value: 'north', text: t('web.setup.north') }),
    h('option', { value: 'random', text: t('web.setup.random') }));
  const rated = h('input', { type: 'checkbox', id: 'account-rated', name: 'rated', checked: true });
  // Fischer clocks (minutes + seconds more a turn) and correspondence (days a move).
  const clockSel = h('select', { id: 'account-clock', name: 'clock' },
    h('option', { value: '', text: t('web.clock.none') }),
    ['1+0', '3+0', '3+2', '5+0', '10+5', '15+10'].map((c) => h('option', { value: c, text: c })),
    ['1d', '3d', '7d'].map((c) => h('option', { value: c, text: t('web.clock.per-move', { days: c.slice(0, -1) }) })));
  const opponent = h('input', { id: 'challenge-name', name: 'opponent', type: 'text', maxlength: 24, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' });
  const err = h('p', { class: 'error', role: 'alert' });
  // Quick pairing: waiting is shown with a Cancel; the game, once someone comes, is announced
  // on the lobby's socket (closing it, by leaving the page, leaves the pool).
  const waiting = h('p', { id: 'quick-waiting', class: 'status', 'aria-live': 'polite', hidden: true });
  const cancel = h('button', { type: 'button', id: 'quick-cancel', text: t('web.lobby.cancel'), hidden: true });
  const quick = h('button', { type: 'button', id: 'quick-pair', class: 'primary', text: t('web.lobby.quick') });
  const idle = () => { waiting.hidden = true; cancel.hidden = true; quick.disabled = false; };
  quick.addEventListener('click', async () => {
    quick.disabled = true;
    err.textContent = '';
    try {
      const r = await call('POST', '/api/lobby/pool', { rules: presetSel.value, rated: rated.checked, clock: clockSel.value || undefined });
      if (r.waiting) {
        waiting.textContent = t('web.lobby.waiting', { game: await title(r.preset), kind: t(r.rated ? 'web.profile.rated' : 'web.profile.casual') });
        waiting.hidden = false;
        cancel.hidden = false;
      } else openGame(r.game.id, r.seat);
    } catch (e) { err.textContent = e.message; idle(); }
  });
  cancel.addEventListener('click', async () => {
    try { await call('DELETE', '/api/lobby/pool'); idle(); } catch (e) { err.textContent = e.message; }
  });
  const challenge = h('button', { type: 'button', id: 'account-challenge', text: t('web.lobby.challenge') });
  challenge.addEventListener('click', async () => {
    challenge.disabled = true;
    err.textContent = '';
    try {
      await call('POST', '/api/lobby/challenges', { name: opponent.value.trim(), rules: presetSel.value, side: sideSel.value, rated: rated.checked, clock: clockSel.value || undefined });
    } catch (e) { err.textContent = e.message; }
    challenge.disabled = false;
  });
  const create = h('button', { type: 'submit', class: 'primary', id: 'account-create', text: t('web.account.create') });
  const form = h('form', { class: 'card', id: 'account-game', novalidate: true },
    h('h2', { text: t('web.account.new-game') }),
    field(presetSel, t('web.setup.game')), field(sideSel, t('web.setup.seat')), field(clockSel, t('web.clock.label')),
    h('div', { class: 'field check' }, h('label', { for: 'account-rated', text: t('web.account.rated') }), rated),
    h('p', { class: 'summary', text: t('web.lobby.quick-help') }),
    h('div', { class: 'controls' }, quick, cancel), waiting,
    field(opponent, t('web.lobby.challenge-name')),
    h('div', { class: 'controls' }, challenge),
    h('p', { class: 'summary', text: t('web.account.invite-help') }), err,
    h('div', { class: 'controls' }, create, h('button', { type: 'button', id: 'account-seek', text: t('web.lobby.post'), onclick: async (ev) => {
      ev.target.disabled = true;
      try {
        await call('POST', '/api/lobby/seeks', { rules: presetSel.value, side: sideSel.value, rated: rated.checked, clock: clockSel.value || undefined });
      } catch (e) { err.textContent = e.message; }
      ev.target.disabled = false;
    } })));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    create.disabled = true;
    try {
      const r = await call('POST', '/api/account/games', { rules: presetSel.value, side: sideSel.value, rated: rated.checked, clock: clockSel.value || undefined });
      saveSeat(r.game.id, r.seat, null);
      if (r.invite) sessionStorage.setItem(`mancala.invite.${r.game.id}`, r.invite);
      location.hash = `#/game/${r.game.id}`;
    } catch (e) {
      err.textContent = e.message;
      create.disabled = false;
    }
  });
  const challenges = challengesCard();
  const signout = h('button', { type: 'button', id: 'signout', text: t('web.account.signout') });
  signout.addEventListener('click', async () => {
    try { await call('POST', '/api/account/logout', {}); } catch (e) { err.textContent = e.message; return; }
    redraw();
  });
  screen.replaceChildren(heading,
    h('section', { class: 'card' },
      h('p', { id: 'signed-in', text: t('web.account.signed-in', { name: who.name }) }),
      h('div', { class: 'controls' },
        h('a', { class: 'button', id: 'my-profile', href: `#/user/${encodeURIComponent(who.name)}`, text: t('web.account.profile') }),
        signout)),
    lobbyCard(who, challenges),
    challenges.card,
    form);
  return closeLobby;
}

// ---------------------------------------------------------------------------------------
// #/players[/PRESET]

function presetPicker(id, list, value, onPick, extra = []) {
  const sel = h('select', { id }, extra, list.map((p) => h('option', { value: p.name, text: p.title })));
  sel.value = value;
  sel.addEventListener('change', () => onPick(sel.value));
  return sel;
}

export async function playersScreen(screen, preset) {
  const list = await presets();
  const chosen = preset || list[0].name;
  const board = await call('GET', `/api/leaderboard?preset=${encodeURIComponent(chosen)}`);
  const pick = presetPicker('players-preset', list, chosen, (p) => { location.hash = `#/players/${encodeURIComponent(p)}`; });
  if (!list.some((p) => p.name === chosen)) pick.prepend(h('option', { value: chosen, text: await title(chosen) }));
  pick.value = chosen;
  const rows = board.players.map((p) => h('tr', {},
    h('td', { text: String(p.rank) }),
    h('td', {}, h('a', { href: `#/user/${encodeURIComponent(p.name)}`, text: p.name })),
    h('td', { class: 'num' }, rating(p), provisionalMark(p)),
    h('td', { class: 'num', text: `± ${Math.round(p.deviation)}` }),
    h('td', { class: 'num', text: String(p.games) })));
  screen.replaceChildren(h('h1', { id: 'players-title', text: t('web.players.title') }),
    h('div', { class: 'card' }, field(pick, t('web.setup.game')),
      rows.length
        ? h('div', { class: 'table-scroll' }, h('table', { class: 'leaderboard', id: 'leaderboard' },
          h('caption', { text: t('web.players.caption', { limit: board.provisional_above }) }),
          // The rank's column is headed "#" on the screen (a narrow column on a phone), its word for screen readers.
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { 'aria-hidden': 'true', text: '#' }), h('span', { class: 'sr-only', text: t('web.players.rank') })),
            ['player', 'rating', 'deviation', 'games'].map((k) => h('th', { scope: 'col', text: t(`web.players.${k}`) })))),
          h('tbody', {}, rows)))
        : h('p', { id: 'leaderboard-empty', text: t('web.players.none') })));
}

// ---------------------------------------------------------------------------------------
// #/user/NAME[/PRESET]

// The rating after each rated game as an SVG line, the band ± the deviation, from 1500 ± 350
// before the first game; higher is better.
export function ratingGraph(points, label) {
  if (!points.length) return null;
  const series = [{ rating: 1500, deviation: 350 }, ...points];
  const W = 640; const H = 240; const L = 48; const R = 12; const T = 12; const B = 28;
  const lo = Math.min(...series.map((p) => p.rating - p.deviation));
  const hi = Math.max(...series.map((p) => p.rating + p.deviation));
  const x = (k) => L + (k * (W - L - R)) / Math.max(1, series.length - 1);
  const y = (v) => T + ((hi - v) * (H - T - B)) / Math.max(1, hi - lo);
  const pts = (f) => series.map((p, k) => `${x(k).toFixed(1)},${y(f(p)).toFixed(1)}`);
  const band = [...pts((p) => p.rating + p.deviation), ...pts((p) => p.rating - p.deviation).reverse()].join(' ');
  const ticks = [hi, (hi + lo) / 2, lo].map((v) => s('g', {},
    s('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
    s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', text: String(Math.round(v)) })));
  return s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'rating-graph', id: 'rating-graph', 'aria-label': label },
    s('title', { text: label }),
    ticks,
    s('polygon', { points: band, class: 'band' }),
    s('polyline', { points: pts((p) => p.rating).join(' '), class: 'line' }),
    points.map((p, k) => s('circle', { cx: x(k + 1), cy: y(p.rating), r: 3.5, class: 'point' },
      s('title', { text: t('web.profile.after', { k: k + 1, rating: Math.round(p.rating), deviation: Math.round(p.deviation) }) }))),
    s('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', text: t('web.profile.axis') }));
}

export async function profileScreen(screen, name, preset) {
  const q = preset ? `?preset=${encodeURIComponent(preset)}` : '';
  const p = await call('GET', `/api/users/${encodeURIComponent(name)}${q}`);
  const list = await presets();
  const here = (v) => `#/user/${encodeURIComponent(p.name)}${v ? `/${encodeURIComponent(v)}` : ''}`;
  const ratingRows = await Promise.all(p.ratings.map(async (r) => h('tr', {},
    h('td', {}, h('a', { href: here(r.preset), text: await title(r.preset) })),
    h('td', { class: 'num' }, rating(r), provisionalMark(r)),
    h('td', { class: 'num', text: `± ${Math.round(r.deviation)}` }),
    h('td', { class: 'num', text: String(r.games) }))));
  // The graph of the rule set chosen, else of the one most played.
  const graphed = preset || (p.ratings[0] && p.ratings[0].preset);
  const history = graphed ? p.history.filter((x) => x.preset === graphed) : [];
  const graph = graphed ? ratingGraph(history, t('web.profile.graph', { name: p.name, game: await title(graphed) })) : null;
  const pick = presetPicker('profile-preset', list, preset, (v) => { location.hash = here(v); }, [h('option', { value: '', text: t('web.profile.all') })]);
  if (preset && !list.some((x) => x.name === preset)) pick.append(h('option', { value: preset, text: await title(preset) }));
  pick.value = preset;
  // The games, a page at a time (More games asks for the next), each from this player's side.
  const gameItem = async (g) => {
    const result = g.result ? t(`web.profile.${g.result}`) : t('web.profile.ongoing');
    const opponent = g.opponent || t('web.profile.guest');
    let score = null;
    if (g.ended_by === 'resignation') score = t('web.profile.resigned');
    else if (g.seeds) {
      const margin = g.margin > 0 ? `+${g.margin}` : String(g.margin);
      score = h('span', { class: 'game-score', title: t('web.profile.seeds-title', { name: p.name }),
        text: t('web.profile.seeds', { own: g.seeds.own, opponent: g.seeds.opponent, margin }) + (g.fewer_seeds_win ? ` (${t('web.profile.fewer-win')})` : '') });
    }
    const record = (format) => h('a', { href: `/api/games/${encodeURIComponent(g.game)}/record?format=${format}`, download: `mancala-${g.game}.${format === 'text' ? 'txt' : 'json'}`,
      class: `record-${format}`, 'aria-label': t('web.profile.download', { id: g.game, format: t(`web.profile.${format}`) }), text: t(`web.profile.${format}`) });
    return h('li', { class: `result-${g.result || 'ongoing'}`, 'data-game': g.game },
      h('a', { href: g.result ? `#/replay/${g.game}` : `#/game/${g.game}`, text: result }),
      ` · ${t('web.profile.against', { opponent })} · ${await title(g.preset)} · ${t(g.rated ? 'web.profile.rated' : 'web.profile.casual')}`,
      score ? [' · ', score] : null,
      ` · ${new Date(g.created_ms).toLocaleDateString(lang)} · `, record('text'), ' ', record('json'));
  };
  const games = await Promise.all(p.games.map(gameItem));
  const gameList = h('ul', { class: 'profile-games', id: 'profile-games' }, games);
  let next = p.games_next;
  const more = h('button', { type: 'button', id: 'profile-more', text: t('web.profile.more'), hidden: !next });
  const moreErr = h('p', { class: 'error', role: 'alert' });
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const page = await call('GET', `/api/users/${encodeURIComponent(p.name)}/games?before=${encodeURIComponent(next)}${preset ? `&preset=${encodeURIComponent(preset)}` : ''}`);
      gameList.append(...(await Promise.all(page.games.map(gameItem))));
      next = page.next;
      more.hidden = !next;
    } catch (e) { moreErr.textContent = e.message; }
    more.disabled = false;
  });
  screen.replaceChildren(
    h('h1', { id: 'profile-title', class: 'player-name', text: p.name }),
    h('p', { class: 'summary', text: t('web.profile.since', { date: new Date(p.created_ms).toLocaleDateString(lang) }) }),
    h('section', { class: 'card' }, h('h2', { text: t('web.profile.ratings') }),
      ratingRows.length
        ? h('div', { class: 'table-scroll' }, h('table', { class: 'leaderboard', id: 'profile-ratings' },
          h('caption', { text: t('web.players.caption', { limit: p.provisional_above }) }),
          h('thead', {}, h('tr', {}, ['game', 'rating', 'deviation', 'games'].map((k) => h('th', { scope: 'col', text: t(k === 'game' ? 'web.setup.game' : `web.players.${k}`) })))),
          h('tbody', {}, ratingRows)))
        : h('p', { text: t('web.profile.none') }),
      graph ? h('figure', { class: 'graph' }, graph) : null),
    h('section', { class: 'card' }, h('h2', { text: t('web.profile.games') }), field(pick, t('web.setup.game')),
      games.length ? [gameList, more, moreErr] : h('p', { text: t('web.profile.no-games') })));
}
