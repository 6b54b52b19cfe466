// The settings panel, opened by the header's gear button (index.html): sounds and their
// volume, the animation's speed, and the notification of the reader's turn while the tab is
// hidden. What is chosen is kept in this browser (prefs.js).

import { t } from './i18n.js';
import { h } from './dom.js';
import { prefs, setPref, onPrefs, SPEEDS, reducedMotion } from './prefs.js';
import { sound, unlock } from './sound.js';

const canNotify = () => 'Notification' in window;

export function initSettings() {
  const button = document.getElementById('settings-button');
  if (!button || document.getElementById('settings-panel')) return;
  button.title = t('web.settings.title');
  const soundBox = h('input', { type: 'checkbox', id: 'settings-sound', role: 'switch', 'aria-describedby': 'settings-sound-help' });
  const volume = h('input', { type: 'range', id: 'settings-volume', min: 0, max: 100, step: 5 });
  const speed = h('select', { id: 'settings-speed', 'aria-describedby': 'settings-reduced' },
    Object.keys(SPEEDS).map((k) => h('option', { value: k, text: t(`web.settings.speed.${k}`) })));
  const reduced = h('small', { id: 'settings-reduced', text: t('web.settings.reduced') });
  const notify = h('input', { type: 'checkbox', id: 'settings-notify', role: 'switch', 'aria-describedby': 'settings-notify-help settings-notify-note' });
  const notifyNote = h('small', { id: 'settings-notify-note', role: 'status' });
  const close = h('button', { type: 'button', id: 'settings-close', text: t('web.settings.close') });
  const panel = h('section', { id: 'settings-panel', class: 'settings card', role: 'dialog', 'aria-labelledby': 'settings-title', hidden: true },
    h('h2', { id: 'settings-title', text: t('web.settings.title') }),
    h('div', { class: 'field check' }, soundBox, h('label', { for: 'settings-sound', text: t('web.settings.sound') }),
      h('small', { id: 'settings-sound-help', text: t('web.settings.sound-help') })),
    h('div', { class: 'field' }, h('label', { for: 'settings-volume', text: t('web.settings.volume') }), volume),
    h('div', { class: 'field' }, h('label', { for: 'settings-speed', text: t('web.settings.speed') }), speed, reduced),
    h('div', { class: 'field check' }, notify, h('label', { for: 'settings-notify', text: t('web.settings.notify') }),
      h('small', { id: 'settings-notify-help', text: t('web.settings.notify-help') }), notifyNote),
    close);
  button.after(panel);

  const sync = () => {
    const p = prefs();
    soundBox.checked = p.sound;
    volume.value = String(Math.round(p.volume * 100));
    volume.setAttribute('aria-valuetext', `${volume.value} %`);
    speed.value = p.speed;
    reduced.hidden = !reducedMotion();
    const denied = canNotify() && Notification.permission === 'denied';
    notify.checked = p.notify && canNotify() && !denied;
    notify.disabled = !canNotify();
    notifyNote.textContent = !canNotify() ? t('web.settings.notify-none') : denied ? t('web.settings.notify-denied') : '';
  };
  onPrefs(sync);

  soundBox.addEventListener('change', () => {
    setPref('sound', soundBox.checked);
    // This click is the gesture that lets the page play: a note says what was switched on.
    if (soundBox.checked) { unlock(); sound('turn'); }
  });
  volume.addEventListener('input', () => setPref('volume', Number(volume.value) / 100));
  volume.addEventListener('change', () => sound('sow'));
  speed.addEventListener('change', () => setPref('speed', speed.value));
  notify.addEventListener('change', async () => {
    if (!notify.checked || !canNotify()) { setPref('notify', false); return; }
    const answer = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission().catch(() => 'denied');
    setPref('notify', answer === 'granted');
    sync();
  });

  const open = () => {
    sync();
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    soundBox.focus();
  };
  const shut = () => {
    if (panel.hidden) return;
    const inside = panel.contains(document.activeElement);
    panel.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (inside) button.focus();
  };
  button.addEventListener('click', () => (panel.hidden ? open() : shut()));
  close.addEventListener('click', shut);
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') shut(); });
  document.addEventListener('pointerdown', (ev) => {
    if (!panel.hidden && !panel.contains(ev.target) && !button.contains(ev.target)) shut();
  });
}
