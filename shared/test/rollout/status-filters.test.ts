import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deviceDefinition, evaluateFilter, parseFilter } from '../../src/index.js';
import { assessDevice, statusFilters, STATUS_COUNTS, withOsReadyReason } from '../../src/index.js';
import type { RolloutDevice } from '../../src/rollout/index.js';
import { device } from './fixtures.js';

const V = '1.1.0';
const REASONS = ['Converged', 'Pending', 'Downloading', 'Installing', 'Rebooting', 'Verifying', 'RolledBack', 'Failed'];

describe('statusFilters', () => {
  it('count what assessDevice says, and rule 4 of spec 000, for any device without health checks', () => {
    const filters = Object.fromEntries(
      STATUS_COUNTS.map((c) => [c, parseFilter(statusFilters(V)[c], deviceDefinition.filterSchema)]),
    );
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom('1.0.0', V), { nil: undefined }),
        fc.option(fc.constantFrom('1.0.0', V), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.constantFrom(...REASONS), { nil: undefined }),
        (desired, running, online, reason) => {
          const facts = {
            id: 'd1',
            desired,
            running,
            online,
            ...(reason ? { osReady: ['False', reason] as [string, string] } : {}),
          };
          // as the server stores it: with status.osReadyReason derived
          const stored = withOsReadyReason(
            device(facts) as unknown as Record<string, unknown>,
          ) as unknown as RolloutDevice;
          const counted = STATUS_COUNTS.filter((c) => evaluateFilter(filters[c]!, stored));
          const state = assessDevice(stored, V).state;
          const expected =
            state === 'done'
              ? ['done']
              : state === 'notTargeted'
                ? running === V
                  ? ['notTargeted', 'done']
                  : ['notTargeted']
                : ['inFlight', state === 'inFlight' ? 'pending' : state];
          expect(counted.sort()).toEqual(expected.sort());
        },
      ),
    );
  });
});
