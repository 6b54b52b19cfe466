// The engine in this browser: a module Web Worker that loads mancala-wasm (web/pkg/, built by
// scripts/wasm-build.sh) and answers each message {id, op, args} with {id, result} or
// {id, error}. `op` names one of the module's functions; each answers a JSON string of the
// server's shape, or {"error": ...}. One search runs at a time; the page stops one early by
// terminating this worker and starting another (api.js), which restores the games it needs
// from their snapshots.

import init, * as engine from './pkg/mancala_wasm.js';

const ready = init();
const OPS = new Set(['variants', 'rules', 'legal_moves', 'board', 'new_game', 'state', 'play', 'undo',
  'resign', 'hint', 'analyse', 'search', 'solve', 'replay_record', 'snapshot', 'restore']);

self.onmessage = async (ev) => {
  const { id, op, args = [] } = ev.data || {};
  try {
    await ready;
    if (!OPS.has(op)) throw new Error(`no operation ${op}`);
    const out = JSON.parse(engine[op](...args));
    if (out && typeof out === 'object' && !Array.isArray(out) && 'error' in out && Object.keys(out).length === 1) {
      self.postMessage({ id, error: String(out.error) });
    } else {
      self.postMessage({ id, result: out });
    }
  } catch (e) {
    self.postMessage({ id, error: String(e && e.message || e) });
  }
};
