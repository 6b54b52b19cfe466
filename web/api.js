// The server's JSON and WebSocket API, and the seats' tokens kept in this browser.

import { t, errorText } from './i18n.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, t('web.offline'));
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) throw new ApiError(res.status, errorText(data) || `${res.status} ${res.statusText}`);
  return data;
}

// A static copy of the client (`mancala web-export`) marks its page with
// <meta name="mancala-engine" content="browser">: there is no server, and the engine runs in
// a Web Worker in this browser (engine-worker.js). Games then live in that worker, and each
// game's snapshot in this browser's storage, from which a new worker restores it.
export const local = typeof document !== 'undefined'
  && document.querySelector('meta[name="mancala-engine"][content="browser"]') !== null;

let worker = null;
let nextId = 1;
const pending = new Map();
function startWorker() {
  worker = new Worker('/engine-worker.js', { type: 'module' });
  worker.onmessage = (ev) => {
    const { id, result, error } = ev.data || {};
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (error !== undefined) p.reject(new ApiError(400, error));
    else p.resolve(result);
  };
  worker.onerror = (ev) => {
    for (const p of pending.values()) p.reject(new ApiError(500, ev.message || 'the engine failed'));
    pending.clear();
  };
}
// Asks the engine in this browser: op is one of mancala-wasm's functions.
export function engine(op, ...args) {
  if (!worker) startWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { op, resolve, reject });
    worker.postMessage({ id, op, args });
  });
}
// Stops whatever the engine in this browser is thinking: its worker is ended and a new one
// starts on the next request (restoring the games it needs from their snapshots).
export function stopEngine() {
  if (!worker) return;
  worker.terminate();
  worker = null;
  for (const p of pending.values()) p.reject(new ApiError(0, 'stopped'));
  pending.clear();
}

// The engine's answers that a page may drop: stopping them loses no move.
const STOPPABLE = new Set(['hint', 'analyse', 'search', 'solve', 'replay_record']);
// Stops the engine in this browser where it is thinking for a page that no longer wants the
// answer (a new position, another screen, the stop button), and not while it plays a move.
// Answers whether it stopped something.
export function stopThinking() {
  if (!local || pending.size === 0) return false;
  for (const p of pending.values()) if (!STOPPABLE.has(p.op)) return false;
  stopEngine();
  return true;
}

// Each game of this browser's engine, as its last snapshot (wasm's `snapshot`), the 50 most
// recent kept.
const GAMES_KEY = 'mancala.local-games';
function savedGames() {
  try { return JSON.parse(localStorage.getItem(GAMES_KEY) || '{}'); } catch { return {}; }
}
async function keep(game) {
  const snap = await engine('snapshot', game.id);
  const all = savedGames();
  all[game.id] = { snap, at: Date.now() };
  const ids = Object.keys(all).sort((a, b) => all[b].at - all[a].at).slice(0, 50);
  try {
    localStorage.setItem(GAMES_KEY, JSON.stringify(Object.fromEntries(ids.map((k) => [k, all[k]]))));
  } catch { /* storage full or off: the game lives while the page does */ }
  return game;
}
// Asks the engine about game `id`, first restoring the game from its snapshot where this
// worker does not hold it (a reload, a stopped search).
async function onGame(op, id, ...args) {
  try {
    return await engine(op, id, ...args);
  } catch (e) {
    const saved = savedGames()[id];
    if (!saved || !String(e.message).startsWith('no game ')) throw e;
    await engine('restore', JSON.stringify(saved.snap));
    return engine(op, id, ...args);
  }
}

const seed = () => Math.floor(Math.random() * 0x100000000);
const serverOnly = () => Promise.reject(new ApiError(501, t('web.local.server-only')));
// The analysis board's fixed depth, where the page's address asks for one (?depth=D).
const analysisDepth = () => Number(new URLSearchParams(location.search).get('depth')) || 0;

const localApi = {
  variants: (lang) => engine('variants', lang),
  rules: (variant, lang) => engine('rules', variant, lang),
  create: async (req) => {
    const r = await engine('new_game', JSON.stringify(req), seed());
    await keep(r.game);
    return r;
  },
  state: (id) => onGame('state', id),
  move: async (id, token, pit, ply) => keep(await onGame('play', id, JSON.stringify(pit), ply, seed())),
  undo: async (id) => keep(await onGame('undo', id)),
  resign: async (id) => keep(await onGame('resign', id)),
  hint: (id) => onGame('hint', id, 500),
  join: serverOnly,
  offer: serverOnly,
  answer: serverOnly,
  claim: serverOnly,
  rematchSeat: serverOnly,
  replayGame: serverOnly,
  botGames: async () => ({ games: [] }),
  liveGames: async () => ({ games: [] }),
  lobbyBots: async () => ({ lobby: false, bots: [] }),
  challenge: serverOnly,
  analyse: (position, history = []) => {
    const depth = analysisDepth();
    return engine('analyse', position, JSON.stringify(history), depth, depth ? 60000 : 2000);
  },
  replayRecord: (text) => engine('replay_record', text, 5000),
};

