// The browser client: new game menus, the game screen, the replay viewer. Routes live in the
// URL's hash so that invitation codes never reach a server log:
//   #/                   new game
//   #/game/ID            a game (this browser's seat token is in localStorage)
//   #/join/ID/INVITE     take the free seat of a friend's game
//   #/replay/ID          replay and analyse a game; #/replay: open a record file
//   #/analysis/POSITION  the analysis board (the position string, URI-encoded)
//   #/account            sign up, log in, start a game between accounts (account.js)
//   #/players[/PRESET]   the leaderboard of a rule set
//   #/user/NAME[/PRESET] a player's profile: ratings, their graph, games

import { api, local, stopThinking, seatOf, saveSeat, noteGame, watch, recentGames } from './api.js';
import { Board, letter, other, sleep } from './board.js';
import { T } from './text.js';
import { t, tn, lang, LANGS, setLang, side, message, fill } from './i18n.js';
import { h } from './dom.js';
import { accountScreen, playersScreen, profileScreen, joinAsAccount } from './account.js';
import { betweenPanel } from './between.js';
import { initSettings } from './settings.js';
import { turnShown } from './turn.js';
import { announce } from './announce.js';
import { valueText, scoreText } from './value.js';
import { evalGraph } from './graph.js';
import { LookBack } from './movelist.js';

const $ = (sel, root = document) => root.querySelector(sel);
let toastTimer = null;
function toast(text, kind = 'info') {
  const el = $('#toast');
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === 'error' ? 5000 : 3000);
}

let cleanup = () => {};
function show(name) {
  for (const s of document.querySelectorAll('.screen')) s.hidden = s.id !== `screen-${name}`;
  $('#loading').hidden = true;
  for (const a of document.querySelectorAll('nav a')) a.removeAttribute('aria-current');
  const nav = { setup: '#nav-new', replay: '#nav-replay', analysis: '#nav-analysis', account: '#nav-account', players: '#nav-players' }[name];
  if (nav) $(nav).setAttribute('aria-current', 'page');
  return $(`#screen-${name}`);
}

