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
// a Web Worker in this browser (engine-worker.js). Games then live in that worker.
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
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}
// Stops whatever the engine in this browser is thinking: its worker is ended and a new one
// starts on the next request (the games it held are gone).
export function stopEngine() {
  if (!worker) return;
  worker.terminate();
  worker = null;
  for (const p of pending.values()) p.reject(new ApiError(0, 'stopped'));
  pending.clear();
}

const seed = () => Math.floor(Math.random() * 0x100000000);
const serverOnly = () => Promise.reject(new ApiError(501, t('web.local.server-only')));
// The analysis board's fixed depth, where the page's address asks for one (?depth=D).
const analysisDepth = () => Number(new URLSearchParams(location.search).get('depth')) || 0;

const localApi = {
  variants: (lang) => engine('variants', lang),
  rules: (variant, lang) => engine('rules', variant, lang),
  create: (req) => engine('new_game', JSON.stringify(req), seed()),
  state: (id) => engine('state', id),
  move: (id, token, pit, ply) => engine('play', id, JSON.stringify(pit), ply, seed()),
  undo: (id) => engine('undo', id),
  resign: (id) => engine('resign', id),
  hint: (id) => engine('hint', id, 500),
  join: serverOnly,
  replayGame: serverOnly,
  botGames: async () => ({ games: [] }),
  lobbyBots: async () => ({ lobby: false, bots: [] }),
  challenge: serverOnly,
  analyse: (position, history = []) => {
    const depth = analysisDepth();
    return engine('analyse', position, JSON.stringify(history), depth, depth ? 60000 : 2000);
  },
  replayRecord: (text) => engine('replay_record', text, 200, 5000),
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
  replayGame: (id) => call('GET', `/api/games/${id}/replay`),
  botGames: () => call('GET', '/api/kgp/games'),
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
// state pushed. Returns a function that stops watching.
export function watch(id, onState, onStatus) {
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
    ws.onopen = () => { delay = 500; onStatus && onStatus(true); };
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
