import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { rolloutView } from '../../src/cli/rollout-view.js';

const counts = { total: 3, notTargeted: 0, inFlight: 1, done: 1, failed: 1, offline: 0 };

function capture(format: 'table' | 'json', isTTY: boolean) {
  const out: string[] = [];
  let bar = '';
  const ctx = { format, print: (line: string) => out.push(line), note: (line: string) => out.push(`note: ${line}`) };
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        bar += chunk.toString();
        done();
      },
    }),
    { isTTY, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
  ) as unknown as NodeJS.WriteStream;
  return { view: rolloutView(ctx as unknown as CliContext, stream), out, bar: () => bar };
}

describe('the rollout view', () => {
  it('with -o json prints every event as one JSON line', () => {
    const { view, out } = capture('json', false);
    view.show({ event: 'progress', wave: 'canary', counts });
    view.show({ event: 'completed', version: '1.1.0', waves: [] });
    expect(out.map((line) => JSON.parse(line) as unknown)).toEqual([
      { event: 'progress', wave: 'canary', counts },
      { event: 'completed', version: '1.1.0', waves: [] },
    ]);
  });

  it('names the failed devices of a halt, with the control characters a device sent escaped', () => {
    const { view, out } = capture('table', false);
    view.show({
      event: 'halted',
      wave: 'early',
      reason: '2 of 3 device(s) failed',
      failures: [{ name: 'projects/p1/regions/eu/devices/d1', why: 'RolledBack: \u001b[2Jgone' }],
      counts,
    });
    expect(out).toEqual([
      'wave early: HALTED: 2 of 3 device(s) failed (1/3 done, 1 in flight, 1 failed, 0 offline, 0 not targeted)',
      '  projects/p1/regions/eu/devices/d1: RolledBack: \\x1b[2Jgone',
      'later waves were left untouched',
    ]);
  });

  it('draws a progress bar on a terminal, ended when the wave goes through', () => {
    const { view, out, bar } = capture('table', true);
    view.show({ event: 'progress', wave: 'canary', counts });
    view.show({ event: 'promoted', wave: 'canary', counts: { ...counts, inFlight: 0, failed: 0, done: 3 } });
    expect(bar()).toMatch(/canary \[.*\] 1\/3 done \| in flight 1 \| failed 1 \| offline 0 \| not targeted 0/);
    expect(out).toEqual(['wave canary: through (3/3 done, 0 in flight, 0 failed, 0 offline, 0 not targeted)']);
  });
});
