import { expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { where } from '../../../src/resources/resource-query.js';
import { describeStorages } from '../../helpers/storages.js';
import { widgetDefinition } from '../../helpers/widgets.js';

const PARENT = 'projects/p1/regions/eu';

/**
 * Text that array literals and JSON each escape their own way (PostgreSQL's writes send the rows as one JSON
 * parameter): every value must come back, and filter, exactly as written.
 */
const AWKWARD = [
  'say "hi"',
  'back\\slash \\" and \\\\',
  '{a,b}',
  'NULL',
  '',
  ' padded ',
  'line\nbreak\ttab',
  'ünïcødé – 漢字 🚀',
  "'single'",
  '1e3',
];

describeStorages('writes of awkward text', (fresh) => {
  it('keeps documents, filter columns and change-log rows exact through insert, update and delete', () => {
    const engine = new ResourceEngine(fresh());
    const widgets = engine.register(widgetDefinition);
    const start = engine.log.head();
    engine.transaction(() => {
      AWKWARD.forEach((text, i) =>
        widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/w${i}`, displayName: text } }),
      );
    });
    engine.transaction(() => {
      AWKWARD.forEach((text, i) =>
        widgets.patch(`${PARENT}/widgets/w${i}`, (d) => ({
          ...d,
          displayName: `${text}!`,
          spec: { color: text, size: i },
        })),
      );
    });
    AWKWARD.forEach((text, i) => {
      const stored = widgets.find(`${PARENT}/widgets/w${i}`);
      expect(stored).toMatchObject({ displayName: `${text}!`, spec: { color: text, size: i } });
      const byColor = widgets.names({ where: [where.equals('spec.color', text)] });
      expect(byColor).toEqual([`${PARENT}/widgets/w${i}`]);
    });
    const updates = engine.log.read('widgets', start + AWKWARD.length, 100);
    expect(updates.map((c) => c.op)).toEqual(AWKWARD.map(() => 'update'));
    updates.forEach((change, i) => expect(JSON.parse(change.prior!)).toContainEqual(['displayName', AWKWARD[i]]));
    engine.transaction(() => widgets.remove(`${PARENT}/widgets/w0`));
    const [deleted] = engine.log.read('widgets', start + 2 * AWKWARD.length, 10);
    expect(deleted).toMatchObject({ op: 'delete', deleted: { displayName: `${AWKWARD[0]}!` } });
  });
});
