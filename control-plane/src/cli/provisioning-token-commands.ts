import type { Command } from 'commander';
import type { ContextFactory } from './context.js';
import { UsageError } from './usage-error.js';

interface ProvisioningToken {
  id: string;
  parent: string;
  createTime: string;
  expireTime: string;
  maxUses?: number;
  uses: number;
}

const TOKEN_COLUMNS = [
  { header: 'ID', path: 'id' },
  { header: 'USES', path: 'uses' },
  { header: 'MAX USES', path: 'maxUses' },
  { header: 'CREATED', path: 'createTime' },
  { header: 'EXPIRES', path: 'expireTime' },
];

const PARENT_HELP = 'projects/{project}/regions/{region}';

/** `outpost devices create-provisioning-token`, `list-provisioning-tokens` and `revoke-provisioning-token`. */
export function registerProvisioningTokenCommands(group: Command, ctxFactory: ContextFactory): void {
  group
    .command('create-provisioning-token')
    .description('a token new devices register themselves with (droplet --provisioning-token T)')
    .requiredOption('--parent <parent>', PARENT_HELP)
    .option('--ttl <seconds>', 'lifetime in seconds (default 86400)', (v) => Number(v))
    .option('--max-uses <n>', 'devices it may register in all (default: any number until it expires)', positiveInteger)
    .action(async (opts: { parent: string; ttl?: number; maxUses?: number }, command: Command) => {
      const ctx = ctxFactory(command);
      const body: Record<string, number> = {};
      if (opts.ttl !== undefined) body['ttlSeconds'] = opts.ttl;
      if (opts.maxUses !== undefined) body['maxUses'] = opts.maxUses;
      const result = await ctx.client.request<{ token: string } & ProvisioningToken>(
        'POST',
        `/v1/${opts.parent}/devices:createProvisioningToken`,
        { body },
      );
      if (ctx.format === 'table') {
        ctx.print(result.token);
        ctx.note(`token ${result.id} expires ${result.expireTime}`);
      } else ctx.output(result);
    });

  group
    .command('list-provisioning-tokens')
    .description('the provisioning tokens of a region that have not expired (the tokens themselves are never shown)')
    .requiredOption('--parent <parent>', PARENT_HELP)
    .action(async (opts: { parent: string }, command: Command) => {
      const ctx = ctxFactory(command);
      const result = await ctx.client.request<{ provisioningTokens: ProvisioningToken[] }>(
        'GET',
        `/v1/${opts.parent}/devices:listProvisioningTokens`,
      );
      ctx.outputList(result, result.provisioningTokens, TOKEN_COLUMNS);
    });

  group
    .command('revoke-provisioning-token <id>')
    .description('revoke a provisioning token (its id as list-provisioning-tokens shows it): it registers no more')
    .requiredOption('--parent <parent>', PARENT_HELP)
    .action(async (id: string, opts: { parent: string }, command: Command) => {
      const ctx = ctxFactory(command);
      await ctx.client.request('POST', `/v1/${opts.parent}/devices:revokeProvisioningToken`, { body: { id } });
      ctx.print(`revoked provisioning token ${id}`);
    });
}

function positiveInteger(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`"${value}" is not a positive whole number`);
  return Number(value);
}
