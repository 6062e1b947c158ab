/**
 * The dashboard's screens as location hashes, so a screen can be bookmarked and the browser's back button works:
 * `#devices?parent=projects/p/regions/-` (the device list) and `#device?name=projects/p/regions/eu/devices/gw-1`
 * (one device's overview).
 */

export const DEFAULT_PARENT = 'projects/-/regions/-';

/** @typedef {{ screen: 'devices', parent: string } | { screen: 'device', name: string }} Route */

/**
 * @param {string} hash location.hash, with or without its '#'
 * @returns {Route}
 */
export function parseRoute(hash) {
  const text = hash.replace(/^#/, '');
  const at = text.indexOf('?');
  const screen = at < 0 ? text : text.slice(0, at);
  const params = new URLSearchParams(at < 0 ? '' : text.slice(at + 1));
  const name = params.get('name');
  if (screen === 'device' && name) return { screen: 'device', name };
  return { screen: 'devices', parent: params.get('parent') || DEFAULT_PARENT };
}

/**
 * @param {Route} route
 * @returns {string} the hash, '#' included
 */
export function routeHash(route) {
  const params =
    route.screen === 'device'
      ? new URLSearchParams({ name: route.name })
      : new URLSearchParams({ parent: route.parent });
  return `#${route.screen}?${params.toString()}`;
}
