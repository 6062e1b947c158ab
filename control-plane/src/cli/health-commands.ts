import { DEVICE_FILE_TYPES, HEALTH_CHECK_TYPES, HTTP_METHODS } from '@outpost/shared';
import type { HealthCheckType } from '@outpost/shared';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { ContextFactory } from './context.js';
import type { Column } from './output.js';
import { UsageError } from './usage-error.js';

/** Table columns of `outpost devices list healthChecks` (the generic registrar's). */
export const HEALTH_CHECK_COLUMNS: readonly Column[] = [
  { header: 'NAME', path: 'name' },
  { header: 'TYPE', path: 'spec.type' },
  { header: 'INTERVAL', path: 'spec.intervalSeconds' },
  { header: 'SELECTOR', path: 'spec.selector.matchLabels' },
];

/** `--type` values: the API's types in lower case, DEVICE_FILE as device-file. */
const CLI_TYPES = HEALTH_CHECK_TYPES.map((t) => t.toLowerCase().replace('_', '-'));

export interface HealthCheckFlags {
  parent: string;
  id?: string;
  type: string;
  displayName?: string;
  description?: string;
  url?: string;
  method?: string;
  expectedStatus?: { min: number; max: number };
  bodyContains?: string;
  host?: string;
  port?: number;
  service?: string;
  tls?: boolean;
  path?: string;
  fileType?: string;
  interval?: number;
  timeout?: number;
  successThreshold?: number;
  failureThreshold?: number;
  selector?: Record<string, string>;
  allDevices?: boolean;
}

/**
 * `outpost devices create health-check --parent P --id ID --type T ...`: a HealthCheck from flags (list, get,
 * update, delete and watch are the generic `outpost devices <verb> healthChecks`). Hangs under the generic
 * `create` command, whose own --parent and --id commander hands to `create` wherever they stand: they are
 * read with the parents' options (optsWithGlobals).
 */
export function registerHealthCommands(devices: Command, ctxFactory: ContextFactory): void {
  const create = devices.commands.find((c) => c.name() === 'create');
  if (create === undefined) throw new Error('register the generic device commands first');
  create
    .command('health-check')
    .description('define a health check the agents of the selected devices run (condition Healthy/<id>)')
    .option('--parent <parent>', 'projects/{project}/regions/{region} (required)')
    .option('--id <id>', 'id of the check, the <id> of its Healthy/<id> condition (generated when absent)')
    .addOption(new Option('--type <type>', 'what to check').choices(CLI_TYPES).makeOptionMandatory())
    .option('--display-name <name>')
    .option('--description <text>')
    .option('--url <url>', 'http: the URL to request')
    .addOption(new Option('--method <method>', 'http: the request method (default GET)').choices(HTTP_METHODS))
    .option(
      '--expected-status <range>',
      'http: healthy status codes, e.g. 200-299 or 204 (default 200-399)',
      statusRange,
    )
    .option('--body-contains <text>', 'http: the body must contain this')
    .option('--host <host>', 'tcp, grpc, icmp: the host to reach')
    .option('--port <port>', 'tcp, grpc: the port', integerIn('--port', 1, 65535))
    .option('--service <name>', 'grpc: the service to ask grpc.health.v1 about (default: the whole server)')
    .option('--tls', 'grpc: connect with TLS')
    .option('--path <path>', 'device-file: the path that must exist')
    .addOption(new Option('--file-type <type>', 'device-file: the kind of file expected').choices(DEVICE_FILE_TYPES))
    .option('--interval <duration>', 'between runs, e.g. 10s or 1m (default 10s)', seconds('--interval'))
    .option('--timeout <duration>', 'a run taking longer fails with reason Timeout (default 5s)', seconds('--timeout'))
    .option(
      '--success-threshold <n>',
      'passing runs in a row to turn True (default 1)',
      integerIn('--success-threshold', 1, 100),
    )
    .option(
      '--failure-threshold <n>',
      'failing runs in a row to turn False (default 3)',
      integerIn('--failure-threshold', 1, 100),
    )
    .option('--selector <key=value>', 'run on devices with this label (repeatable: all of them)', labelPair, undefined)
    .option('--all-devices', 'run on every device of the region')
    .argument('[command...]', 'command: the program and its arguments, after --')
    .action(async (command: string[], _own: unknown, self: Command) => {
      const ctx = ctxFactory(self);
      const flags = self.optsWithGlobals<HealthCheckFlags>();
      if (flags.parent === undefined) throw new UsageError('--parent is required');
      const resource = healthCheckFromFlags(flags, command);
      ctx.output(await ctx.client.create(flags.parent, 'healthChecks', resource));
    });
}

