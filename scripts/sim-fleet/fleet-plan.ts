/** Which simulated devices a fleet has and which of them misbehave: a pure function of the flags and a seed. */

export interface FleetShape {
  parent: string;
  count: number;
  /** device ids are `<prefix>-<n>`, n zero-padded from 0 */
  prefix: string;
  /** devices that fail to boot a new version, fail their health check after it, and are offline */
  failBoot: number;
  failHealth: number;
  offline: number;
  /** label `site` cycles through site-1 ... site-<sites> (0: no label) */
  sites: number;
  seed: number;
}

export interface PlannedDevice {
  name: string;
  labels: Record<string, string>;
  failBoot: boolean;
  failHealthAfterUpgrade: boolean;
  offline: boolean;
}

/** A count of devices from `N%` of `total` (rounded) or a plain `N`; refuses what is not a share of `total`. */
export function parseShare(text: string, total: number, flag: string): number {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  const count = percent ? Math.round((Number(percent[1]) / 100) * total) : Number(text.trim());
  if (!/^\d+(?:\.\d+)?%?$/.test(text.trim()) || !Number.isSafeInteger(count) || count > total) {
    throw new Error(`${flag} must be a count of devices up to ${total} or a percentage such as 5%, not "${text}"`);
  }
  return count;
}

/**
 * The devices of the fleet: each misbehaves in at most one way, and which ones is a shuffle by `seed`, so the same
 * flags give the same fleet.
 */
export function planFleet(shape: FleetShape): PlannedDevice[] {
  const troubled = shape.failBoot + shape.failHealth + shape.offline;
  if (troubled > shape.count) {
    throw new Error(`${troubled} misbehaving devices asked for, but the fleet has only ${shape.count}`);
  }
  const order = shuffled(shape.count, shape.seed);
  const role = new Array<'failBoot' | 'failHealth' | 'offline' | undefined>(shape.count);
  let next = 0;
  for (const [kind, n] of [
    ['failBoot', shape.failBoot],
    ['failHealth', shape.failHealth],
    ['offline', shape.offline],
  ] as const) {
    for (let i = 0; i < n; i++) role[order[next++]!] = kind;
  }
  const width = Math.max(4, String(shape.count - 1).length);
  return Array.from({ length: shape.count }, (_, i): PlannedDevice => ({
    name: `${shape.parent}/devices/${shape.prefix}-${String(i).padStart(width, '0')}`,
    labels: shape.sites > 0 ? { site: `site-${(i % shape.sites) + 1}` } : {},
    failBoot: role[i] === 'failBoot',
    failHealthAfterUpgrade: role[i] === 'failHealth',
    offline: role[i] === 'offline',
  }));
}

/** 0 .. n-1 in an order fixed by `seed` (Fisher-Yates over mulberry32). */
function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
