/**
 * The dashboard's calls to the REST API, one method per operation, with no DOM: the fetch function is passed in
 * (the browser's, or Node's in the tests). Every call carries `Authorization: Bearer <key>`; a failure throws a
 * DashboardApiError holding the server's status and message.
 */
import { DashboardApiError, isObject, parseApiError, unreachable } from './errors.js';
import { namedChecks } from './health-check-form.js';
import { collectionPath, idOf, queryString, regionOf, resourcePath } from './paths.js';

/**
 * @typedef {object} FetchAnswer
 * @property {boolean} ok
 * @property {number} status
 * @property {() => Promise<string>} text
 */
/**
 * @typedef {(url: string, init: { method: string, headers: Record<string, string>, body?: string }) => Promise<FetchAnswer>} FetchLike
 */
/** @typedef {Record<string, unknown> & { name: string }} Resource */
/** @typedef {{ items: Resource[], nextPageToken: string }} Page */

/**
 * @param {string} apiKey
 * @returns {Record<string, string>} the Authorization header of an API key
 */
export function authHeaders(apiKey) {
  return { authorization: `Bearer ${apiKey}` };
}

export class DashboardClient {
  /**
   * @param {{ apiKey: string, fetch: FetchLike, server?: string }} options `server` '' (the default) is the
   *   dashboard's own origin
   */
  constructor(options) {
    /** @private */
    this.apiKey = options.apiKey;
    /** @private */
    this.fetchImpl = options.fetch;
    /** @private */
    this.server = (options.server ?? '').replace(/\/+$/, '');
  }

  /**
   * One JSON call; resolves to the answer's object ({} for an empty answer).
   * @param {'GET' | 'POST' | 'PUT' | 'DELETE'} method
   * @param {string} path beginning with /v1/, query included
   * @param {unknown} [body]
   * @returns {Promise<Record<string, unknown>>}
   */
  async request(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json', ...authHeaders(this.apiKey) };
    /** @type {{ method: string, headers: Record<string, string>, body?: string }} */
    const init = { method, headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const doing = `${method} ${path.split('?')[0]}`;
    const send = this.fetchImpl; // called unbound: the browser's fetch refuses another `this`
    /** @type {FetchAnswer} */
    let answer;
    /** @type {string} */
    let text;
    try {
      answer = await send(`${this.server}${path}`, init);
      text = await answer.text();
    } catch (err) {
      throw unreachable(doing, err);
    }
    if (!answer.ok) throw parseApiError(answer.status, text);
    if (text.trim() === '') return {};
    /** @type {unknown} */
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new DashboardApiError('INTERNAL', answer.status, `${doing} answered with malformed JSON`);
    }
    if (!isObject(parsed)) throw new DashboardApiError('INTERNAL', answer.status, `${doing} answered with no object`);
    return parsed;
  }

  /**
   * One page of a collection.
   * @param {string} parent
   * @param {string} plural
   * @param {Record<string, import('./paths.js').QueryParam>} [query]
   * @returns {Promise<Page>}
   */
  async list(parent, plural, query = {}) {
    const answer = await this.request('GET', collectionPath(parent, plural) + queryString(query));
    const items = answer[plural];
    const next = answer['nextPageToken'];
    return {
      items: Array.isArray(items) ? items.filter(isResource) : [],
      nextPageToken: typeof next === 'string' ? next : '',
    };
  }

  /**
   * @param {string} parent projects/{p}/regions/{r or -}
   * @param {string} [pageToken]
   * @returns {Promise<Page>}
   */
  listDevices(parent, pageToken) {
    return this.list(parent, 'devices', {
      pageToken,
      pageSize: 50,
      fieldMask: 'spec.osVersion,status.deviceInfo.osVersion,status.connectionStatus,status.conditions',
    });
  }

  /**
   * @param {string} name
   * @returns {Promise<Resource>}
   */
  async get(name) {
    const answer = await this.request('GET', resourcePath(name));
    if (!isResource(answer)) throw new DashboardApiError('INTERNAL', 200, `GET ${name} answered with no name`);
    return answer;
  }

