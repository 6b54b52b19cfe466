// The words of the game screen that say what happened and what the rules allow, in one place
// (the rest of the client's strings are still written where they are used). Values and
// reasons that come from the server (Evaluation texts, result reasons, forced-move reasons,
// game and option names) are the server's words and are not repeated here.

export const T = {
  misereBadge: 'fewer seeds win',
  misereNote: 'Fewer seeds win.',
  yourMove: 'Your move.',
  forced: (why) => `Only the marked pits: ${why}.`,
  resultHead: { draw: 'A draw', you: 'You win', wins: (name) => `${name} wins` },
  resultBy: { seeds: (n) => `by ${n} seed${n === 1 ? '' : 's'}`, equal: 'on equal seeds' },
  resultWhy: (reason) => `Why: ${reason}.`,
  rematch: 'Rematch',
  replayAnalyse: 'Replay and analyse',
  extraTurn: 'extra turn',
  pass: (who, isYou) => (isYou ? 'You have no cowrie: you pass' : `${who} has no cowrie: a pass`),
  movesAgain: (isYou) => (isYou ? 'you move again' : 'it moves again'),
  keys: (pits, pie) => `Keys: 1–${pits} or the pit letter plays a pit; arrows move between your pits; U undo, ${pits >= 8 ? '?' : 'H or ?'} hint${pie ? ', W swap (pie rule)' : ''}.`,
  hintTitle: (pits) => (pits >= 8 ? 'Ask the engine (?)' : 'Ask the engine (H or ?)'),
  recent: {
    against: (who) => `against ${who}`,
    notFinished: 'not finished',
  },
  replayCaption: (misere) => `Moves and the engine's values for the mover: +n wins by n seeds, −n loses by n${misere ? ' (fewer seeds win)' : ''}; proven unless a search depth is given`,
};
