import { describe, expect, it } from 'vitest';
import { acceptStatus, declineStatus, decideApproval } from '../../../src/limits/core/index.js';
import { DEVICES, PODS, allowance } from './fixtures.js';

const before = [allowance(DEVICES, 10, 'us-east'), allowance(PODS, 5, 'us-east')];
const noUsage = { usageByResourceRegion: [], requesterIsSystem: false };
const used = (usage: number) => ({
  usageByResourceRegion: [{ resource: DEVICES, region: 'us-east', usage }],
  requesterIsSystem: false,
});

describe('decideApproval', () => {
  it('approves a request that lowers limits', () => {
    const after = [allowance(DEVICES, 4, 'us-east'), allowance(PODS, 5, 'us-east')];
    expect(decideApproval({ before, after, ...noUsage }).conclusion).toBe('APPROVED');
  });

  it('approves a request that changes nothing', () => {
    expect(decideApproval({ before, after: before, ...noUsage }).conclusion).toBe('APPROVED');
  });

  it('leaves a request that raises any allowance pending, naming it', () => {
    const after = [allowance(DEVICES, 4, 'us-east'), allowance(PODS, 6, 'us-east')];
    const decision = decideApproval({ before, after, ...noUsage });
    expect(decision.conclusion).toBe('PENDING');
    expect(decision.reason).toContain(`raises ${PODS} in region us-east from 5 to 6`);
  });

  it('treats an allowance in a new region or for a new resource as a raise', () => {
    expect(
      decideApproval({ before, after: [...before, allowance(DEVICES, 1, 'eu-west')], ...noUsage }).conclusion,
    ).toBe('PENDING');
    expect(decideApproval({ before: [], after: [allowance(DEVICES, 1, 'us-east')], ...noUsage }).conclusion).toBe(
      'PENDING',
    );
  });

  it('approves unassign-all when the limits are not in use', () => {
    expect(decideApproval({ before, after: undefined, ...used(0) }).conclusion).toBe('APPROVED');
  });

  it('leaves unassign-all pending when the limits are in use, with the reason', () => {
    const decision = decideApproval({ before, after: undefined, ...used(3) });
    expect(decision).toEqual({ conclusion: 'PENDING', reason: expect.stringContaining('in use') });
  });

  it('approves unassign-region when it does not raise limits and refuses to self-approve when it does', () => {
    const lower = [allowance(DEVICES, 2, 'us-east'), allowance(PODS, 5, 'us-east')];
    const higher = [allowance(DEVICES, 20, 'us-east'), allowance(PODS, 5, 'us-east')];
    expect(decideApproval({ before, after: lower, ...noUsage }).conclusion).toBe('APPROVED');
    expect(decideApproval({ before, after: higher, ...noUsage }).conclusion).toBe('PENDING');
  });

  it('leaves a lowering below the usage pending, but not one that stays above it', () => {
    const after = [allowance(DEVICES, 4, 'us-east'), allowance(PODS, 5, 'us-east')];
    expect(decideApproval({ before, after, ...used(5) }).conclusion).toBe('PENDING');
    expect(decideApproval({ before, after, ...used(4) }).conclusion).toBe('APPROVED');
  });

  it('approves everything the system itself requests', () => {
    expect(
      decideApproval({
        before: [],
        after: [allowance(DEVICES, 1000, 'us-east')],
        usageByResourceRegion: [],
        requesterIsSystem: true,
      }),
    ).toEqual({
      conclusion: 'APPROVED',
      reason: 'requested by the system',
    });
  });
});

describe('request status transitions', () => {
  const pending = { conclusion: 'PENDING' as const, reason: 'raises' };

  it('accept and decline conclude a pending request', () => {
    expect(acceptStatus(pending).conclusion).toBe('APPROVED');
    expect(declineStatus(pending, 'too many')).toEqual({ conclusion: 'REJECTED', reason: 'too many' });
  });

  it('refuses to accept or decline a request that is no longer pending', () => {
    const precondition = expect.objectContaining({ status: 'FAILED_PRECONDITION' });
    expect(() => acceptStatus({ conclusion: 'APPROVED', reason: '' })).toThrow(precondition);
    expect(() => declineStatus({ conclusion: 'REJECTED', reason: '' })).toThrow(precondition);
  });
});
