import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchFollower } from '../../src/cluster/watch-follower.js';
import type { Change } from '../../src/resources/change-log.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** A kind with a camelCase plural and filter path: PostgreSQL folds both to lower case in its catalogs. */
const fancyWidgets = { ...widgetDefinition, kind: 'FancyWidget', singular: 'fancyWidget', plural: 'fancyWidgets' };
const NAME = (id: string): string => `projects/pp/regions/rr/widgets/${id}`;

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`watch follower test skipped: ${missing}; CI=true requires PostgreSQL`);

/** Two engines on one PostgreSQL database, as two replicas have them. */
describe.skipIf(skipped)('replicas on one PostgreSQL database [postgres]', () => {
  let cluster: PostgresCluster;
  const opened: PgStorage[] = [];
  const replica = (url: string): ResourceEngine => {
    const storage = new PgStorage(url);
    opened.push(storage);
    const engine = new ResourceEngine(storage);
    engine.register(fancyWidgets);
    return engine;
  };

  /** Two replicas on a new database, B following A: what B's bus delivered, and A's widgets to write through. */
  const followedReplica = () => {
    const url = cluster.createDatabase();
    const b = replica(url);
    const follower = new WatchFollower(b, { announce: () => {}, onError: (err) => expect.fail(String(err)) });
    const seen: Change[] = [];
    b.bus.subscribe('fancyWidgets', (change) => seen.push(change));
    return { follower, seen, onA: replica(url).resource('fancyWidgets') };
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
  }, 120_000);
  afterAll(() => {
    for (const storage of opened) storage.close();
    cluster?.stop();
  });

  it('opens a kind whose tables another replica made (camelCase names are folded in the catalogs)', () => {
    const url = cluster.createDatabase();
    replica(url)
      .resource('fancyWidgets')
      .put({ name: NAME('one'), displayName: 'One' });
    const second = replica(url);
    expect(second.resource('fancyWidgets').find(NAME('one'))?.['displayName']).toBe('One');
  });

  it("publishes the others' changes on the bus, in log order, before its own, and its own once", () => {
    const url = cluster.createDatabase();
    const a = replica(url);
    const b = replica(url);
    const errors: unknown[] = [];
    const announced: number[] = [];
    const follower = new WatchFollower(b, {
      announce: (position) => announced.push(position),
      onError: (err) => errors.push(err),
    });
    const seen: Change[] = [];
    b.bus.subscribe('fancyWidgets', (change) => seen.push(change));
    const onA = a.resource('fancyWidgets');
    const onB = b.resource('fancyWidgets');

    onA.put({ name: NAME('w1'), displayName: 'first', spec: { color: 'red' } });
    onA.patch(NAME('w1'), (doc) => ({ ...doc, spec: { color: 'blue' } }));
    onB.put({ name: NAME('w2'), displayName: 'mine' }); // B's own: A's two changes go out before it
    onA.put({ name: NAME('w3'), displayName: 'third' });
    onA.remove(NAME('w3'));
    expect(seen.map((c) => c.seq)).toEqual([1, 2, 3]);
    follower.catchUp(); // a wake-up: what A committed since
    expect(errors).toEqual([]);
    expect(seen.map((c) => [c.seq, c.name, c.op])).toEqual([
      [1, NAME('w1'), 'put'],
      [2, NAME('w1'), 'put'],
      [3, NAME('w2'), 'put'],
      [4, NAME('w3'), 'put'],
      [5, NAME('w3'), 'delete'],
    ]);
    const [created, updated] = seen;
    expect(created?.before).toBeNull();
    expect((updated?.before?.['spec'] as { color?: string } | undefined)?.color).toBe('red');
    expect((updated?.after?.['spec'] as { color?: string } | undefined)?.color).toBe('blue');
    expect(updated?.changed).toContain('spec.color');
    expect(seen[4]?.before?.['displayName']).toBe('third');
    expect(announced).toEqual([3]);
    expect(follower.position).toBe(5);
    follower.catchUp();
    expect(seen).toHaveLength(5);
    follower.stop();
  });

  it("reads the documents of the others' changes only when a listener looks at one", () => {
    const url = cluster.createDatabase();
    const a = replica(url);
    const b = replica(url);
    const storageOfB = opened[opened.length - 1]!;
    const follower = new WatchFollower(b, { announce: () => {}, onError: (err) => expect.fail(String(err)) });
    const seen: Change[] = [];
    b.bus.subscribe('fancyWidgets', (change) => seen.push(change));
    const onA = a.resource('fancyWidgets');
    for (let i = 0; i < 20; i++) onA.put({ name: NAME(`w${i}`), displayName: `w${i}`, spec: { color: 'red' } });
    for (let i = 0; i < 20; i++) onA.patch(NAME(`w${i}`), (doc) => ({ ...doc, spec: { color: 'blue' } }));

    const before = storageOfB.roundTrips;
    follower.catchUp();
    // the head and the log read alone: names, positions and changed paths come from the log
    expect(storageOfB.roundTrips - before).toBe(2);
    expect(seen.map((c) => c.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(seen[25]?.changed).toContain('spec.color');
    expect(storageOfB.roundTrips - before).toBe(2);
    // the first look reads every document of the read at once
    expect((seen[25]?.after?.['spec'] as { color?: string }).color).toBe('blue');
    expect((seen[25]?.before?.['spec'] as { color?: string }).color).toBe('red');
    expect(seen[3]?.before).toBeNull();
    expect(seen[3]?.after?.['displayName']).toBe('w3');
    expect(storageOfB.roundTrips - before).toBe(3);
    follower.stop();
  });

  it('decodes each distinct list of changed paths of a read once, and every change keeps its own list', () => {
    const { follower, seen, onA } = followedReplica();
    for (let i = 0; i < 4; i++) onA.put({ name: NAME(`w${i}`), displayName: `w${i}`, spec: { color: 'red' } });
    follower.catchUp();
    seen.length = 0;
    for (let i = 0; i < 4; i++) {
      onA.patch(NAME(`w${i}`), (doc) =>
        i % 2 === 0 ? { ...doc, spec: { color: 'blue' } } : { ...doc, displayName: `renamed ${i}` },
      );
    }
    follower.catchUp();
    const [first, second, third, fourth] = seen.map((change) => change.changed);
    expect(first).toContain('spec.color');
    expect(first).not.toContain('displayName');
    expect(second).toContain('displayName');
    expect(second).not.toContain('spec.color');
    // one decoded list for the changes whose paths the log wrote alike
    expect(third).toBe(first);
    expect(fourth).toBe(second);
    follower.stop();
  });

  it('rebuilds a change of a resource deleted before its documents were looked at from its delete', () => {
    const { follower, seen, onA } = followedReplica();
    onA.put({ name: NAME('gone'), displayName: 'soon gone' });
    follower.catchUp();
    onA.remove(NAME('gone'));
    expect(seen.map((c) => [c.op, c.after?.['displayName']])).toEqual([['put', 'soon gone']]);
    follower.catchUp();
    expect(seen.map((c) => [c.op, c.before?.['displayName'] ?? null])).toEqual([
      ['put', null],
      ['delete', 'soon gone'],
    ]);
    follower.stop();
  });
});