// A URI component decoded, or as it is where it is not valid encoding.
function decodeOr(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

async function route() {
  // What the engine in this browser thinks for the screen left is not wanted any more.
  stopThinking();
  cleanup();
  cleanup = () => {};
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  try {
    if (parts[0] === 'game' && parts[1]) await gameScreen(parts[1]);
    else if (parts[0] === 'join' && parts[1] && parts[2]) await joinGame(parts[1], parts[2]);
    else if (parts[0] === 'replay') await replayScreen(parts[1]);
    // The position's own slashes may come encoded or not (a link typed by hand).
    else if (parts[0] === 'analysis') await analysisScreen(decodeOr(parts.slice(1).join('/')));
    else if (parts[0] === 'account') cleanup = await accountScreen(show('account'));
    else if (parts[0] === 'players') await playersScreen(show('players'), decodeOr(parts[1] || ''));
    else if (parts[0] === 'user' && parts[1]) await profileScreen(show('profile'), decodeOr(parts[1]), decodeOr(parts[2] || ''));
    else await setupScreen();
  } catch (e) {
    const s = show('setup');
    s.replaceChildren(h('h1', { id: 'setup-title', text: t('web.error.title') }), h('p', { class: 'error', text: e.message }),
      h('p', {}, h('a', { href: '#/', text: t('web.error.new') })));
  }
}
window.addEventListener('hashchange', route);
// The page's fixed words and the language menu. The module waits for its words (i18n.js),
// so the page may be loaded already.
function start() {
  fill();
  initSettings();
  const sel = $('#lang');
  sel.replaceChildren(...Object.entries(LANGS).map(([code, name]) => h('option', { value: code, text: name })));
  sel.value = lang;
  sel.addEventListener('change', () => setLang(sel.value));
  // A static copy has no server: no accounts.
  if (local) for (const a of document.querySelectorAll('.server-only')) a.hidden = true;
  // A static copy: say where the computer thinks.
  if (local && !$('#engine-here')) {
    $('header.top').append(h('p', { class: 'engine-here', id: 'engine-here', text: t('web.local.engine') }));
  }
  // The static copy's files are cached on the first visit: it then starts offline (sw.js).
  if (local && 'serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
  route();
}


// The title of a game and its changed options in this language (the server's views name them
// in English, the same for every watcher).
const titles = new Map();
function rulesTitle(name) {
  if (!titles.has(name)) titles.set(name, api.rules(name, lang).then((r) => r.title));
  return titles.get(name).catch(() => name);
}

// ---------------------------------------------------------------------------------------
// New game

let variantsCache = null;
const LEVEL_KEYS = ['', 'beginner', 'casual', 'club', 'keen', 'strong', 'expert', 'master', 'strongest'];

async function setupScreen() {
  const s = show('setup');
  variantsCache = variantsCache || (await api.variants(lang));
  const presets = variantsCache.presets;
  const saved = JSON.parse(localStorage.getItem('mancala.setup') || '{}');
  s.replaceChildren();
  const form = h('form', { class: 'setup card', id: 'setup-form', novalidate: true });
  const presetSel = h('select', { id: 'preset', name: 'preset' },
    presets.map((p) => h('option', { value: p.name, text: p.title })));
  if (saved.preset && presets.some((p) => p.name === saved.preset)) presetSel.value = saved.preset;
  const summary = h('p', { class: 'summary', id: 'preset-summary' });
  const optionsBox = h('div', { class: 'options', id: 'options' });
  const rulesText = h('div', { class: 'rules-text' });
  const rulesBox = h('details', { class: 'rules' }, h('summary', { text: t('web.setup.rules') }), rulesText);

  const drawOptions = () => {
    const p = presets.find((x) => x.name === presetSel.value);
    summary.textContent = p.summary;
    optionsBox.replaceChildren();
    for (const o of p.options) {
      const id = `opt-${o.name}`;
      let input;
      if (o.kind === 'choice' && o.values === 'true|false') {
        input = h('input', { type: 'checkbox', id, name: o.name });
        input.checked = o.default === 'true';
      } else if (o.kind === 'choice') {
        input = h('select', { id, name: o.name }, o.choices.map((c, i) => h('option', { value: c, text: o.labels[i] || c })));
        input.value = o.default;
      } else if (o.kind === 'range') {
        input = h('input', { type: 'number', id, name: o.name, min: o.min, max: o.max, value: o.default, inputmode: 'numeric' });
      } else {
        input = h('input', { type: 'text', id, name: o.name, value: o.default });
      }
      input.dataset.option = o.name;
      input.dataset.default = o.default;
      input.addEventListener('change', updateRules);
      optionsBox.append(h('div', { class: `field ${input.type === 'checkbox' ? 'check' : ''}` },
        h('label', { for: id, text: o.title }), input, h('small', { text: o.help })));
    }
    updateRules();
  };
  const rulesString = () => {
    let r = presetSel.value;
    for (const el of optionsBox.querySelectorAll('[data-option]')) {
      const v = el.type === 'checkbox' ? String(el.checked) : el.value.trim();
      if (v !== '' && v !== el.dataset.default) r += `,${el.dataset.option}=${v}`;
    }
    return r;
  };
  let rulesSeq = 0;
  async function updateRules() {
    const seq = ++rulesSeq;
    try {
      const r = await api.rules(rulesString(), lang);
      if (seq !== rulesSeq) return;
      rulesText.replaceChildren(...r.text.trim().split('\n\n').map((para) => h('p', { text: para })));
      err.textContent = '';
    } catch (e) {
      if (seq === rulesSeq) err.textContent = e.message;
    }
  }
  presetSel.addEventListener('change', drawOptions);

  const opp = saved.opponent || 'computer';
  const oppBox = h('fieldset', { class: 'opponent' }, h('legend', { text: t('web.setup.opponent') }),
    h('label', { class: 'radio' }, h('input', { type: 'radio', name: 'opponent', value: 'computer', checked: opp === 'computer' }), ` ${t('web.setup.computer')}`),
    h('label', { class: 'radio' }, h('input', { type: 'radio', name: 'opponent', value: 'friend', checked: opp === 'friend' }), ` ${t('web.setup.friend')}`));
  const level = h('select', { id: 'level', name: 'level' },
    variantsCache.levels.map((l) => h('option', { value: l, text: LEVEL_KEYS[l] ? `${l} · ${t(`web.level.${LEVEL_KEYS[l]}`)}` : String(l) })));
  level.value = saved.level || 3;
  const levelField = h('div', { class: 'field' }, h('label', { for: 'level', text: t('web.setup.level') }), level);
  const seatSel = h('select', { id: 'side', name: 'side' },
    h('option', { value: 'south', text: t('web.setup.south') }),
    h('option', { value: 'north', text: t('web.setup.north') }),
    h('option', { value: 'random', text: t('web.setup.random') }));
  seatSel.value = saved.side || 'south';
  const name = h('input', { id: 'name', name: 'name', type: 'text', maxlength: 40, autocomplete: 'nickname', placeholder: t('web.setup.optional'), value: saved.name || '' });
  const nameField = h('div', { class: 'field' }, h('label', { for: 'name', text: t('web.setup.name') }), name);
  const syncOpp = () => {
    const isComputer = form.querySelector('input[name=opponent]:checked').value === 'computer';
    levelField.hidden = !isComputer;
  };
  oppBox.addEventListener('change', syncOpp);
  const err = h('p', { class: 'error', role: 'alert' });
  const start = h('button', { type: 'submit', class: 'primary big', id: 'start', text: t('web.setup.start') });
  form.append(
    h('h1', { id: 'setup-title', text: t('web.nav.new') }),
    h('div', { class: 'field' }, h('label', { for: 'preset', text: t('web.setup.game') }), presetSel), summary,
    h('details', { class: 'more', open: saved.open ? true : null }, h('summary', { text: t('web.setup.options') }), optionsBox),
    oppBox, levelField, nameField,
    h('div', { class: 'field' }, h('label', { for: 'side', text: t('web.setup.seat') }), seatSel),
    err, start, rulesBox);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    start.disabled = true;
    const opponent = form.querySelector('input[name=opponent]:checked').value;
    const req = { rules: rulesString(), opponent, side: seatSel.value };
    if (opponent === 'computer') req.level = Number(level.value);
    if (name.value.trim()) req.name = name.value.trim();
    localStorage.setItem('mancala.setup', JSON.stringify({ preset: presetSel.value, opponent, level: level.value, side: seatSel.value, name: name.value }));
    try {
      const r = await api.create(req);
      saveSeat(r.game.id, r.seat, r.token);
      if (r.invite) sessionStorage.setItem(`mancala.invite.${r.game.id}`, r.invite);
      location.hash = `#/game/${r.game.id}`;
    } catch (e) {
      err.textContent = e.message;
      start.disabled = false;
    }
  });
  s.append(form);
  const recent = recentGames().slice(0, 6);
  if (recent.length) {
    s.append(h('section', { class: 'card recent', 'aria-labelledby': 'recent-title' },
      h('h2', { id: 'recent-title', text: t('web.recent.title') }),
      h('ul', {}, recent.map((g) => h('li', {}, h('a', { href: `#/game/${g.id}`, text: g.game || t('web.recent.game', { id: g.id }) }),
        ` · ${g.opponent ? T.recent.against(g.opponent) : t('web.recent.you-play', { side: side(g.seat) })} · ${g.result || T.recent.notFinished()} · ${new Date(g.at).toLocaleString(lang)}`)))));
  }
  drawOptions();
  syncOpp();
  botsSections(s, seatSel, name).then(() => liveSection(s)).catch(() => {});
}

