// End-to-end tests of the browser client: playwright-core drives Debian's Chromium against a
// running `mancala serve` (MANCALA_URL). Screenshots go to test-output/browser/.
// Run with scripts/browser-tests.sh, which builds and starts the server.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.MANCALA_URL;
if (!BASE) throw new Error('set MANCALA_URL to a running `mancala serve` (scripts/browser-tests.sh does)');
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = process.env.TEST_OUTPUT || path.resolve(here, '../../test-output/browser');
mkdirSync(OUT, { recursive: true });
const shot = (page, name) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
});
after(async () => { if (browser) await browser.close(); });

async function newPage(viewport = DESKTOP, locale = 'en-US') {
  const context = await browser.newContext({ viewport, locale, acceptDownloads: true, reducedMotion: 'no-preference' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.setDefaultTimeout(20000);
  return { context, page, errors };
}

// Seeds on the board, place by place in ring order (both rows and stores).
async function boardCounts(page, root = '#board') {
  return page.$$eval(`${root} [data-ring], ${root} .store`, (els) => els.map((e) => e.querySelector('.count').textContent));
}

async function waitForMyTurn(page) {
  await page.waitForSelector('#status.yours, #status.over');
}
// Moves played so far, as the page shows them.
const plies = (page) => page.$eval('#moves', (e) => Number(e.dataset.ply || 0));
async function waitForPlies(page, n) {
  await page.waitForFunction((k) => Number(document.querySelector('#moves').dataset.ply || 0) > k, n);
}

// Plays the first playable pit until the computer has answered at least once.
async function playUntilAnswered(page, minNorth) {
  for (let k = 0; k < 20; k++) {
    const north = await page.locator('.moves .mv.north').count();
    if (north >= minNorth) return;
    await waitForMyTurn(page);
    if (await page.locator('.status.over').count()) return;
    const n = await plies(page);
    await page.locator('button.pit.playable').first().click();
    await waitForPlies(page, n);
  }
}

test('a game against the computer: menus, moves, answer, hint, reload, keyboard, download and replay', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  // The menus come from the rules data: every preset, and its options.
  const presets = await page.$$eval('#preset option', (os) => os.map((o) => o.value));
  assert.deepEqual(presets, ['kalah', 'kalah-brazil', 'vaccean', 'cross-kalah', 'dracala', 'kauri', 'oware']);
  await page.click('details.more > summary');
  await page.selectOption('#preset', 'kalah-brazil');
  await page.waitForSelector('#opt-stage');
  await page.selectOption('#preset', 'kalah');
  await page.fill('#opt-seeds', '4');
  await page.locator('#opt-seeds').dispatchEvent('change');
  await page.click('details.rules > summary');
  await page.waitForFunction(() => document.querySelector('.rules-text').textContent.includes('48 in all'));
  await page.selectOption('#level', '2');
  await shot(page, '01-new-game');

  await page.click('#start');
  await page.waitForURL(/#\/game\//);
  await page.waitForSelector('button.pit.playable');
  const id = page.url().split('/').pop();
  // Seen from South: my pits A-F along the bottom, my store at the right.
  const bottomRings = await page.$$eval('#board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(bottomRings, [0, 1, 2, 3, 4, 5]);
  assert.match(await page.getAttribute('#board .row-bottom .pit >> nth=0', 'aria-label'), /Your pit A: 4 seeds/);
  assert.match(await page.textContent('#board .store-right .label'), /You/);
  await shot(page, '02-game-start');

  // A click sows; the computer answers.
  await playUntilAnswered(page, 1);
  await waitForMyTurn(page);
  assert.ok(await page.locator('.moves .mv.north').count() >= 1, 'the computer answered');
  assert.ok(await page.locator('#board .mark-last').count() >= 1, 'the last move is marked');
  // Hint marks a pit.
  await page.click('#hint');
  await page.waitForSelector('#board .mark-hint');
  // The hint says its value from the reader's side, its sign good or bad for him, and how sure.
  assert.match(await page.textContent('#toast'), /^Hint: play [A-F]: ([+−]\d+ for you \(you (win|lose) by \d+\)|0 for you \(a draw\)), (proven|search to depth \d+)\.$/);
  await shot(page, '03-game-hint');

  // Reload: the same game, same board, and play goes on.
  const beforeReload = await boardCounts(page);
  const movesBefore = await page.locator('.moves .mv').count();
  await page.reload();
  await page.waitForSelector('button.pit.playable');
  await waitForMyTurn(page);
  assert.deepEqual(await boardCounts(page), beforeReload);
  assert.equal(await page.locator('.moves .mv').count(), movesBefore);

  // Keyboard: the digit of a legal pit plays it.
  const legal = await page.$$eval('button.pit.playable', (els) => els.map((e) => [...e.parentNode.children].indexOf(e) + 1));
  const n0 = await plies(page);
  await page.keyboard.press(String(legal[0]));
  await waitForPlies(page, n0);
  await playUntilAnswered(page, 2);
  await waitForMyTurn(page);

  // Undo takes back my last move and the answer.
  const beforeUndo = await plies(page);
  await page.click('#undo');
  await page.waitForFunction((n) => Number(document.querySelector('#moves').dataset.ply) < n, beforeUndo);
  await waitForMyTurn(page);
  await playUntilAnswered(page, 2);
  await waitForMyTurn(page);
  await shot(page, '04-game-in-progress');
  // The board alone, as docs/server.md shows it (docs/images/web-board.jpg is a copy).
  await page.locator('.game .play').screenshot({ path: path.join(OUT, 'readme-board.jpg'), type: 'jpeg', quality: 82 });

  // Download the record (JSON and text).
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const jsonPath = path.join(OUT, `record-${id}.json`);
  await dl.saveAs(jsonPath);
  const [dlt] = await Promise.all([page.waitForEvent('download'), page.click('#download-text')]);
  await dlt.saveAs(path.join(OUT, `record-${id}.txt`));

  // Replay it: open the file in the replay viewer, step and jump.
  await page.click('#nav-replay');
  await page.waitForSelector('#record-file');
  await page.setInputFiles('#record-file', jsonPath);
  await page.waitForSelector('#replay-moves tbody tr');
  const rows = await page.locator('#replay-moves tbody tr').count();
  assert.ok(rows >= 3);
  assert.match(await page.textContent('#replay-status'), /Start position/);
  await page.click('#next');
  await page.waitForFunction(() => /Move 1 of/.test(document.querySelector('#replay-status').textContent));
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /Move 2 of/.test(document.querySelector('#replay-status').textContent));
  await page.click('#last');
  await page.waitForFunction((n) => new RegExp(`Move ${n} of ${n}`).test(document.querySelector('#replay-status').textContent), rows);
  // The engine's values are shown for the moves.
  const values = await page.$$eval('#replay-moves tbody tr td:nth-child(4)', (tds) => tds.map((t) => t.textContent));
  assert.ok(values.some((v) => /^([+−]\d+|0)( \(depth \d+\))?$/.test(v)), `values: ${values}`);
  await page.click('#replay-moves tbody tr:nth-child(2) button');
  await page.waitForFunction(() => /Move 2 of/.test(document.querySelector('#replay-status').textContent));
  await shot(page, '05-replay');
  // The same game's replay from its page, as a phone sees it.
  await page.setViewportSize(PHONE);
  await page.goto(`${BASE}/#/replay/${id}`);
  await page.waitForSelector('#replay-moves tbody tr');
  await shot(page, '05-replay-phone');
  assert.deepEqual(errors, []);
  await context.close();
});

test('two people in two browsers, each seeing his own side at the bottom', async () => {
  const a = await newPage();
  const b = await newPage(PHONE);
  await a.page.goto(`${BASE}/`);
  await a.page.waitForSelector('#start');
  await a.page.check('input[name=opponent][value=friend]');
  await a.page.fill('#name', 'Ann');
  await a.page.selectOption('#side', 'south');
  await a.page.click('#start');
  await a.page.waitForSelector('#invite-link');
  const link = await a.page.inputValue('#invite-link');
  assert.match(link, /#\/join\//);
  assert.match(await a.page.textContent('#status'), /Your move|Waiting/);
  await shot(a.page, '06-friend-invite');

  // The friend says the name A will see, then takes the seat.
  await b.page.goto(link);
  await b.page.waitForSelector('#join-name');
  await b.page.fill('#join-name', 'Bo');
  await b.page.click('#join-submit');
  await b.page.waitForURL(/#\/game\//);
  await b.page.waitForSelector('#board .pit');
  // A third browser finds the game in the home page's list of games being played, and
  // watches every move.
  const w = await newPage();
  await w.page.goto(`${BASE}/`);
  await w.page.click(`#live-games a[href="#/game/${b.page.url().split('/').pop()}"]`);
  await w.page.waitForSelector('#board .pit');
  assert.match(await w.page.textContent('.keys'), /watching/);
  // B plays North: North's pits along B's bottom row, South's along the top.
  const bBottom = await b.page.$$eval('#board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(bBottom, [7, 8, 9, 10, 11, 12]);
  const aBottom = await a.page.$$eval('#board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(aBottom, [0, 1, 2, 3, 4, 5]);
  // Between two people there is no undo or hint, and the keys line does not offer them.
  assert.equal(await b.page.locator('#undo').count(), 0);
  assert.equal(await b.page.textContent('.keys'), 'Keys: 1–6 or the pit letter plays a pit; arrows move between your pits.');
  // A sees the friend join; the invitation disappears.
  await a.page.waitForSelector('.invite', { state: 'hidden' });
  // ...and the friend's store label gives the name he chose.
  await a.page.waitForFunction(() => document.querySelector('#board .store-left .label').textContent === 'Bo');

  // Take turns: whoever's status says "Your move" plays his first playable pit.
  for (let k = 0; k < 8; k++) {
    const mine = async (p) => (await p.page.locator('#status.yours').count()) > 0;
    let mover = null;
    for (let t = 0; t < 200 && !mover; t++) {
      if (await mine(a)) mover = a;
      else if (await mine(b)) mover = b;
      else await a.page.waitForTimeout(50);
    }
    assert.ok(mover, 'one of the two is to move');
    const other = mover === a ? b : a;
    const n = await plies(other.page);
    await mover.page.locator('button.pit.playable').first().click();
    // The other browser and the watcher see the move arrive over their WebSockets.
    await waitForPlies(other.page, n);
    await waitForPlies(mover.page, n);
    await waitForPlies(w.page, n);
  }
  await a.page.waitForTimeout(1200);
  // Both see the same board, each from his own side.
  const ra = await a.page.$$eval('#board [data-ring]', (els) => Object.fromEntries(els.map((e) => [e.dataset.ring, e.querySelector('.count').textContent])));
  const rb = await b.page.$$eval('#board [data-ring]', (els) => Object.fromEntries(els.map((e) => [e.dataset.ring, e.querySelector('.count').textContent])));
  assert.deepEqual(ra, rb);
  // Nobody can move for the other: B has no playable pit on A's turn and vice versa.
  const aTurn = /Your move/.test(await a.page.textContent('#status'));
  const idle = aTurn ? b : a;
  assert.equal(await idle.page.locator('button.pit.playable').count(), 0);
  await shot(a.page, '07-friend-south-desktop');
  await shot(b.page, '08-friend-north-phone');
  // The watcher's board is the players' board.
  const rw = await w.page.$$eval('#board [data-ring]', (els) => Object.fromEntries(els.map((e) => [e.dataset.ring, e.querySelector('.count').textContent])));
  assert.deepEqual(rw, ra);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  assert.deepEqual(w.errors, []);
  await a.context.close();
  await b.context.close();
  await w.context.close();
});

test('The pie rule: North swaps with the Swap button', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await page.click('details.more > summary');
  await page.selectOption('#preset', 'kalah');
  await page.fill('#opt-pits', '4');
  await page.fill('#opt-seeds', '2');
  await page.uncheck('#opt-first-move-extra-turn');
  await page.check('#opt-pie');
  await page.check('input[name=opponent][value=computer]');
  await page.selectOption('#level', '1');
  await page.selectOption('#side', 'north');
  await page.click('#start');
  // The computer (South) opens; the swap is then North's legal move, and only then.
  await page.waitForSelector('#swap:not([hidden])');
  await page.click('#swap');
  await page.waitForFunction(() => [...document.querySelectorAll('.moves .mv.north')].some((e) => e.textContent === 'swap'));
  await page.waitForSelector('#swap', { state: 'hidden' });
  await waitForMyTurn(page);
  assert.equal(await page.locator('#swap:not([hidden])').count(), 0);
  await shot(page, '12-pie-swap');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Kauri, Oware and Dracala draw and play at phone width', async () => {
  const { context, page, errors } = await newPage(PHONE);
  // A Kauri position where South's first pit holds a seed and no cowrie: only the cowrie
  // pits are playable, and the screen says why.
  const created = await (await page.request.post(`${BASE}/api/games`, {
    data: { rules: 'kauri,pits=3,seeds=2', opponent: 'friend', side: 'south', position: 'kauri,pits=3,seeds=2/2-0c2-1c1/0/1c1-4-0c2/4/s' },
  })).json();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await page.evaluate(([id, token]) => {
    localStorage.setItem('mancala.seats', JSON.stringify({ [id]: { seat: 'south', token, at: Date.now() } }));
  }, [created.game.id, created.token]);
  await page.goto(`${BASE}/#/game/${created.game.id}`);
  await page.waitForSelector('button.pit.playable');
  assert.equal(await page.locator('button.pit.playable').count(), 2);
  assert.equal(await page.textContent('#forced'), 'Only the marked pits: only a pit holding a cowrie may be sown.');
  await shot(page, '09-kauri-forced-phone');
  for (const preset of ['kauri', 'oware', 'dracala']) {
    await page.goto(`${BASE}/`);
    await page.waitForSelector('#start');
    await page.selectOption('#preset', preset);
    await page.selectOption('#level', '1');
    await page.click('#start');
    await page.waitForSelector('button.pit.playable');
    await playUntilAnswered(page, 1);
    await waitForMyTurn(page);
    await shot(page, `09-${preset}-phone`);
  }
  // Dracala (the last game): fewer seeds win, and the hint says so rather than showing a
  // margin as if more were better.
  await page.click('#hint');
  await page.waitForFunction(() => /fewer seeds win/.test(document.querySelector('#toast').textContent));
  // Every pit has a label a screen reader reads.
  const labels = await page.$$eval('#board .pit', (els) => els.map((e) => e.getAttribute('aria-label')));
  assert.ok(labels.every((l) => /pit \d: \d+ seeds?/.test(l)), labels.join(' | '));
  assert.deepEqual(errors, []);
  await context.close();
});

// What the game screen shows while a move of ours is sown: snapshots of the status, the
// scores and the move list at every change of the page.
async function recordScreen(page) {
  await page.evaluate(() => {
    window.screenLog = [];
    const snap = () => {
      const score = (cls) => { const e = document.querySelector(`.player.${cls} .score`); return e ? e.textContent : null; };
      window.screenLog.push({
        status: document.querySelector('#status').textContent,
        bottom: score('p-bottom'),
        north: document.querySelectorAll('.moves .mv.north').length,
      });
    };
    new MutationObserver(snap).observe(document.querySelector('#screen-game'), { subtree: true, childList: true, characterData: true });
  });
}

test('a recent game whose page never opened is listed with the seat it was joined in', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  // `saveSeat` writes this much when a game is created; the rest comes once its page opens.
  await page.evaluate(() => localStorage.setItem('mancala.seats',
    JSON.stringify({ '00000000deadbeef': { seat: 'north', token: 't', at: Date.now() } })));
  await page.reload();
  await page.waitForSelector('.recent li');
  assert.match(await page.textContent('.recent li'), /you play North/);
  assert.equal(await page.inputValue('#side'), 'south');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the form, the keys and the screen while a move is sown say what is true', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  // Hidden fields stay hidden: the level is asked only against the computer; the name always.
  await page.check('input[name=opponent][value=friend]');
  assert.equal(await page.isVisible('#level'), false);
  assert.equal(await page.isVisible('#name'), true);
  await page.check('input[name=opponent][value=computer]');
  assert.equal(await page.isVisible('#level'), true);
  assert.equal(await page.isVisible('#name'), true);
  // Kalah on 8 pits against the computer, with a name.
  await page.selectOption('#preset', 'kalah');
  await page.click('details.more > summary');
  await page.fill('#opt-pits', '8');
  await page.locator('#opt-pits').dispatchEvent('change');
  await page.fill('#name', 'Ann');
  await page.selectOption('#level', '1');
  await page.selectOption('#side', 'south');
  await page.click('#start');
  await page.waitForURL(/#\/game\//);
  await page.waitForSelector('button.pit.playable');
  const id = page.url().split('/').pop();
  const st = await (await page.request.get(`${BASE}/api/games/${id}`)).json();
  assert.equal(st.players.south.name, 'Ann');
  // Against the computer the keys line offers undo and the hint; on 8 pits `h` is a pit.
  assert.equal(await page.textContent('.keys'), 'Keys: 1–8 or the pit letter plays a pit; arrows move between your pits; U undo, ? hint.');
  // `h` on an 8-pit board plays pit H (its 3 seeds: the store, then North's first two pits).
  await recordScreen(page);
  await page.keyboard.press('h');
  await waitForPlies(page, 0);
  await waitForMyTurn(page);
  assert.match(await page.textContent('.moves .mv.south'), /^H\b/);
  const log = await page.evaluate(() => window.screenLog);
  const sowing = log.filter((x) => /^You play H/.test(x.status));
  assert.ok(sowing.length > 0, JSON.stringify(log));
  // The score follows the seed that reached the store while the seeds were sown...
  assert.ok(sowing.some((x) => x.bottom === '1'), JSON.stringify(sowing));
  // ...the computer's answer is not listed before it is drawn...
  assert.ok(sowing.every((x) => x.north === 0), JSON.stringify(sowing));
  // ...and nothing says it is our move before the answer came.
  const first = log.findIndex((x) => /^You play H/.test(x.status));
  const next = log.slice(first).find((x) => !/^You play H/.test(x.status));
  assert.notEqual(next && next.status, 'Your move.', JSON.stringify(log));
  assert.deepEqual(errors, []);
  await context.close();
});

test('replays mark captures, the end sweep and misère values the right way', async () => {
  const { context, page, errors } = await newPage();
  const open = async (file) => {
    await page.goto(`${BASE}/#/replay`);
    await page.waitForSelector('#record-text');
    await page.fill('#record-text', readFileSync(file, 'utf8'));
    await page.click('#load-record');
    await page.waitForSelector('#replay-moves tbody tr');
  };
  const goTo = async (k) => {
    await page.click(`#replay-moves tbody tr:nth-child(${k}) button`);
    await page.waitForFunction((n) => new RegExp(`Move ${n} of`).test(document.querySelector('#replay-status').textContent), k);
  };
  const marked = (cls) => page.locator(`#replay-board .${cls}`).count();
  // Kauri: a cowrie that falls on an opponent's cowries captures nothing (move 1); a direct
  // capture marks the one pit taken (move 6, North's C, +2).
  await open(path.resolve(here, '../../examples/records/kauri-gering-van-patten.txt'));
  await goTo(1);
  assert.equal(await marked('mark-taken'), 0);
  const labels = await page.$$eval('#replay-board .pit', (els) => els.map((e) => e.getAttribute('aria-label')).join(' | '));
  assert.doesNotMatch(labels, /captured/);
  await goTo(6);
  assert.equal(await marked('mark-taken'), 1);
  // Kalah: the last move empties South's row; North's seeds go to North's store, a sweep and
  // no capture.
  writeFileSync(path.join(OUT, 'sweep.txt'), '[Variant "kalah"]\n[Position "kalah/0-0-0-0-0-1/17/3-3-0-0-0-0/12/s"]\n1. F\n');
  await open(path.join(OUT, 'sweep.txt'));
  await goTo(1);
  assert.equal(await marked('mark-taken'), 0);
  assert.equal(await marked('mark-swept'), 2);
  // Dracala (fewer seeds win): South ends 38 : 26 and loses, so South's moves read negative,
  // good for the mover when positive.
  await open(path.resolve(here, '../../examples/records/dracala-tavares-gering.txt'));
  const rows = await page.$$eval('#replay-moves tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const last = rows[rows.length - 1];
  assert.equal(last[1], 'South');
  assert.match(last[3], /^−12$/, JSON.stringify(last));
  assert.match(await page.textContent('#replay-moves caption'), /fewer seeds win/);
  await shot(page, '10-replay-dracala');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the game screen names the game, keeps misère in view, ends on a result card with a rematch', async () => {
  const { context, page, errors } = await newPage(PHONE);
  page.on('dialog', (d) => d.accept());
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await shot(page, '01-new-game-phone');
  // Menus use names people read, from the rules registry.
  const titles = await page.$$eval('#preset option', (os) => os.map((o) => o.textContent));
  assert.ok(titles.includes('Brazilian classroom Kalah') && titles.includes('Kalah'), titles.join(', '));
  await page.selectOption('#preset', 'kalah');
  await page.click('details.more > summary');
  const endWords = await page.$$eval('#opt-end option', (os) => os.map((o) => o.textContent));
  assert.ok(endWords.includes('Ends when a row is empty'), endWords.join(', '));
  await page.selectOption('#preset', 'dracala');
  await page.selectOption('#level', '1');
  await page.click('#start');
  await page.waitForSelector('button.pit.playable');
  assert.equal(await page.textContent('#game-title'), 'Dracala');
  // Fewer seeds win, beside the scores, all game.
  assert.equal(await page.locator('.player .misere').count(), 2);
  // Phone: the pits take the width, at least 44 px, their letters or digits shown.
  const widths = await page.$$eval('#board .pit', (els) => els.map((e) => e.getBoundingClientRect().width));
  assert.ok(widths.every((w) => w >= 44), widths.join(', '));
  assert.ok(await page.isVisible('#board .row-bottom .pit .tag'));
  await shot(page, '11-dracala-phone');
  // Resign: the card says who won, by how much and why, and offers a rematch.
  const first = page.url();
  await page.click('#resign');
  await page.waitForSelector('#result-card:not([hidden])');
  assert.match(await page.textContent('#result-card h2'), /Computer \(level 1\) wins/);
  assert.match(await page.textContent('#result-card'), /Why: South resigned\./);
  assert.match(await page.textContent('#result-card'), /Fewer seeds win\./);
  await shot(page, '12-result-card-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, '12-result-card-desktop');
  await page.click('#rematch');
  await page.waitForFunction((u) => location.href !== u && /#\/game\//.test(location.href), first);
  await page.waitForSelector('button.pit.playable');
  assert.equal(await page.textContent('#game-title'), 'Dracala');
  // Your recent games: the game, the opponent and the result.
  await page.goto(`${BASE}/`);
  await page.waitForSelector('.recent li');
  assert.match(await page.textContent('.recent'), /Dracala · against Computer \(level 1\) · computer \(level 1\) wins/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analysis board shows the server\'s proven values, tries a move and takes it back, and reads misère values right', async () => {
  const { context, page, errors } = await newPage();
  const analyse = async (position) => {
    const res = await fetch(`${BASE}/api/analysis`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ position }) });
    assert.equal(res.status, 200);
    return res.json();
  };
  const fmt = (e) => `${e.score > 0 ? '+' : e.score < 0 ? '−' : ''}${Math.abs(e.score)}`;
  const rows = () => page.$$eval('#analysis-moves tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const shown = (position) => page.waitForFunction((p) => {
    const t = document.querySelector('#analysis-moves');
    return t && t.querySelector('tbody') && !t.hasAttribute('aria-busy') && document.querySelector('#analysis-position').value === p;
  }, position);
  // A Kalah endgame, North to move: every value is proven at once, and the board shows the
  // server's values, best first, with the best line.
  const pos = 'kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n';
  const want = await analyse(pos);
  assert.ok(want.moves.length >= 2 && want.moves.every((m) => m.eval.proven));
  await page.goto(`${BASE}/#/analysis/${encodeURIComponent(pos)}`);
  await page.waitForSelector('#analysis-moves tbody tr');
  await shown(pos);
  assert.deepEqual(await rows(), want.moves.map((m) => [m.text, fmt(m.eval), 'proven', String(m.loss)]));
  assert.match(await page.textContent('#analysis-line'), new RegExp(`Best line: ${want.line_text}`));
  assert.equal(await page.getAttribute('#analysis-moves tbody tr:first-child', 'class'), 'best');
  assert.equal(await page.locator('#analysis-board .mark-hint').count(), 1);
  // Each playable pit shows its move's value too.
  assert.deepEqual(await page.$$eval('#analysis-board .pit-value', (v) => v.map((e) => e.dataset.value).sort()),
    want.moves.map((m) => fmt(m.eval)).sort());
  assert.match(await page.textContent('#analysis-status'), /North to move/);
  assert.ok(await page.isDisabled('#analysis-back'));
  await shot(page, '11-analysis-desktop');
  // Try the second move on the board, then take it back.
  const second = want.moves[1];
  await page.click(`#analysis-board button.pit.playable[data-ring="${want.rules.pits + second.pit}"]`);
  await shown(second.after);
  assert.match(await page.textContent('#analysis-tried'), new RegExp(`Moves tried: ${second.text}`));
  const after = await analyse(second.after);
  assert.deepEqual((await rows()).map((r) => r[1]), after.moves.map((m) => fmt(m.eval)));
  await page.click('#analysis-back');
  await shown(pos);
  assert.match(await page.textContent('#analysis-tried'), /No move tried yet/);
  assert.deepEqual((await rows()).map((r) => r[0]), want.moves.map((m) => m.text));
  // Dracala, fewer seeds win: the best move is the one of the lowest margin, shown as the
  // best score for the mover.
  const dra = 'dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/s';
  const d = await analyse(dra);
  const margins = d.moves.map((m) => m.eval.margin);
  assert.equal(d.moves[0].eval.margin, Math.min(...margins));
  assert.ok(Math.max(...margins) > Math.min(...margins), JSON.stringify(margins));
  await page.fill('#analysis-position', dra);
  await page.click('#analysis-open');
  await shown(dra);
  const dr = await rows();
  assert.equal(dr[0][0], d.moves[0].text);
  assert.equal(dr[0][1], fmt(d.moves[0].eval));
  assert.match(await page.textContent('#analysis-moves caption'), /fewer seeds win/);
  assert.match(await page.textContent('#analysis-rules'), /fewer seeds win/);
  // A link written by hand, its slashes not encoded, opens the same board.
  await page.goto(`${BASE}/#/analysis/${pos}`);
  await shown(pos);
  assert.deepEqual((await rows()).map((r) => r[0]), want.moves.map((m) => m.text));
  // A bad position string is refused with the server's reason.
  await page.fill('#analysis-position', 'kalah/1-2');
  await page.click('#analysis-open');
  await page.waitForFunction(() => /RULES\/SOUTH-PITS/.test(document.querySelector('#analysis-error').textContent));
  // The browser logs the refused request itself; nothing else went wrong.
  assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
  await context.close();
});

test('a replayed position opens on the analysis board, at phone width too', async () => {
  const { context, page, errors } = await newPage(PHONE);
  writeFileSync(path.join(OUT, 'analyse.txt'), '[Variant "kalah"]\n[Position "kalah/0-0-0-0-0-1/17/3-3-0-0-0-0/12/s"]\n1. F\n');
  await page.goto(`${BASE}/#/replay`);
  await page.fill('#record-text', readFileSync(path.join(OUT, 'analyse.txt'), 'utf8'));
  await page.click('#load-record');
  await page.waitForSelector('#replay-moves tbody tr');
  await page.click('#replay-analyse');
  await page.waitForSelector('#analysis-moves tbody tr');
  assert.equal(await page.inputValue('#analysis-position'), 'kalah/0-0-0-0-0-1/17/3-3-0-0-0-0/12/s');
  assert.deepEqual(await page.$$eval('#analysis-moves tbody tr td:first-child', (t) => t.map((e) => e.textContent)), ['F']);
  await shot(page, '11-analysis-phone');
  // The only move ends the game: the board says so and offers no move.
  await page.click('#analysis-moves tbody tr button');
  await page.waitForFunction(() => /Game over: 18 : 18/.test(document.querySelector('#analysis-status').textContent));
  assert.equal(await page.locator('#analysis-moves tbody tr').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the language: from the browser, switched from the menu, kept in the URL and on reload', async () => {
  // A browser that reads Italian gets the Italian client.
  const it = await newPage(DESKTOP, 'it-IT');
  await it.page.goto(`${BASE}/`);
  await it.page.waitForSelector('#start');
  assert.equal(await it.page.getAttribute('html', 'lang'), 'it');
  assert.match(it.page.url(), /[?&]lang=it/);
  assert.equal(await it.page.textContent('#start'), 'Inizia la partita');
  assert.equal(await it.page.inputValue('#lang'), 'it');
  assert.deepEqual(it.errors, []);
  await it.context.close();

  // An English browser starts a game, then switches to Portuguese from the menu.
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  await page.selectOption('#preset', 'kalah');
  await page.check('input[name=opponent][value=computer]');
  await page.selectOption('#side', 'south');
  await page.click('#start');
  await page.waitForSelector('#board button.pit');
  await waitForMyTurn(page);
  assert.equal(await page.textContent('#status'), 'Your move.');
  assert.equal(await page.textContent('#undo'), 'Undo');
  const gameUrl = page.url();
  await Promise.all([page.waitForNavigation(), page.selectOption('#lang', 'pt')]);
  await page.waitForSelector('#board button.pit');
  await waitForMyTurn(page);
  // The board screen's words change: status, buttons, the move list's heading, the pits'
  // labels for screen readers, the rules text from the server.
  assert.equal(await page.getAttribute('html', 'lang'), 'pt');
  assert.match(page.url(), /[?&]lang=pt/);
  assert.equal(new URL(page.url()).hash, new URL(gameUrl).hash, 'the same game');
  assert.equal(await page.textContent('#status'), 'Sua vez.');
  assert.equal(await page.textContent('#undo'), 'Desfazer');
  assert.equal(await page.textContent('#resign'), 'Desistir');
  assert.equal(await page.textContent('#nav-new .nav-long'), 'Novo jogo');
  assert.equal(await page.textContent('aside h2'), 'Jogadas');
  assert.match(await page.getAttribute('#board button.pit >> nth=0', 'aria-label'), /^Sua casa A: 3 sementes/);
  await page.waitForFunction(() => /Tabuleiro: 6 casas por lado/.test(document.querySelector('.rules-text').textContent));
  await shot(page, '12-language-pt');
  // A reload keeps it, and so does a page opened without ?lang (localStorage).
  await page.reload();
  await page.waitForSelector('#board button.pit');
  assert.equal(await page.textContent('#undo'), 'Desfazer');
  assert.equal(await page.getAttribute('html', 'lang'), 'pt');
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#start');
  assert.equal(await page.textContent('#start'), 'Começar o jogo');
  assert.match(page.url(), /[?&]lang=pt/);
  // The menus from the rules data are in Portuguese too.
  assert.equal(await page.$eval('#preset option[value=kalah-brazil]', (o) => o.textContent), 'Kalah das salas de aula brasileiras');
  // Spanish from the menu, then back to English.
  await Promise.all([page.waitForNavigation(), page.selectOption('#lang', 'es')]);
  await page.waitForSelector('#start');
  assert.equal(await page.textContent('#start'), 'Empezar la partida');
  assert.equal(await page.getAttribute('html', 'lang'), 'es');
  await Promise.all([page.waitForNavigation(), page.selectOption('#lang', 'en')]);
  await page.waitForSelector('#start');
  assert.equal(await page.textContent('#start'), 'Start game');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the server\'s errors and a replay\'s note are said in the reader\'s language', async () => {
  const { context, page, errors } = await newPage(DESKTOP, 'pt-PT');
  // A malformed record: the message from the server's key, in Portuguese.
  await page.goto(`${BASE}/?lang=pt#/replay`);
  await page.waitForSelector('#record-text');
  await page.fill('#record-text', '[Variant "kalah"]\n1. C (+9) Q\n');
  await page.click('#load-record');
  await page.waitForFunction(() => /inesperado/.test(document.querySelector('#screen-replay .error').textContent));
  assert.match(await page.textContent('#screen-replay .error'), /^registro: linha 2, coluna 11 \(em `Q`\): `Q` inesperado, esperava-se uma letra de casa a-f ou A-F$/);
  // A record whose moves replay but whose annotation disagrees: shown, with the note in Portuguese,
  // and the computer of a server's record named by its level.
  await page.fill('#record-text', '[Variant "kalah"]\n[South "computer (level 3)"]\n1. C (+9) f\n');
  await page.click('#load-record');
  await page.waitForSelector('#replay-moves tbody tr');
  assert.match(await page.textContent('#screen-replay .error'), /o registro dá ganho no armazém \(\+n\) = 9, a reprodução dá 0 /);
  assert.match(await page.textContent('#screen-replay'), /Computador \(nível 3\)/);
  // A bad position on the analysis board.
  await page.goto(`${BASE}/?lang=pt#/analysis/${encodeURIComponent('kalah/3-3-3/0/3-3-3-3-3-3/0/s')}`);
  await page.waitForFunction(() => document.querySelector('#analysis-error') && document.querySelector('#analysis-error').textContent !== '');
  assert.equal(await page.textContent('#analysis-error'), 'posição: campo 2 (casas do Sul): são dadas 3 casas, `kalah` tem 6 por lado');
  // The browser logs each refused request (the two 400s asked for above); nothing else.
  assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
  assert.equal(errors.length, 2, errors.join(' | '));
  await context.close();
});

test('the home page lists a waiting KGP bot; a challenge plays it, and its game is listed', async () => {
  const kgp = process.env.MANCALA_KGP;
  const bin = process.env.MANCALA_BIN;
  if (!kgp || !bin) return; // scripts/browser-tests.sh gives both
  const bot = spawn(bin, ['agent', 'kgp', '--server', kgp, '--level', '1', '--name', 'web bot', '--author', 'tests'], { stdio: 'ignore' });
  const { context, page, errors } = await newPage();
  try {
    // The bot is listed once it waits (the list is read when the page opens).
    let listed = false;
    for (let k = 0; k < 50 && !listed; k++) {
      await page.goto(`${BASE}/#/`);
      await page.waitForSelector('#bots-waiting');
      listed = (await page.locator('#bots-waiting li.bot', { hasText: 'web bot' }).count()) > 0;
      if (!listed) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(listed, 'the bot is listed');
    const row = page.locator('#bots-waiting li.bot', { hasText: 'web bot' });
    assert.match(await row.textContent(), /by tests/);
    await page.waitForSelector('#bot-games');
    await shot(page, 'home-bots');
    await page.selectOption('#side', 'south');
    await row.locator('button.challenge').click();
    await page.waitForURL(/#\/game\//);
    const id = page.url().split('#/game/')[1];
    await page.waitForSelector('#board');
    // The person plays from the browser; the bot answers through KGP.
    await playUntilAnswered(page, 2);
    assert.ok(await page.locator('.moves .mv.north').count() >= 2, 'the bot answered');
    await shot(page, 'bot-challenge-game');
    // Back home: the game is among the bots' games, the bot no longer waiting while it plays.
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector(`#bot-games a[href="#/game/${id}"]`);
    const line = await page.locator(`#bot-games li:has(a[href="#/game/${id}"])`).textContent();
    assert.match(line, /You|web bot/);
    assert.match(line, /playing|won|drawn/);
    assert.equal(await page.locator('#bots-waiting li.bot', { hasText: 'web bot' }).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    bot.kill();
    await context.close();
  }
});