const serverApi = {
  variants: (lang) => call('GET', `/api/variants?lang=${encodeURIComponent(lang)}`),
  rules: (variant, lang) => call('GET', `/api/rules?variant=${encodeURIComponent(variant)}&lang=${encodeURIComponent(lang)}`),
  create: (req) => call('POST', '/api/games', req),
  state: (id, token) => call('GET', `/api/games/${id}`, undefined, token),
  move: (id, token, pit, ply) => call('POST', `/api/games/${id}/moves`, { pit, ply }, token),
  undo: (id, token) => call('POST', `/api/games/${id}/undo`, {}, token),
  resign: (id, token) => call('POST', `/api/games/${id}/resign`, {}, token),
  hint: (id, token) => call('GET', `/api/games/${id}/hint`, undefined, token),
  join: (id, invite, name) => call('POST', `/api/games/${id}/join`, { invite, name }, undefined),
  offer: (id, token, kind) => call('POST', `/api/games/${id}/offer`, { kind }, token),
  answer: (id, token, accept) => call('POST', `/api/games/${id}/answer`, { accept }, token),
  claim: (id, token) => call('POST', `/api/games/${id}/claim`, {}, token),
  rematchSeat: (id, token) => call('POST', `/api/games/${id}/rematch`, {}, token),
  // Without the engine's values where `values` is false (at once: the game screen's look back).
  replayGame: (id, { values = true } = {}) => call('GET', `/api/games/${id}/replay${values ? '' : '?values=false'}`),
  botGames: () => call('GET', '/api/kgp/games'),
  liveGames: () => call('GET', '/api/games/live'),
  lobbyBots: () => call('GET', '/api/kgp/bots'),
  challenge: (bot, side, name) => call('POST', `/api/kgp/bots/${encodeURIComponent(bot)}/challenge`, { side, name }),
  analyse: (position, history = []) => call('POST', '/api/analysis', { position, history }),
  replayRecord: async (text) => {
    const res = await fetch('/api/replay', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });
    const data = await res.json().catch(() => null);
    if (!res.ok) throw new ApiError(res.status, errorText(data) || res.statusText);
    return data;
  },
};

export const api = local ? localApi : serverApi;

// Seat tokens: one per game, only in this browser.
const KEY = 'mancala.seats';
function seats() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}'); } catch { return {}; }
}
export function seatOf(id) { return seats()[id] || null; }
export function saveSeat(id, seat, token) {
  const s = seats();
  s[id] = { seat, token, at: Date.now() };
  // Keep the 200 most recent games.
  const ids = Object.keys(s).sort((a, b) => s[b].at - s[a].at).slice(0, 200);
  localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(ids.map((k) => [k, s[k]]))));
}
// What the recent-games list shows of a game of ours: {game, opponent, result}.
export function noteGame(id, info) {
  const s = seats();
  if (!s[id]) return;
  s[id] = { ...s[id], ...info };
  localStorage.setItem(KEY, JSON.stringify(s));
}
export function recentGames() {
  const s = seats();
  return Object.keys(s).map((id) => ({ id, ...s[id] })).sort((a, b) => b.at - a.at);
}

// Watches a game over a WebSocket; reconnects with backoff. Calls onState(game) for each
// state pushed. A seat's player says the connection is his (`token`; a signed-in player's
// cookie says it for him), so that the server knows whether he is there. Returns a
// function that stops watching.
export function watch(id, onState, onStatus, token = null) {
  // A game in this browser changes only by our own requests.
  if (local) { onStatus && onStatus(true); return () => {}; }
  let ws = null;
  let stopped = false;
  let delay = 500;
  let timer = null;
  const open = () => {
    if (stopped) return;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    ws = new WebSocket(`${proto}://${location.host}/api/games/${id}/ws`);
    ws.onopen = () => {
      delay = 500;
      onStatus && onStatus(true);
      if (token) ws.send(JSON.stringify({ type: 'here', token }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if ((msg.type === 'state' || msg.type === 'ack') && msg.game) onState(msg.game);
    };
    ws.onclose = () => {
      onStatus && onStatus(false);
      if (stopped) return;
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
  };
  open();
  return () => { stopped = true; clearTimeout(timer); if (ws) ws.close(); };
}
