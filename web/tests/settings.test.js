// The settings panel and what it sets: kept over a reload, the sowing's animation speed
// (and reduced motion winning over it), sounds only when switched on, the tab's title on
// the reader's turn and the notification while the tab is hidden. Run with
// scripts/browser-tests.sh (MANCALA_URL).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const BASE = process.env.MANCALA_URL;
if (!BASE) throw new Error('set MANCALA_URL to a running `mancala serve` (scripts/browser-tests.sh does)');
const TURN_TITLE = '● Your turn — mancala';
const PAGE_TITLE = 'Mancala: Kalah, Cross-Kalah, Dracala, Kauri';

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
});
after(async () => { if (browser) await browser.close(); });

// A new game against the computer, this test's player South.
async function newGame() {
  const res = await fetch(`${BASE}/api/games`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules: 'kalah', opponent: 'computer', level: 1, side: 'south' }) });
  assert.ok(res.ok, `${res.status}`);
  const c = await res.json();
  return { id: c.game.id, seat: c.seat, token: c.token };
}

// A page whose browser holds `game`'s seat (when given).
async function newPage({ game = null, reducedMotion = 'reduce', init = null } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', reducedMotion });
  if (game) {
    await context.addInitScript(([id, seat, token]) => {
      if (!localStorage.getItem('mancala.seats')) localStorage.setItem('mancala.seats', JSON.stringify({ [id]: { seat, token, at: Date.now() } }));
    }, [game.id, game.seat, game.token]);
  }
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.setDefaultTimeout(20000);
  return { context, page, errors };
}

const openSettings = async (page) => {
  await page.click('#settings-button');
  await page.waitForSelector('#settings-panel:not([hidden])');
};
const closeSettings = async (page) => {
  await page.keyboard.press('Escape');
  await page.waitForSelector('#settings-panel', { state: 'hidden' });
};
const plies = (page) => page.$eval('#moves', (e) => Number(e.dataset.ply || 0));
// Plays the last playable pit and waits until it is South's move again (or the end).
async function playAndWaitForTurn(page) {
  await page.waitForSelector('#status.yours');
  const n = await plies(page);
  await page.locator('#board button.pit.playable').last().click();
  await page.waitForFunction((k) => Number(document.querySelector('#moves').dataset.ply || 0) > k, n);
  await page.waitForSelector('#status.yours, #status.over');
}

