import { childPath, quoted } from '../config-problem.js';
import { familyOf } from '../ip-address.js';
import { MappingReader } from './mapping-reader.js';
import type {
  NetplanAccessPoint,
  NetplanBond,
  NetplanBridge,
  NetplanCommon,
  NetplanEthernet,
  NetplanMatch,
  NetplanRoute,
  NetplanVlan,
  NetplanWifi,
} from './netplan-model.js';
import { BOND_MODES } from './netplan-model.js';
import {
  cidrProblem,
  domainProblem,
  interfaceNameProblem,
  ipProblem,
  ipv4Problem,
  ipv6Problem,
  macAddressProblem,
  printableProblem,
  routeTargetProblem,
} from './netplan-values.js';

const MAX_LIST = 64;

/** The keys every kind of interface may have. */
export function readCommon(reader: MappingReader, id: string): NetplanCommon {
  const nameservers = reader.child('nameservers');
  const common: NetplanCommon = {
    id,
    dhcp4: reader.boolean('dhcp4'),
    dhcp6: reader.boolean('dhcp6'),
    addresses: bounded(reader, 'addresses', reader.list('addresses', cidrProblem)),
    gateway4: reader.checked('gateway4', ipv4Problem),
    gateway6: reader.checked('gateway6', ipv6Problem),
    routes: readRoutes(reader),
    mtu: reader.integer('mtu', 68, 65_535),
    optional: reader.boolean('optional'),
    macaddress: reader.checked('macaddress', macAddressProblem),
  };
  if (nameservers !== undefined) {
    common.nameservers = {
      addresses: bounded(nameservers, 'addresses', nameservers.list('addresses', ipProblem)),
      search: bounded(nameservers, 'search', nameservers.list('search', domainProblem)),
    };
    nameservers.finish();
  }
  return withoutUndefined(common);
}

function readRoutes(reader: MappingReader): NetplanRoute[] {
  const value = reader.raw('routes');
  if (value === undefined) return [];
  const path = reader.pathOf('routes');
  if (!Array.isArray(value)) {
    reader.problems.add(path, 'must be a list');
    return [];
  }
  if (value.length > MAX_LIST) reader.problems.add(path, `holds more than ${MAX_LIST} routes`);
  const routes: NetplanRoute[] = [];
  value.slice(0, MAX_LIST).forEach((item, i) => {
    const route = MappingReader.of(item, childPath(path, i), reader.problems);
    if (route === undefined) return;
    const read = readRoute(route);
    route.finish();
    if (read !== undefined) routes.push(read);
  });
  return routes;
}

function readRoute(route: MappingReader): NetplanRoute | undefined {
  const to = route.checked('to', routeTargetProblem);
  const via = route.checked('via', ipProblem);
  const read = withoutUndefined({
    to: to ?? '',
    via,
    metric: route.integer('metric', 0, 4_294_967_295),
    onLink: route.boolean('on-link'),
  });
  if (route.raw('to') === undefined) route.problems.add(route.path, 'needs "to" (a CIDR block or default)');
  if (to === undefined) return undefined;
  const toFamily = to === 'default' ? undefined : familyOf(to);
  const viaFamily = via === undefined ? undefined : familyOf(via);
  if (toFamily !== undefined && viaFamily !== undefined && toFamily !== viaFamily) {
    route.problems.add(route.path, `"to" ${to} and "via" ${via} are not of the same IP family`);
  }
  return read;
}

function readMatch(reader: MappingReader): NetplanMatch | undefined {
  const match = reader.child('match');
  if (match === undefined) return undefined;
  const read = withoutUndefined({
    name: match.checked('name', interfaceNameProblem),
    macaddress: match.checked('macaddress', macAddressProblem),
  });
  match.finish();
  if (match.keys().length === 0) reader.problems.add(match.path, 'must name a name or a macaddress');
  return read;
}

export function readEthernet(reader: MappingReader, id: string): NetplanEthernet {
  // no set-name: renaming takes a systemd .link file the agent's networkd rendering does not write
  return withoutUndefined({ ...readCommon(reader, id), match: readMatch(reader) });
}

export function readWifi(reader: MappingReader, id: string): NetplanWifi {
  const ethernet = readEthernet(reader, id);
  const points = reader.child('access-points');
  const accessPoints: NetplanAccessPoint[] = [];
  if (points === undefined) reader.problems.add(reader.path, 'needs "access-points"');
  else {
    for (const ssid of points.keys().slice(0, MAX_LIST)) {
      const path = points.pathOf(ssid);
      const ssidProblem = printableProblem(ssid, 1, 32);
      if (ssidProblem !== undefined) reader.problems.add(path, `SSID ${ssidProblem}`);
      const point = MappingReader.of(points.raw(ssid) ?? null, path, reader.problems);
      if (point === undefined) continue;
      const password = point.checked('password', (text) => printableProblem(text, 8, 63));
      point.finish();
      accessPoints.push(password === undefined ? { ssid } : { ssid, password });
    }
    if (points.keys().length > MAX_LIST) reader.problems.add(points.path, `holds more than ${MAX_LIST} entries`);
    points.finish();
  }
  return { ...ethernet, accessPoints };
}

export function readBond(reader: MappingReader, id: string): NetplanBond {
  const common = readCommon(reader, id);
  const interfaces = bounded(reader, 'interfaces', reader.list('interfaces', interfaceNameProblem));
  const parameters = reader.child('parameters');
  const bond: NetplanBond = { ...common, interfaces, parameters: {} };
  if (parameters !== undefined) {
    bond.parameters = withoutUndefined({
      mode: parameters.oneOf('mode', BOND_MODES),
      miiMonitorInterval: parameters.integer('mii-monitor-interval', 0, 1_000_000),
      primary: parameters.checked('primary', interfaceNameProblem),
    });
    parameters.finish();
    const primary = bond.parameters.primary;
    if (primary !== undefined && !interfaces.includes(primary)) {
      reader.problems.add(parameters.pathOf('primary'), `${quoted(primary)} is not one of the bond's interfaces`);
    }
  }
  return bond;
}

export function readBridge(reader: MappingReader, id: string): NetplanBridge {
  const common = readCommon(reader, id);
  const interfaces = bounded(reader, 'interfaces', reader.list('interfaces', interfaceNameProblem));
  const parameters = reader.child('parameters');
  const bridge: NetplanBridge = { ...common, interfaces, parameters: {} };
  if (parameters !== undefined) {
    bridge.parameters = withoutUndefined({ stp: parameters.boolean('stp') });
    parameters.finish();
  }
  return bridge;
}

export function readVlan(reader: MappingReader, id: string): NetplanVlan {
  const common = readCommon(reader, id);
  const vlanId = reader.integer('id', 0, 4094);
  const link = reader.checked('link', interfaceNameProblem);
  if (reader.raw('id') === undefined) reader.problems.add(reader.path, 'needs "id" (0 to 4094)');
  if (reader.raw('link') === undefined) reader.problems.add(reader.path, 'needs "link" (the interface it rides on)');
  return { ...common, vlanId: vlanId ?? 0, link: link ?? '' };
}

function bounded<T>(reader: MappingReader, key: string, items: T[]): T[] {
  if (items.length > MAX_LIST) reader.problems.add(reader.pathOf(key), `holds more than ${MAX_LIST} entries`);
  return items.slice(0, MAX_LIST);
}

/** Optional members left out rather than present as undefined (exactOptionalPropertyTypes-friendly). */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
