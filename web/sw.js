// The service worker of a static copy (`mancala web-export`): every asset is cached on the
// first visit, and every request is answered from the cache, so that the site starts and
// plays offline. The export fills in CACHE (named after a hash of all the files) and ASSETS;
// a new build's sw.js differs, so the browser installs it on the next visit, it caches the
// new files and deletes the old cache.

const CACHE = '__CACHE__';
const ASSETS = __ASSETS__;

self.addEventListener('install', (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (ev) => {
  if (ev.request.method !== 'GET') return;
  const url = new URL(ev.request.url);
  if (url.origin !== location.origin) return;
  // The page itself at any address (the routes live in the hash), the rest by path.
  const key = url.pathname === '/' || url.pathname.endsWith('.html') ? '/index.html' : url.pathname;
  ev.respondWith(caches.open(CACHE).then((c) => c.match(key).then((hit) => hit || fetch(ev.request))));
});
