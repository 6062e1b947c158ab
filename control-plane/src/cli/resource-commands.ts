import { changesKey, toCamelPath, type ResourceDefinition, type StandardVerb } from '@outpost/shared';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext, ContextFactory } from './context.js';
import { cellText, isRecord, shownText, valueAt, type Column, type DisplayWords } from './output.js';
import { UsageError } from './usage-error.js';

/** What the command line needs of a resource definition (a full ResourceDefinition fits). */
export type CliResourceDefinition = Pick<ResourceDefinition, 'kind' | 'singular' | 'plural' | 'without'> &
  Partial<Pick<ResourceDefinition, 'filterSchema'>> & {
    /** with a top-level pattern (parentTemplate ''), --parent may be left out */
    patterns?: readonly { parentTemplate: string }[];
  };

export interface ResourceCommandOptions {
  /** table columns per plural; derived from the rows when absent */
  columns?: Readonly<Record<string, readonly Column[]>>;
}

interface ReadFlags {
  fieldMask?: string;
  view?: string;
}

interface ListFlags extends ReadFlags {
  parent?: string;
  filter?: string;
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
  all?: boolean;
}

interface InputFlags {
  file?: string;
  json?: string;
}

/**
 * Adds `list | get | batch-get | create | update | delete | watch <plural>` to a group, for every
 * definition offering the verb. Call it once per group, with all of the group's definitions.
 */
