/**
 * `npx tsx scripts/sim-fleet.ts`: a simulated fleet against a running control plane (see --help and README.md,
 * "Simulated fleet"). Creates the devices it lacks, issues each a fresh credential, publishes the versions asked
 * for, and runs every device in this process until Ctrl-C.
 */
import { parseArgs } from 'node:util';
import { OutpostClient } from '@outpost/shared';
import { startSimFleet } from './sim-fleet/index.js';
import { parseShare, planFleet } from './sim-fleet/fleet-plan.js';
import { provisionSimDevices, publishSimulatedVersion } from './sim-fleet/server-setup.js';

const HELP = `Usage: npx tsx scripts/sim-fleet.ts --parent P --devices N [options]

Runs N simulated devices in this process against a control plane: each runs the droplet's real link and OS
upgrade planner and executor over an in-memory A/B boot backend; a download takes --download-ms and a reboot
--reboot-ms. Devices <prefix>-0000 ... are created under P when missing and get a fresh credential each time.
Prints how many devices run which version every 5 s; Ctrl-C stops them (their records stay).

Options:
  --server <url>            control plane (default $OUTPOST_SERVER or http://127.0.0.1:8080); API key from
                            $OUTPOST_API_KEY (needs devices.create, devices.issueCredential, osVersions.create)
  --parent <parent>         projects/{project}/regions/{region} (required)
  --devices <n>             how many devices (required)
  --prefix <id>             device id prefix (default sim)
  --device-type <id>        the devices' type (default simulated)
  --factory-version <v>     the version every device runs at start (default 1.0.0)
  --publish <v,...>         publish these versions for the device type first (tiny artifacts)
  --fail-boot <share>       devices whose new version never boots: they roll back (OSReady False/RolledBack)
  --fail-health <share>     devices whose health check Healthy/sim turns False/Failing once they run a new version
  --offline <share>         devices that stay offline (powered off) all along
                            a share is a count (12) or a percentage (5%); each device has at most one of them
  --sites <n>               label the devices site=site-1 ... site-<n>, round robin (default none)
  --seed <n>                which devices get the shares above (default 1)
  --download-ms <ms>        simulated download time (default 1000)
  --reboot-ms <ms>          simulated reboot time (default 2000)
  --verbose                 print the agents' warnings (lost links, failed steps)
  -h, --help                this text
`;

const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    parent: { type: 'string' },
    devices: { type: 'string' },
    prefix: { type: 'string', default: 'sim' },
    'device-type': { type: 'string', default: 'simulated' },
    'factory-version': { type: 'string', default: '1.0.0' },
    publish: { type: 'string' },
    'fail-boot': { type: 'string', default: '0' },
    'fail-health': { type: 'string', default: '0' },
    offline: { type: 'string', default: '0' },
    sites: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    'download-ms': { type: 'string', default: '1000' },
    'reboot-ms': { type: 'string', default: '2000' },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const say = (line: string): void => void process.stderr.write(`sim-fleet: ${line}\n`);
const fail = (message: string): never => {
  process.stderr.write(`sim-fleet: ${message}\n(see --help)\n`);
  process.exit(2);
};

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const whole = (text: string, flag: string): number => {
  if (!/^\d+$/.test(text)) fail(`${flag} must be a whole number, not "${text}"`);
  return Number(text);
};
if (values.parent === undefined || !/^projects\/[^/]+\/regions\/[^/]+$/.test(values.parent)) {
  fail('--parent projects/{project}/regions/{region} is required');
}
if (values.devices === undefined) fail('--devices is required');
const count = whole(values.devices ?? '', '--devices');
const share = (text: string, flag: string): number => {
  try {
    return parseShare(text, count, flag);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
};
const apiKey = process.env['OUTPOST_API_KEY'];
if (apiKey === undefined || apiKey === '') fail('set OUTPOST_API_KEY to an API key of the control plane');
const serverUrl = (values.server ?? process.env['OUTPOST_SERVER'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');

let planned;
try {
  planned = planFleet({
    parent: values.parent!,
    count,
    prefix: values.prefix,
    failBoot: share(values['fail-boot'], '--fail-boot'),
    failHealth: share(values['fail-health'], '--fail-health'),
    offline: share(values.offline, '--offline'),
    sites: whole(values.sites, '--sites'),
    seed: whole(values.seed, '--seed'),
  });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const devices = planned!;
const server = { client: new OutpostClient({ server: serverUrl, apiKey: apiKey! }), serverUrl, apiKey: apiKey! };
const deviceType = values['device-type'];

for (const version of (values.publish ?? '').split(',').filter((v) => v.trim() !== '')) {
  await publishSimulatedVersion(server, deviceType, version.trim());
  say(`published ${version.trim()} for deviceTypes/${deviceType}`);
}
say(`provisioning ${devices.length} devices under ${values.parent}`);
const credentials = await provisionSimDevices(server, devices, 16, (done) => {
  if (done % 1000 === 0) say(`provisioned ${done} of ${devices.length}`);
});
const described = (what: string, names: string[]): string =>
  `${names.length} ${what}${names.length === 0 ? '' : `: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}`}`;
say(
  described(
    'fail to boot a new version',
    devices.filter((d) => d.failBoot).map((d) => d.name),
  ),
);
say(
  described(
    'fail their health check after upgrading',
    devices.filter((d) => d.failHealthAfterUpgrade).map((d) => d.name),
  ),
);
say(
  described(
    'offline',
    devices.filter((d) => d.offline).map((d) => d.name),
  ),
);

const fleet = await startSimFleet({
  serverUrl,
  devices: devices.map((device, i) => ({
    name: device.name,
    credential: credentials[i]!,
    deviceType,
    factoryVersion: values['factory-version'],
    failBoot: device.failBoot,
    failHealthAfterUpgrade: device.failHealthAfterUpgrade,
    offline: device.offline,
  })),
  downloadMs: whole(values['download-ms'], '--download-ms'),
  rebootMs: whole(values['reboot-ms'], '--reboot-ms'),
  ...(values.verbose ? { log: (line: string) => say(line) } : {}),
});
say(`running ${devices.length} devices against ${serverUrl}; Ctrl-C stops them`);

const summary = (): string => {
  const versions = new Map<string, number>();
  for (const device of devices) {
    const version = fleet.runningVersion(device.name) ?? '(none)';
    versions.set(version, (versions.get(version) ?? 0) + 1);
  }
  return [...versions].map(([version, n]) => `${n} on ${version}`).join(', ');
};
const ticker = setInterval(() => say(summary()), 5_000);

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) process.exit(1); // a second Ctrl-C
  stopping = true;
  clearInterval(ticker);
  say('stopping');
  await fleet.stop();
  say(`stopped: ${summary()}`);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
