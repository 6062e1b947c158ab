/**
 * The panels of what a device reports, drawn from its document: each panel names the parts it shows, and
 * describeValue draws any of them (tables of fields, rows of lists and of named objects, units by field name), so a
 * field the agent starts reporting shows up without a change here. Only the OS slots and the configuration state
 * are read into rows of their own (api/device-view.js).
 */
import { configurationRows, field, slotRows } from '../api/device-view.js';
import { isObject } from '../api/errors.js';
import { h } from './dom.js';
import { describeValue } from './value-view.js';

/** @typedef {Record<string, unknown>} Doc */

/**
 * @param {unknown} value
 * @param {readonly string[]} keys
 * @returns {Doc | undefined} the object without those members (undefined when nothing is left)
 */
function without(value, keys) {
  if (!isObject(value)) return undefined;
  const kept = Object.entries(value).filter(([k, v]) => !keys.includes(k) && v !== undefined);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * @param {Record<string, unknown>} parts
 * @returns {unknown} the parts that are present (undefined when none is; the part itself when it is alone)
 */
function present(parts) {
  const kept = Object.entries(parts).filter(
    ([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '',
  );
  if (kept.length === 1) return kept[0]?.[1];
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/** @type {readonly { title: string, pick: (device: Doc) => unknown, render?: (value: unknown) => HTMLElement, wide?: boolean }[]} */
const PANELS = [
  {
    title: 'Hardware',
    pick: (d) => {
      const info = field(d, 'status.deviceInfo');
      const hardware = field(info, 'hardwareInformation');
      return present({
        ...without(info, ['networkInterfaces', 'usage', 'hardwareInformation', 'managedFeatures']),
        ...without(hardware, ['disks', 'fileSystems', 'temperature']),
      });
    },
  },
  {
    title: 'Disks and file systems',
    pick: (d) =>
      present({
        disks: field(d, 'status.deviceInfo.hardwareInformation.disks'),
        fileSystems: field(d, 'status.deviceInfo.hardwareInformation.fileSystems'),
        usage: field(d, 'status.deviceInfo.usage.storage'),
      }),
  },
  {
    title: 'Network interfaces',
    wide: true,
    pick: (d) =>
      present({ interfaces: field(d, 'status.deviceInfo.networkInterfaces'), addresses: field(d, 'status.addresses') }),
  },
  {
    title: 'Temperature and usage',
    pick: (d) =>
      present({
        ...without(field(d, 'status.deviceInfo.usage'), ['storage']),
        ...without(field(d, 'status.deviceInfo.hardwareInformation.temperature'), []),
      }),
  },
  {
    title: 'OS slots',
    pick: (d) => {
      const rows = slotRows(d);
      return present({
        slots: rows.length === 0 ? undefined : rows,
        ...without(field(d, 'status.osUpdate'), ['slots', 'runningSlot', 'activeSlot', 'trySlot', 'lastFailed']),
      });
    },
  },
  {
    title: 'Network and SSH configuration',
    wide: true,
    pick: (d) => {
      const rows = configurationRows(d);
      return present({
        state: rows.length === 0 ? undefined : rows,
        netplanYamlConfig: field(d, 'spec.netplanYamlConfig'),
        sshConfig: field(d, 'spec.sshConfig'),
        proxyConfig: field(d, 'spec.proxyConfig'),
      });
    },
    render: configuration,
  },
  { title: 'Hook runs', pick: (d) => field(d, 'status.hooks') },
  {
    title: 'Agent and maintenance',
    pick: (d) =>
      present({
        agent: field(d, 'status.agent'),
        managedFeatures: field(d, 'status.deviceInfo.managedFeatures'),
        maintenance: field(d, 'status.maintenance'),
        diskUnlock: field(d, 'status.diskUnlock'),
      }),
  },
];

/**
 * The panels with something to show, each a titled part of a grid, kept up to date with the device: a panel whose
 * part of the document did not change is kept as it is (an open "netplan YAML" stays open while metrics arrive).
 */
export class DevicePanels {
  constructor() {
    this.element = h('div', { class: 'reported' });
    /** @private @type {Map<string, { json: string, section: HTMLElement }>} */
    this.drawn = new Map();
  }

  /** @param {Doc} device */
  update(device) {
    /** @type {HTMLElement[]} */
    const sections = [];
    for (const { title, pick, render, wide } of PANELS) {
      const value = pick(device);
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      const json = JSON.stringify(value);
      let drawn = this.drawn.get(title);
      if (drawn?.json !== json) {
        const draw = render ?? ((/** @type {unknown} */ v) => describeValue(v));
        drawn = {
          json,
          section: h(
            'section',
            { class: wide ? 'panel wide' : 'panel', 'aria-label': title },
            h('h3', {}, title),
            draw(value),
          ),
        };
        this.drawn.set(title, drawn);
      }
      sections.push(drawn.section);
    }
    this.element.replaceChildren(
      ...(sections.length === 0 ? [h('p', { class: 'muted' }, 'Nothing reported yet.')] : sections),
    );
  }
}

/**
 * The configuration panel: netplan's YAML as written, the rest as any value.
 * @param {unknown} value
 * @returns {HTMLElement}
 */
function configuration(value) {
  // the panel's parts, or the one part present (the state rows, or the YAML alone)
  const yaml = typeof value === 'string' ? value : field(value, 'netplanYamlConfig');
  const rest =
    typeof value === 'string' ? undefined : Array.isArray(value) ? value : without(value, ['netplanYamlConfig']);
  return h(
    'div',
    {},
    rest ? describeValue(rest) : '',
    typeof yaml === 'string' ? h('details', {}, h('summary', {}, 'netplan YAML'), h('pre', {}, yaml)) : '',
  );
}
