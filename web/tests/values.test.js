// Browser tests of how the site shows values and of the screens around them: the result
// card, the analysis board's positions and board, the replay's caption, table and graph, the
// game screen's look back and what the screen reader is told. Run by scripts/browser-tests.sh
// against a running `mancala serve` (MANCALA_URL).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.MANCALA_URL;
if (!BASE) throw new Error('set MANCALA_URL to a running `mancala serve` (scripts/browser-tests.sh does)');
const here = path.dirname(fileURLToPath(import.meta.url));
const record = (name) => readFileSync(path.resolve(here, '../../examples/records', name), 'utf8');
let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
});
after(async () => { if (browser) await browser.close(); });

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.setDefaultTimeout(20000);
  return { context, page, errors };
}

// A new game against the computer at level 1, the reader South.
async function newGame(page, preset) {
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await page.selectOption('#preset', preset);
  await page.selectOption('#level', '1');
  await page.selectOption('#side', 'south');
  await page.click('#start');
  await page.waitForSelector('button.pit.playable');
}

// Opens a record in the replay viewer; answers the value column of its table.
async function openReplay(page, text) {
  if (!(await page.locator('#record-text').count())) {
    await page.goto(`${BASE}/#/replay`);
    await page.waitForSelector('#record-text');
  }
  // The table of an earlier record is marked, so that the new one is waited for.
  await page.evaluate(() => { const t = document.querySelector('#replay-moves'); if (t) t.dataset.old = '1'; });
  await page.fill('#record-text', text);
  await page.click('#load-record');
  await page.waitForSelector('#replay-moves:not([data-old]) tbody tr');
  return page.$$eval('#replay-moves tbody tr', (trs) => trs.map((tr) => [tr.children[3].textContent, tr.children[4].textContent]));
}

