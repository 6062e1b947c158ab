import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

// The netplan subset Outpost applies (version 2: ethernets, wifis, bonds, bridges, vlans; addresses, routes,
// nameservers, dhcp). Anything else is refused with its path, so that the netplan file and the systemd-networkd
// files rendered from the same model always mean the same thing. No value may hold a line break: the
// systemd-networkd files are line-based.

const MAX_INTERFACES = 64;
const MAX_LIST = 64;

/** An interface id: a file name part and (without `match`) the interface's name. */
const interfaceId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/, 'must be a plain interface id');
/** A Linux interface name: at most 15 characters. */
const interfaceName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/, 'must be an interface name (≤ 15 characters)');
const macAddress = z.string().regex(/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/, 'must be a MAC address');

const ipAddress = z.string().refine((value) => isIP(value) !== 0, 'must be an IP address');
const cidr = z.string().refine(isCidr, 'must be an address with a prefix length (CIDR), e.g. 192.168.1.10/24');
const routeTarget = z.string().refine((value) => value === 'default' || isCidr(value), 'must be "default" or a CIDR');
const domain = z.string().regex(/^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,252})$/, 'must be a domain name');

export function isCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

const routeSchema = z.strictObject({
  to: routeTarget,
  via: ipAddress.optional(),
  metric: z.int().min(0).max(4_294_967_295).optional(),
  'on-link': z.boolean().optional(),
});

const nameserversSchema = z.strictObject({
  addresses: z.array(ipAddress).max(MAX_LIST).optional(),
  search: z.array(domain).max(MAX_LIST).optional(),
});

/** What every kind of interface may set. */
const common = {
  dhcp4: z.boolean().optional(),
  dhcp6: z.boolean().optional(),
  addresses: z.array(cidr).max(MAX_LIST).optional(),
  gateway4: ipAddress.optional(),
  gateway6: ipAddress.optional(),
  routes: z.array(routeSchema).max(MAX_LIST).optional(),
  nameservers: nameserversSchema.optional(),
  mtu: z.int().min(68).max(65_535).optional(),
  macaddress: macAddress.optional(),
  optional: z.boolean().optional(),
};

const matchSchema = z.strictObject({ name: interfaceName.optional(), macaddress: macAddress.optional() });

const ethernetSchema = z.strictObject({ ...common, match: matchSchema.optional() });

const wifiSchema = z.strictObject({
  ...common,
  match: matchSchema.optional(),
  'access-points': z
    .record(z.string().min(1).max(32), z.strictObject({ password: z.string().min(8).max(63).optional() }))
    .refine((points) => Object.keys(points).length <= MAX_LIST, `must have at most ${MAX_LIST} access points`),
});

const bondSchema = z.strictObject({
  ...common,
  interfaces: z.array(interfaceId).max(MAX_LIST).optional(),
  parameters: z
    .strictObject({
      mode: z
        .enum(['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'])
        .optional(),
      'mii-monitor-interval': z.int().min(0).max(1_000_000).optional(),
      primary: interfaceId.optional(),
    })
    .optional(),
});

const bridgeSchema = z.strictObject({
  ...common,
  interfaces: z.array(interfaceId).max(MAX_LIST).optional(),
  parameters: z.strictObject({ stp: z.boolean().optional() }).optional(),
});

const vlanSchema = z.strictObject({ ...common, id: z.int().min(0).max(4094), link: interfaceId });

const section = <S extends z.ZodType>(schema: S) =>
  z
    .record(interfaceId, schema)
    .refine((entries) => Object.keys(entries).length <= MAX_INTERFACES, `must have at most ${MAX_INTERFACES} entries`)
    .optional();

export const netplanSchema = z.strictObject({
  network: z.strictObject({
    version: z.literal(2),
    renderer: z.enum(['networkd']).optional(),
    ethernets: section(ethernetSchema),
    wifis: section(wifiSchema),
    bonds: section(bondSchema),
    bridges: section(bridgeSchema),
    vlans: section(vlanSchema),
  }),
});

export type NetplanConfig = z.infer<typeof netplanSchema>;
export type NetplanNetwork = NetplanConfig['network'];
export type InterfaceSettings =
  z.infer<typeof ethernetSchema> | z.infer<typeof bondSchema> | z.infer<typeof vlanSchema>;
export type Route = z.infer<typeof routeSchema>;

export type ParsedNetplan = { ok: true; config: NetplanConfig } | { ok: false; error: string };

/** Parses and checks netplan YAML; the error names the path and the problem. */
export function parseNetplan(text: string): ParsedNetplan {
  let document: unknown;
  try {
    document = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    return {
      ok: false,
      error: `netplanYamlConfig is not valid YAML: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const parsed = netplanSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.join('.')}`;
    return { ok: false, error: `netplanYamlConfig${path}: ${issue?.message ?? 'is invalid'}` };
  }
  const references = checkReferences(parsed.data.network);
  return references === undefined ? { ok: true, config: parsed.data } : { ok: false, error: references };
}

/** Bond and bridge members and VLAN links must name interfaces of the same configuration (as netplan requires). */
function checkReferences(network: NetplanNetwork): string | undefined {
  const defined = new Set(
    [network.ethernets, network.wifis, network.bonds, network.bridges, network.vlans].flatMap((entries) =>
      Object.keys(entries ?? {}),
    ),
  );
  const owners = new Map<string, string>();
  for (const [kind, entries] of [
    ['bonds', network.bonds],
    ['bridges', network.bridges],
  ] as const) {
    for (const [id, settings] of Object.entries(entries ?? {})) {
      for (const member of settings.interfaces ?? []) {
        if (!defined.has(member)) return `netplanYamlConfig.network.${kind}.${id}.interfaces: ${member} is not defined`;
        const owner = owners.get(member);
        if (owner !== undefined)
          return `netplanYamlConfig.network.${kind}.${id}.interfaces: ${member} is already in ${owner}`;
        owners.set(member, id);
      }
    }
  }
  for (const [id, vlan] of Object.entries(network.vlans ?? {})) {
    if (!defined.has(vlan.link)) return `netplanYamlConfig.network.vlans.${id}.link: ${vlan.link} is not defined`;
  }
  return undefined;
}
