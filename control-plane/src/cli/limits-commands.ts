import { LIMITS_DEFINITIONS } from '@outpost/shared';
import type { Command } from 'commander';
import type { ContextFactory } from './context.js';
import type { Column } from './output.js';
import { registerResourceCommands } from './resource-commands.js';

const COLUMNS: Readonly<Record<string, readonly Column[]>> = {
  services: [
    { header: 'NAME', path: 'name' },
    { header: 'DISPLAY NAME', path: 'displayName' },
    { header: 'REGIONS', path: 'regions' },
  ],
  organizations: [
    { header: 'NAME', path: 'name' },
    { header: 'PARENT', path: 'parentOrganization' },
    { header: 'REGIONS', path: 'regions' },
  ],
  projects: [
    { header: 'NAME', path: 'name' },
    { header: 'PARENT', path: 'parentOrganization' },
    { header: 'REGIONS', path: 'regions' },
  ],
  plans: [
    { header: 'NAME', path: 'name' },
    { header: 'LEVEL', path: 'planLevel' },
    { header: 'TIER', path: 'businessTier' },
    { header: 'GENERATION', path: 'generation' },
    { header: 'LIMITS', path: 'resourceLimits' },
  ],
  planAssignments: [
    { header: 'NAME', path: 'name' },
    { header: 'PLAN', path: 'defaultRegionalPlan' },
    { header: 'REGIONS', path: 'appliedRegions' },
    { header: 'SOURCE', path: 'source' },
  ],
  acceptedPlans: [
    { header: 'NAME', path: 'name' },
    { header: 'PLAN', path: 'defaultRegionalPlan' },
    { header: 'ASSIGNEE', path: 'assignee' },
    { header: 'REGIONS', path: 'appliedRegions' },
  ],
  planAssignmentRequests: [
    { header: 'NAME', path: 'name' },
    { header: 'APPROVER', path: 'approver' },
    { header: 'CONCLUSION', path: 'status.conclusion' },
    { header: 'REASON', path: 'status.reason' },
  ],
  limitPools: [
    { header: 'NAME', path: 'name' },
    { header: 'CONFIGURED', path: 'configuredSize' },
    { header: 'ACTIVE', path: 'activeSize' },
    { header: 'RESERVED', path: 'reserved' },
    { header: 'SOURCE', path: 'source' },
  ],
  limits: [
    { header: 'NAME', path: 'name' },
    { header: 'CONFIGURED', path: 'configuredLimit' },
    { header: 'ACTIVE', path: 'activeLimit' },
    { header: 'USAGE', path: 'usage' },
  ],
};

const REQUESTS = ['planAssignmentRequests'] as const;
const MIGRATABLE = ['limits', 'limitPools', 'planAssignments'] as const;

/**
 * `outpost limits <verb> <plural> ...`: the standard verbs (list, get, batch-get, create, update, delete,
 * watch) of the six limits resources and of services, organizations and projects, plus accept, decline,
 * list-approver and migrate (spec 001 Endpoints).
 */
export function registerLimitsCommands(program: Command, ctxFactory: ContextFactory): Command {
  const group = program
    .command('limits')
    .description('quotas (spec 001): plans, plan assignments and requests, limit pools and limits, and the hierarchy');
  registerResourceCommands(group, LIMITS_DEFINITIONS, ctxFactory, { columns: COLUMNS });

  const requestArgument = () => group.createArgument('<plural>', 'the collection').choices(REQUESTS);
  group
    .command('accept')
    .description('accept a pending plan assignment request as its approver (planAssignmentRequests)')
    .addArgument(requestArgument())
    .argument('<name>', 'the request, e.g. projects/p/planAssignmentRequests/r')
    .option('--approver <approver>', "the approver you act as (default: the request's approver)")
    .action(async (_plural: string, name: string, flags: { approver?: string }, command: Command) => {
      const ctx = ctxFactory(command);
      const answer = await ctx.client.request<{ acceptedPlan?: unknown }>('POST', `/v1/${name}:accept`, {
        body: flags.approver ? { approver: flags.approver } : {},
      });
      if (ctx.format === 'table') ctx.print(`accepted ${name}`);
      else ctx.output(answer);
    });

  group
    .command('decline')
    .description('decline a pending plan assignment request as its approver (planAssignmentRequests)')
    .addArgument(requestArgument())
    .argument('<name>', 'the request')
    .option('--approver <approver>', 'the approver you act as')
    .option('--reason <text>', 'why, shown in status.reason')
    .action(async (_plural: string, name: string, flags: { approver?: string; reason?: string }, command: Command) => {
      const ctx = ctxFactory(command);
      const body: Record<string, string> = {};
      if (flags.approver) body['approver'] = flags.approver;
      if (flags.reason) body['reason'] = flags.reason;
      const answer = await ctx.client.request<unknown>('POST', `/v1/${name}:decline`, { body });
      if (ctx.format === 'table') ctx.print(`declined ${name}`);
      else ctx.output(answer ?? {});
    });

  group
    .command('list-approver')
    .description('list the requests an approver concludes, across projects and organizations (planAssignmentRequests)')
    .addArgument(requestArgument())
    .option('--approver <approver>', 'organizations/{o} or services/{s}; all requests when left out')
    .option('--filter <filter>', 'filter expression, e.g. \'status.conclusion = "PENDING"\'')
    .option('--order-by <paths>', 'comma-separated paths, each optionally followed by asc or desc')
    .option('--page-size <n>', 'requests per page', (v) => Number(v))
    .option('--page-token <token>', 'continue from the nextPageToken of an earlier page')
    .action(
      async (
        plural: string,
        flags: { approver?: string; filter?: string; orderBy?: string; pageSize?: number; pageToken?: string },
        command: Command,
      ) => {
        const ctx = ctxFactory(command);
        const page = await ctx.client.request<Record<string, unknown>>(
          'GET',
          '/v1/planAssignmentRequests:listApprover',
          {
            query: {
              approver: flags.approver,
              filter: flags.filter,
              orderBy: flags.orderBy,
              pageSize: flags.pageSize,
              pageToken: flags.pageToken,
            },
          },
        );
        const rows = Array.isArray(page[plural]) ? (page[plural] as unknown[]) : [];
        ctx.outputList(page, rows, COLUMNS['planAssignmentRequests']);
        const next = page['nextPageToken'];
        if (ctx.format === 'table' && typeof next === 'string' && next !== '')
          ctx.note(`more results: add --page-token ${next}`);
      },
    );

  group
    .command('migrate')
    .description(
      "re-derive a limit's or pool's source, or a plan assignment's accepted plan, from the current hierarchy",
    )
    .addArgument(group.createArgument('<plural>', 'the collection').choices(MIGRATABLE))
    .argument('<name>', 'the resource name')
    .action(async (plural: string, name: string, _flags: unknown, command: Command) => {
      const ctx = ctxFactory(command);
      const answer =
        plural === 'planAssignments'
          ? await ctx.client.request<unknown>('PUT', `/v1/${name}:migrate`, { body: { name } })
          : await ctx.client.request<unknown>('POST', `/v1/${name}:migrate`, { body: {} });
      ctx.output(answer, COLUMNS[plural]);
    });
  return group;
}
