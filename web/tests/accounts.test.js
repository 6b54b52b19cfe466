// Accounts in the browser: two people sign up in two browsers, play a rated game (the first
// moves on the board, the rest through the page's own session), and each profile shows the
// rating Glicko-2 gives, its graph and the game from that player's side; the leaderboard lists
// both; names are shown as text. Run with scripts/browser-tests.sh (MANCALA_URL).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glicko2 } from './glicko2.js';
import { BASE, shot, newPage, signUp } from './harness.js';

// Names unique to this run (the server's database is shared by the run's tests).
const tag = Date.now().toString(36).slice(-6);

test('two accounts play a rated game; profiles, graph and leaderboard show Glicko-2', async () => {
  const a = await newPage();
  const b = await newPage({ width: 390, height: 844 });
  const [ann, bob] = [`ann_${tag}`, `Bob-${tag}`];
  await signUp(a.page, ann, 'ann password');
  assert.equal(await a.page.textContent('#signed-in'), `Signed in as ${ann}`);
  await shot(a.page, '30-account');
  await signUp(b.page, bob, 'bob password');
  // A rated game of Kalah, Ann South; Bob takes the seat by the link, as his account.
  await a.page.selectOption('#account-side', 'south');
  await a.page.click('#account-create');
  await a.page.waitForSelector('#invite-link');
  const link = await a.page.inputValue('#invite-link');
  await b.page.goto(link);
  await b.page.waitForURL(/#\/game\//);
  await b.page.waitForSelector('#board .pit');
  const id = b.page.url().split('/').pop();
  await a.page.waitForSelector('.invite', { state: 'hidden' });
  // The first moves on the board, each in the browser whose turn it is.
  for (let k = 0; k < 4; k++) {
    let mover = null;
    for (let w = 0; w < 200 && !mover; w++) {
      if (await a.page.locator('#status.yours').count()) mover = a;
      else if (await b.page.locator('#status.yours').count()) mover = b;
      else await a.page.waitForTimeout(50);
    }
    assert.ok(mover, 'one of the two is to move');
    const before = Number(await mover.page.$eval('#moves', (e) => e.dataset.ply || 0));
    await mover.page.locator('button.pit.playable').first().click();
    await mover.page.waitForFunction((n) => Number(document.querySelector('#moves').dataset.ply || 0) > n, before);
  }
  // The rest through each page's own session (cookie and Origin, as the page sends them).
  for (let k = 0; k < 200; k++) {
    const st = await (await a.page.request.get(`${BASE}/api/games/${id}`)).json();
    if (st.over) break;
    const page = st.to_move === st.you ? a.page : b.page;
    const r = await page.evaluate(async ([gid, pit]) => (await fetch(`/api/games/${gid}/moves`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pit }),
    })).status, [id, st.legal[0]]);
    assert.equal(r, 200);
  }
  const end = await (await a.page.request.get(`${BASE}/api/games/${id}`)).json();
  assert.ok(end.over);
  await a.page.waitForSelector('#result-card:not([hidden])');
  await shot(a.page, '31-rated-game-over');

  // Ann's profile: the rating as Glicko-2 gives it, provisional, its graph, the game won or lost.
  const winner = end.result.winner;
  const annScore = winner === 'south' ? 1 : winner === 'north' ? 0 : 0.5;
  const want = glicko2(annScore);
  await a.page.click('a[href="#/account"]');
  await a.page.click('#my-profile');
  await a.page.waitForSelector('#profile-ratings');
  assert.equal(await a.page.textContent('#profile-title'), ann);
  const cells = await a.page.$$eval('#profile-ratings tbody td', (tds) => tds.map((td) => td.textContent));
  assert.equal(cells[1], `${Math.round(want.rating)}?`, cells.join(' | '));
  assert.equal(cells[2], `± ${Math.round(want.deviation)}`);
  assert.equal(cells[3], '1');
  assert.equal(await a.page.locator('#rating-graph circle.point').count(), 1);
  const outcome = annScore === 1 ? 'Won' : annScore === 0 ? 'Lost' : 'Draw';
  assert.match(await a.page.textContent('#profile-games li'), new RegExp(`^${outcome} · against ${bob} · Kalah · rated`));
  // The game's score stands in its line (a class shared with the board once floated it to the
  // top of the page, over the player's name).
  const place = await a.page.$eval('#profile-games li', (li) => {
    const score = li.querySelector('.game-score');
    if (!score) return 'no score';
    const [l, s] = [li.getBoundingClientRect(), score.getBoundingClientRect()];
    return s.top >= l.top - 1 && s.bottom <= l.bottom + 1 && s.left >= l.left - 1 ? 'in its line' : `out of its line: ${JSON.stringify([l, s])}`;
  });
  assert.equal(place, 'in its line');
  await shot(a.page, '32-profile');

  // The leaderboard lists both, higher first; on a phone nothing is wider than the screen.
  await b.page.goto(`${BASE}/#/players/kalah`);
  await b.page.waitForSelector('#leaderboard');
  const names = await b.page.$$eval('#leaderboard tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  assert.ok(names.includes(ann) && names.includes(bob), names.join(', '));
  assert.ok(await b.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await shot(b.page, '33-leaderboard-phone');
  await b.page.goto(`${BASE}/#/user/${encodeURIComponent(bob)}`);
  await b.page.waitForSelector('#rating-graph');
  assert.ok(await b.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context.close();
  await b.context.close();
});

test('names with markup: refused for accounts, shown as text for guests', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${BASE}/#/account`);
  await page.waitForSelector('#signup');
  await page.fill('#signup-name', '<b>x</b>');
  await page.fill('#signup-password', 'password 1');
  await page.click('#signup-submit');
  await page.waitForFunction(() => document.querySelector('#signup .error').textContent !== '');
  assert.equal(await page.textContent('#signup .error'), 'a name holds only letters a-z and A-Z, digits, `_` and `-`');
  // A guest's display name with markup is the same characters on the game screen, no element.
  const markup = '<img src=x onerror="window.pwned=1">';
  await page.goto(`${BASE}/`);
  await page.waitForSelector('#start');
  await page.check('input[name=opponent][value=friend]');
  await page.fill('#name', markup);
  await page.click('#start');
  await page.waitForSelector('#invite-link');
  const other = await newPage();
  await other.page.goto(`${BASE}/#/game/${page.url().split('/').pop()}`);
  await other.page.waitForSelector('#board .pit');
  assert.ok((await other.page.textContent('#screen-game')).includes(markup));
  assert.equal(await other.page.locator('#screen-game img').count(), 0);
  assert.equal(await other.page.evaluate(() => window.pwned), undefined);
  assert.deepEqual(errors, []);
  await context.close();
  await other.context.close();
});

