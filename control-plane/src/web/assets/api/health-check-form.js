/**
 * The "define health check" form of the dashboard, as data: the fields the user filled in become a HealthCheck
 * resource (`projects/{p}/regions/{r}/healthChecks/{id}`, the same shape `outpost devices create health-check`
 * sends), and a stored check is summed up in one line.
 */
import { isObject } from './errors.js';
import { idOf, regionOf } from './paths.js';

export const CHECK_TYPES = /** @type {const} */ (['HTTP', 'TCP', 'GRPC', 'ICMP', 'COMMAND', 'DEVICE_FILE']);
export const HTTP_METHODS = /** @type {const} */ (['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
export const DEVICE_FILE_TYPES = /** @type {const} */ ([
  'FILE',
  'DIRECTORY',
  'CHARACTER_DEVICE',
  'BLOCK_DEVICE',
  'SOCKET',
  'SYMLINK',
]);
const ID = /^[a-z][a-z0-9-]{0,28}[a-z0-9]$/;

/**
 * What the form holds, every field as typed (empty when not filled in).
 * @typedef {object} HealthCheckFields
 * @property {string} id
 * @property {string} type one of CHECK_TYPES
 * @property {string} [url] HTTP
 * @property {string} [method] HTTP: GET (default) or another of HTTP_METHODS
 * @property {string} [expectedStatusMin] HTTP: the lowest healthy status (default 200)
 * @property {string} [expectedStatusMax] HTTP: the highest healthy status (default 399)
 * @property {string} [bodyContains] HTTP: a text the body must hold
 * @property {string} [host] TCP, GRPC, ICMP
 * @property {string} [port] TCP, GRPC
 * @property {string} [grpcService] GRPC: the service asked about ('' the server as a whole)
 * @property {boolean} [grpcTls] GRPC: over TLS
 * @property {string} [command] COMMAND: the program and its arguments, separated by spaces
 * @property {boolean} [runAsRoot] COMMAND: as root instead of the workload user
 * @property {string} [path] DEVICE_FILE
 * @property {string} [fileType] DEVICE_FILE: one of DEVICE_FILE_TYPES ('' any)
 * @property {string} [intervalSeconds]
 * @property {string} [timeoutSeconds]
 * @property {string} [successThreshold] results in a row that make it pass (1 to 100)
 * @property {string} [failureThreshold] results in a row that make it fail (1 to 100)
 * @property {'device' | 'labels' | 'all'} appliesTo this device (named in its spec.healthChecks), devices with
 *   labels, or every device of the region
 * @property {string} [labels] key=value pairs separated by commas
 */

/**
 * The HealthCheck resource the form describes, or what is wrong with it.
 * @param {string} device the device the form was opened on (the check is created in its region)
 * @param {HealthCheckFields} fields
 * @returns {{ check: Record<string, unknown> } | { error: string }}
 */
export function healthCheckFromForm(device, fields) {
  const id = fields.id.trim();
  if (!ID.test(id)) return { error: `id "${id}" must match [a-z][a-z0-9-]{0,28}[a-z0-9]` };
  const type = CHECK_TYPES.find((t) => t === fields.type);
  if (type === undefined) return { error: `type must be one of ${CHECK_TYPES.join(', ')}` };
  const probe = probeOf(type, fields);
  if ('error' in probe) return probe;
  /** @type {Record<string, unknown>} */
  const spec = { type, ...probe.settings };
  for (const key of /** @type {const} */ (['intervalSeconds', 'timeoutSeconds'])) {
    const text = (fields[key] ?? '').trim();
    if (text === '') continue;
    const seconds = Number(text);
    if (!(seconds > 0)) return { error: `${key} must be a positive number of seconds` };
    spec[key] = seconds;
  }
  for (const key of /** @type {const} */ (['successThreshold', 'failureThreshold'])) {
    const text = (fields[key] ?? '').trim();
    if (text === '') continue;
    const count = Number(text);
    if (!Number.isInteger(count) || count < 1 || count > 100)
      return { error: `${key} must be a whole number from 1 to 100` };
    spec[key] = count;
  }
  if (fields.appliesTo === 'all') spec['selector'] = { matchLabels: {} };
  if (fields.appliesTo === 'labels') {
    const labels = parseLabels(fields.labels ?? '');
    if ('error' in labels) return labels;
    spec['selector'] = { matchLabels: labels.labels };
  }
  return { check: { name: `${regionOf(device)}/healthChecks/${id}`, spec } };
}

/**
 * @param {(typeof CHECK_TYPES)[number]} type
 * @param {HealthCheckFields} fields
 * @returns {{ settings: Record<string, unknown> } | { error: string }}
 */
function probeOf(type, fields) {
  const text = (/** @type {string | undefined} */ value) => (value ?? '').trim();
  const need = (/** @type {string | undefined} */ value, /** @type {string} */ what) =>
    text(value) === '' ? `a ${type} check needs ${what}` : undefined;
  const port = () => {
    const n = Number(text(fields.port));
    return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
  };
  switch (type) {
    case 'HTTP': {
      const missing = need(fields.url, 'a URL');
      if (missing) return { error: missing };
      /** @type {Record<string, unknown>} */
      const http = { url: text(fields.url) };
      const method = text(fields.method);
      if (method !== '' && method !== 'GET') {
        if (!HTTP_METHODS.some((m) => m === method))
          return { error: `method must be one of ${HTTP_METHODS.join(', ')}` };
        http['method'] = method;
      }
      const min = text(fields.expectedStatusMin);
      const max = text(fields.expectedStatusMax);
      if (min !== '' || max !== '') {
        const low = Number(min || '200');
        const high = Number(max || '399');
        const valid = (/** @type {number} */ n) => Number.isInteger(n) && n >= 100 && n <= 599;
        if (!valid(low) || !valid(high) || low > high) {
          return { error: 'the expected status is a range of HTTP statuses from 100 to 599, lowest first' };
        }
        http['expectedStatus'] = { min: low, max: high };
      }
      if (text(fields.bodyContains) !== '') http['bodyContains'] = text(fields.bodyContains);
      return { settings: { http } };
    }
    case 'TCP':
    case 'GRPC': {
      const missing = need(fields.host, 'a host');
      if (missing) return { error: missing };
      const number = port();
      if (number === undefined) return { error: `a ${type} check needs a port from 1 to 65535` };
      if (type === 'TCP') return { settings: { tcp: { host: text(fields.host), port: number } } };
      /** @type {Record<string, unknown>} */
      const grpc = { host: text(fields.host), port: number };
      if (text(fields.grpcService) !== '') grpc['service'] = text(fields.grpcService);
      if (fields.grpcTls === true) grpc['tls'] = true;
      return { settings: { grpc } };
    }
    case 'ICMP': {
      const missing = need(fields.host, 'a host');
      return missing ? { error: missing } : { settings: { icmp: { host: text(fields.host) } } };
    }
    case 'COMMAND': {
      const argv = text(fields.command).split(/\s+/).filter(Boolean);
      if (argv.length === 0) return { error: 'a COMMAND check needs a command' };
      return { settings: { command: fields.runAsRoot === true ? { argv, runAsRoot: true } : { argv } } };
    }
    case 'DEVICE_FILE': {
      const path = text(fields.path);
      if (!path.startsWith('/')) return { error: 'a DEVICE_FILE check needs an absolute path' };
      const fileType = text(fields.fileType);
      if (fileType === '') return { settings: { deviceFile: { path } } };
      if (!DEVICE_FILE_TYPES.some((t) => t === fileType)) {
        return { error: `the file type must be one of ${DEVICE_FILE_TYPES.join(', ')}` };
      }
      return { settings: { deviceFile: { path, type: fileType } } };
    }
  }
  return { error: `unknown type ${String(type)}` };
}

/**
 * `role=gateway, site=x` as an object.
 * @param {string} text
 * @returns {{ labels: Record<string, string> } | { error: string }}
 */
export function parseLabels(text) {
  /** @type {Record<string, string>} */
  const labels = {};
  for (const pair of text.split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) return { error: `label "${pair}" must be key=value` };
    labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  if (Object.keys(labels).length === 0) return { error: 'give at least one label key=value' };
  return { labels };
}

/**
 * One line about a stored check: its type and target.
 * @param {Record<string, unknown>} check
 * @returns {string}
 */
export function describeCheck(check) {
  const spec = isObject(check['spec']) ? check['spec'] : {};
  const type = String(spec['type'] ?? '?');
  const member = Object.values(spec).find((v) => isObject(v) && v !== spec['selector']);
  const target = isObject(member)
    ? [member['url'], member['host'], member['port'], member['path'], member['argv']]
        .filter((v) => v !== undefined)
        .map((v) => (Array.isArray(v) ? v.join(' ') : String(v)))
        .join(' ')
    : '';
  return `${type} ${target}`.trim();
}

/**
 * Which devices the check applies to, in words.
 * @param {Record<string, unknown>} check
 * @returns {string}
 */
export function describeSelector(check) {
  const spec = isObject(check['spec']) ? check['spec'] : {};
  const selector = spec['selector'];
  if (!isObject(selector)) return 'devices that name it';
  const labels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length === 0 ? 'every device of the region' : `devices labelled ${pairs.join(', ')}`;
}

/**
 * Whether the device runs the check (the control plane's rule: it names it, or the selector picks it).
 * @param {Record<string, unknown>} check
 * @param {Record<string, unknown>} device
 * @returns {boolean}
 */
export function checkAppliesTo(check, device) {
  const checkName = String(check['name']);
  if (regionOf(checkName) !== regionOf(String(device['name']))) return false;
  if (namedChecks(device).some((n) => n === checkName || n === idOf(checkName))) return true;
  const spec = isObject(check['spec']) ? check['spec'] : {};
  const selector = spec['selector'];
  if (!isObject(selector)) return false;
  const wanted = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  const metadata = isObject(device['metadata']) ? device['metadata'] : {};
  const labels = isObject(metadata['labels']) ? metadata['labels'] : {};
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

/**
 * The checks the device names in spec.healthChecks.
 * @param {Record<string, unknown>} device
 * @returns {string[]}
 */
export function namedChecks(device) {
  const spec = isObject(device['spec']) ? device['spec'] : {};
  const named = spec['healthChecks'];
  return Array.isArray(named) ? named.filter((n) => typeof n === 'string') : [];
}

/**
 * The form's fields of a stored check (to edit it): the inverse of healthCheckFromForm.
 * @param {Record<string, unknown>} check
 * @returns {HealthCheckFields}
 */
export function fieldsFromCheck(check) {
  const spec = isObject(check['spec']) ? check['spec'] : {};
  const member = (/** @type {string} */ key) => (isObject(spec[key]) ? spec[key] : {});
  const str = (/** @type {unknown} */ v) => (v === undefined || v === null ? '' : String(v));
  const http = member('http');
  const status = isObject(http['expectedStatus']) ? http['expectedStatus'] : {};
  const probe = { ...member('tcp'), ...member('grpc'), ...member('icmp') };
  const grpc = member('grpc');
  const command = member('command');
  const file = member('deviceFile');
  const selector = isObject(spec['selector']) ? spec['selector'] : undefined;
  const labels = selector && isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`);
  return {
    id: idOf(String(check['name'])),
    type: str(spec['type']),
    url: str(http['url']),
    method: str(http['method']) || 'GET',
    expectedStatusMin: str(status['min']),
    expectedStatusMax: str(status['max']),
    bodyContains: str(http['bodyContains']),
    host: str(probe['host']),
    port: str(probe['port']),
    grpcService: str(grpc['service']),
    grpcTls: grpc['tls'] === true,
    command: Array.isArray(command['argv']) ? command['argv'].map(String).join(' ') : '',
    runAsRoot: command['runAsRoot'] === true,
    path: str(file['path']),
    fileType: str(file['type']),
    intervalSeconds: str(spec['intervalSeconds']),
    timeoutSeconds: str(spec['timeoutSeconds']),
    successThreshold: str(spec['successThreshold']),
    failureThreshold: str(spec['failureThreshold']),
    appliesTo: selector === undefined ? 'device' : pairs.length === 0 ? 'all' : 'labels',
    labels: pairs.join(', '),
  };
}
