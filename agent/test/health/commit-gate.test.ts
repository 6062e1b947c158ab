import { describe, expect, it } from 'vitest';
import type { Condition } from '@outpost/shared';
import { commitBlockers, describeBlockers } from '../../src/health/commit-gate.js';

const condition = (type: string, status: Condition['status'], reason: string, message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2025-01-01T00:00:00Z',
});

describe('the health checks that keep a trial boot from committing', () => {
  it('are the failing checks and those without a verdict; passing, unsupported and other conditions are not', () => {
    const blockers = commitBlockers([
      condition('OSReady', 'False', 'Downloading', 'downloading 1.1.0: 10%'),
      condition('Healthy/web', 'False', 'Failing', 'HTTP 503'),
      condition('Healthy/db', 'False', 'Timeout', 'no result within 2s'),
      condition('Healthy/disk', 'Unknown', 'Pending', 'waiting for 1 passing or 3 failing results in a row'),
      condition('Healthy/port', 'True', 'Passing', 'connected'),
      condition('Healthy/new-kind', 'Unknown', 'Unsupported', 'cannot run: spec.type: invalid'),
    ]);
    expect(blockers).toEqual([
      { id: 'web', failing: true, message: 'HTTP 503' },
      { id: 'db', failing: true, message: 'no result within 2s' },
      { id: 'disk', failing: false, message: 'waiting for 1 passing or 3 failing results in a row' },
    ]);
    expect(describeBlockers(blockers)).toBe('web (HTTP 503), db (no result within 2s), disk (no verdict yet)');
  });

  it('are none without health checks', () => {
    expect(commitBlockers([])).toEqual([]);
  });
});