test('a result card holds no "null" line', async () => {
  const { context, page, errors } = await newPage();
  page.on('dialog', (d) => d.accept());
  await newGame(page, 'kalah');
  await page.click('#resign');
  await page.waitForSelector('#result-card:not([hidden])');
  const text = await page.textContent('#result-card');
  assert.match(text, /South resigned/);
  assert.doesNotMatch(text, /null/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analysis board opens a 48-seed Kalah position and a preset\'s start, and keeps its board still', async () => {
  const { context, page, errors } = await newPage();
  const pos = 'kalah/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s';
  const shown = (p) => page.waitForFunction((want) => {
    const t = document.querySelector('#analysis-moves');
    return t && t.querySelector('tbody tr') && !t.hasAttribute('aria-busy') && document.querySelector('#analysis-position').value === want;
  }, p);
  await page.goto(`${BASE}/#/analysis/${encodeURIComponent(pos)}`);
  // The seed count comes from the board.
  await shown('kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s');
  assert.equal(await page.textContent('#analysis-error'), '');
  const bottom = () => page.$$eval('#analysis-board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(await bottom(), [0, 1, 2, 3, 4, 5]);
  // A move that hands the turn to North: the board stays as it was, North to move on top.
  const a = await (await page.request.post(`${BASE}/api/analysis`, { data: { position: pos } })).json();
  const m = a.moves.find((x) => x.after.endsWith('/n'));
  await page.click(`#analysis-board button.pit.playable[data-ring="${m.pit - 1}"]`);
  await shown(m.after);
  assert.match(await page.textContent('#analysis-status'), /North to move/);
  assert.deepEqual(await bottom(), [0, 1, 2, 3, 4, 5]);
  // A preset's start, without typing.
  const v = await (await page.request.get(`${BASE}/api/variants?lang=en`)).json();
  const start = v.presets.find((p) => p.name === 'kalah').start;
  assert.equal(start, 'kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s');
  await page.selectOption('#analysis-preset', start);
  await shown(start);
  assert.match(await page.textContent('#analysis-tried'), /No move tried yet/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a replay\'s caption gives its value the sign of its table, and its graph says from whose view', async () => {
  const { context, page, errors } = await newPage();
  // Dracala, fewer seeds win: South ends 38 : 26 and loses by 12.
  const rows = await openReplay(page, record('dracala-tavares-gering.txt'));
  const n = rows.length;
  for (const k of [1, 2, Math.floor(n / 2), n]) {
    await page.click(`#replay-moves tbody tr:nth-child(${k}) button`);
    await page.waitForFunction((i) => new RegExp(`^Move ${i} of`).test(document.querySelector('#replay-status').textContent), k);
    const caption = await page.textContent('#replay-status');
    const said = caption.match(/Engine: ([+−]\d+|0) for (South|North) \(/);
    assert.ok(said, caption);
    const cell = rows[k - 1][0].split(' ')[0];
    assert.equal(said[1], cell, `move ${k}: ${caption} | table ${cell}`);
  }
  assert.equal(rows[n - 1][0], '−12');
  assert.match(await page.textContent('#replay-status'), /Engine: −12 for South \(South loses by 12, fewer seeds win\)/);
  // The graph: South's view, up good for South; the last value South's −12.
  assert.match(await page.textContent('#replay-graph-caption'), /from South's view: up is good for South/);
  assert.equal(await page.getAttribute(`#replay-graph circle[data-ply="${n}"]`, 'data-score'), '-12');
  assert.deepEqual(errors, []);
  await context.close();
});

test('one game replayed twice shows the same values', async () => {
  const { context, page, errors } = await newPage();
  // Kauri: no small game proven whole, so its moves are searched.
  const text = record('kauri-sandler-gering-2.txt');
  const first = await openReplay(page, text);
  assert.ok(first.some(([v]) => /depth \d+/.test(v)), JSON.stringify(first));
  const second = await openReplay(page, text);
  assert.deepEqual(second, first);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the move list looks back at a ply while the game goes on, and the screen reader hears both the answer and its turn', async () => {
  const { context, page, errors } = await newPage();
  await newGame(page, 'kalah');
  const id = page.url().split('/').pop();
  // Every text the live region takes.
  await page.evaluate(() => {
    window.said = [];
    const a = document.querySelector('#announce');
    new MutationObserver(() => { if (a.textContent) window.said.push(a.textContent); }).observe(a, { childList: true, characterData: true, subtree: true });
  });
  // Play until the computer has answered once.
  for (let k = 0; k < 10 && !(await page.locator('.moves .mv.north').count()); k++) {
    await page.waitForSelector('#status.yours');
    await page.locator('button.pit.playable').last().click();
    await page.waitForFunction(() => !document.querySelector('#status.yours') || document.querySelector('.moves .mv.north'));
  }
  await page.waitForSelector('#status.yours');
  await page.waitForFunction(() => window.said.some((x) => /Your move\./.test(x)));
  const said = await page.evaluate(() => window.said);
  assert.ok(said.some((x) => /The computer played .*Your move\./.test(x)), JSON.stringify(said));
  // The first move of the list: the board after it, no pit playable, then back to the game.
  const live = await page.$$eval('#board .count', (els) => els.map((e) => e.textContent));
  const r = await (await page.request.get(`${BASE}/api/games/${id}/replay?values=false`)).json();
  assert.equal(r.values, null);
  await page.click('.moves .mv.south >> nth=0');
  await page.waitForSelector('#look-back:not([hidden])');
  assert.match(await page.textContent('#look-back'), /Looking back at move 1 of/);
  const after1 = r.positions[1];
  const south = await page.$$eval('#board .pit[data-ring]', (els) => els.filter((e) => Number(e.dataset.ring) < 6)
    .sort((x, y) => x.dataset.ring - y.dataset.ring).map((e) => Number(e.querySelector('.count').textContent)));
  assert.deepEqual(south, after1.south);
  assert.equal(await page.locator('#board button.pit.playable').count(), 0);
  await page.click('#look-back-end');
  await page.waitForSelector('#look-back', { state: 'hidden' });
  assert.deepEqual(await page.$$eval('#board .count', (els) => els.map((e) => e.textContent)), live);
  assert.ok(await page.locator('#board button.pit.playable').count() > 0);
  assert.deepEqual(errors, []);
  await context.close();
});