// The games of KGP bots (live and finished) and, with the server's lobby, the bots waiting to
// be challenged; the challenger's seat and name are the new-game form's.
async function botsSections(s, sideSel, nameInput) {
  const [games, lobby] = await Promise.all([api.botGames(), api.lobbyBots()]);
  if (lobby.lobby) {
    const err = h('p', { class: 'error', role: 'alert' });
    const items = lobby.bots.map((b) => {
      const who = b.name || t('web.bots.unnamed', { id: b.id });
      const since = new Date(b.since).toLocaleTimeString(lang);
      const button = h('button', { type: 'button', class: 'primary challenge', 'data-bot': b.id, text: t('web.bots.challenge') });
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const name = nameInput.value.trim() || undefined;
          const r = await api.challenge(b.id, sideSel.value, name);
          saveSeat(r.game.id, r.seat, r.token);
          noteGame(r.game.id, { opponent: who });
          location.hash = `#/game/${r.game.id}`;
        } catch (e) {
          err.textContent = e.message;
          button.disabled = false;
        }
      });
      return h('li', { class: 'bot' }, h('strong', { text: who }),
        b.authors ? ` · ${t('web.bots.by', { authors: b.authors })}` : '',
        ` · ${t('web.bots.since', { time: since })} `, button);
    });
    s.append(h('section', { class: 'card recent bots-waiting', id: 'bots-waiting', 'aria-labelledby': 'bots-waiting-title' },
      h('h2', { id: 'bots-waiting-title', text: t('web.bots.waiting') }),
      items.length ? h('ul', {}, items) : h('p', { text: t('web.bots.waiting-none') }), err));
  }
  if (games.games.length || lobby.lobby) {
    const name = (p, seat) => (p.kind === 'computer' ? t('web.computer-level', { level: p.level }) : p.name || side(seat));
    const items = games.games.slice(0, 10).map((g) => {
      const r = g.result;
      const end = !g.over ? t('web.bots.live')
        : !r ? ''
          : r.winner ? t('web.bots.won', { who: name(g.players[r.winner], r.winner), south: r.south, north: r.north })
            : t(r.unfinished ? 'web.bots.unfinished' : 'web.bots.draw', { south: r.south, north: r.north });
      return h('li', {}, h('a', { href: `#/game/${g.id}`, text: t('web.bots.line', { south: name(g.players.south, 'south'), north: name(g.players.north, 'north') }) }),
        ` · ${t('web.bots.moves', { n: g.ply })} · ${end}`);
    });
    s.append(h('section', { class: 'card recent bot-games', id: 'bot-games', 'aria-labelledby': 'bot-games-title' },
      h('h2', { id: 'bot-games-title', text: t('web.bots.title') }),
      items.length ? h('ul', {}, items) : h('p', { text: t('web.bots.games-none') })));
  }
}

// The games between people going on now, each a link to watch it.
async function liveSection(s) {
  const { games } = await api.liveGames();
  if (!games.length) return;
  const name = (p, seat) => p.name || side(seat);
  const items = games.slice(0, 20).map((g) => h('li', {},
    h('a', { href: `#/game/${g.id}`, text: t('web.bots.line', { south: name(g.players.south, 'south'), north: name(g.players.north, 'north') }) }),
    ` · ${g.clock || t('web.clock.none')} · ${t('web.bots.moves', { n: g.ply })}`));
  s.append(h('section', { class: 'card recent live-games', id: 'live-games', 'aria-labelledby': 'live-games-title' },
    h('h2', { id: 'live-games-title', text: t('web.live.title') }), h('ul', {}, items)));
}

// ---------------------------------------------------------------------------------------
// Joining a friend's game

async function joinGame(id, invite) {
  const mine = seatOf(id);
  // A game between accounts: the signed-in account takes the seat (its cookie acts for it).
  const asAccount = !mine && !local ? await joinAsAccount(id, invite).catch((e) => {
    toast(t('web.join.watching', { error: e.message }), 'error');
    return 'watching';
  }) : null;
  if (asAccount) {
    if (asAccount !== 'watching') saveSeat(id, asAccount.seat, null);
  } else if (!mine) {
    try {
      const name = await askName();
      const r = await api.join(id, invite, name || undefined);
      saveSeat(id, r.seat, r.token);
    } catch (e) {
      if (e.status !== 409 && e.status !== 403) throw e;
      toast(t('web.join.watching', { error: e.message }), 'error');
    }
  }
  history.replaceState(null, '', `#/game/${id}`);
  await gameScreen(id);
}

// A guest joining by link says the name his opponent will see (kept for next time).
function askName() {
  const s = show('game');
  const input = h('input', { type: 'text', id: 'join-name', name: 'name', maxlength: 40, autocomplete: 'nickname',
    value: localStorage.getItem('mancala.name') || '' });
  const form = h('form', { class: 'card join-form', id: 'join-form' },
    h('h1', { text: t('web.join.title') }),
    h('div', { class: 'field' }, h('label', { for: 'join-name', text: t('web.join.name') }), input),
    h('div', { class: 'controls' }, h('button', { type: 'submit', class: 'primary', id: 'join-submit', text: t('web.join.submit') })));
  s.replaceChildren(form);
  input.focus();
  return new Promise((resolve) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const name = input.value.trim();
      if (name) localStorage.setItem('mancala.name', name);
      resolve(name);
    });
  });
}

// ---------------------------------------------------------------------------------------
// The game

function whoIs(g, seat, you) {
  const p = g.players[seat];
  if (seat === you) return t('web.you');
  if (p.kind === 'computer') return p.level ? t('web.computer-level', { level: p.level }) : p.name;
  return p.name || (you ? (p.joined ? t('web.friend') : t('web.friend.away')) : side(seat));
}