test('the lobby: a seek shows live in another browser; accepting it opens the game in both', async () => {
  const a = await newPage();
  const b = await newPage({ width: 390, height: 844 });
  const [ann, bob] = [`seeker_${tag}`, `taker_${tag}`];
  await signUp(a.page, ann, 'ann password');
  await signUp(b.page, bob, 'bob password');
  await b.page.waitForSelector('#lobby');
  await a.page.selectOption('#account-side', 'north');
  await a.page.click('#account-seek');
  // Bob sees Ann's seek arrive without reloading, and accepts it.
  const seek = b.page.locator('#seeks li.seek', { hasText: ann });
  await seek.waitFor();
  assert.match(await seek.textContent(), new RegExp(`^${ann} · Kalah · untimed · rated · plays North`));
  await shot(b.page, '34-lobby-phone');
  await seek.locator('button').click();
  await b.page.waitForURL(/#\/game\//);
  // Ann's page opens the same game by itself, from her seat.
  await a.page.waitForURL(/#\/game\//);
  assert.equal(a.page.url().split('/').pop(), b.page.url().split('/').pop());
  await a.page.waitForSelector('#board .pit');
  await b.page.waitForSelector('#status.yours');
  const bBottom = await b.page.$$eval('#board .row-bottom [data-ring]', (els) => els.map((e) => Number(e.dataset.ring)));
  assert.deepEqual(bBottom, [0, 1, 2, 3, 4, 5], 'Bob plays South');
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context.close();
  await b.context.close();
});

test('quick pairing meets two browsers in one game; a challenge is declined, then accepted from the lobby', async () => {
  const a = await newPage();
  const b = await newPage({ width: 390, height: 844 });
  const [ann, bob] = [`quick_a_${tag}`, `quick_b_${tag}`];
  await signUp(a.page, ann, 'ann password');
  await signUp(b.page, bob, 'bob password');
  // Casual Oware: a pool no other test of this run uses.
  for (const p of [a.page, b.page]) {
    await p.selectOption('#account-preset', 'oware');
    await p.uncheck('#account-rated');
  }
  await a.page.waitForSelector('#lobby[data-live]');
  await a.page.click('#quick-pair');
  await a.page.waitForSelector('#quick-waiting:not([hidden])');
  assert.match(await a.page.textContent('#quick-waiting'), /Oware.*, casual/);
  await b.page.click('#quick-pair');
  await b.page.waitForURL(/#\/game\//);
  await a.page.waitForURL(/#\/game\//);
  const game = b.page.url().split('/').pop();
  assert.equal(a.page.url().split('/').pop(), game);
  await a.page.waitForSelector('#board .pit');
  await b.page.waitForSelector('#board .pit');
  const seats = await Promise.all([a, b].map((x) => x.page.evaluate(async (id) => (await (await fetch(`/api/games/${id}`)).json()).you, game)));
  assert.deepEqual([...seats].sort(), ['north', 'south'], 'each holds one seat');

  // Ann challenges Bob; he sees it arrive, declines (Ann sees the decline), then accepts the next.
  for (const p of [a.page, b.page]) {
    await p.click('a[href="#/account"]');
    await p.waitForSelector('#lobby[data-live]');
  }
  const challenge = async () => {
    await a.page.fill('#challenge-name', bob);
    await a.page.selectOption('#account-side', 'north');
    await a.page.click('#account-challenge');
  };
  await challenge();
  const incoming = b.page.locator('#challenges-in li', { hasText: ann });
  await incoming.waitFor();
  assert.match(await incoming.textContent(), new RegExp(`^${ann} challenges you · Kalah · untimed · rated · ${ann} plays North`));
  await shot(b.page, '35-challenge-phone');
  await incoming.locator('[data-decline]').click();
  await a.page.locator('#challenges-out li.declined', { hasText: bob }).waitFor();
  await a.page.locator('#challenges-out [data-withdraw]').click();
  await a.page.waitForSelector('#challenges-empty:not([hidden])');
  await challenge();
  await incoming.locator('[data-accept]').click();
  await b.page.waitForURL(/#\/game\//);
  await a.page.waitForURL(/#\/game\//);
  const second = b.page.url().split('/').pop();
  assert.equal(a.page.url().split('/').pop(), second);
  assert.notEqual(second, game);
  await b.page.waitForSelector('#status.yours');

  // Bob's profile lists both games, newest first, each with its record to download.
  await b.page.goto(`${BASE}/#/user/${encodeURIComponent(bob)}`);
  await b.page.waitForSelector('#profile-games');
  const items = await b.page.$$eval('#profile-games li', (lis) => lis.map((li) => li.dataset.game));
  assert.deepEqual(items, [second, game]);
  assert.equal(await b.page.getAttribute(`#profile-games li[data-game="${game}"] a.record-text`, 'href'), `/api/games/${game}/record?format=text`);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context.close();
  await b.context.close();
});