export function registerResourceCommands(
  group: Command,
  defs: readonly CliResourceDefinition[],
  ctxFactory: ContextFactory,
  options: ResourceCommandOptions = {},
): void {
  const offering = (verb: StandardVerb): CliResourceDefinition[] => defs.filter((d) => !d.without?.includes(verb));
  const columnsOf = (def: CliResourceDefinition): readonly Column[] | undefined => options.columns?.[def.plural];
  const words = new Map(defs.map((d) => [d.plural, displayWordsOf(d)]));
  const wordsOf = (def: CliResourceDefinition): DisplayWords => words.get(def.plural) ?? {};
  const addVerb = (verb: StandardVerb, name: string, description: string): Command | undefined => {
    const offered = offering(verb);
    if (offered.length === 0) return undefined;
    const plurals = offered.map((d) => d.plural);
    return group
      .command(name)
      .description(`${description} (${plurals.join(', ')})`)
      .addArgument(group.createArgument('<plural>', 'the collection').choices(plurals));
  };
  const defOf = (plural: string): CliResourceDefinition => {
    const def = defs.find((d) => d.plural === plural);
    if (!def) throw new UsageError(`unknown collection "${plural}"`);
    return def;
  };

  addVerb('list', 'list', 'list resources')
    ?.option('--parent <parent>', PARENT_MATCHING_HELP)
    .option('--filter <filter>', 'filter expression, e.g. \'spec.osVersion = "1.2.0"\'')
    .option('--order-by <paths>', 'comma-separated paths, each optionally followed by asc or desc')
    .option('--field-mask <paths>', 'comma-separated fields to return on top of the view')
    .addOption(viewOption())
    .option('--page-size <n>', 'resources per page', positiveInteger('--page-size'))
    .option('--page-token <token>', 'continue from the nextPageToken of an earlier page')
    .option('--all', 'follow nextPageToken until the end')
    .action(async (plural: string, flags: ListFlags, command: Command) => {
      const def = defOf(plural);
      const ctx = ctxFactory(command);
      const parent = parentOf(def, flags.parent);
      const query = {
        filter: flags.filter,
        orderBy: flags.orderBy,
        fieldMask: flags.fieldMask,
        view: flags.view,
        pageSize: flags.pageSize,
        pageToken: flags.pageToken,
      };
      if (flags.all) {
        const items: unknown[] = [];
        for await (const item of ctx.client.listAll<unknown>(parent, def.plural, query, def.plural)) items.push(item);
        ctx.outputList({ [def.plural]: items }, items, columnsOf(def), wordsOf(def));
        return;
      }
      const page = await ctx.client.list<unknown>(parent, def.plural, query);
      ctx.outputList(page, itemsOf(page, def.plural), columnsOf(def), wordsOf(def));
      if (ctx.format === 'table' && typeof page.nextPageToken === 'string' && page.nextPageToken !== '') {
        ctx.note(`more results: add --page-token ${page.nextPageToken} (or --all)`);
      }
    });

  addVerb('get', 'get', 'show one resource')
    ?.argument('<name>', 'the resource name')
    .option('--field-mask <paths>', 'comma-separated fields to return on top of the view')
    .addOption(viewOption())
    .action(async (plural: string, name: string, flags: ReadFlags, command: Command) => {
      const def = defOf(plural);
      const ctx = ctxFactory(command);
      const resource = await ctx.client.get(checkName(def, name), { fieldMask: flags.fieldMask, view: flags.view });
      ctx.output(resource, undefined, wordsOf(def));
    });

  addVerb('batchGet', 'batch-get', 'show several resources')
    ?.argument('<name...>', 'resource names')
    .option('--field-mask <paths>', 'comma-separated fields to return on top of the view')
    .addOption(viewOption())
    .action(async (plural: string, names: string[], flags: ReadFlags, command: Command) => {
      const def = defOf(plural);
      const ctx = ctxFactory(command);
      const response = await ctx.client.batchGet(
        def.plural,
        names.map((n) => checkName(def, n)),
        { fieldMask: flags.fieldMask, view: flags.view },
      );
      ctx.outputList(response, itemsOf(response, def.plural), columnsOf(def), wordsOf(def));
      if (ctx.format === 'table') for (const missing of response.missing ?? []) ctx.note(`missing: ${missing}`);
    });

  addVerb('create', 'create', 'create a resource')
    ?.option('--parent <parent>', 'parent name, e.g. projects/p/regions/r')
    .option('--file <path>', 'the resource as JSON or YAML ("-" for stdin)')
    .option('--json <json>', 'the resource as JSON text')
    .option('--id <id>', 'id of the new resource (the server picks one when absent)')
    .action(async (plural: string, flags: InputFlags & { parent?: string; id?: string }, command: Command) => {
      const def = defOf(plural);
      const ctx = ctxFactory(command);
      const parent = parentOf(def, flags.parent);
      const resource = await ctx.readResource(flags);
      if (flags.id !== undefined) {
        const name = parent === '' ? `${def.plural}/${flags.id}` : `${parent}/${def.plural}/${flags.id}`;
        if (typeof resource['name'] === 'string' && resource['name'] !== '' && resource['name'] !== name) {
          throw new UsageError(`--id names ${name} but the resource names ${resource['name']}`);
        }
        resource['name'] = name;
      }
      ctx.output(await ctx.client.create(parent, def.plural, resource), undefined, wordsOf(def));
    });

  addVerb('update', 'update', 'update a resource')
    ?.argument('<name>', 'the resource name')
    .option('--file <path>', 'the resource as JSON or YAML ("-" for stdin)')
    .option('--json <json>', 'the resource as JSON text')
    .option('--update-mask <paths>', 'comma-separated fields to change; without it the body replaces the resource')
    .option('--allow-missing', 'create the resource when it does not exist')
    .action(
      async (
        plural: string,
        name: string,
        flags: InputFlags & { updateMask?: string; allowMissing?: boolean },
        command: Command,
      ) => {
        const def = defOf(plural);
        const ctx = ctxFactory(command);
        checkName(def, name);
        const resource = await ctx.readResource(flags);
        if (typeof resource['name'] === 'string' && resource['name'] !== '' && resource['name'] !== name) {
          throw new UsageError(`the command names ${name} but the resource names ${resource['name']}`);
        }
        const updated = await ctx.client.update(
          { ...resource, name },
          { updateMask: flags.updateMask, allowMissing: flags.allowMissing },
        );
        ctx.output(updated, undefined, wordsOf(def));
      },
    );

  addVerb('delete', 'delete', 'delete a resource')
    ?.argument('<name>', 'the resource name')
    .option('--allow-missing', 'succeed when the resource does not exist')
    .action(async (plural: string, name: string, flags: { allowMissing?: boolean }, command: Command) => {
      const def = defOf(plural);
      const ctx = ctxFactory(command);
      await ctx.client.delete(checkName(def, name), { allowMissing: flags.allowMissing });
      if (ctx.format === 'table') ctx.print(`deleted ${name}`);
      else ctx.output({});
    });

  addVerb('watch', 'watch', 'follow changes of a collection until interrupted')
    ?.option('--parent <parent>', PARENT_MATCHING_HELP)
    .option('--filter <filter>', 'filter expression')
    .addOption(
      new Option('--type <type>', 'stateful: a snapshot then changes; stateless: changes only')
        .choices(WATCH_TYPES)
        .default('stateful'),
    )
    .option('--field-mask <paths>', 'only changes of these fields are sent, and only these fields')
    .addOption(viewOption())
    .action(
      async (
        plural: string,
        flags: ReadFlags & { parent?: string; filter?: string; type: WatchType },
        command: Command,
      ) => {
        const def = defOf(plural);
        const ctx = ctxFactory(command);
        const parent = parentOf(def, flags.parent);
        const path = `/v1/${parent === '' ? '' : `${parent}/`}${def.plural}:watch`;
        const body = {
          type: flags.type.toUpperCase(),
          filter: flags.filter,
          fieldMask: flags.fieldMask,
          view: flags.view,
        };
        const shown = { fieldMask: flags.fieldMask, words: wordsOf(def) };
        for await (const response of ctx.client.watch<unknown>(path, body))
          printWatchResponse(ctx, def, response, shown);
      },
    );
}

const PARENT_MATCHING_HELP = 'parent name; a "-" id matches every id (projects/p/regions/-), "-" alone every parent';

const WATCH_TYPES = ['stateful', 'stateless'] as const;
type WatchType = (typeof WATCH_TYPES)[number];

const viewOption = (): Option =>
  new Option('--view <view>', 'how much of each resource').choices(['NAME', 'BASIC', 'DETAIL', 'FULL']);