async function gameScreen(id) {
  const s = show('game');
  const seat = seatOf(id);
  const token = seat ? seat.token : null;
  let g = await api.state(id, token).catch(async (e) => {
    if (e.status === 403 || e.status === 401) return api.state(id); // a stale token: watch only
    throw e;
  });
  const you = g.you || null;
  const bottom = you || 'south';
  let latest = g; // newest state received
  let shown = null; // state on the board
  let busy = false; // a request of ours is in flight
  let hintPit = null;

  s.replaceChildren();
  const title = h('h1', { id: 'game-title', class: 'game-title', text: g.rules.title });
  const resultCard = h('section', { class: 'result-card card', id: 'result-card', hidden: true, 'aria-live': 'polite' });
  const status = h('p', { class: 'status', id: 'status', 'aria-live': 'off' });
  const forced = h('p', { class: 'forced', id: 'forced' });
  const scoreTop = h('div', { class: 'player p-top' });
  const scoreBottom = h('div', { class: 'player p-bottom' });
  const boardEl = h('div', { id: 'board' });
  // The scores beside the names follow the stores as the seeds fall.
  const onSown = (b) => {
    for (const el of s.querySelectorAll('.player .score[data-side]')) el.textContent = String(b.stores[el.dataset.side === 'south' ? 0 : 1]);
  };
  const board = new Board(boardEl, { interactive: !!you, onPlay: (pit) => play(pit), onSown });
  const moves = h('ol', { class: 'moves', id: 'moves', 'aria-label': t('web.moves') });
  const lookBar = h('p', { class: 'look-back', id: 'look-back', hidden: true });
  const look = new LookBack(id, board, lookBar, () => {
    if (!shown) return;
    board.render(shown.board, !shown.over && shown.to_move === you ? shown.legal : [], you);
    board.markMove(shown.recent[shown.recent.length - 1] || null);
  });
  const invite = h('div', { class: 'invite card', hidden: true });
  const btn = (id2, text, fn, title2) => h('button', { type: 'button', id: id2, text, onclick: fn, title: title2 });
  const undoBtn = btn('undo', t('web.undo'), () => undo(), t('web.undo-title'));
  const hintBtn = btn('hint', t('web.hint'), () => hint(), T.hintTitle(g.rules.pits));
  const swapBtn = btn('swap', t('web.swap'), () => swap(), t('web.swap-title'));
  swapBtn.hidden = true;
  const resignBtn = btn('resign', t('web.resign'), () => resign());
  const newBtn = h('a', { class: 'button', href: '#/', id: 'new-game', text: t('web.nav.new') });
  const replayBtn = h('a', { class: 'button', href: `#/replay/${id}`, id: 'replay-link', text: t('web.replay') });
  const dlJson = h('a', { class: 'button', href: `/api/games/${id}/record?format=json`, download: `mancala-${id}.json`, id: 'download-json', text: t('web.record-json') });
  const dlText = h('a', { class: 'button', href: `/api/games/${id}/record?format=text`, download: `mancala-${id}.txt`, id: 'download-text', text: t('web.record-text') });
  const conn = h('span', { class: 'conn', 'aria-live': 'polite' });
  const rulesText = h('div', { class: 'rules-text' });
  const keys = h('p', { class: 'keys', text: you ? T.keys(g.rules.pits, g.rules.pie, g.vs_computer) : t('web.watching') });
  // Clocks, offers and claims of a game between people (between.js).
  const between = betweenPanel({ id, token, you, receive: (st) => receive(st), toast, announce });
  s.append(title,
    h('div', { class: 'game' },
      h('div', { class: 'play' }, scoreTop, boardEl, scoreBottom, lookBar, between.note, status, forced, resultCard,
        h('div', { class: 'controls' }, you ? swapBtn : null, you && g.vs_computer ? [undoBtn, hintBtn] : null, you ? resignBtn : null, newBtn),
        between.panel, invite, keys),
      h('aside', { class: 'side card' },
        h('h2', { text: t('web.moves') }), moves,
        h('div', { class: 'downloads' }, replayBtn, dlJson, dlText), conn,
        h('details', { class: 'rules' }, h('summary', { text: t('web.rules') }), rulesText))));
  // The rules' words in this language: the text, the title and why some pits may not be played.
  let restriction = null;
  api.rules(g.rules.name, lang).then((r) => {
    rulesText.replaceChildren(...r.text.trim().split('\n\n').map((p) => h('p', { text: p })));
    title.textContent = r.title;
    if (you) noteGame(id, { game: r.title });
    restriction = r.restriction;
    if (shown) drawInfo(shown);
  }).catch(() => {});

  board.layout(g.rules.pits, bottom, g.rules.notation, { south: whoIs(g, 'south', you), north: whoIs(g, 'north', you) });
  if (you) noteGame(id, { game: g.rules.title, opponent: whoIs(g, other(you), you) });

  function drawInfo(st, sowing = null) {
    const top = other(bottom);
    const who = { south: whoIs(st, 'south', you), north: whoIs(st, 'north', you) };
    board.setNames(who);
    const line = (side) => {
      const turn = !st.over && st.to_move === side;
      return [h('span', { class: `dot ${turn ? 'on' : ''}`, 'aria-hidden': 'true' }), h('span', { class: 'name', text: who[side] }),
        st.rules.misere ? h('span', { class: 'misere', text: T.misereBadge() }) : null,
        h('span', { class: 'score', 'data-side': side, text: String(st.board.stores[side === 'south' ? 0 : 1]) }),
        between.clocks[side]].filter(Boolean);
    };
    scoreTop.replaceChildren(...line(top));
    scoreBottom.replaceChildren(...line(bottom));
    scoreTop.classList.toggle('turn', !st.over && st.to_move === top);
    scoreBottom.classList.toggle('turn', !st.over && st.to_move === bottom);
    let text;
    if (sowing) {
      text = sowing.side === you ? t('web.status.you-play', { move: sowing.text }) : t('web.status.plays', { who: who[sowing.side], move: sowing.text });
    } else if (st.over) {
      const r = st.result;
      const w = r.winner;
      const score = `${r.south} : ${r.north}`;
      if (r.unfinished) text = t('web.status.unfinished', { score });
      else if (!w) text = t('web.status.draw', { score });
      else if (you && w === you) text = t('web.status.you-win', { score });
      else text = t('web.status.wins', { who: you ? who[w] : side(w), score });
    } else if (st.to_move === you) text = T.yourMove();
    else if (st.thinking) text = t('web.status.thinking');
    else if (you && st.waiting_for_opponent) text = t('web.status.waiting');
    else if (you) text = t('web.status.to-move-you', { who: who[st.to_move] });
    else text = t('web.status.to-move', { who: side(st.to_move) });
    status.textContent = text;
    forced.textContent = !sowing && !st.over && st.to_move === you && st.forced ? T.forced(restriction || st.forced) : '';
    drawResult(!sowing && st.over ? st : null, who);
    status.classList.toggle('over', !sowing && st.over);
    status.classList.toggle('yours', !sowing && !st.over && st.to_move === you);
    turnShown(id, st, you, !!sowing, title.textContent);
    moves.dataset.ply = sowing ? sowing.ply : st.ply;
    // Move list: numbered lines of the first player's turn and the reply, up to the move
    // being sown (never ahead of the board).
    moves.replaceChildren();
    let li = null;
    const upTo = sowing ? sowing.ply + 1 : st.ply;
    for (const tu of st.turns.filter((x) => x.first_ply + x.plies <= upTo)) {
      if (!li || tu.side === 'south' || (li.dataset.n !== String(tu.number))) {
        li = h('li', { 'data-n': tu.number }, h('span', { class: 'n', text: `${tu.number}.` }));
        if (tu.side === 'north' && li.childElementCount === 1) li.append(h('span', { class: 'mv empty', text: '…' }));
        moves.append(li);
      }
      // A turn's entry shows the board after it (look back, read-only).
      const after = tu.first_ply + tu.plies;
      li.append(h('button', { type: 'button', class: `mv ${tu.side}`, title: side(tu.side), text: tu.text, 'data-ply': after,
        'aria-label': t('web.look.go', { n: after, side: side(tu.side), move: tu.text }), onclick: () => look.show(after, shown ? shown.ply : st.ply) }));
    }
    const last = moves.querySelector('li:last-child .mv:last-child');
    if (last) { last.classList.add('last'); last.scrollIntoView({ block: 'nearest' }); }
    if (st.over && st.result) moves.append(h('li', { class: 'result', text: `${st.result.south} : ${st.result.north}` }));
    undoBtn.disabled = busy || !st.turns.some((x) => x.side === you) || !!(st.result && st.result.reason && st.result.reason.includes('resigned'));
    hintBtn.disabled = busy || st.over || st.to_move !== you;
    // The swap, while it is the asker's legal move (North's first action under the pie rule).
    swapBtn.hidden = !!sowing || st.over || st.to_move !== you || !st.swap;
    swapBtn.disabled = busy;
    resignBtn.disabled = busy || st.over;
    // Invitation link while the friend's seat is free.
    if (st.invite) sessionStorage.setItem(`mancala.invite.${id}`, st.invite);
    const code = sessionStorage.getItem(`mancala.invite.${id}`);
    if (you && st.waiting_for_opponent && code) {
      const link = `${location.origin}${location.pathname}#/join/${id}/${code}`;
      const input = h('input', { type: 'text', readonly: true, value: link, id: 'invite-link', 'aria-label': t('web.invite.label') });
      invite.replaceChildren(h('p', { text: t('web.invite.text') }), h('div', { class: 'copy' }, input,
        h('button', { type: 'button', text: t('web.invite.copy'), onclick: async () => { input.select(); try { await navigator.clipboard.writeText(link); toast(t('web.invite.copied')); } catch { document.execCommand('copy'); } } })));
      invite.hidden = false;
    } else invite.hidden = true;
  }

  // The card at the end: who won, by how much, why; a rematch with the same settings.
  function drawResult(st, who) {
    if (!st || !st.result) { resultCard.hidden = true; return; }
    const r = st.result;
    const margin = Math.abs(r.south - r.north);
    let head;
    if (r.unfinished) head = T.resultHead.unfinished();
    else if (!r.winner) head = T.resultHead.draw();
    else if (you) head = r.winner === you ? T.resultHead.you() : T.resultHead.wins(who[r.winner]);
    else head = T.resultHead.wins(side(r.winner));
    // After a resignation the seeds decided nothing: the score alone.
    const score = `${r.south} : ${r.north}`;
    const by = !r.winner || !r.outcome ? score : `${margin ? T.resultBy.seeds(margin) : T.resultBy.equal()}, ${score}`;
    const opponent = you ? who[other(you)] : null;
    // Between people the rematch is offered to the opponent (between.js).
    const rematch = you && st.vs_computer ? h('button', { type: 'button', class: 'primary', id: 'rematch', text: T.rematch(), onclick: async () => {
      const req = { rules: st.rules.name, opponent: st.vs_computer ? 'computer' : 'friend', side: you };
      const them = st.players[other(you)];
      if (st.vs_computer && them.level) req.level = them.level;
      if (st.players[you].name) req.name = st.players[you].name;
      try {
        const c = await api.create(req);
        saveSeat(c.game.id, c.seat, c.token);
        if (c.invite) sessionStorage.setItem(`mancala.invite.${c.game.id}`, c.invite);
        location.hash = `#/game/${c.game.id}`;
      } catch (e) { toast(e.message, 'error'); }
    } }) : null;
    // replaceChildren writes a null as the text "null": only elements go in.
    resultCard.replaceChildren(...[
      h('h2', { text: head }), h('p', { class: 'by', text: by }),
      h('p', { class: 'why', text: T.resultWhy(r.why ? message(r.why) : r.reason) }),
      st.rules.misere ? h('p', { class: 'why', text: T.misereNote() }) : null,
      h('div', { class: 'controls' }, rematch, h('a', { class: 'button', href: `#/replay/${id}`, text: T.replayAnalyse() }))].filter(Boolean));
    resultCard.hidden = false;
    if (you) noteGame(id, { opponent, result: `${head.toLowerCase()}, ${r.south} : ${r.north}` });
  }

  // An extra turn, or in Kauri the opponent's pass (he has no cowrie), in words.
  function againText(mv, st) {
    if (!mv.again) return null;
    const them = other(mv.side);
    if (st.rules.kauri) return T.pass(whoIs(st, them, you), them === you);
    return T.extraTurn();
  }
  function describeMove(mv, st) {
    const who = mv.side === you ? t('web.you') : (st.players[mv.side].kind === 'computer' ? t('web.computer') : whoIs(st, mv.side, you));
    let text = t('web.move.played', { who, move: mv.text });
    if (mv.captured) text += tn('web.move.capturing', mv.captured);
    const again = againText(mv, st);
    if (again) text += t('web.move.again', { again, moves: T.movesAgain(mv.side === you) });
    return `${text}.`;
  }

  // Shows the newest state, animating the moves between what is shown and it.
  let drawing = false;
  async function catchUp() {
    if (drawing) return;
    drawing = true;
    try {
      while (shown !== latest) {
        const target = latest;
        // A change of the game ends a look back: its moves are drawn on the live board.
        look.end(false);
        const from = shown ? shown.ply : target.ply;
        if (shown && target.ply > from && target.recent.length && target.recent[0].ply <= from) {
          for (const mv of target.recent.filter((x) => x.ply >= from)) {
            const after = target.recent.find((x) => x.ply === mv.ply + 1);
            drawInfo({ ...target, board: mv.before, over: false, to_move: mv.side, thinking: false }, mv);
            await board.animate(mv, mv.before, after ? after.before : target.board);
            const again = againText(mv, target);
            if (again) board.note(again.replace(/^./, (c) => c.toUpperCase()));
            announce(describeMove(mv, target));
            if (latest !== target && latest.ply <= mv.ply) break; // undone meanwhile
          }
        }
        shown = target;
        board.render(shown.board, !shown.over && shown.to_move === you ? shown.legal : [], you);
        const lastMv = shown.recent[shown.recent.length - 1];
        board.markMove(lastMv || null);
        board.hint(null);
        drawInfo(shown);
        if (shown.over) announce(status.textContent);
        else if (shown.to_move === you) announce(`${status.textContent}`);
      }
    } finally {
      drawing = false;
    }
  }
  function receive(st) {
    if (st.version <= latest.version && shown) return;
    latest = st;
    between.update(st);
    catchUp();
  }

  async function guarded(fn) {
    if (busy) return;
    busy = true;
    try { await fn(); } catch (e) { toast(e.message, 'error'); announce(e.message); } finally {
      busy = false;
      // While a sowing is drawn its own status stands; the state is drawn when it ends.
      if (!drawing) drawInfo(latest === shown ? shown : shown || latest);
    }
  }
  function play(pit) {
    if (!shown || shown.over || shown.to_move !== you || board.animating) return;
    look.end();
    if (!shown.legal.includes(pit)) { toast(t('web.pit-not-now', { pit: letter(g.rules.notation, you, pit - 1) }), 'error'); return; }
    guarded(async () => receive(await api.move(id, token, pit, shown.ply)));
  }
  function swap() {
    if (!shown || shown.over || shown.to_move !== you || board.animating || !shown.swap) return;
    guarded(async () => receive(await api.move(id, token, 'swap', shown.ply)));
  }
  function undo() { guarded(async () => receive(await api.undo(id, token))); }
  function resign() {
    if (!confirm(t('web.resign-confirm'))) return;
    guarded(async () => receive(await api.resign(id, token)));
  }
  function hint() {
    guarded(async () => {
      const r = await api.hint(id, token);
      hintPit = r.pit;
      board.hint(r.pit);
      // The server turns the value to the asker's view: "you win by 3", proven or not.
      const msg = t('web.hint.text', { move: r.text, value: valueText(r.eval, you) });
      toast(msg);
      announce(msg);
      if (r.pit === 0) swapBtn.focus();
      else board.focusPit(r.pit - 1);
    });
  }

  const onKey = (ev) => {
    if (ev.target.closest && ev.target.closest('input, select, textarea')) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    // A pit's digit, or its letter (either case) where the game writes pits as letters: on
    // an 8-pit board `h` is pit H, and `?` asks for a hint.
    const pit = /^[1-9]$/.test(k) ? Number(k)
      : (g.rules.notation !== 'digits' && /^[a-zA-Z]$/.test(k) ? k.toLowerCase().charCodeAt(0) - 96 : 0);
    if (you && pit >= 1 && pit <= g.rules.pits) { ev.preventDefault(); play(pit); return; }
    if (k === 'u' || k === 'U') { if (you && g.vs_computer) undo(); }
    if (k === '?' || k === 'h' || k === 'H') { if (you && g.vs_computer) hint(); }
    if (k === 'w' || k === 'W') { if (you) swap(); }
  };
  document.addEventListener('keydown', onKey);
  const stop = watch(id, receive, (up) => { conn.textContent = up ? '' : t('web.reconnecting'); }, you ? token : null);
  // Catch up after a sleep or a lost connection even if a push was missed.
  const poll = setInterval(async () => {
    if (document.hidden) return;
    try { receive(await api.state(id, token && you ? token : undefined)); } catch { /* next time */ }
  }, 15000);
  cleanup = () => { stop(); between.stop(); clearInterval(poll); document.removeEventListener('keydown', onKey); };
  between.update(g);
  receive(g);
  if (you && g.to_move === you) board.focusPit((g.legal[0] || 1) - 1);
}

