import fc from 'fast-check';
import { z } from 'zod';
import { evaluateFilter, ID_RULES, NamePattern, parseFilter, parseOrderBy } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';
import { expect, it } from 'vitest';
import {
  filterText,
  orderByText,
  STORABLE_NAMES,
  storeWritesArb,
} from '../../../../shared/test/query/filter-arbitraries.js';
import { listOrder } from '../../../../shared/test/query/list-order.js';
import { FilterCoverage, propertyRuns } from '../../../../shared/test/query/filter-property-runs.js';
import { testSchema } from '../../../../shared/test/query/test-schema.js';
import { listNarrowed } from '../../../src/resources/list-operation.js';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../../src/resources/resource-handle.js';
import { describeStorages } from '../../helpers/storages.js';

/**
 * The filter property test on each store's real tables: random documents are written through a ResourceEngine
 * on a real SQLite / PostgreSQL storage (created, removed, written over: the tables' insert, update and delete,
 * columns and side table), then listed with a random filter, and with its negation, through the generic list
 * (the table's compiled SQL, its reads, page tokens and counts). The names listed must be
 * exactly the stored documents evaluateFilter accepts, in the order of a random order_by (list-order.ts): the page
 * tokens' seeks must neither skip nor repeat a document.
 *
 * Fixed seed; `FILTER_PROPERTY_SEED=<n>` (and `FILTER_PROPERTY_RUNS=<n>`) explore others:
 *   FILTER_PROPERTY_SEED=7 FILTER_PROPERTY_RUNS=2000 npx vitest run control-plane/test/resources/storage/filter-agreement.property.test.ts
 * `FILTER_PROPERTY_COVERAGE=1` prints how often each field type and condition occurred.
 *
 * The engine stamps metadata.createTime when it creates a document: its clock is set to the generated
 * createTime, so timestamps vary, but a stored one is never null (sql/filter-sql-agreement.property.test.ts covers that).
 */

const WRITTEN_CREATE_TIME_DEFAULT = '2024-03-01T00:00:00.000Z';
const PAGE_SIZE = 4;
/** Filters listed over each run's documents (writing them costs more than listing). */
const FILTERS_PER_RUN = 8;
const RUNS = { sqlite: 100, postgres: 60 } as const;

const ThingSchema = z.looseObject({ name: z.string() });
type Thing = z.infer<typeof ThingSchema>;

const thingDefinition: ResourceDefinition<Thing> = {
  kind: 'Thing',
  singular: 'thing',
  plural: 'things',
  service: 'things.outpost',
  patterns: [
    new NamePattern('projects/{project}/devices/{device}', { project: ID_RULES.device, device: ID_RULES.device }),
    new NamePattern('projects/{project}/regions/{region}/devices/{device}', {
      project: ID_RULES.device,
      region: ID_RULES.device,
      device: ID_RULES.device,
    }),
  ],
  idRule: ID_RULES.device,
  schema: ThingSchema,
  filterSchema: testSchema,
  outputOnly: [],
  views: {},
};

type Writes = typeof storeWritesArb extends fc.Arbitrary<infer W> ? W : never;

/** Stores the writes' documents, after removing every document stored before. */
function store(engine: ResourceEngine, things: ResourceHandle<Thing>, clock: { now: Date }, writes: Writes): void {
  const put = (generated: object): void => {
    const doc = JSON.parse(JSON.stringify(generated)) as Thing;
    const createTime = (doc['metadata'] as { createTime?: unknown } | null | undefined)?.createTime;
    clock.now = new Date(typeof createTime === 'string' ? createTime : WRITTEN_CREATE_TIME_DEFAULT);
    things.put(doc);
  };
  engine.transaction(() => {
    for (const name of things.names()) things.remove(name);
  });
  engine.transaction(() => writes.first.forEach(put));
  for (const name of writes.removed) things.remove(name);
  engine.transaction(() => writes.then.forEach(put));
}

/** The names the writes leave stored, in name order. */
function namesLeft(writes: Writes): string[] {
  const left = new Set(writes.first.map((doc) => doc.name));
  for (const name of writes.removed) left.delete(name);
  for (const doc of writes.then) left.add(doc.name);
  return [...left].sort();
}

/** The names the generic list gives for `filter` in `orderBy`, page by page; checks each page's paging info. */
function listed(things: ResourceHandle<Thing>, filter: string, orderBy: string, total: number): string[] {
  const names: string[] = [];
  let pageToken = '';
  do {
    const page = listNarrowed(
      things,
      { filter, orderBy, pageSize: PAGE_SIZE, pageToken, includePagingInfo: true },
      { conditions: [], key: ['things'] },
    );
    expect(page.currentOffset).toBe(page.items.length === 0 ? 0 : names.length);
    expect(page.totalResultsCount).toBe(total);
    names.push(...page.items.map((item) => String(item['name'])));
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return names;
}

describeStorages('a filter lists exactly the stored documents evaluateFilter accepts', (fresh, kind) => {
  it('for random filters over random documents, and for their negations', () => {
    const clock = { now: new Date(WRITTEN_CREATE_TIME_DEFAULT) };
    const engine = new ResourceEngine(fresh(), { now: () => clock.now });
    const things = engine.register(thingDefinition);
    const coverage = new FilterCoverage();
    /** filters that selected some of the stored documents but not all of them */
    let discriminating = 0;
    const runs = propertyRuns(RUNS[kind]);
    fc.assert(
      fc.property(
        storeWritesArb,
        fc.array(fc.tuple(filterText, orderByText), { minLength: 1, maxLength: FILTERS_PER_RUN }),
        (writes, lists) => {
          store(engine, things, clock, writes);
          const rows = things.findRows(STORABLE_NAMES);
          const docs = [...rows.keys()].sort().map((name) => rows.get(name)!.doc);
          expect(docs.map((doc) => doc['name'])).toEqual(namesLeft(writes));
          const negated = lists.flatMap(([text, orderBy]) => [text, `NOT (${text})`].map((f) => [f, orderBy] as const));
          for (const [candidate, orderBy] of negated) {
            const filter = parseFilter(candidate, testSchema);
            coverage.add(filter);
            const expected = docs
              .filter((doc) => evaluateFilter(filter, doc))
              .sort(listOrder(parseOrderBy(orderBy, testSchema)))
              .map((doc) => String(doc['name']));
            const names = listed(things, candidate, orderBy, expected.length);
            expect(names, `${candidate} in order "${orderBy}"`).toEqual(expected);
            if (expected.length > 0 && expected.length < docs.length) discriminating++;
          }
        },
      ),
      runs,
    );
    if (process.env['FILTER_PROPERTY_COVERAGE']) {
      console.info(`${kind}: ${discriminating} discriminating filters; ${coverage.toString()}`);
    }
    expect(coverage.missing(), 'conditions no filter exercised').toEqual([]);
    expect(discriminating, 'filters that told documents apart').toBeGreaterThan(runs.numRuns);
  }, 300_000);
});
