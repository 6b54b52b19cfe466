// Clocks and what passes between two people, in the browser: two accounts meet through a
// seek with a short Fischer clock, play their first moves, and the mover's flag falls on the
// server; both ratings move as Glicko-2 says; a rematch offered in one browser is accepted in
// the other and opens for both, seats swapped. A correspondence game keeps its clock over a
// restart of the server (a server of its own, MANCALA_BIN). Run with scripts/browser-tests.sh.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { glicko2 } from './glicko2.js';
import { BASE, shot, newPage, signUp } from './harness.js';

const tag = Date.now().toString(36).slice(-6);

const gameId = (page) => page.url().split('/').pop();
const moved = async (page) => Number(await page.$eval('#moves', (e) => e.dataset.ply || 0));

test('a seek with a clock: the flag falls, ratings move, a rematch opens for both', async () => {
  const a = await newPage();
  const b = await newPage({ width: 390, height: 844 });
  const [ann, bob] = [`clockann_${tag}`, `clockbob_${tag}`];
  await signUp(a.page, ann);
  await signUp(b.page, bob);
  await b.page.waitForSelector('#lobby');
  // 0.05+0: three seconds a side (the menu offers 1+0 to 15+10 and days a move).
  const posted = await a.page.evaluate(async () => (await fetch('/api/lobby/seeks', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules: 'kalah', side: 'south', rated: true, clock: '0.05+0' }),
  })).status);
  assert.equal(posted, 201);
  const seek = b.page.locator('#seeks li.seek', { hasText: ann });
  await seek.waitFor();
  assert.match(await seek.textContent(), new RegExp(`^${ann} · Kalah · 0.05\\+0 · rated · plays South`));
  await shot(b.page, '40-lobby-seek-with-clock-phone');
  await seek.locator('button').click();
  await b.page.waitForURL(/#\/game\//);
  await a.page.waitForURL(/#\/game\//);
  const id = gameId(a.page);
  assert.equal(gameId(b.page), id);
  await a.page.waitForSelector('.player .clock[data-side=south]:not([hidden])');
  // Before a side's first move its clock stands; the first-move notice counts instead.
  assert.equal(await a.page.textContent('.player .clock[data-side=south]'), '0:03.0');
  assert.match(await a.page.textContent('#clock-note'), /^Make your first move within \d+ s/);
  await shot(a.page, '41-clocked-game');

  // Each plays his first move (a first move's extra turns included); then the mover's clock runs.
  const hasMoved = new Set();
  for (let k = 0; k < 12; k++) {
    let mover = null;
    for (let w = 0; w < 200 && !mover; w++) {
      if (await a.page.locator('#status.yours').count()) mover = a;
      else if (await b.page.locator('#status.yours').count()) mover = b;
      else await a.page.waitForTimeout(25);
    }
    assert.ok(mover, 'one of the two is to move');
    if (hasMoved.has(mover) && hasMoved.size === 2) break;
    hasMoved.add(mover);
    const n = await moved(mover.page);
    await mover.page.locator('button.pit.playable').first().click();
    await mover.page.waitForFunction((k2) => Number(document.querySelector('#moves').dataset.ply || 0) > k2, n);
  }
  // Nobody moves: within three seconds the server ends the game on time, in both browsers.
  await a.page.waitForSelector('#result-card:not([hidden])', { timeout: 10000 });
  await b.page.waitForSelector('#result-card:not([hidden])', { timeout: 10000 });
  const end = await (await a.page.request.get(`${BASE}/api/games/${id}`)).json();
  assert.equal(end.result.why.key, 'result.time');
  const loser = end.result.why.args.side;
  assert.match(await a.page.textContent('#result-card'), new RegExp(`${loser === 'south' ? 'South' : 'North'} lost on time`));
  // The clocks stand as they read at the end: the loser's at nothing.
  await a.page.waitForFunction((side) => document.querySelector(`.player .clock[data-side=${side}]`).textContent === '0:00.0', loser);
  await shot(b.page, '42-flag-fell-phone');

  // Both ratings as Glicko-2 gives them for one game between new players (Ann is South).
  const annScore = end.result.winner === 'south' ? 1 : 0;
  for (const [name, score] of [[ann, annScore], [bob, 1 - annScore]]) {
    const p = await (await a.page.request.get(`${BASE}/api/users/${name}`)).json();
    const r = p.ratings.find((x) => x.preset === 'kalah');
    const want = glicko2(score);
    assert.equal(Math.round(r.rating), Math.round(want.rating), `${name}: ${JSON.stringify(r)}`);
    assert.equal(Math.round(r.deviation), Math.round(want.deviation));
    assert.equal(r.games, 1);
  }

  // A rematch offered by Ann reaches Bob, who accepts: both go to the new game, seats swapped.
  await a.page.click('#offer-rematch');
  await b.page.waitForSelector('#offer-text');
  assert.equal(await b.page.textContent('#offer-text'), 'Your opponent offers a rematch.');
  await b.page.click('#offer-accept');
  await a.page.waitForFunction((old) => location.hash.startsWith('#/game/') && !location.hash.endsWith(old), id);
  await b.page.waitForFunction((old) => location.hash.startsWith('#/game/') && !location.hash.endsWith(old), id);
  assert.equal(gameId(a.page), gameId(b.page));
  await a.page.waitForSelector('#board .pit');
  const aBottom = await a.page.$$eval('#board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(aBottom, [7, 8, 9, 10, 11, 12], 'Ann plays North in the rematch');
  const again = await (await a.page.request.get(`${BASE}/api/games/${gameId(a.page)}`)).json();
  assert.equal(again.clock.control, '0.05+0');
  assert.equal(again.you, 'north');
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context.close();
  await b.context.close();
});

// A server of this test's own, on a database that outlives it.
async function startServer(bin, db) {
  const proc = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--db', db, '--ai-time-ms', '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\S+)/);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`the server stopped (${c}): ${out}`)));
  });
  return { proc, url };
}
const stopServer = (s) => new Promise((resolve) => { s.proc.on('exit', resolve); s.proc.kill('SIGTERM'); });

