/**
 * A second writer for the PostgreSQL commit-order test, in a process of its own: opens the database given as
 * the first argument and prints "ready"; once the file named by the third argument exists, creates the widget
 * named by the second and prints the change-log position it got.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { widgetDefinition } from './widgets.js';

const [url, name, signal] = process.argv.slice(2);
if (url === undefined || name === undefined || signal === undefined) {
  throw new Error('usage: pg-widget-writer <postgres-url> <widget-name> <signal-file>');
}
const storage = new PgStorage(url);
const widgets = new ResourceEngine(storage).register(widgetDefinition);
process.stdout.write('ready\n');
while (!existsSync(signal)) await sleep(20);
const created = widgets.put({ name, spec: { color: 'blue' } });
process.stdout.write(`${String((created['metadata'] as { resourceVersion: string }).resourceVersion)}\n`);
storage.close();
