// What the screen reader is told (the page's aria-live region, #announce). Messages said
// close together (the opponent's move, then "Your move.") are read as one, in order, instead
// of the later replacing the earlier before it is read.

const GATHER_MS = 60;
let pending = [];
let timer = null;

export function announce(text) {
  if (!text) return;
  pending.push(text);
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    const a = document.querySelector('#announce');
    const said = pending.join(' ');
    pending = [];
    if (!a) return;
    // Emptied first, so that the same words said twice are read twice.
    a.textContent = '';
    setTimeout(() => { a.textContent = said; }, 30);
  }, GATHER_MS);
}