// ---------------------------------------------------------------------------------------
// Replay viewer

async function replayScreen(id) {
  const s = show('replay');
  s.replaceChildren();
  const head = h('h1', { id: 'replay-title', text: id ? t('web.replay.of', { id }) : t('web.nav.replay') });
  const fileInput = h('input', { type: 'file', id: 'record-file', accept: '.json,.txt,application/json,text/plain' });
  const pasteArea = h('textarea', { id: 'record-text', rows: 4, placeholder: '[Variant "kalah"]\n1. C-F  b (+1)\n…', 'aria-label': t('web.replay.record-text') });
  const err = h('p', { class: 'error', role: 'alert' });
  const loadBtn = h('button', { type: 'button', id: 'load-record', text: t('web.replay.show') });
  const view = h('div', { class: 'replay' });
  s.append(head);
  if (!id) {
    s.append(h('div', { class: 'card loader' },
      h('div', { class: 'field' }, h('label', { for: 'record-file', text: t('web.replay.file') }), fileInput),
      h('div', { class: 'field' }, h('label', { for: 'record-text', text: t('web.replay.paste') }), pasteArea), loadBtn, err));
  }
  s.append(view);
  const open = async (getData) => {
    err.textContent = '';
    try {
      view.replaceChildren(h('p', { class: 'loading', text: t('web.replay.working') }));
      const data = await getData();
      drawReplay(view, data);
      // The moves replayed, but the record's annotations or score disagree: say where.
      if (data.note) err.textContent = t('web.replay.note', { note: data.note_message ? message(data.note_message) : data.note });
    } catch (e) {
      view.replaceChildren();
      err.textContent = e.message;
      if (id) view.append(h('p', { class: 'error', text: e.message }));
    }
  };
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files[0];
    if (f) open(async () => api.replayRecord(await f.text()));
  });
  loadBtn.addEventListener('click', () => open(() => api.replayRecord(pasteArea.value)));
  if (id) await open(() => api.replayGame(id));
}

