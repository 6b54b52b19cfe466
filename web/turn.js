// The signs of the reader's turn in a live game: the tab's title says it ("● Your turn —
// mancala"), a sound plays where sounds are on, and where the reader asked for it
// (settings.js) and the tab is hidden, the browser shows a notification. The game's end has
// its sound too. The game screen (app.js) calls `turnShown` with each state it draws.

import { t } from './i18n.js';
import { prefs } from './prefs.js';
import { sound } from './sound.js';

let last = null; // {id, yours, over} of the state drawn last
let notice = null;

// The game the address shows, if any.
function gameInUrl() {
  const p = location.hash.replace(/^#\/?/, '').split('/');
  return p[0] === 'game' ? p[1] : null;
}

function setTitle(yours) {
  document.title = yours ? t('web.turn.title') : t('web.page-title');
}

function notify(game) {
  if (!prefs().notify || !('Notification' in window) || Notification.permission !== 'granted') return;
  try {
    if (notice) notice.close();
    notice = new Notification(t('web.turn.title'), { body: t('web.turn.notify', { game }), tag: 'mancala-turn', icon: '/favicon.svg' });
    notice.onclick = () => { window.focus(); notice.close(); };
  } catch { /* a browser that shows notifications from a service worker only */ }
}

// State `st` of game `id` is drawn for seat `you` (null: watching), `sowing` while a move
// is drawn seed by seed (then nobody is to move yet); `game` is the game's title.
export function turnShown(id, st, you, sowing, game) {
  if (gameInUrl() !== id) return; // the screen was left meanwhile
  const yours = !!you && !sowing && !st.over && st.to_move === you;
  const before = last && last.id === id ? last : null;
  last = { id, yours, over: !!st.over };
  setTitle(yours);
  // The game as it was when opened makes no sound: only what happens while it is watched.
  if (!before) return;
  if (st.over && !before.over) sound('end');
  else if (yours && !before.yours) {
    sound('turn');
    if (document.hidden) notify(game);
  }
}

window.addEventListener('hashchange', () => {
  if (last && gameInUrl() !== last.id) {
    last = null;
    setTitle(false);
  }
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && notice) {
    notice.close();
    notice = null;
  }
});
