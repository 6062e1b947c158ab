import type { ConfigProblem } from '../config-problem.js';
import { ProblemList, quoted } from '../config-problem.js';
import { isMapping, MappingReader } from './mapping-reader.js';
import { readBond, readBridge, readEthernet, readVlan, readWifi } from './netplan-interfaces.js';
import type { NetplanCommon, NetplanConfig } from './netplan-model.js';
import { NETPLAN_RENDERERS } from './netplan-model.js';
import { interfaceNameProblem, matchedIdProblem } from './netplan-values.js';
import { parseYamlTree } from './yaml-tree.js';

export type NetplanParse = { ok: true; config: NetplanConfig } | { ok: false; problems: ConfigProblem[] };

const KINDS = ['ethernets', 'wifis', 'bonds', 'bridges', 'vlans'] as const;
type Kind = (typeof KINDS)[number];
const MAX_INTERFACES = 64;

/**
 * Parses netplan YAML (`network:` with version 2) and checks it against netplan's format for what Outpost
 * supports: ethernets, wifis, bonds, bridges and vlans with their main keys, and the references between them.
 */
export function parseNetplan(text: string): NetplanParse {
  const tree = parseYamlTree(text);
  if (!tree.ok) return tree;
  const problems = new ProblemList();
  if (!isMapping(tree.value) || !tree.value.has('network')) {
    return { ok: false, problems: [{ path: '', message: 'needs a top-level "network" mapping' }] };
  }
  const root = new MappingReader('', tree.value, problems);
  const network = root.child('network');
  root.finish();
  if (network === undefined) return { ok: false, problems: problems.problems };

  const version = network.raw('version');
  if (version === undefined) problems.add(network.path, 'needs "version: 2"');
  else if (version !== 2) problems.add(network.pathOf('version'), 'only version 2 is supported');
  const config: NetplanConfig = { ethernets: [], wifis: [], bonds: [], bridges: [], vlans: [] };
  const renderer = network.oneOf('renderer', NETPLAN_RENDERERS);
  if (renderer !== undefined) config.renderer = renderer;
  const kindOf = new Map<string, Kind>();
  for (const kind of KINDS) {
    const group = network.child(kind);
    if (group === undefined) continue;
    for (const id of group.keys().slice(0, MAX_INTERFACES)) {
      const reader = MappingReader.of(group.raw(id) ?? null, group.pathOf(id), problems);
      if (reader === undefined) continue;
      if (kindOf.has(id)) problems.add(reader.path, `id is already defined under ${kindOf.get(id)}`);
      kindOf.set(id, kind);
      readInterface(config, kind, reader, id);
      reader.finish();
    }
    if (group.keys().length > MAX_INTERFACES) problems.add(group.path, `holds more than ${MAX_INTERFACES} interfaces`);
    group.finish();
  }
  network.finish();
  checkReferences(config, kindOf, problems);
  return problems.empty ? { ok: true, config } : { ok: false, problems: problems.problems };
}

function readInterface(config: NetplanConfig, kind: Kind, reader: MappingReader, id: string): void {
  // a matched physical interface's id is only a label; every other id is the interface's name
  const named = !((kind === 'ethernets' || kind === 'wifis') && reader.raw('match') !== undefined);
  const idProblem = named ? interfaceNameProblem(id) : matchedIdProblem(id);
  if (idProblem !== undefined) reader.problems.add(reader.path, `id ${idProblem}`);
  switch (kind) {
    case 'ethernets':
      config.ethernets.push(readEthernet(reader, id));
      return;
    case 'wifis':
      config.wifis.push(readWifi(reader, id));
      return;
    case 'bonds':
      config.bonds.push(readBond(reader, id));
      return;
    case 'bridges':
      config.bridges.push(readBridge(reader, id));
      return;
    case 'vlans':
      config.vlans.push(readVlan(reader, id));
      return;
  }
}

/** Bonds and bridges name defined interfaces, each at most once; vlans ride on a defined interface. */
function checkReferences(config: NetplanConfig, kindOf: ReadonlyMap<string, Kind>, problems: ProblemList): void {
  const memberOf = new Map<string, string>();
  const checkMembers = (group: 'bonds' | 'bridges', list: { id: string; interfaces: string[] }[], may: Kind[]) => {
    for (const { id, interfaces } of list) {
      interfaces.forEach((member, i) => {
        const path = `network.${group}.${id}.interfaces[${i}]`;
        const kind = kindOf.get(member);
        if (kind === undefined || !may.includes(kind)) {
          problems.add(path, `${quoted(member)} is not defined under ${may.join(' or ')}`);
        } else if (memberOf.has(member)) {
          problems.add(path, `${quoted(member)} is already an interface of ${memberOf.get(member)}`);
        } else {
          memberOf.set(member, id);
        }
      });
    }
  };
  checkMembers('bonds', config.bonds, ['ethernets']);
  checkMembers('bridges', config.bridges, ['ethernets', 'bonds', 'vlans']);
  const vlanIds = new Map<string, string>();
  for (const vlan of config.vlans) {
    const kind = kindOf.get(vlan.link);
    if (vlan.link !== '' && (kind === undefined || kind === 'vlans' || kind === 'wifis')) {
      problems.add(
        `network.vlans.${vlan.id}.link`,
        `${quoted(vlan.link)} is not defined under ethernets, bonds or bridges`,
      );
    }
    const key = `${vlan.link}/${vlan.vlanId}`;
    const other = vlanIds.get(key);
    if (other !== undefined)
      problems.add(`network.vlans.${vlan.id}.id`, `${vlan.vlanId} on ${vlan.link} is already ${other}`);
    vlanIds.set(key, vlan.id);
  }
}

/** Every interface of a configuration, of whatever kind. */
export function allInterfaces(config: NetplanConfig): NetplanCommon[] {
  return [...config.ethernets, ...config.wifis, ...config.bonds, ...config.bridges, ...config.vlans];
}
