/**
 * What the device screens show of a device and its pods, read out of the API's JSON with no DOM: the OS version
 * asked for (spec.osVersion) against the one running (status.deviceInfo.osVersion), Online/Offline, conditions.
 */
import { isObject } from './errors.js';
import { idOf } from './paths.js';

/**
 * @typedef {object} Condition
 * @property {string} type
 * @property {string} status True, False or Unknown
 * @property {string} reason
 * @property {string} message
 * @property {string} lastTransitionTime
 */
/**
 * @typedef {object} DeviceSummary
 * @property {string} name
 * @property {string} id
 * @property {string} wantedOsVersion spec.osVersion ('' when unset)
 * @property {string} runningOsVersion status.deviceInfo.osVersion ('' when not reported)
 * @property {string} retainedOsVersion the version in the A/B slot it does not run from, what a rollback boots
 *   (status.osUpdate.slots; '' when not reported)
 * @property {string} deviceType status.deviceInfo.deviceType as deviceTypes/{id} ('' when not reported)
 * @property {'Online' | 'Offline' | 'Never connected'} connection
 * @property {string} connectionSince
 * @property {Condition[]} conditions
 */

/**
 * @param {unknown} value
 * @param {string} path dotted
 * @returns {unknown}
 */
export function field(value, path) {
  let current = value;
  for (const key of path.split('.')) current = isObject(current) ? current[key] : undefined;
  return current;
}

/**
 * @param {unknown} value
 * @param {string} path
 * @returns {string} the string at the path, '' when absent
 */
function text(value, path) {
  const found = field(value, path);
  return typeof found === 'string' || typeof found === 'number' ? String(found) : '';
}

/**
 * @param {Record<string, unknown>} device
 * @returns {DeviceSummary}
 */
export function summarizeDevice(device) {
  const name = String(device['name']);
  const status = text(device, 'status.connectionStatus');
  const type = text(device, 'status.deviceInfo.deviceType');
  const conditions = field(device, 'status.conditions');
  return {
    name,
    id: idOf(name),
    wantedOsVersion: text(device, 'spec.osVersion'),
    runningOsVersion: text(device, 'status.deviceInfo.osVersion'),
    retainedOsVersion: retainedVersion(device),
    deviceType: type === '' || type.startsWith('deviceTypes/') ? type : `deviceTypes/${type}`,
    connection: status === 'CONNECTED' ? 'Online' : status === 'DISCONNECTED' ? 'Offline' : 'Never connected',
    connectionSince: text(device, 'status.connectionStatusChangeTime'),
    conditions: Array.isArray(conditions)
      ? conditions.map((c) => ({
          type: text(c, 'type'),
          status: text(c, 'status'),
          reason: text(c, 'reason'),
          message: text(c, 'message'),
          lastTransitionTime: text(c, 'lastTransitionTime'),
        }))
      : [],
  };
}

/**
 * @param {Record<string, unknown>} device
 * @returns {string} the version of the slot other than the running one ('' when unknown)
 */
function retainedVersion(device) {
  const running = text(device, 'status.osUpdate.runningSlot');
  const slots = field(device, 'status.osUpdate.slots');
  if (running === '' || !isObject(slots)) return '';
  const other = Object.entries(slots).find(([slot]) => slot !== running);
  return other ? text(other[1], 'version') : '';
}

/**
 * The OS line of the overview, e.g. "1.1.0 (running 1.0.0)" while an upgrade is under way.
 * @param {DeviceSummary} summary
 * @returns {string}
 */
export function osVersionLine(summary) {
  const wanted = summary.wantedOsVersion || '(not set)';
  const running = summary.runningOsVersion || 'not reported';
  return summary.wantedOsVersion !== '' && summary.wantedOsVersion === summary.runningOsVersion
    ? wanted
    : `${wanted} (running ${running})`;
}