function drawReplay(view, r) {
  let k = 0; // plies shown
  const n = r.moves.length;
  let bottom = 'south';
  const boardEl = h('div', { id: 'replay-board' });
  const board = new Board(boardEl, { interactive: false });
  const caption = h('p', { class: 'status', id: 'replay-status', 'aria-live': 'polite' });
  const slider = h('input', { type: 'range', min: 0, max: n, value: 0, id: 'replay-slider', 'aria-label': t('web.replay.move') });
  const b = (id, label, text, fn) => h('button', { type: 'button', id, 'aria-label': label, title: label, text, onclick: fn });
  // The computer is named by its level, in the reader's language.
  const nameOf = (p, s) => (p && p.level ? t('web.computer-level', { level: p.level }) : p && p.name) || side(s);
  const names = { south: nameOf(r.players.south, 'south'), north: nameOf(r.players.north, 'north') };
  const table = h('table', { class: 'values', id: 'replay-moves' },
    h('caption', { text: T.replayCaption(r.rules.misere) }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: '#' }), h('th', { scope: 'col', text: t('web.replay.side') }), h('th', { scope: 'col', text: t('web.analysis.head.move') }),
      h('th', { scope: 'col', text: t('web.analysis.head.value') }), h('th', { scope: 'col', text: t('web.replay.best') }))));
  const body = h('tbody');
  // An evaluation from the server (see the engine's Evaluation): its score, good for the
  // mover when positive (the server turns a misère margin), and the search depth where it is
  // not proven; the caption's words give the same sign (value.js).
  const fmt = (e) => (!e ? '–' : `${scoreText(e)}${e.proven ? '' : ` (${t('web.replay.depth', { depth: e.depth })})`}`);
  r.moves.forEach((mv, i) => {
    const val = r.values && r.values[i];
    const loss = val && val.loss > 0;
    body.append(h('tr', { 'data-ply': i + 1, class: loss ? (val.loss >= 3 ? 'blunder' : 'inaccuracy') : '', title: val && val.played ? valueText(val.played) : '' },
      h('td', { text: String(i + 1) }), h('td', { text: side(mv.side) }),
      h('td', {}, h('button', { type: 'button', class: 'link', text: mv.text, onclick: () => go(i + 1), 'aria-label': t('web.replay.go', { n: i + 1, side: side(mv.side), move: mv.text }) })),
      h('td', { text: val ? fmt(val.played) : '–' }),
      h('td', { text: val && val.best_text ? `${val.best_text} ${fmt(val.best)}` : '–' })));
  });
  table.append(body);
  const relayout = () => {
    board.layout(r.rules.pits, bottom, r.rules.notation, names);
    board.render(r.positions[k]);
  };
  // Every value from South's view on one graph (its words say so).
  const graph = r.values ? evalGraph(r.values, n, r.rules.misere, (to) => go(to, true)) : null;
  const summary = r.result
    ? t(r.result.winner ? 'web.replay.result' : r.result.unfinished ? 'web.replay.result-unfinished' : 'web.replay.result-draw', { south: r.result.south, north: r.result.north, who: names[r.result.winner] })
    : tn('web.replay.unfinished', n);
  view.replaceChildren(
    h('p', { class: 'summary', id: 'replay-summary', text: `${r.rules.title}. ${summary}` }),
    h('div', { class: 'game' },
      h('div', { class: 'play' }, boardEl, caption,
        h('div', { class: 'controls replay-controls' },
          b('first', t('web.replay.first'), '«', () => go(0)), b('prev', t('web.replay.prev'), '‹', () => go(k - 1)),
          b('next', t('web.replay.next'), '›', () => go(k + 1)), b('last', t('web.replay.last'), '»', () => go(n)),
          b('flip', t('web.replay.flip'), '↻', () => { bottom = other(bottom); relayout(); go(k, true); }),
          h('button', { type: 'button', id: 'replay-analyse', text: T.analysis.fromHere(), onclick: () => {
            // The game's earlier positions go along, for the repetition rule.
            analysisHistory = { position: r.positions[k].position, history: r.positions.slice(0, k).map((p) => p.position) };
            location.hash = `#/analysis/${encodeURIComponent(r.positions[k].position)}`;
          } })),
        slider,
        graph ? graph.figure : null,
        h('p', { class: 'keys', text: t('web.replay.keys') })),
      h('aside', { class: 'side card' }, table)));
  let animating = false;
  async function go(to, noAnim = false) {
    to = Math.max(0, Math.min(n, to));
    if (animating) return;
    if (to === k + 1 && !noAnim) {
      animating = true;
      const mv = r.moves[k];
      await board.animate(mv, r.positions[k], r.positions[k + 1], 2);
      animating = false;
    } else {
      board.render(r.positions[to]);
      board.markMove(to > 0 ? r.moves[to - 1] : null);
    }
    k = to;
    slider.value = k;
    if (graph) graph.mark(k);
    for (const tr of body.querySelectorAll('tr')) tr.classList.toggle('current', Number(tr.dataset.ply) === k);
    const cur = body.querySelector('tr.current');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
    if (k === 0) caption.textContent = t('web.replay.start');
    else {
      const mv = r.moves[k - 1];
      const val = r.values && r.values[k - 1];
      let text = t('web.replay.caption-move', { k, n, who: names[mv.side], move: mv.text });
      if (mv.captured) text += tn('web.move.capturing', mv.captured);
      if (val && val.played) {
        text += t('web.replay.engine', { value: valueText(val.played) });
        if (val.loss > 0) text += tn('web.replay.best-was', val.loss, { move: val.best_text, value: fmt(val.best) });
        else if (val.loss === 0) text += t('web.replay.the-best');
      }
      caption.textContent = `${text}.`;
    }
  }
  slider.addEventListener('input', () => go(Number(slider.value), true));
  view.addEventListener('keydown', (ev) => {
    if (ev.target === slider) return;
    const step = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
    if (step) { ev.preventDefault(); go(k + step); }
    if (ev.key === 'Home') { ev.preventDefault(); go(0); }
    if (ev.key === 'End') { ev.preventDefault(); go(n); }
  });
  view.tabIndex = -1;
  rulesTitle(r.rules.name).then((x) => { $('#replay-summary').textContent = `${x}. ${summary}`; });
  relayout();
  go(0);
  sleep(0).then(() => $('#next') && $('#next').focus());
}

