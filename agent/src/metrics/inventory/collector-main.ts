// The inventory collector: a short-lived child process the agent starts (see inventory-collector.ts). It reads
// the inventory with systeminformation, writes it as one JSON line on stdout and exits, so neither
// systeminformation nor what it loads stays in the agent's memory. `npm run build` bundles it as
// dist/inventory-collector.js.
import { inventoryFromSystemInformation } from './inventory-from-system-information.js';
import { readSystemInventory } from './read-system-inventory.js';

try {
  const inventory = inventoryFromSystemInformation(await readSystemInventory());
  // exit only once the line is written: systeminformation may leave timers behind
  process.stdout.write(`${JSON.stringify(inventory)}\n`, () => process.exit(0));
} catch (err) {
  process.stderr.write(`cannot read the inventory: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
