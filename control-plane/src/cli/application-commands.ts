import { podDefinition } from '@outpost/shared';
import type { Pod } from '@outpost/shared';
import type { Command } from 'commander';
import type { ContextFactory } from './context.js';
import type { Column } from './output.js';
import { registerResourceCommands } from './resource-commands.js';

const POD_COLUMNS: readonly Column[] = [
  { header: 'NAME', path: 'name' },
  { header: 'NODE', path: 'spec.node' },
  { header: 'PHASE', path: 'status.phase' },
  { header: 'GENERATION', path: 'metadata.generation' },
  { header: 'OBSERVED', path: 'status.observedGeneration' },
];

const SERVICE_COLUMNS: readonly Column[] = [
  { header: 'SERVICE', path: 'name' },
  { header: 'STATE', path: 'state' },
  { header: 'REASON', path: 'reason' },
  { header: 'RESTARTS', path: 'restartCount' },
  { header: 'EXIT', path: 'exitCode' },
];

/**
 * `outpost applications ...`: the Pod resource's verbs, `restart|start|stop <pod_name>` for a whole pod and
 * `pods start|stop|restart <pod_name> <service>` for one service. The device must be online.
 */
export function registerApplicationCommands(program: Command, ctxFactory: ContextFactory): Command {
  const group = program.command('applications').description('workloads: pods and their services (spec 000)');
  registerResourceCommands(group, [podDefinition], ctxFactory, { columns: { pods: POD_COLUMNS } });

  const act = async (command: Command, verb: string, pod: string, service?: string): Promise<void> => {
    const ctx = ctxFactory(command);
    const result = await ctx.client.request<Pod>('POST', `/v1/${pod}:${verb}`, {
      body: service === undefined ? {} : { service },
    });
    if (ctx.format !== 'table') return ctx.output(result);
    const past = verb === 'stop' ? 'stopped' : `${verb}ed`;
    ctx.print(
      `${past} ${service === undefined ? '' : `service ${service} of `}${pod}: ${result.status?.phase ?? 'UNKNOWN'}`,
    );
    ctx.output(result.status?.serviceStatuses ?? [], SERVICE_COLUMNS);
  };

  for (const verb of ['restart', 'start', 'stop'] as const) {
    group
      .command(`${verb} <pod_name>`)
      .description(`${verb} every service of a pod on its device`)
      .action((pod: string, _opts: unknown, command: Command) => act(command, verb, pod));
  }
  const pods = group.command('pods').description('act on one service of a pod');
  for (const verb of ['start', 'stop', 'restart'] as const) {
    pods
      .command(`${verb} <pod_name> <service>`)
      .description(`${verb} one service of a pod (a stop lasts until the next start or reboot)`)
      .action((pod: string, service: string, _opts: unknown, command: Command) => act(command, verb, pod, service));
  }
  return group;
}
