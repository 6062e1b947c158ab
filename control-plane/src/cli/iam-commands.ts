import { InvalidArgumentError, type Command } from 'commander';
import { describeGrant, type Grant } from '../iam/grant.js';
import type { ContextFactory } from './context.js';
import type { Column } from './output.js';
import { UsageError } from './usage-error.js';

interface ApiKeyView {
  name: string;
  displayName?: string;
  grants?: Grant[];
  createTime?: string;
}

const KEY_COLUMNS: readonly Column[] = ['name', 'displayName', 'grants', 'createTime'];

/** `outpost iam create-key | list-keys | get-key | revoke-key` */
export function registerIamCommands(program: Command, ctxFactory: ContextFactory): void {
  const iam = program.command('iam').description('API keys and their permissions');

  iam
    .command('create-key')
    .description('create an API key; its secret is printed this once only')
    .requiredOption('--display-name <name>', 'what the key is for')
    .requiredOption(
      '--grant <permission@scope>',
      'a permission (services/{service}/permissions/{coll}.{verb}, "*" wildcards allowed) on a scope ("*", projects/p, organizations/o); repeatable',
      (value: string, previous: Grant[] = []) => [...previous, grantArgument(value)],
    )
    .action(async (opts: { displayName: string; grant: Grant[] }, command: Command) => {
      const ctx = ctxFactory(command);
      const created = await ctx.client.request<{ apiKey: ApiKeyView; secret: string }>('POST', '/v1/apiKeys', {
        body: { displayName: opts.displayName, grants: opts.grant },
      });
      if (ctx.format !== 'table') return ctx.output(created);
      ctx.output({ ...tableRow(created.apiKey), secret: created.secret });
      ctx.note('Store the secret now: it is shown only once.');
    });

  iam
    .command('list-keys')
    .description('list the API keys (never their secrets)')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = ctxFactory(command);
      const response = await ctx.client.request<{ apiKeys?: ApiKeyView[] }>('GET', '/v1/apiKeys');
      ctx.outputList(response, (response.apiKeys ?? []).map(tableRow), KEY_COLUMNS);
    });

  iam
    .command('get-key <id>')
    .description('show one API key (id or apiKeys/<id>)')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = ctxFactory(command);
      const key = await ctx.client.get<ApiKeyView>(keyName(id));
      ctx.output(ctx.format === 'table' ? tableRow(key) : key);
    });

  iam
    .command('revoke-key <id>')
    .description('revoke an API key (id or apiKeys/<id>): its secret stops working at once')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = ctxFactory(command);
      const name = keyName(id);
      await ctx.client.delete(name);
      if (ctx.format === 'table') ctx.print(`revoked ${name}`);
      else ctx.output({});
    });
}

/** '<permission>@<scope>'; the scope follows the last '@'. */
export function parseGrant(text: string): Grant {
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) {
    throw new UsageError(`"${text}" must look like <permission>@<scope>, e.g. 'services/*/permissions/*@projects/p'`);
  }
  return { permission: text.slice(0, at), scope: text.slice(at + 1) };
}

function grantArgument(text: string): Grant {
  try {
    return parseGrant(text);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
}

const keyName = (id: string): string => {
  const name = id.startsWith('apiKeys/') ? id : `apiKeys/${id}`;
  if (!/^apiKeys\/[A-Za-z0-9-]+$/.test(name)) throw new UsageError(`"${id}" is not an API key id`);
  return name;
};

// ', ' between grants: a grant held through organizations has spaces of its own
const tableRow = (key: ApiKeyView): Record<string, unknown> => ({
  ...key,
  grants: (key.grants ?? []).map(describeGrant).join(', '),
});
