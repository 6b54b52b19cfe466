// The layout of every screen of the site, in every language, at a phone's width (390x844)
// and a desktop's (1280x800): the page is never wider than the window, no text is cut (by
// an ellipsis, a box that hides what overflows, or the window's edge), and axe-core finds no
// serious or critical accessibility fault. One page per size and language; the screens are
// visited by their routes (app.js) without reloading. Run with scripts/browser-tests.sh
// (MANCALA_URL).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.MANCALA_URL;
if (!BASE) throw new Error('set MANCALA_URL to a running `mancala serve` (scripts/browser-tests.sh does)');
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = process.env.TEST_OUTPUT || path.resolve(here, '../../test-output/browser');
mkdirSync(OUT, { recursive: true });
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
const LANGS = ['en', 'pt', 'es', 'it'];
// A Kalah endgame whose every move the server proves at once.
const POSITION = 'kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n';
// The start of the game played, replayed and watched: 19 seeds left on the board.
const START = 'kalah/2-1-3-1-1-2/9/1-2-1-2-2-1/8/s';

let browser;
let game; // {id, seat, token}: a game against the computer, some moves in, South to move
let player; // an account's name, for its profile

async function post(url, body, headers = {}) {
  const res = await fetch(`${BASE}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: BASE, ...headers }, body: JSON.stringify(body) });
  const data = await res.json();
  assert.ok(res.ok, `${url}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}
async function get(url, token) {
  const res = await fetch(`${BASE}${url}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  assert.ok(res.ok, `${url}: ${res.status}`);
  return res.json();
}

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  // A game against the computer with two moves each: its screen, then its replay. The replay
  // values every move on each visit: a game from a small endgame, whose values are proven at
  // once, keeps that quick.
  const c = await post('/api/games', { rules: 'kalah', opponent: 'computer', level: 1, side: 'south', position: START });
  game = { id: c.game.id, seat: c.seat, token: c.token };
  let st = c.game;
  for (let k = 0; k < 2 && !st.over; k++) {
    for (let w = 0; w < 100 && !st.over && st.to_move !== 'south'; w++) {
      await new Promise((r) => setTimeout(r, 50));
      st = await get(`/api/games/${game.id}`, game.token);
    }
    if (st.over) break;
    // The last legal pit: it seldom gives an extra turn, so the computer answers.
    st = await post(`/api/games/${game.id}/moves`, { pit: st.legal[st.legal.length - 1], ply: st.ply }, { authorization: `Bearer ${game.token}` });
  }
  for (let w = 0; w < 100 && !st.over && st.to_move !== 'south'; w++) {
    await new Promise((r) => setTimeout(r, 50));
    st = await get(`/api/games/${game.id}`, game.token);
  }
  player = `layout${Date.now().toString(36).slice(-6)}`;
  await post('/api/account/signup', { name: player, password: 'layout-password-1' });
});
after(async () => { if (browser) await browser.close(); });

// The screens, each with what shows that it is drawn.
const SCREENS = () => [
  ['home', '#/', '#start'],
  ['game', `#/game/${game.id}`, '#board .pit .count:not(:empty)'],
  ['analysis', `#/analysis/${encodeURIComponent(POSITION)}`, '#analysis-moves tbody tr'],
  ['replay', `#/replay/${game.id}`, '#replay-moves tbody tr'],
  ['players', '#/players', '#leaderboard, #leaderboard-empty'],
  ['profile', `#/user/${player}`, '#profile-title'],
  ['sign-in', '#/account', '#signup'],
  // The settings panel, open over the home screen.
  ['settings', '#/', '#start', '#settings-button'],
];

// In the page: what is wider than the window, cut or clipped. Text is measured by its own
// boxes (a Range over each text node), so a word that runs out of its cell counts too.
function faults() {
  const vw = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth) out.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  // A closed <details>' content has boxes but is not drawn.
  const skip = (el) => el.closest('.sr-only, .skip, [hidden], script, style, noscript, option, .board-note, .toast, details:not([open]) > :not(summary)');
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || skip(el) || !shown(el)) continue;
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width === 0) continue;
    const what = `${name(el)} "${n.textContent.trim().slice(0, 40)}"`;
    if (r.left < -1 || r.right > vw + 1) { out.push(`past the window: ${what} (${Math.round(r.left)}..${Math.round(r.right)} of ${vw})`); continue; }
    // Cut by a box that does not show all it holds: the text's own box or one around it.
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible') continue;
      const ar = a.getBoundingClientRect();
      const cut = r.right > ar.right + 1 || r.left < ar.left - 1 || (a === el && el.scrollWidth > el.clientWidth + 1);
      if (cut) { out.push(`cut by ${name(a)}: ${what}`); break; }
    }
  }
  // A menu's chosen option is no text node: a copy of the menu holding that option alone,
  // as wide as it needs, says how wide the menu must be to show it whole.
  for (const sel of document.querySelectorAll('select')) {
    const opt = sel.options[sel.selectedIndex];
    if (!opt || skip(sel) || !shown(sel)) continue;
    const probe = sel.cloneNode(false);
    probe.removeAttribute('id');
    probe.append(opt.cloneNode(true));
    Object.assign(probe.style, { width: 'max-content', position: 'absolute', visibility: 'hidden' });
    sel.after(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    const r = sel.getBoundingClientRect();
    if (r.width + 1 < need) out.push(`menu cut: ${name(sel)} shows ${Math.round(r.width)} px of the ${Math.round(need)} px "${opt.textContent}" needs`);
    if (r.left < -1 || r.right > vw + 1) out.push(`past the window: ${name(sel)}`);
  }
  return out;
}

