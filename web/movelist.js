// The game screen's look back: a move of the move list shows the board after it, read-only,
// while the game goes on; "Back to the game" (or the game's next change) returns to the live
// board. The positions come from the game's replay without the engine's values.

import { api } from './api.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { announce } from './announce.js';

export class LookBack {
  // `board`: the game's Board; `bar`: the element that says a look back is shown;
  // `back()`: draws the live game again.
  constructor(id, board, bar, back) {
    this.id = id;
    this.board = board;
    this.bar = bar;
    this.back = back;
    this.ply = null; // the ply shown, or null for the live game
    this.replay = null;
    this.seq = 0;
  }

  get active() { return this.ply !== null; }

  // Shows the board after `ply` moves of a game that has `now` moves; the live board where
  // `ply` is `now`.
  async show(ply, now) {
    const seq = ++this.seq;
    if (ply >= now) { this.end(); return; }
    if (!this.replay || this.replay.moves.length !== now) {
      try {
        this.replay = await api.replayGame(this.id, { values: false });
      } catch (e) {
        announce(e.message);
        return;
      }
    }
    if (seq !== this.seq || !this.replay.positions[ply]) return;
    this.ply = ply;
    this.board.hint(null);
    this.board.render(this.replay.positions[ply], [], null);
    this.board.markMove(ply > 0 ? this.replay.moves[ply - 1] : null);
    const text = ply > 0
      ? t('web.look.at', { k: ply, n: now, move: this.replay.moves[ply - 1].text })
      : t('web.look.start', { n: now });
    this.bar.replaceChildren(h('span', { text }),
      h('button', { type: 'button', id: 'look-back-end', text: t('web.look.back'), onclick: () => this.end() }));
    this.bar.hidden = false;
    announce(text);
  }

  // Back to the live game (nothing to do where none is looked at).
  end(redraw = true) {
    this.seq++;
    if (this.ply === null) return;
    this.ply = null;
    this.bar.hidden = true;
    this.bar.replaceChildren();
    if (redraw) this.back();
  }
}
