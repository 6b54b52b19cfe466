// The static copy (`mancala web-export`) with the engine in the browser: exported into a
// temporary folder, served by a plain static file server (node's http module), loaded once,
// then played offline: a whole game of Kalah against the computer, a hint, the analysis board
// at a fixed depth against `mancala analyze`, a record's replay; the same in Portuguese; and
// the wasm engine's values against the native engine's on 50 positions across the presets.
// Measures load-to-playable, the .wasm's size and the node rate against native search into
// TEST_OUTPUT/offline-metrics.json. Run by scripts/browser-tests.sh (MANCALA_BIN; web/pkg/
// from scripts/wasm-build.sh).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const BIN = process.env.MANCALA_BIN;
if (!BIN) throw new Error('set MANCALA_BIN to the mancala binary (scripts/browser-tests.sh does)');
const OUT = process.env.TEST_OUTPUT || path.resolve(root, 'test-output/browser');
mkdirSync(OUT, { recursive: true });
const shot = (page, name) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
const mancala = (...args) => execFileSync(BIN, args, { cwd: root, encoding: 'utf8' });
// The node rate is measured against this build (a release build, where one is given).
const NATIVE = process.env.MANCALA_NATIVE_BIN || BIN;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.webmanifest': 'application/manifest+json',
};

let dir;
let server;
let BASE;
let browser;
const metrics = {};

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mancala-export-'));
  mancala('web-export', dir, '--pkg', path.join(root, 'web/pkg'));
  server = createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p === '/') p = '/index.html';
    const file = path.join(dir, path.normalize(p));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  BASE = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const wasm = readFileSync(path.join(dir, 'pkg/mancala_wasm_bg.wasm'));
  metrics.wasm_bytes = wasm.length;
  metrics.wasm_gzip_bytes = gzipSync(wasm, { level: 9 }).length;
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  writeFileSync(path.join(OUT, 'offline-metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
});

// A page of the static copy, visited once online (the service worker caches every file),
// then offline.
async function offlinePage(locale = 'en-US') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.setDefaultTimeout(30000);
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await page.evaluate(() => navigator.serviceWorker.ready);
  await context.setOffline(true);
  return { context, page, errors };
}

const plies = (page) => page.$eval('#moves', (e) => Number(e.dataset.ply || 0));

async function playWholeGame(page) {
  for (let k = 0; k < 200; k++) {
    await page.waitForSelector('#status.yours, #status.over');
    if (await page.locator('#status.over').count()) return;
    const n = await plies(page);
    await page.locator('button.pit.playable').first().click();
    await page.waitForFunction((m) => Number(document.querySelector('#moves').dataset.ply || 0) > m
      || document.querySelector('#status.over'), n);
  }
  throw new Error('the game did not end in 200 moves');
}

async function offlineSuite(locale, words) {
  const { context, page, errors } = await offlinePage(locale);
  // Offline: the page and the engine come from the cache; the computer thinks here.
  const t0 = Date.now();
  await page.reload();
  await page.waitForSelector('#start');
  assert.equal(await page.textContent('#engine-here'), words.here);
  await page.check('input[name=opponent][value=computer]');
  await page.selectOption('#level', '1');
  await page.selectOption('#side', 'south');
  await page.click('#start');
  await page.waitForSelector('button.pit.playable');
  if (locale === 'en-US') metrics.offline_load_to_playable_ms = Date.now() - t0;
  await page.click('#hint');
  await page.waitForSelector('#board .mark-hint');
  await shot(page, `offline-${locale}-hint`);
  await playWholeGame(page);
  await page.waitForSelector('#result-card:not([hidden])');
  await shot(page, `offline-${locale}-over`);

  // The analysis board at a fixed depth: the best move is the native engine's.
  const pos = 'kalah/3-3-0-4-4-4/0/3-3-3-3-3-3/0/n';
  const depth = 7;
  const native = JSON.parse(mancala('analyze', pos, '--depth', String(depth), '--all-moves', '--json'));
  const search = JSON.parse(mancala('analyze', pos, '--depth', String(depth), '--threads', '1', '--json'));
  await page.goto(`${BASE}/?depth=${depth}#/analysis/${encodeURIComponent(pos)}`);
  await page.waitForSelector('#analysis-moves tbody tr.best');
  const best = await page.textContent('#analysis-moves tbody tr.best td');
  assert.equal(best.trim(), native.moves[0].move);
  assert.equal(best.trim(), search.best);
  await shot(page, `offline-${locale}-analysis`);

  // A record's replay, judged by the engine here.
  await page.goto(`${BASE}/#/replay`);
  await page.waitForSelector('#record-text');
  await page.fill('#record-text', readFileSync(path.join(root, 'examples/records/kauri-gering-van-patten.txt'), 'utf8'));
  await page.click('#load-record');
  await page.waitForSelector('#replay-moves tbody tr');
  await shot(page, `offline-${locale}-replay`);
  assert.deepEqual(errors, []);
  await context.close();
}

test('the static copy plays, hints, analyses and replays offline', async () => {
  await offlineSuite('en-US', { here: 'The computer thinks in this browser: no server is used.' });
});

test('the static copy offline in Portuguese', async () => {
  await offlineSuite('pt-PT', { here: 'O computador pensa neste navegador: não é usado nenhum servidor.' });
});

