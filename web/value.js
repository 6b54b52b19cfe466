// An engine's value as the site shows it (see the engine's Evaluation and its JSON): always
// from one named side's view, its sign good (+) or bad (−) for that side, whether fewer seeds
// win, and whether it is proven or a search's value at some depth. The server turns a value
// to the view wanted (a hint: the asker's; a replay's graph: South's); nothing here turns one.

import { t, tn, side } from './i18n.js';

// A score with its sign: +3, −3 (the minus sign), 0.
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

// The score alone, as the tables and the pits show it: good for the side named when positive.
export function scoreText(e) {
  return e ? signed(e.score) : '–';
}

// How sure: `proven`, or `search to depth D`.
export function howText(e) {
  return e.proven ? t('value.proven') : t('value.depth', { depth: e.depth });
}

// The outcome for the side the value is from: "you lose by 3, fewer seeds win" where `you`
// is that side, else "South loses by 3, fewer seeds win".
export function outcomeText(e, you = null) {
  const isYou = !!you && e.side === you;
  const who = side(e.side);
  const n = Math.abs(e.score);
  let outcome;
  if (e.tie_break) {
    const key = e.score > 0 ? 'tie-wins' : 'tie-loses';
    outcome = isYou ? t(`web.value.you-${key}`) : t(`value.${key}`, { side: who });
  } else if (e.score > 0) outcome = isYou ? tn('web.value.you-win', n) : tn('value.wins', n, { side: who });
  else if (e.score < 0) outcome = isYou ? tn('web.value.you-lose', n) : tn('value.loses', n, { side: who });
  else outcome = t('value.draw');
  return e.lower_is_better ? t('value.misere', { outcome }) : outcome;
}

// One line: "−3 for you (you lose by 3, fewer seeds win), proven"; the sign is the score's,
// good for the side named when positive, whichever way its seeds count.
export function valueText(e, you = null) {
  if (!e) return '';
  const isYou = !!you && e.side === you;
  return t('web.value.text', {
    score: signed(e.score),
    who: isYou ? t('web.value.you') : side(e.side),
    outcome: outcomeText(e, you),
    how: howText(e),
  });
}