/** The HealthCheck resource the flags describe; UsageError for flags that do not fit the type. */
export function healthCheckFromFlags(flags: HealthCheckFlags, command: readonly string[]): Record<string, unknown> {
  const type = HEALTH_CHECK_TYPES.find((t) => t.toLowerCase().replace('_', '-') === flags.type) as HealthCheckType;
  const need = <T>(value: T | undefined, flag: string): T => {
    if (value === undefined) throw new UsageError(`--type ${flags.type} needs ${flag}`);
    return value;
  };
  const spec: Record<string, unknown> = { type };
  switch (type) {
    case 'HTTP':
      spec['http'] = compact({
        url: need(flags.url, '--url'),
        method: flags.method,
        expectedStatus: flags.expectedStatus,
        bodyContains: flags.bodyContains,
      });
      break;
    case 'TCP':
      spec['tcp'] = { host: need(flags.host, '--host'), port: need(flags.port, '--port') };
      break;
    case 'GRPC':
      spec['grpc'] = compact({
        host: need(flags.host, '--host'),
        port: need(flags.port, '--port'),
        service: flags.service,
        tls: flags.tls,
      });
      break;
    case 'ICMP':
      spec['icmp'] = { host: need(flags.host, '--host') };
      break;
    case 'COMMAND':
      if (command.length === 0)
        throw new UsageError('--type command needs the command after --, e.g. -- /usr/bin/check');
      spec['command'] = { argv: [...command] };
      break;
    case 'DEVICE_FILE':
      spec['deviceFile'] = compact({ path: need(flags.path, '--path'), type: flags.fileType });
      break;
  }
  if (type !== 'COMMAND' && command.length > 0) throw new UsageError(`unexpected arguments: ${command.join(' ')}`);
  Object.assign(
    spec,
    compact({
      intervalSeconds: flags.interval,
      timeoutSeconds: flags.timeout,
      successThreshold: flags.successThreshold,
      failureThreshold: flags.failureThreshold,
    }),
  );
  if (flags.selector !== undefined && flags.allDevices)
    throw new UsageError('give --selector or --all-devices, not both');
  if (flags.selector !== undefined) spec['selector'] = { matchLabels: flags.selector };
  if (flags.allDevices) spec['selector'] = { matchLabels: {} };
  const resource: Record<string, unknown> = { spec };
  if (flags.id !== undefined) resource['name'] = `${flags.parent.replace(/\/+$/, '')}/healthChecks/${flags.id}`;
  if (flags.displayName !== undefined) resource['displayName'] = flags.displayName;
  if (flags.description !== undefined) resource['description'] = flags.description;
  return resource;
}

function compact(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

function statusRange(value: string): { min: number; max: number } {
  const match = /^(\d{3})(?:-(\d{3}))?$/.exec(value.trim());
  if (match === null) throw new InvalidArgumentError('expected a status code or a range, e.g. 200 or 200-299');
  const min = Number(match[1]);
  return { min, max: match[2] === undefined ? min : Number(match[2]) };
}

/** "10s", "500ms", "2m" or plain seconds, in seconds. */
function seconds(flag: string): (value: string) => number {
  return (value) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
    const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[match?.[2] ?? 's'] ?? 1;
    const result = match === null ? NaN : Number(match[1]) * unit;
    if (!(result > 0)) throw new InvalidArgumentError(`${flag} must be a duration like 10s, 500ms or 1m`);
    return result;
  };
}

function integerIn(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

function labelPair(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const match = /^([^=]+)=(.*)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('expected key=value');
  return { ...previous, [match[1]!]: match[2]! };
}