test('a game of the static copy outlives a reload, and a long analysis can be stopped', async () => {
  const { context, page, errors } = await offlinePage('en-US');
  await page.reload();
  await page.check('input[name=opponent][value=computer]');
  await page.selectOption('#level', '1');
  await page.selectOption('#side', 'south');
  await page.click('#start');
  for (let k = 0; k < 2; k++) {
    await page.waitForSelector('#status.yours');
    const n = await plies(page);
    await page.locator('button.pit.playable').last().click();
    await page.waitForFunction((m) => Number(document.querySelector('#moves').dataset.ply || 0) > m, n);
  }
  await page.waitForSelector('#status.yours');
  const seeds = () => page.$$eval('#board .count', (els) => els.map((e) => e.textContent));
  const before = { url: page.url(), ply: await plies(page), seeds: await seeds() };
  // A new worker (the reload) restores the game from this browser's storage.
  await page.reload();
  await page.waitForSelector('#status.yours');
  assert.equal(page.url(), before.url);
  assert.equal(await plies(page), before.ply);
  assert.deepEqual(await seeds(), before.seeds);
  const n = await plies(page);
  await page.locator('button.pit.playable').first().click();
  await page.waitForFunction((m) => Number(document.querySelector('#moves').dataset.ply || 0) > m, n);

  // Kalah(6,6) to depth 40 takes far longer than this test: the stop button ends it.
  const pos = 'kalah,seeds=6/6-6-6-6-6-6/0/6-6-6-6-6-6/0/s';
  await page.goto(`${BASE}/?depth=40#/analysis/${encodeURIComponent(pos)}`);
  await page.waitForSelector('#analysis-stop:not([hidden])');
  await page.click('#analysis-stop');
  await page.waitForSelector('#analysis-stop[hidden]', { state: 'attached' });
  assert.equal(await page.textContent('#analysis-status'), 'Stopped before the values came: analyse again, or try another position.');
  assert.equal(await page.locator('#analysis-moves tbody tr').count(), 0);
  // The next request starts a new worker, and the game is still there.
  await page.goto(before.url);
  await page.waitForSelector('#status.yours, #status.over');
  assert.ok(await plies(page) > before.ply);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the engine in the browser values 50 positions as the native engine does, and its node rate', async () => {
  const { context, page } = await offlinePage();
  const presets = ['kalah', 'kalah-brazil', 'vaccean', 'cross-kalah', 'dracala', 'kauri', 'oware'];
  const depth = 6;
  // Positions a few pseudo-random moves into each preset's game, made by the engine here.
  const positions = await page.evaluate(async ({ presets }) => {
    const { engine } = await import('/api.js');
    let s = 12345;
    const rand = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
    const out = [];
    for (let k = 0; out.length < 50; k++) {
      const r = await engine('rules', presets[k % presets.length], 'en');
      let p = r.start.position;
      for (let m = 0; m < 2 + (k % 9); m++) {
        const moves = await engine('legal_moves', p);
        if (!moves.length) break;
        const next = moves[rand(moves.length)].after;
        if (!(await engine('legal_moves', next)).length) break;
        p = next;
      }
      out.push(p);
    }
    return out;
  }, { presets });
  const wasm = await page.evaluate(async ({ positions, depth }) => {
    const { engine } = await import('/api.js');
    const out = [];
    for (const p of positions) out.push(await engine('search', p, depth, 16));
    return out;
  }, { positions, depth });
  for (const [k, p] of positions.entries()) {
    const n = JSON.parse(mancala('analyze', p, '--depth', String(depth), '--threads', '1', '--tt-mb', '16', '--json'));
    assert.deepEqual(wasm[k].eval, n.eval, `${p}: values differ`);
    assert.equal(wasm[k].best, n.best_pit, `${p}: best moves differ`);
  }
  // The node rate of one search, here and native, measured in one run: three alternating
  // pairs, the median ratio (the machine may be shared).
  const pos = 'kalah/3-3-0-4-4-4/0/3-3-3-3-3-3/0/n';
  const d = 16;
  const pairs = [];
  for (let k = 0; k < 3; k++) {
    const w = await page.evaluate(async ({ pos, d }) => {
      const { engine } = await import('/api.js');
      return engine('search', pos, d, 16);
    }, { pos, d });
    const n = JSON.parse(execFileSync(NATIVE, ['analyze', pos, '--depth', String(d), '--threads', '1', '--tt-mb', '16', '--json'], { encoding: 'utf8' }));
    assert.equal(w.nodes, n.nodes, 'the same search visits the same nodes');
    const wr = w.nodes / (w.ms / 1000);
    pairs.push({ nodes: w.nodes, wasm_ms: w.ms, native_ms: n.seconds * 1000, wasm_nodes_per_second: Math.round(wr),
      native_nodes_per_second: Math.round(n.nodes_per_second), ratio: Number((wr / n.nodes_per_second).toFixed(3)) });
  }
  Object.assign(metrics, { native_bin: NATIVE, rate_position: pos, rate_depth: d, rate_pairs: pairs,
    rate_ratio_median: [...pairs.map((p) => p.ratio)].sort((a, b) => a - b)[1] });
  await context.close();
});
