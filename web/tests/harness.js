// What the browser tests of accounts and clocks share: the served site's address, where
// screenshots go, one Chromium (Debian's, headless) for the file's tests, and a fresh browser
// context per person that collects the page's errors.

import { before, after } from 'node:test';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE = process.env.MANCALA_URL;
if (!BASE) throw new Error('set MANCALA_URL to a running `mancala serve` (scripts/browser-tests.sh does)');
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = process.env.TEST_OUTPUT || path.resolve(here, '../../test-output/browser');
mkdirSync(OUT, { recursive: true });

// A full-page screenshot in the test output, as NAME.png.
export const shot = (page, name) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
});
after(async () => { if (browser) await browser.close(); });

// A person's browser: its own context (cookies, storage), reduced motion, and the page's
// errors (a 4xx the test provokes is not one).
export async function newPage(viewport = { width: 1280, height: 800 }, locale = 'en-US') {
  const context = await browser.newContext({ viewport, locale, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text()); });
  page.setDefaultTimeout(20000);
  return { context, page, errors };
}

// Signs `name` up on the account page (a new account, logged in).
export async function signUp(page, name, password = `${name} password`) {
  await page.goto(`${BASE}/#/account`);
  await page.waitForSelector('#signup');
  await page.fill('#signup-name', name);
  await page.fill('#signup-password', password);
  await page.click('#signup-submit');
  await page.waitForSelector('#signed-in');
}
