// The game's sounds, made with the Web Audio API (no sound files): a seed dropped in a pit,
// a capture, the reader's turn and the game's end. Nothing plays while sounds are off
// (prefs.js, where they start off). A browser lets an AudioContext play only after a click
// or a key on the page: the context is made or resumed on each one.

import { prefs } from './prefs.js';

// How many sounds of each kind were made since the page loaded (the browser tests read it).
export const played = { sow: 0, capture: 0, turn: 0, end: 0 };

let ctx = null;
function context() {
  if (!ctx) {
    const C = window.AudioContext || window.webkitAudioContext;
    if (!C) return null;
    try { ctx = new C(); } catch { return null; }
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

// The reader's gesture that lets sounds play.
export function unlock() {
  if (prefs().sound) context();
}
for (const ev of ['pointerdown', 'keydown']) window.addEventListener(ev, unlock, { capture: true, passive: true });

// One note: a waveform at `freq` Hz (gliding to `to`), `at` seconds from now, its loudness
// rising in 5 ms and falling over `dur` seconds.
function note(c, out, { freq, to = freq, at = 0, dur = 0.12, type = 'sine', gain = 1 }) {
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const g = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.005);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(out);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

// The notes of each sound; `k` varies a seed's click so that a sowing is no drone.
const VOICES = {
  sow: (k) => [{ freq: 620 + ((k * 53) % 160), to: 380, dur: 0.07, type: 'triangle', gain: 0.5 }],
  capture: () => [{ freq: 330, to: 220, dur: 0.16, type: 'triangle', gain: 0.6 }, { freq: 247, to: 165, at: 0.09, dur: 0.22, type: 'triangle', gain: 0.6 }],
  turn: () => [{ freq: 660, dur: 0.14, gain: 0.45 }, { freq: 880, at: 0.12, dur: 0.2, gain: 0.45 }],
  end: () => [523, 659, 784, 1047].map((freq, i) => ({ freq, at: i * 0.12, dur: i === 3 ? 0.5 : 0.18, gain: 0.45 })),
};

let lastSow = 0;
let sown = 0;
// Plays the sound `kind` (a key of VOICES) where sounds are on; answers whether it did. Seeds
// dropped at once (a move drawn without animation) make one click.
export function sound(kind) {
  const p = prefs();
  if (!p.sound || p.volume <= 0 || !VOICES[kind]) return false;
  const now = performance.now();
  if (kind === 'sow') {
    if (now - lastSow < 25) return false;
    lastSow = now;
  }
  const c = context();
  if (!c) return false;
  played[kind]++;
  const out = c.createGain();
  // Loudness grows with the square of the slider, as ears hear it.
  out.gain.value = 0.4 * p.volume * p.volume;
  out.connect(c.destination);
  for (const n of VOICES[kind](sown++)) note(c, out, n);
  setTimeout(() => out.disconnect(), 1500);
  return true;
}