async function axeFaults(page) {
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    // The seeds are drawings hidden from assistive technology: hundreds of shapes, no words.
    const r = await axe.run({ exclude: [['svg.seeds']] }, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

async function visit(page, route, ready) {
  await page.evaluate((r) => { if (location.hash === r) window.dispatchEvent(new HashChangeEvent('hashchange')); else location.hash = r; }, route);
  await page.waitForSelector(ready, { state: 'attached' });
  // The text filled in after the screen's first drawing: names, titles, values.
  await page.waitForFunction(() => !document.querySelector('.loading:not(#loading), [aria-busy=true]'));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function check(size, lang) {
  const context = await browser.newContext({ viewport: SIZES[size], locale: 'en-US', reducedMotion: 'reduce', bypassCSP: true });
  // This browser holds the game's seat: the game's screen is a player's, with its buttons.
  await context.addInitScript(([id, seat, token]) => {
    if (!localStorage.getItem('mancala.seats')) localStorage.setItem('mancala.seats', JSON.stringify({ [id]: { seat, token, at: Date.now() } }));
  }, [game.id, game.seat, game.token]);
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}/?lang=${lang}#/`);
  await page.waitForSelector('#start');
  await page.addScriptTag({ path: AXE });
  const found = [];
  for (const [screen, route, ready, open] of SCREENS()) {
    await visit(page, route, ready);
    if (open) {
      await page.click(open);
      await page.waitForSelector(`#${await page.getAttribute(open, 'aria-controls')}:not([hidden])`);
    }
    const where = `${size} ${lang} ${screen}`;
    const f = [...(await page.evaluate(faults)), ...(await axeFaults(page))];
    if (f.length) {
      found.push(...f.map((x) => `${where}: ${x}`));
      await page.screenshot({ path: path.join(OUT, `layout-${size}-${lang}-${screen}.png`), fullPage: true });
    }
    if (open) await page.keyboard.press('Escape');
  }
  await context.close();
  return [...found, ...errors.map((e) => `${size} ${lang}: page error ${e}`)];
}

test('every screen fits the window, cuts no text and passes axe-core, in four languages at phone and desktop width', async () => {
  // The two sizes side by side: each language's pages at once.
  const found = [];
  for (const lang of LANGS) {
    const r = await Promise.all(Object.keys(SIZES).map((size) => check(size, lang)));
    found.push(...r.flat());
  }
  assert.deepEqual(found, []);
});
