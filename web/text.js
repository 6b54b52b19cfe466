// The words of the game screen and the analysis board that need a little logic (plurals,
// the pie rule's key, who is "you"), over the one lookup `t` of i18n.js: the strings
// themselves are in the translation files (`locales/*.json`, keys `web.*`).

import { t, tn } from './i18n.js';

export const T = {
  misereBadge: () => t('web.misere-badge'),
  misereNote: () => t('web.misere-note'),
  yourMove: () => t('web.your-move'),
  forced: (why) => t('web.forced', { why }),
  resultHead: {
    draw: () => t('web.result.draw'),
    unfinished: () => t('web.result.unfinished'),
    you: () => t('web.result.you'),
    wins: (name) => t('web.result.wins', { name }),
  },
  resultBy: { seeds: (n) => tn('web.result.by', n), equal: () => t('web.result.equal') },
  resultWhy: (reason) => t('web.result.why', { reason }),
  rematch: () => t('web.rematch'),
  replayAnalyse: () => t('web.replay-analyse'),
  extraTurn: () => t('web.extra-turn'),
  pass: (who, isYou) => (isYou ? t('web.pass.you') : t('web.pass.other', { who })),
  movesAgain: (isYou) => (isYou ? t('web.again.you') : t('web.again.other')),
  keys: (pits, pie, aids) => t('web.keys', { pits: Math.min(pits, 9) }) + (aids ? t(pits >= 8 ? 'web.keys.aids.8' : 'web.keys.aids') : '') + (pie ? t('web.keys.pie') : '') + '.',
  hintTitle: (pits) => (pits >= 8 ? t('web.hint-title.8') : t('web.hint-title')),
  recent: {
    against: (who) => t('web.recent.against', { who }),
    notFinished: () => t('web.recent.not-finished'),
  },
  replayCaption: (misere) => t('web.replay.caption') + (misere ? t('web.fewer-seeds-win') : '') + t('web.replay.caption-end'),
  analysis: {
    title: () => t('web.analysis.title'),
    nav: () => t('web.analysis.nav'),
    positionLabel: () => t('web.analysis.position'),
    open: () => t('web.analysis.open'),
    back: () => t('web.analysis.back'),
    backTitle: () => t('web.analysis.back-title'),
    start: () => t('web.analysis.start'),
    fromHere: () => t('web.analysis.from-here'),
    working: () => t('web.analysis.working'),
    toMove: (who) => t('web.analysis.to-move', { who }),
    over: (s, n) => t('web.analysis.over', { south: s, north: n }),
    tried: (line) => (line ? t('web.analysis.tried', { line }) : t('web.analysis.none-tried')),
    bestLine: (line) => t('web.analysis.best-line', { line }),
    tables: () => t('web.analysis.tables'),
    caption: (misere) => t('web.analysis.caption') + (misere ? t('web.fewer-seeds-win') : ''),
    heads: () => [t('web.analysis.head.move'), t('web.analysis.head.value'), t('web.analysis.head.sure'), t('web.analysis.head.loss')],
    proven: () => t('value.proven'),
    depth: (d) => t('web.analysis.depth', { depth: d }),
    play: (text, value) => t('web.analysis.play', { text, value }),
    help: () => t('web.analysis.help'),
  },
};