  /**
   * The published OS versions, of one device type when given (deviceTypes/{id}), every page.
   * @param {string} [deviceType]
   * @returns {Promise<Resource[]>}
   */
  async listOsVersions(deviceType) {
    /** @type {Resource[]} */
    const all = [];
    let pageToken = '';
    const filter = deviceType === undefined || deviceType === '' ? undefined : `deviceType = ${quote(deviceType)}`;
    do {
      const page = await this.list('', 'osVersions', { filter, pageToken, pageSize: 1000, view: 'BASIC' });
      all.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    return all;
  }

  /**
   * Writes spec.osVersion alone (the server refuses an unpublished version with FAILED_PRECONDITION).
   * @param {string} device
   * @param {string} version
   * @returns {Promise<Record<string, unknown>>} the updated device
   */
  setOsVersion(device, version) {
    return this.request('PUT', resourcePath(device) + queryString({ updateMask: 'spec.osVersion' }), {
      name: device,
      spec: { osVersion: version },
    });
  }

  /**
   * @param {string} device
   * @param {'reboot' | 'shutdown'} action
   * @returns {Promise<Record<string, unknown>>}
   */
  power(device, action) {
    return this.request('POST', resourcePath(device, action), {});
  }

  /**
   * The pods (applications) that run on a device, every page.
   * @param {string} device
   * @returns {Promise<Resource[]>}
   */
  async listPods(device) {
    /** @type {Resource[]} */
    const all = [];
    let pageToken = '';
    do {
      const page = await this.list(regionOf(device), 'pods', {
        filter: `spec.node = ${quote(device)}`,
        pageToken,
        pageSize: 1000,
      });
      all.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    return all;
  }

  /**
   * @param {string} pod
   * @returns {Promise<Record<string, unknown>>}
   */
  restartPod(pod) {
    return this.request('POST', resourcePath(pod, 'restart'), {});
  }

  /**
   * The health checks of a region, every page.
   * @param {string} region projects/{p}/regions/{r}
   * @returns {Promise<Resource[]>}
   */
  async listHealthChecks(region) {
    /** @type {Resource[]} */
    const all = [];
    let pageToken = '';
    do {
      const page = await this.list(region, 'healthChecks', { pageToken, pageSize: 1000 });
      all.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    return all;
  }

  /**
   * @param {string} region
   * @param {Record<string, unknown>} check the resource (its name gives its id)
   * @returns {Promise<Record<string, unknown>>}
   */
  createHealthCheck(region, check) {
    return this.request('POST', collectionPath(region, 'healthChecks'), check);
  }

  /**
   * Replaces a health check (its whole spec, as the form holds it).
   * @param {Record<string, unknown>} check the resource, its name included
   * @returns {Promise<Record<string, unknown>>}
   */
  replaceHealthCheck(check) {
    return this.request('PUT', resourcePath(String(check['name'])), check);
  }

  /**
   * @param {string} name
   * @returns {Promise<Record<string, unknown>>}
   */
  deleteHealthCheck(name) {
    return this.request('DELETE', resourcePath(name));
  }

  /**
   * Replaces the device's spec.healthChecks (the checks it names besides those whose selector picks it).
   * @param {string} device
   * @param {readonly string[]} checks health check names
   * @returns {Promise<Record<string, unknown>>}
   */
  setDeviceHealthChecks(device, checks) {
    return this.request('PUT', resourcePath(device) + queryString({ updateMask: 'spec.healthChecks' }), {
      name: device,
      spec: { healthChecks: [...checks] },
    });
  }
}

/**
 * Creates a health check in the device's region; `forThisDevice` also names it in the device's
 * spec.healthChecks (a check without a selector runs only on the devices that name it).
 * @param {DashboardClient} client
 * @param {string} device
 * @param {Record<string, unknown>} check
 * @param {boolean} forThisDevice
 * @returns {Promise<Record<string, unknown>>} the created check
 */
export async function defineHealthCheck(client, device, check, forThisDevice) {
  const created = await client.createHealthCheck(regionOf(device), check);
  if (forThisDevice) {
    const current = await client.get(device);
    await client.setDeviceHealthChecks(device, [...namedChecks(current), String(created['name'])]);
  }
  return created;
}

/**
 * Deletes a health check and drops it from the device's spec.healthChecks when the device names it.
 * @param {DashboardClient} client
 * @param {string} device
 * @param {string} check
 */
export async function removeHealthCheck(client, device, check) {
  await client.deleteHealthCheck(check);
  const named = namedChecks(await client.get(device));
  const kept = named.filter((n) => n !== check && n !== idOf(check));
  if (kept.length !== named.length) await client.setDeviceHealthChecks(device, kept);
}

/**
 * A string literal of the filter language.
 * @param {string} value
 * @returns {string}
 */
export function quote(value) {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * @param {unknown} value
 * @returns {value is Resource}
 */
function isResource(value) {
  return isObject(value) && typeof value['name'] === 'string';
}