/**
 * Semantic versions compared (pre-releases before their release), for ordering the catalog.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function compareVersions(a, b) {
  const parse = (/** @type {string} */ v) => {
    const [core = '', pre] = v.split('-', 2);
    return { parts: core.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/**
 * The versions to offer in the Edit detail choice: those of the catalog (one per version, newest first).
 * @param {readonly Record<string, unknown>[]} osVersions
 * @returns {{ version: string, channel: string, minimumPreviousVersion: string }[]}
 */
export function versionChoices(osVersions) {
  /** @type {Map<string, { version: string, channel: string, minimumPreviousVersion: string }>} */
  const byVersion = new Map();
  for (const os of osVersions) {
    const version = text(os, 'version');
    if (version === '' || byVersion.has(version)) continue;
    const channel = text(os, 'channel');
    byVersion.set(version, {
      version,
      channel: channel === 'CHANNEL_UNSPECIFIED' ? '' : channel,
      minimumPreviousVersion: text(os, 'minimumPreviousVersion'),
    });
  }
  return [...byVersion.values()].sort((a, b) => compareVersions(b.version, a.version));
}

/**
 * A pod as its row shows it: id, phase and its services' states.
 * @param {Record<string, unknown>} pod
 * @returns {{ name: string, id: string, phase: string, services: string }}
 */
export function summarizePod(pod) {
  const name = String(pod['name']);
  const statuses = field(pod, 'status.serviceStatuses');
  const declared = field(pod, 'spec.services');
  const services = Array.isArray(statuses)
    ? statuses.map((s) => `${text(s, 'name')}: ${text(s, 'state')}`)
    : Array.isArray(declared)
      ? declared.map((s) => text(s, 'name'))
      : [];
  return { name, id: idOf(name), phase: text(pod, 'status.phase') || 'PENDING', services: services.join(', ') };
}

/**
 * The device's A/B slots as rows: the version each holds and what it is to the bootloader (running now, the
 * committed one it returns to, the one it tries once on the next boot, one it gave up on; the slot not running
 * is the retained one, what a rollback boots).
 * @param {Record<string, unknown>} device
 * @returns {{ slot: string, version: string, role: string }[]}
 */
export function slotRows(device) {
  const update = field(device, 'status.osUpdate');
  const slots = field(update, 'slots');
  if (!isObject(slots)) return [];
  const running = text(update, 'runningSlot');
  return Object.keys(slots)
    .sort()
    .map((slot) => ({
      slot,
      version: text(slots[slot], 'version'),
      role: [
        slot === running ? 'running' : running !== '' ? 'retained' : '',
        slot === text(update, 'activeSlot') ? 'committed' : '',
        slot === text(update, 'trySlot') ? 'trial on the next boot' : '',
        slot === text(update, 'lastFailed') ? 'failed' : '',
      ]
        .filter(Boolean)
        .join(', '),
    }));
}

/**
 * Each configuration part the agent applies (network, ssh, proxy, logging) as a row: whether the spec's
 * configuration is in force, is being applied, or was fallen back from (the last known-good one or the
 * factory's restored), with the generations and the last error.
 * @param {Record<string, unknown>} device
 * @returns {{ part: string, state: string, generations: string, lastError: string, updateTime: string }[]}
 */
export function configurationRows(device) {
  const parts = field(device, 'status.configuration');
  if (!isObject(parts)) return [];
  return Object.entries(parts)
    .filter(([, status]) => isObject(status))
    .map(([part, status]) => {
      const desired = text(status, 'desiredGeneration');
      const applied = text(status, 'appliedGeneration');
      const source = text(status, 'source');
      const state =
        source === 'known-good'
          ? 'fallen back to the last known-good configuration'
          : source === 'factory'
            ? 'fallen back to the factory configuration'
            : applied !== '' && applied === desired
              ? 'applied'
              : 'being applied';
      return {
        part,
        state,
        generations: `${applied || 'none'} applied of ${desired}`,
        lastError: text(status, 'lastError'),
        updateTime: text(status, 'updateTime'),
      };
    });
}