test('a correspondence game keeps its clock over a restart of the server', { skip: !process.env.MANCALA_BIN }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mancala-clock-'));
  const db = path.join(dir, 'games.db');
  let s = await startServer(process.env.MANCALA_BIN, db);
  const post = async (base, p, body, token) => {
    const r = await fetch(`${base}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const text = await r.text();
    assert.ok(r.ok, `${p}: ${r.status} ${text}`);
    return JSON.parse(text);
  };
  const c = await post(s.url, '/api/games', { rules: 'kalah', opponent: 'friend', side: 'south', clock: '1d' });
  const id = c.game.id;
  await post(s.url, `/api/games/${id}/join`, { invite: c.invite, name: 'Bo' });
  // South's move of pit A (no extra turn): North's day starts.
  const after = await post(s.url, `/api/games/${id}/moves`, { pit: 1 }, c.token);
  assert.equal(after.clock.running, 'north');
  await stopServer(s);
  await new Promise((r) => setTimeout(r, 1200));
  s = await startServer(process.env.MANCALA_BIN, db);
  const { context, page, errors } = await newPage();
  try {
    const st = await (await fetch(`${s.url}/api/games/${id}`)).json();
    assert.equal(st.clock.control, '1d');
    assert.equal(st.clock.running, 'north');
    assert.equal(st.clock.south_ms, 86400000);
    // Read again after the restart: North's day has gone on running while the server was down.
    assert.ok(st.clock.north_ms < after.clock.north_ms - 1000, `${st.clock.north_ms} after ${after.clock.north_ms}`);
    assert.ok(st.clock.north_ms > 86400000 - 60000);
    await page.goto(`${s.url}/#/game/${id}`);
    await page.waitForSelector('.player .clock[data-side=north]:not([hidden])');
    assert.match(await page.textContent('.player .clock[data-side=north]'), /^23:59:\d\d$/);
    assert.equal(await page.textContent('.player .clock[data-side=south]'), '1 d 0 h');
    await shot(page, '43-correspondence-after-restart');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await stopServer(s);
    rmSync(dir, { recursive: true, force: true });
  }
});
