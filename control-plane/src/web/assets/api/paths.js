/**
 * Resource names and the REST paths they map to (grpc-gateway style, as the command line builds them):
 * `/v1/{name}`, `/v1/{parent}/{plural}`, `/v1/{name}:{verb}`, query parameters in lowerCamel.
 */

const DEVICE_NAME = /^projects\/[^/]+\/regions\/[^/]+\/devices\/[^/:]+$/;
const PARENT = /^projects\/[^/]+\/regions\/[^/]+$/;

/**
 * Escapes each segment of a resource name, keeping `/` and `:` (custom methods).
 * @param {string} name
 * @returns {string}
 */
export function encodeName(name) {
  return name
    .split('/')
    .map((segment) => encodeURIComponent(segment).replaceAll('%3A', ':'))
    .join('/');
}

/** @typedef {string | number | boolean | undefined | readonly string[]} QueryParam */

/**
 * `?a=1&b=x` of the defined parameters (lists repeat their key), or '' when there is none.
 * @param {Readonly<Record<string, QueryParam>>} params
 * @returns {string}
 */
export function queryString(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    if (typeof value === 'object') for (const item of value) search.append(key, item);
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * @param {string} name a resource name, e.g. projects/p/regions/eu/devices/gw-1
 * @param {string} [verb] a custom method, e.g. reboot
 * @returns {string} /v1/{name} or /v1/{name}:{verb}
 */
export function resourcePath(name, verb) {
  return `/v1/${encodeName(name)}${verb === undefined ? '' : `:${verb}`}`;
}

/**
 * @param {string} parent '' for top-level collections such as osVersions
 * @param {string} plural
 * @returns {string}
 */
export function collectionPath(parent, plural) {
  return parent === '' ? `/v1/${plural}` : `/v1/${encodeName(parent)}/${plural}`;
}

/**
 * @param {string} name
 * @returns {boolean} whether it is a device name projects/{p}/regions/{r}/devices/{d}
 */
export function isDeviceName(name) {
  return DEVICE_NAME.test(name);
}

/**
 * A devices parent as the user typed it (spaces and slashes trimmed), or an error message.
 * @param {string} text e.g. "projects/p/regions/-"
 * @returns {{ parent: string } | { error: string }}
 */
export function parseParent(text) {
  const parent = text.trim().replace(/^\/+|\/+$/g, '');
  if (!PARENT.test(parent)) return { error: `"${parent}" is not projects/{project}/regions/{region or -}` };
  return { parent };
}

/**
 * `projects/p/regions/r` of any regional resource name.
 * @param {string} name
 * @returns {string}
 */
export function regionOf(name) {
  return name.split('/').slice(0, 4).join('/');
}

/**
 * The last segment of a name: the id.
 * @param {string} name
 * @returns {string}
 */
export function idOf(name) {
  return name.slice(name.lastIndexOf('/') + 1);
}
