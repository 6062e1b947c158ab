/**
 * The Outpost dashboard's entry point: signs in with an API key (kept for the tab in sessionStorage), then shows
 * the screen the location hash names, live: each screen follows watch streams, closed when it is left. Every call goes to the REST API of the server that served this page.
 */
import { DashboardClient } from './api/client.js';
import { DashboardApiError } from './api/errors.js';
import { parseRoute, routeHash } from './api/routes.js';
import { renderDeviceList } from './ui/device-list.js';
import { renderDeviceOverview } from './ui/device-overview.js';
import { LiveStreams } from './ui/live.js';
import { renderLimits } from './ui/limits.js';
import { renderLogin } from './ui/login.js';
import { renderRollouts } from './ui/rollouts.js';
import { forgetApiKey, storeApiKey, storedApiKey } from './ui/session.js';

const view = document.getElementById('view');
const signOut = document.getElementById('sign-out');
const liveState = document.getElementById('live-state');
const nav = document.getElementById('nav');
/** @type {LiveStreams | undefined} the shown screen's watch streams */
let live;

/**
 * @param {string} apiKey
 * @returns {DashboardClient}
 */
function clientFor(apiKey) {
  return new DashboardClient({ apiKey, fetch: (url, init) => fetch(url, init) });
}

/**
 * A new element for the screen about to be shown, in place of the one shown: a screen the user has left while it
 * was still loading then writes into its own element, no longer on the page, not over the one shown now.
 * @param {HTMLElement} area
 * @returns {HTMLDivElement}
 */
function newScreen(area) {
  const screen = document.createElement('div');
  area.replaceChildren(screen);
  return screen;
}

function render() {
  if (!view || !signOut) return;
  live?.closeAll();
  live = undefined;
  const screen = newScreen(view);
  const apiKey = storedApiKey();
  signOut.hidden = apiKey === undefined;
  if (nav) nav.hidden = apiKey === undefined;
  if (apiKey === undefined) {
    renderLogin(screen, async (key) => {
      // any authenticated read proves the key; a key without list permissions still signs in
      try {
        await clientFor(key).list('', 'osVersions', { pageSize: 1, view: 'NAME' });
      } catch (err) {
        if (err instanceof DashboardApiError && err.status === 'UNAUTHENTICATED') throw err;
      }
      storeApiKey(key);
      render();
    });
    return;
  }
  live = new LiveStreams(liveState, apiKey);
  /** @type {import('./ui/context.js').Context} */
  const ctx = {
    client: clientFor(apiKey),
    apiKey,
    live,
    navigate: (route) => {
      const hash = routeHash(route);
      if (location.hash === hash) render();
      else location.hash = hash;
    },
  };
  const route = parseRoute(location.hash);
  nav?.querySelectorAll('a').forEach((a) => {
    if (a.getAttribute('href') === `#${route.screen}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  if (route.screen === 'device') renderDeviceOverview(screen, ctx, route.name);
  else if (route.screen === 'rollouts') renderRollouts(screen, ctx, route.parent);
  else if (route.screen === 'limits') renderLimits(screen, ctx, route.organization);
  else renderDeviceList(screen, ctx, route);
}

signOut?.addEventListener('click', () => {
  forgetApiKey();
  render();
});
window.addEventListener('hashchange', render);
render();