// ---------------------------------------------------------------------------------------
// Analysis board: every legal move of a position valued by the server (proven where the proof
// finishes, else searched, as each value says), the best line, and moves tried and taken back.

// The earlier positions of the game a replay opened the board from (repetition rule).
let analysisHistory = null;

async function analysisScreen(start) {
  const s = show('analysis');
  const A = T.analysis;
  const input = h('input', { id: 'analysis-position', type: 'text', value: start, spellcheck: 'false', autocomplete: 'off',
    placeholder: 'kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s', 'aria-describedby': 'analysis-help' });
  const openBtn = h('button', { type: 'submit', id: 'analysis-open', text: A.open() });
  // The engine in this browser can be stopped; the server's answers come within its budget.
  const stopBtn = h('button', { type: 'button', id: 'analysis-stop', text: A.stop(), hidden: true, onclick: () => stop() });
  const err = h('p', { class: 'error', id: 'analysis-error', role: 'alert' });
  const form = h('form', { class: 'card loader analysis-form' },
    h('div', { class: 'field' }, h('label', { for: 'analysis-position', text: A.positionLabel() }), input),
    h('p', { class: 'help', id: 'analysis-help', text: A.help() }), openBtn, stopBtn, err);
  const view = h('div', { class: 'analysis' });
  s.replaceChildren(h('h1', { id: 'analysis-title', text: A.title() }), form, view);
  // The positions from the one opened to the one shown: `back` returns along them.
  let trail = [];
  let history = [];
  let gen = 0;
  let board = null;
  let laidOut = '';
  const boardEl = h('div', { id: 'analysis-board' });
  const status = h('p', { class: 'status', id: 'analysis-status', 'aria-live': 'polite' });
  const backBtn = h('button', { type: 'button', id: 'analysis-back', text: A.back(), title: A.backTitle(), onclick: () => back() });
  const tried = h('p', { class: 'tried', id: 'analysis-tried' });
  const line = h('p', { class: 'line', id: 'analysis-line' });
  const table = h('table', { class: 'values', id: 'analysis-moves' });
  const fmt = scoreText;
  // Each preset's start, to open without typing.
  const presetSel = h('select', { id: 'analysis-preset', 'aria-label': A.startOf() }, h('option', { value: '', text: A.startOf() }));
  presetSel.addEventListener('change', () => {
    if (!presetSel.value) return;
    input.value = presetSel.value;
    presetSel.value = '';
    form.requestSubmit();
  });
  form.insertBefore(h('div', { class: 'field' }, presetSel), openBtn);
  (async () => {
    variantsCache = variantsCache || (await api.variants(lang));
    presetSel.append(...variantsCache.presets.filter((p) => p.start).map((p) => h('option', { value: p.start, text: p.title })));
  })().catch(() => {});

  async function load(position, moveText) {
    const my = ++gen;
    // A new position drops the one still being valued.
    stopThinking();
    err.textContent = '';
    status.textContent = A.working();
    // Before the first answer the status stands alone where the board will be.
    if (!view.contains(status)) view.replaceChildren(status);
    table.setAttribute('aria-busy', 'true');
    stopBtn.hidden = !local;
    let a;
    try {
      a = await api.analyse(position, [...history, ...trail.map((x) => x.a.board.position)]);
    } catch (e) {
      if (my !== gen) return;
      stopBtn.hidden = true;
      table.removeAttribute('aria-busy');
      err.textContent = e.message;
      status.textContent = '';
      return;
    }
    if (my !== gen) return;
    stopBtn.hidden = true;
    if (moveText !== undefined && trail.length) trail[trail.length - 1].text = moveText;
    trail.push({ a, text: null });
    draw();
  }

  function stop() {
    if (!stopThinking()) return;
    gen++;
    stopBtn.hidden = true;
    table.removeAttribute('aria-busy');
    status.textContent = A.stopped();
  }

  function back() {
    if (trail.length < 2) return;
    trail.pop();
    trail[trail.length - 1].text = null;
    draw();
  }

  function draw() {
    const { a } = trail[trail.length - 1];
    table.removeAttribute('aria-busy');
    input.value = a.board.position;
    if (!board || !view.contains(boardEl)) {
      view.replaceChildren(h('p', { class: 'summary', id: 'analysis-rules', text: a.rules.title }),
        h('div', { class: 'game' },
          h('div', { class: 'play' }, boardEl, status,
            h('div', { class: 'controls' }, backBtn), tried, line),
          h('aside', { class: 'side card' }, table)));
    }
    // The side to move at the position opened plays from the bottom row, and the board stays
    // so while moves are tried.
    const bottom = trail[0].a.board.to_move || 'south';
    const names = { south: side('south'), north: side('north') };
    const key = `${a.rules.name}/${bottom}`;
    if (!board || laidOut !== key) {
      board = new Board(boardEl, { interactive: true, onPlay: (pit) => tryMove(pit) });
      board.layout(a.rules.pits, bottom, a.rules.notation, names);
      laidOut = key;
    }
    board.render(a.board, a.moves.map((m) => m.pit), a.board.to_move);
    board.hint(a.best);
    // Each move's value on its pit as well as in the table (the table says how sure).
    board.setValues(Object.fromEntries(a.moves.map((m) => [m.pit, fmt(m.eval)])));
    const misere = a.rules.misere ? ` · ${T.misereBadge()}` : '';
    $('#analysis-rules').textContent = a.rules.title + misere;
    rulesTitle(a.rules.name).then((x) => { if (trail[trail.length - 1].a === a) $('#analysis-rules').textContent = x + misere; });
    status.textContent = a.board.to_move
      ? `${A.toMove(side(a.board.to_move))}${a.tables ? ` (${A.tables()})` : ''}`
      : A.over(a.board.stores[0], a.board.stores[1]);
    backBtn.disabled = trail.length < 2;
    tried.textContent = A.tried(trail.slice(0, -1).map((x) => x.text).join(' '));
    line.textContent = a.line_text ? A.bestLine(a.line_text) : '';
    const body = h('tbody');
    for (const m of a.moves) {
      const how = m.eval.proven ? A.proven() : A.depth(m.eval.depth);
      body.append(h('tr', { 'data-pit': m.pit, class: [m.pit === a.best ? 'best' : '', m.loss >= 3 ? 'blunder' : m.loss > 0 ? 'inaccuracy' : ''].join(' ').trim(), title: valueText(m.eval) },
        h('td', {}, h('button', { type: 'button', class: 'link', text: m.text, 'aria-label': A.play(m.text, valueText(m.eval)), onclick: () => tryMove(m.pit) })),
        h('td', { class: 'value', text: fmt(m.eval) }),
        h('td', { class: 'how', text: how }),
        h('td', { class: 'loss', text: m.loss === null ? '–' : String(m.loss) })));
    }
    table.replaceChildren(h('caption', { text: A.caption(a.rules.misere) }),
      h('thead', {}, h('tr', {}, ...A.heads().map((x) => h('th', { scope: 'col', text: x })))), body);
  }

  function tryMove(pit) {
    const { a } = trail[trail.length - 1];
    const m = a.moves.find((x) => x.pit === pit);
    if (m) load(m.after, m.text);
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = input.value.trim();
    if (!p) return;
    trail = [];
    history = [];
    if (location.hash !== `#/analysis/${encodeURIComponent(p)}`) {
      window.history.replaceState(null, '', `#/analysis/${encodeURIComponent(p)}`);
    }
    load(p);
  });
  if (start) {
    if (analysisHistory && analysisHistory.position === start) history = analysisHistory.history;
    analysisHistory = null;
    await load(start);
  }
}

// Last, once every binding of the module exists.
if (document.readyState === 'loading') window.addEventListener('DOMContentLoaded', start);
else start();