test('the settings are kept in this browser over a reload; sounds start off', async () => {
  const { context, page, errors } = await newPage();
  await context.grantPermissions(['notifications'], { origin: BASE });
  await page.goto(`${BASE}/#/`);
  await openSettings(page);
  assert.equal(await page.getAttribute('#settings-button', 'aria-expanded'), 'true');
  assert.equal(await page.isChecked('#settings-sound'), false, 'sounds start off');
  assert.equal(await page.inputValue('#settings-speed'), 'normal');
  await page.check('#settings-sound');
  await page.fill('#settings-volume', '30');
  await page.selectOption('#settings-speed', 'fast');
  await page.check('#settings-notify');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('mancala.settings') || '{}').notify === true);
  await closeSettings(page);
  assert.equal(await page.getAttribute('#settings-button', 'aria-expanded'), 'false');
  await page.reload();
  await openSettings(page);
  assert.equal(await page.isChecked('#settings-sound'), true);
  assert.equal(await page.inputValue('#settings-volume'), '30');
  assert.equal(await page.inputValue('#settings-speed'), 'fast');
  assert.equal(await page.isChecked('#settings-notify'), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the animation speed sets the length of a sowing step, and reduced motion wins over it', async () => {
  const game = await newGame();
  const { context, page, errors } = await newPage({ reducedMotion: 'no-preference' });
  // One move of South, then the replay of that move at each speed.
  const res = await fetch(`${BASE}/api/games/${game.id}/moves`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${game.token}` },
    body: JSON.stringify({ pit: 1, ply: 0 }) });
  assert.ok(res.ok, `${res.status}`);
  await page.goto(`${BASE}/#/replay/${game.id}`);
  await page.waitForSelector('#replay-moves tbody tr');
  // The time the hand (the stone that carries the seeds) takes from one pit to the next.
  await page.evaluate(() => {
    window.steps = [];
    new MutationObserver((ms) => {
      for (const m of ms) {
        const t = m.target.classList && m.target.classList.contains('flyer') && /transform (\d+)ms/.exec(m.target.style.transition);
        if (t) window.steps.push(Number(t[1]));
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['style'] });
  });
  const stepAt = async (speed) => {
    await openSettings(page);
    await page.selectOption('#settings-speed', speed);
    await closeSettings(page);
    await page.click('#first');
    await page.evaluate(() => { window.steps = []; });
    await page.click('#next');
    await page.waitForFunction(() => /^Move 1 of/.test(document.querySelector('#replay-status').textContent));
    const steps = await page.evaluate(() => window.steps);
    return steps.length ? steps[0] : 0;
  };
  const normal = await stepAt('normal');
  const slow = await stepAt('slow');
  const fast = await stepAt('fast');
  assert.ok(normal > 0, 'a step is animated');
  assert.ok(Math.abs(slow - 2 * normal) <= 1, `slow ${slow} ms is twice normal ${normal} ms`);
  assert.ok(Math.abs(fast - normal / 2) <= 1, `fast ${fast} ms is half normal ${normal} ms`);
  assert.equal(await stepAt('off'), 0, 'no animation');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  assert.equal(await stepAt('slow'), 0, 'reduced motion wins over the speed chosen');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the tab\'s title says "your turn" when it is your move against the computer, and only then', async () => {
  const game = await newGame();
  const { context, page, errors } = await newPage({ game });
  await page.goto(`${BASE}/#/game/${game.id}`);
  await page.waitForSelector('#status.yours');
  assert.equal(await page.title(), TURN_TITLE);
  // The title beside the status each time the status changes.
  await page.evaluate(() => {
    window.seen = [];
    const st = document.querySelector('#status');
    new MutationObserver(() => window.seen.push([st.classList.contains('yours'), document.title]))
      .observe(st, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  await playAndWaitForTurn(page);
  await playAndWaitForTurn(page);
  const seen = await page.evaluate(() => window.seen);
  assert.ok(seen.some(([yours]) => !yours), 'the computer\'s move was shown');
  for (const [yours, title] of seen) assert.equal(title, yours ? TURN_TITLE : PAGE_TITLE);
  // Another screen: the page's own title.
  await page.click('#nav-replay');
  await page.waitForSelector('#replay-title');
  assert.equal(await page.title(), PAGE_TITLE);
  // Someone watching the game is never told it is his move.
  const watcher = await newPage();
  await watcher.page.goto(`${BASE}/#/game/${game.id}`);
  await watcher.page.waitForSelector('#board .pit');
  await watcher.page.waitForFunction(() => document.querySelector('#status').textContent !== '');
  assert.equal(await watcher.page.title(), PAGE_TITLE);
  assert.deepEqual(errors, []);
  await watcher.context.close();
  await context.close();
});

test('sounds play only while switched on', async () => {
  const game = await newGame();
  const { context, page, errors } = await newPage({ game });
  await page.goto(`${BASE}/#/game/${game.id}`);
  const played = () => page.evaluate(async () => ({ ...(await import('/sound.js')).played }));
  await playAndWaitForTurn(page);
  assert.deepEqual(await played(), { sow: 0, capture: 0, turn: 0, end: 0 }, 'off at first');
  await openSettings(page);
  await page.check('#settings-sound');
  await closeSettings(page);
  const on = await played();
  assert.equal(on.turn, 1, 'switching them on plays a note');
  await playAndWaitForTurn(page);
  const after = await played();
  assert.ok(after.sow > on.sow, 'seeds sown are heard');
  assert.equal(after.turn, on.turn + 1, 'your turn is heard');
  await openSettings(page);
  await page.uncheck('#settings-sound');
  await closeSettings(page);
  await playAndWaitForTurn(page);
  assert.deepEqual(await played(), after, 'muted: no sound');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a hidden tab shows a notification on your turn where it was asked for, a visible one none', async () => {
  const game = await newGame();
  // The page's visibility and the browser's notifications, as the test sets them.
  const init = () => {
    window.testHidden = false;
    Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => window.testHidden });
    window.notes = [];
    window.Notification = class {
      static permission = 'default';
      static requestPermission() { window.Notification.permission = 'granted'; return Promise.resolve('granted'); }
      constructor(title, options) { window.notes.push([title, options.body]); }
      close() {}
    };
  };
  const { context, page, errors } = await newPage({ game, init });
  await page.goto(`${BASE}/#/game/${game.id}`);
  await playAndWaitForTurn(page);
  await page.evaluate(() => { window.testHidden = true; });
  await playAndWaitForTurn(page);
  assert.deepEqual(await page.evaluate(() => window.notes), [], 'not asked for');
  await openSettings(page);
  await page.check('#settings-notify');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('mancala.settings') || '{}').notify === true);
  await closeSettings(page);
  await page.evaluate(() => { window.testHidden = false; });
  await playAndWaitForTurn(page);
  assert.deepEqual(await page.evaluate(() => window.notes), [], 'the tab is seen');
  await page.evaluate(() => { window.testHidden = true; });
  await playAndWaitForTurn(page);
  const notes = await page.evaluate(() => window.notes);
  assert.equal(notes.length, 1);
  assert.equal(notes[0][0], TURN_TITLE);
  assert.match(notes[0][1], /^Your turn in Kalah\.$/);
  assert.deepEqual(errors, []);
  await context.close();
});
