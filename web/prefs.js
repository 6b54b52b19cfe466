// The reader's preferences in this browser (localStorage `mancala.settings`): sounds on or
// off and their volume, the speed of the sowing's animation, and whether a hidden tab tells
// its player that it is his turn. The settings panel (settings.js) changes them; the board,
// the sounds and the turn's signs (turn.js) read them. Another tab's change comes here too
// (the `storage` event).

const KEY = 'mancala.settings';

// The animation's speed factor of each setting: the steps of a sowing take 1/factor of
// their normal time; `off` draws every move at once.
export const SPEEDS = { slow: 0.5, normal: 1, fast: 2, off: 0 };

// Sounds start off: a browser plays none before the reader's first click or key anyway,
// and a page that starts making noises unasked is not welcome. The switch that turns them
// on is itself the click that lets them play.
const DEFAULTS = { sound: false, volume: 0.6, speed: 'normal', notify: false };

function read() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { /* storage off or spoilt */ }
  const p = { ...DEFAULTS };
  if (typeof saved.sound === 'boolean') p.sound = saved.sound;
  if (typeof saved.notify === 'boolean') p.notify = saved.notify;
  if (typeof saved.volume === 'number' && saved.volume >= 0 && saved.volume <= 1) p.volume = saved.volume;
  if (Object.prototype.hasOwnProperty.call(SPEEDS, saved.speed)) p.speed = saved.speed;
  return p;
}

let current = read();
const listeners = new Set();

export const prefs = () => current;

export function setPref(name, value) {
  current = { ...current, [name]: value };
  try { localStorage.setItem(KEY, JSON.stringify(current)); } catch { /* kept for this page only */ }
  for (const f of listeners) f(current);
}

export function onPrefs(f) { listeners.add(f); }

window.addEventListener('storage', (ev) => {
  if (ev.key !== KEY) return;
  current = read();
  for (const f of listeners) f(current);
});

// Whether the system asks for reduced motion: it wins over the speed chosen here.
export function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}

// The factor the sowing's animation runs at: 0 for none (reduced motion, or `off`).
export function motion() {
  return reducedMotion() ? 0 : SPEEDS[current.speed];
}