function positiveInteger(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
      throw new InvalidArgumentError(`${flag} must be a positive integer`);
    }
    return n;
  };
}

function parentOf(def: CliResourceDefinition, parent: string | undefined): string {
  if (parent === undefined) {
    if (def.patterns?.some((p) => p.parentTemplate === '')) return '';
    throw new UsageError(`${def.plural} need --parent`);
  }
  const trimmed = parent.replace(/^\/+|\/+$/g, '');
  return trimmed === WILDCARD ? everyParent(def) : trimmed;
}

const WILDCARD = '-';

/**
 * A bare `--parent -` stands for the parent with every id `-` (`projects/-/regions/-` for devices): the API takes
 * `-` per id segment only, so the CLI spells it out.
 */
function everyParent(def: CliResourceDefinition): string {
  const parents = new Set(def.patterns?.map((p) => p.parentTemplate.replace(/\{[^}/]+\}/g, WILDCARD)));
  const [only, ...others] = parents;
  if (only === undefined || others.length > 0) {
    throw new UsageError(`--parent -: spell out the parent of ${def.plural}, with - for every id it matches`);
  }
  return only;
}

/** Catches a name of another collection before the server does, with a clearer message. */
function checkName(def: CliResourceDefinition, name: string): string {
  if (!`/${name}`.includes(`/${def.plural}/`))
    throw new UsageError(`"${name}" is not the name of one of ${def.plural}`);
  return name;
}

function itemsOf(response: unknown, plural: string): unknown[] {
  const items = isRecord(response) ? response[plural] : undefined;
  return Array.isArray(items) ? items : [];
}

/**
 * The words tables show for the enum values a filter also accepts under another name (the aliases of the
 * definition's filter schema): spec 000's Online and Offline for the API's CONNECTED and DISCONNECTED.
 */
export function displayWordsOf(def: Partial<Pick<ResourceDefinition, 'filterSchema'>>): DisplayWords {
  const words: Record<string, Record<string, string>> = {};
  for (const field of def.filterSchema?.fields ?? []) {
    for (const [alias, value] of Object.entries(field.enumAliases ?? {})) {
      const forField = (words[field.path] ??= {});
      forField[value] ??= alias;
    }
  }
  return words;
}

/** What the table form of a watch shows beside each name. */
export interface WatchLineOptions {
  /** the watch's --field-mask: every change shows these fields' values */
  fieldMask?: string;
  words?: DisplayWords;
}

/** json: one compact line per response (NDJSON); yaml: one document each; table: one line per change. */
function printWatchResponse(
  ctx: CliContext,
  def: CliResourceDefinition,
  response: unknown,
  options: WatchLineOptions,
): void {
  if (ctx.format === 'json') return ctx.print(JSON.stringify(response));
  if (ctx.format === 'yaml') {
    ctx.print('---');
    return ctx.output(response);
  }
  for (const line of watchLines(def, response, options)) ctx.print(line);
}

/**
 * The table form of one watch response, one line per change: `CURRENT <name>   path=value ...` with the values
 * of the watch's field mask (without one, MODIFIED shows the values of the fields that changed, and ADDED,
 * CURRENT and REMOVED the name alone); resets and sync marks on lines of their own.
 */
export function watchLines(
  def: Pick<ResourceDefinition, 'singular'>,
  response: unknown,
  options: WatchLineOptions = {},
): string[] {
  if (!isRecord(response)) return [];
  const lines: string[] = [];
  const label = (text: string): string => text.padEnd(10);
  const masked = maskPaths(options.fieldMask);
  if (response['isHardReset'] === true) lines.push(`${label('RESET')}hard reset: the snapshot follows again`);
  if (response['isSoftReset'] === true) lines.push(`${label('RESET')}soft reset`);
  const changes = response[changesKey(def)];
  for (const change of Array.isArray(changes) ? changes : []) {
    if (!isRecord(change)) continue;
    for (const [kind, detail] of Object.entries(change)) {
      if (!isRecord(detail)) continue;
      const resource = detail[def.singular];
      const name = detail['name'] ?? (isRecord(resource) ? resource['name'] : undefined);
      const changed = kind === 'modified' ? maskPaths(detail['fieldMask']) : [];
      const fields = isRecord(resource)
        ? (masked.length > 0 ? masked : changed).map(
            (path) => `${path}=${shownText(valueAt(resource, path), path, options.words ?? {}) || '<none>'}`,
          )
        : changed;
      lines.push([`${label(kind.toUpperCase())}${cellText(name)}`, ...fields].join('   '));
    }
  }
  if (response['isCurrent'] === true) lines.push(label('SYNCED').trimEnd());
  return lines;
}

/** The paths of a field mask as the server writes it (a comma-separated string, a list, or `{paths}`). */
function maskPaths(mask: unknown): string[] {
  const list =
    typeof mask === 'string'
      ? mask.split(',')
      : Array.isArray(mask)
        ? mask
        : isRecord(mask) && Array.isArray(mask['paths'])
          ? mask['paths']
          : [];
  return list.map((p) => toCamelPath(cellText(p).trim())).filter((p) => p !== '');
}
