import { describe, expect, it } from 'vitest';
import { mergeReportedStatus, reportedStatusSchema, type ReportedStatus } from '../../src/protocol/index.js';

const diskUnlock: NonNullable<ReportedStatus['diskUnlock']> = {
  adapter: 'simulated-tpm',
  boundPcrs: [7, 8, 9],
  slotsAccepted: ['A', 'B'],
  unlockedThisBoot: true,
  lastChange: { time: '2026-11-27T19:00:00.000Z', reason: 'slot B is about to be tried' },
};

describe('status.diskUnlock in a device report', () => {
  it('is accepted and replaces the stored one', () => {
    const report = reportedStatusSchema.parse({ diskUnlock });
    expect(report.diskUnlock).toEqual(diskUnlock);
    const merged = mergeReportedStatus({ diskUnlock: { ...diskUnlock, slotsAccepted: ['A'] } }, report);
    expect(merged.diskUnlock?.slotsAccepted).toEqual(['A', 'B']);
  });

  it.each([
    ['an unknown adapter', { adapter: 'clevis' }],
    ['a PCR beyond 23', { boundPcrs: [7, 24] }],
    ['a slot that does not exist', { slotsAccepted: ['A', 'C'] }],
    ['three slots', { slotsAccepted: ['A', 'B', 'A'] }],
    ['a change time that is not RFC 3339', { lastChange: { time: 'yesterday', reason: '' } }],
  ])('refuses %s', (_, change) => {
    expect(reportedStatusSchema.safeParse({ diskUnlock: { ...diskUnlock, ...change } }).success).toBe(false);
  });
});
