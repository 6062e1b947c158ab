/**
 * The dashboard's screens as location hashes, so a screen can be bookmarked and the browser's back button works:
 * `#devices?parent=projects/p/regions/-&filter=…&orderBy=…` (the fleet overview and the device list) and
 * `#device?name=projects/p/regions/eu/devices/gw-1` (one device's page), `#rollouts?parent=…` and
 * `#limits?organization=organizations/acme`.
 */

export const DEFAULT_PARENT = 'projects/-/regions/-';

/**
 * @typedef {{ screen: 'devices', parent: string, filter?: string, orderBy?: string }
 *   | { screen: 'device', name: string }
 *   | { screen: 'rollouts', parent: string }
 *   | { screen: 'limits', organization: string }} Route
 */

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
  if (screen === 'rollouts') return { screen: 'rollouts', parent: params.get('parent') || DEFAULT_PARENT };
  if (screen === 'limits') return { screen: 'limits', organization: params.get('organization') ?? '' };
  return {
    screen: 'devices',
    parent: params.get('parent') || DEFAULT_PARENT,
    filter: params.get('filter') ?? '',
    orderBy: params.get('orderBy') ?? '',
  };
}

/**
 * @param {Route} route
 * @returns {string} the hash, '#' included
 */
export function routeHash(route) {
  const params = new URLSearchParams();
  if (route.screen === 'device') params.set('name', route.name);
  else if (route.screen === 'rollouts') params.set('parent', route.parent);
  else if (route.screen === 'limits') {
    if (route.organization) params.set('organization', route.organization);
  } else {
    params.set('parent', route.parent);
    if (route.filter) params.set('filter', route.filter);
    if (route.orderBy) params.set('orderBy', route.orderBy);
  }
  return `#${route.screen}?${params.toString()}`;
}
