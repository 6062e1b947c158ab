import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Slot } from '@outpost/shared';
import { MAX_SWITCH_REBOOTS, planNextStep } from '../../src/os/os-planner.js';
import type { DesiredOs, Plan, PlannerInput } from '../../src/os/os-planner.js';
import type { CommitBlocker } from '../../src/health/commit-gate.js';
import type { OperationImage, OsOperation, OsProgress } from '../../src/os/os-progress.js';

const image = (version: string, sha = 'a'.repeat(64)): OperationImage => ({
  version,
  deviceType: 'simulated',
  sha256: sha,
  size: 1000,
  signature: 'sig',
  url: `/v1/artifacts/${sha}`,
});

const failingCheck = (id: string, message: string): CommitBlocker => ({ id, failing: true, message });
const pendingCheck = (id: string): CommitBlocker => ({ id, failing: false, message: 'waiting for results' });

const want = (version: string | undefined, withImage = true): DesiredOs =>
  version === undefined ? {} : withImage ? { version, image: image(version) } : { version };

/** A committed device running 1.0.0 in slot A, spec.osVersion 1.0.0, everything known. */
function input(overrides: Partial<PlannerInput> = {}): PlannerInput {
  const desired = 'desired' in overrides ? overrides.desired : want('1.0.0');
  return {
    deviceType: 'simulated',
    boot: { bootId: 'boot-1', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A' },
    runningVersion: '1.0.0',
    connected: true,
    commitBlockers: [],
    neverCommit: false,
    commitTimeoutMs: 300_000,
    now: 10_000,
    ...overrides,
    desired,
    progress: {
      slots: { A: { version: '1.0.0', good: true } },
      desiredVersion: desired === undefined ? '1.0.0' : (desired.version ?? ''),
      ...overrides.progress,
    },
  };
}

const operation = (overrides: Partial<OsOperation> = {}): OsOperation => ({
  version: '1.1.0',
  slot: 'B',
  phase: 'downloading',
  image: image('1.1.0'),
  bytesWritten: 0,
  reboots: 0,
  ...overrides,
});

const progressWith = (overrides: Partial<OsProgress>): OsProgress => ({
  slots: { A: { version: '1.0.0', good: true } },
  ...overrides,
});

/** The device after the switch to 1.1.0 in slot B was requested in boot-1. */
const switched = (overrides: Partial<OsOperation> = {}): OsOperation =>
  operation({ phase: 'switching', switchBootId: 'boot-1', bytesWritten: 1000, ...overrides });

interface Case {
  name: string;
  input: PlannerInput;
  step: Plan['step'] | { kind: Plan['step']['kind'] };
  reason?: string;
  message?: RegExp;
}

const cases: Case[] = [
  // ---- committed boot, nothing under way
  { name: 'no spec known yet', input: input({ desired: undefined }), step: { kind: 'idle' } },
  {
    name: 'no OS version requested',
    input: input({ desired: {} }),
    step: { kind: 'idle' },
    reason: 'Converged',
    message: /no OS version is requested/,
  },
  {
    name: 'spec equals the running version',
    input: input(),
    step: { kind: 'idle' },
    reason: 'Converged',
    message: /running 1\.0\.0 in slot A/,
  },
  {
    name: 'a new spec.osVersion is remembered first',
    input: input({ desired: want('1.1.0'), progress: progressWith({ desiredVersion: '1.0.0' }) }),
    step: { kind: 'note-desired', version: '1.1.0' },
  },
  {
    name: 'a cleared spec.osVersion is remembered',
    input: input({ desired: {}, progress: progressWith({ desiredVersion: '1.1.0' }) }),
    step: { kind: 'note-desired', version: '' },
  },
  {
    name: 'an unknown running slot is recorded as good',
    input: input({ progress: progressWith({ slots: {} }) }),
    step: { kind: 'note-running', slot: 'A', version: '1.0.0' },
  },
  {
    name: 'a running slot not yet known good is recorded',
    input: input({ progress: progressWith({ slots: { A: { version: '1.0.0', good: false } } }) }),
    step: { kind: 'note-running', slot: 'A', version: '1.0.0' },
  },
  {
    name: 'a new version with an image starts downloading into the spare slot',
    input: input({ desired: want('1.1.0') }),
    step: { kind: 'start-download', slot: 'B', image: image('1.1.0') },
    reason: 'Downloading',
    message: /^downloading 1\.1\.0: 0%$/,
  },
  {
    name: 'from slot B the spare slot is A',
    input: input({
      desired: want('1.2.0'),
      boot: { bootId: 'b', bootTimeMs: 0, runningSlot: 'B', activeSlot: 'B' },
      runningVersion: '1.1.0',
      progress: progressWith({ slots: { B: { version: '1.1.0', good: true } } }),
    }),
    step: { kind: 'start-download', slot: 'A', image: image('1.2.0') },
  },
  {
    name: 'a version not published for the type waits',
    input: input({ desired: want('1.1.0', false) }),
    step: { kind: 'idle' },
    reason: 'Pending',
    message: /^version 1\.1\.0 is not published for device type simulated$/,
  },
  {
    name: 'the retained good version switches without a download (even unpublished)',
    input: input({
      desired: want('0.9.0', false),
      progress: progressWith({
        slots: { A: { version: '1.0.0', good: true }, B: { version: '0.9.0', good: true } },
      }),
    }),
    step: { kind: 'start-switch', version: '0.9.0', slot: 'B' },
    reason: 'Installing',
    message: /retained in slot B/,
  },
  {
    name: 'a retained version that never booted is downloaded again',
    input: input({
      desired: want('1.1.0'),
      progress: progressWith({
        slots: { A: { version: '1.0.0', good: true }, B: { version: '1.1.0', good: false } },
      }),
    }),
    step: { kind: 'start-download', slot: 'B', image: image('1.1.0') },
  },
  {
    name: 'a rolled-back version is not retried',
    input: input({
      desired: want('1.1.0'),
      progress: progressWith({ rolledBack: { version: '1.1.0', slot: 'B', message: '1.1.0 did not boot' } }),
    }),
    step: { kind: 'idle' },
    reason: 'RolledBack',
    message: /1\.1\.0 did not boot; not retried until spec\.osVersion changes/,
  },
  {
    name: 'a failed artifact is not retried',
    input: input({
      desired: want('1.1.0'),
      progress: progressWith({ failed: { version: '1.1.0', sha256: 'a'.repeat(64), message: 'bad signature' } }),
    }),
    step: { kind: 'idle' },
    reason: 'Failed',
    message: /^bad signature$/,
  },
  {
    name: 'a republished artifact of a failed version is tried',
    input: input({
      desired: want('1.1.0'),
      progress: progressWith({ failed: { version: '1.1.0', sha256: 'b'.repeat(64), message: 'bad signature' } }),
    }),
    step: { kind: 'start-download', slot: 'B', image: image('1.1.0') },
  },
  {
    name: 'an image for another device type fails',
    input: input({ desired: { version: '1.1.0', image: { ...image('1.1.0'), deviceType: 'rpi4' } } }),
    step: { kind: 'fail' },
    reason: 'Failed',
    message:
      /^refused 1\.1\.0: its image is for device type rpi4, and this device is a simulated \(nothing was downloaded\)$/,
  },
  {
    name: 'an image whose minimumPreviousVersion the running version does not meet fails before any download',
    input: input({ desired: { version: '2.0.0', image: { ...image('2.0.0'), minimumPreviousVersion: '1.2.0' } } }),
    step: { kind: 'fail', version: '2.0.0', sha256: 'a'.repeat(64) },
    reason: 'Failed',
    message:
      /^refused 2\.0\.0: its minimumPreviousVersion is 1\.2\.0 and this device runs 1\.0\.0; upgrade through 1\.2\.0 first \(nothing was downloaded\)$/,
  },
  {
    name: 'a prerelease of the minimum does not meet it',
    input: input({
      runningVersion: '1.2.0-rc.1',
      progress: { slots: { A: { version: '1.2.0-rc.1', good: true } } },
      desired: { version: '2.0.0', image: { ...image('2.0.0'), minimumPreviousVersion: '1.2.0' } },
    }),
    step: { kind: 'fail' },
    reason: 'Failed',
  },
  {
    name: 'an unknown running version does not meet a minimum',
    input: input({
      runningVersion: undefined,
      desired: { version: '2.0.0', image: { ...image('2.0.0'), minimumPreviousVersion: '1.0.0' } },
    }),
    step: { kind: 'fail' },
    message: /this device runs an unknown version/,
  },
  {
    name: 'a minimum the running version meets downloads',
    input: input({ desired: { version: '2.0.0', image: { ...image('2.0.0'), minimumPreviousVersion: '1.0.0' } } }),
    step: { kind: 'start-download', slot: 'B' },
    reason: 'Downloading',
  },
  {
    name: 'before the download, a health check that already fails is named: the trial would not commit',
    input: input({ desired: want('1.1.0'), commitBlockers: [failingCheck('web', 'HTTP 503'), pendingCheck('disk')] }),
    step: { kind: 'start-download' },
    reason: 'Downloading',
    message:
      /^downloading 1\.1\.0: 0%; health check web \(HTTP 503\) already fails: a trial boot of 1\.1\.0 does not commit while a health check fails$/,
  },
  {
    name: 'a failed version is not noted with failing health checks',
    input: input({
      desired: want('1.1.0'),
      commitBlockers: [failingCheck('web', 'HTTP 503')],
      progress: progressWith({ failed: { version: '1.1.0', sha256: 'a'.repeat(64), message: 'bad signature' } }),
    }),
    step: { kind: 'idle' },
    message: /^bad signature$/,
  },
  {
    name: 'a device type may be written as deviceTypes/x',
    input: input({ desired: want('1.1.0'), deviceType: 'deviceTypes/simulated' }),
    step: { kind: 'start-download' },
  },
  {
    name: 'an image of another version fails',
    input: input({ desired: { version: '1.1.0', image: image('1.2.0') } }),
    step: { kind: 'fail' },
    reason: 'Failed',
  },

  // ---- a download under way
  {
    name: 'a download continues, with its percentage',
    input: input({ desired: want('1.1.0'), progress: progressWith({ operation: operation({ bytesWritten: 420 }) }) }),
    step: { kind: 'download' },
    reason: 'Downloading',
    message: /^downloading 1\.1\.0: 42%$/,
  },
  {
    name: 'writing back the running version aborts the download',
    input: input({ progress: progressWith({ operation: operation() }) }),
    step: { kind: 'drop-operation', cancelTry: false, reason: 'spec.osVersion is the running version 1.0.0' },
  },
  {
    name: 'another version aborts the download',
    input: input({ desired: want('1.2.0'), progress: progressWith({ operation: operation() }) }),
    step: { kind: 'drop-operation', cancelTry: false, reason: 'spec.osVersion changed to 1.2.0' },
  },
  {
    name: 'a cleared spec.osVersion aborts the download',
    input: input({ desired: {}, progress: progressWith({ operation: operation() }) }),
    step: { kind: 'drop-operation', cancelTry: false, reason: 'no OS version is requested' },
  },
  {
    name: 'a republished image aborts the download',
    input: input({
      desired: { version: '1.1.0', image: image('1.1.0', 'c'.repeat(64)) },
      progress: progressWith({ operation: operation() }),
    }),
    step: { kind: 'drop-operation' },
  },
  {
    name: 'an operation on the running slot is dropped',
    input: input({ desired: want('1.1.0'), progress: progressWith({ operation: operation({ slot: 'A' }) }) }),
    step: { kind: 'drop-operation', cancelTry: false, reason: 'the slot being written is the running slot' },
  },
  {
    name: 'with no spec known, a download waits',
    input: input({ desired: undefined, progress: progressWith({ operation: operation() }) }),
    step: { kind: 'idle' },
  },

  // ---- verified, not yet switched
  {
    name: 'a verified image is switched to',
    input: input({ desired: want('1.1.0'), progress: progressWith({ operation: operation({ phase: 'verified' }) }) }),
    step: { kind: 'switch' },
    reason: 'Installing',
    message: /switching to 1\.1\.0 in slot B/,
  },
  {
    name: 'a verified image of an old spec is dropped',
    input: input({ progress: progressWith({ operation: operation({ phase: 'verified' }) }) }),
    step: { kind: 'drop-operation', cancelTry: false },
  },

  // ---- switching, same boot (the reboot has not happened)
  {
    name: 'the try is set: reboot',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-1', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', trySlot: 'B' },
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'reboot', reason: 'switching to 1.1.0 in slot B' },
    reason: 'Rebooting',
  },
  {
    name: 'the try was not set yet (killed in between): set it',
    input: input({ desired: want('1.1.0'), progress: progressWith({ operation: switched() }) }),
    step: { kind: 'switch' },
    reason: 'Installing',
  },
  {
    name: 'the spec changed before the reboot: cancel the try',
    input: input({
      boot: { bootId: 'boot-1', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', trySlot: 'B' },
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'drop-operation', cancelTry: true, reason: 'spec.osVersion changed to 1.0.0' },
  },
  {
    name: 'a bootloader that never takes the try gives up',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-4', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', trySlot: 'B' },
      progress: progressWith({ operation: switched({ reboots: MAX_SWITCH_REBOOTS }) }),
    }),
    step: { kind: 'fail' },
    reason: 'Failed',
    message: /did not try slot B/,
  },

  // ---- switching, after a reboot
  {
    name: 'the trial slot is already committed (killed before recording it)',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-2', bootTimeMs: 0, runningSlot: 'B', activeSlot: 'B' },
      runningVersion: '1.1.0',
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'finish-commit' },
  },
  {
    name: 'the bootloader fell back: rolled back',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-3', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' },
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'record-rollback' },
    reason: 'RolledBack',
    message: /^1\.1\.0 did not boot or was not committed in slot B; running 1\.0\.0$/,
  },
  {
    name: 'rolled back after a trial that gave up: says why, naming the failing health checks',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-3', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' },
      progress: progressWith({
        operation: switched({
          notCommitted: {
            reason:
              'slot B (1.1.0) was not committed within 300 s (waiting for the health checks to pass: web (HTTP 503))',
            failingHealthChecks: ['web'],
          },
        }),
      }),
    }),
    step: { kind: 'record-rollback' },
    reason: 'RolledBack',
    message:
      /^1\.1\.0 was rolled back: slot B \(1\.1\.0\) was not committed within 300 s \(waiting for the health checks to pass: web \(HTTP 503\)\); running 1\.0\.0$/,
  },
  {
    name: 'a fallback is recorded even when the spec changed since',
    input: input({
      boot: { bootId: 'boot-3', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' },
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'record-rollback' },
  },
  {
    name: 'a power cut before the try reached the bootloader: set it again',
    input: input({
      desired: want('1.1.0'),
      boot: { bootId: 'boot-2', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A' },
      progress: progressWith({ operation: switched() }),
    }),
    step: { kind: 'switch' },
  },
  {
    name: 'an abandoned trial, back on the committed slot, is forgotten',
    input: input({
      boot: { bootId: 'boot-3', bootTimeMs: 0, runningSlot: 'A', activeSlot: 'A' },
      progress: progressWith({ operation: switched({ phase: 'abandoning' }) }),
    }),
    step: { kind: 'drop-operation', cancelTry: false },
  },

  // ---- trial boot of slot B (active A)
  {
    name: 'a connected, healthy trial boot commits',
    input: trial(),
    step: { kind: 'commit' },
    reason: 'Verifying',
    message: /booted 1\.1\.0 in slot B; committing/,
  },
  {
    name: 'a trial boot waits for the control plane',
    input: trial({ connected: false }),
    step: { kind: 'idle', wakeAtMs: 11_000 },
    reason: 'Verifying',
    message: /^booted 1\.1\.0 in slot B for a trial; not committed yet: waiting for the control plane$/,
  },
  {
    name: 'a trial boot waits for the health checks, naming those failing or without a verdict',
    input: trial({ commitBlockers: [failingCheck('web', 'connection refused'), pendingCheck('disk')] }),
    step: { kind: 'idle' },
    reason: 'Verifying',
    message:
      /not committed yet: waiting for the health checks to pass: web \(connection refused\), disk \(no verdict yet\)$/,
  },
  {
    name: 'a trial boot kept from its commit by a failing check gives up at the deadline, remembering why',
    input: trial({ commitBlockers: [failingCheck('web', 'HTTP 503'), pendingCheck('disk')], now: 300_000 }),
    step: {
      kind: 'reboot',
      notCommitted: {
        reason:
          'slot B (1.1.0) was not committed within 300 s ' +
          '(waiting for the health checks to pass: web (HTTP 503), disk (no verdict yet))',
        failingHealthChecks: ['web'],
      },
    },
    reason: 'Rebooting',
  },
  {
    name: 'a trial boot never commits with the test hook',
    input: trial({ neverCommit: true }),
    step: { kind: 'idle' },
    reason: 'Verifying',
    message: /OUTPOST_TEST_NEVER_COMMIT/,
  },
  {
    name: 'the idle trial wakes at the commit deadline',
    input: trial({ connected: false, now: 299_500 }),
    step: { kind: 'idle', wakeAtMs: 300_000 },
  },
  {
    name: 'an uncommitted trial boot reboots at the commit timeout',
    input: trial({ connected: false, now: 300_000 }),
    step: { kind: 'reboot' },
    reason: 'Rebooting',
    message:
      /^slot B \(1\.1\.0\) was not committed within 300 s \(waiting for the control plane\); rebooting into slot A$/,
  },
  {
    name: 'a new spec during the trial abandons it',
    input: trial({ desired: want('1.0.0') }),
    step: { kind: 'abandon-trial', reason: 'spec.osVersion is now 1.0.0' },
    reason: 'Rebooting',
  },
  {
    name: 'an abandoning trial keeps abandoning (killed before the reboot)',
    input: trial({ progress: progressWith({ operation: switched({ phase: 'abandoning' }) }) }),
    step: { kind: 'abandon-trial' },
  },
  {
    name: 'a trial boot nobody asked for commits too',
    input: trial({ progress: progressWith({}) }),
    step: { kind: 'commit' },
  },
  {
    name: 'a trial boot commits before any spec is known',
    input: trial({ desired: undefined }),
    step: { kind: 'commit' },
  },
];

function trial(overrides: Partial<PlannerInput> = {}): PlannerInput {
  return input({
    desired: want('1.1.0'),
    boot: { bootId: 'boot-2', bootTimeMs: 0, runningSlot: 'B', activeSlot: 'A', trySlot: 'B' },
    runningVersion: '1.1.0',
    progress: progressWith({ operation: switched() }),
    ...overrides,
  });
}

describe('the upgrade planner', () => {
  it.each(cases)('$name', ({ input: given, step, reason, message }) => {
    const plan = planNextStep(given);
    expect(plan.step).toMatchObject(step);
    if (reason !== undefined) expect(plan.condition?.reason).toBe(reason);
    if (message !== undefined) expect(plan.condition?.message).toMatch(message);
    if (plan.condition !== undefined) {
      expect(plan.condition.status).toBe(
        ['Converged', 'Unsupported'].includes(plan.condition.reason) ? 'True' : 'False',
      );
    }
  });

  it('the note steps come before everything, even a trial boot', () => {
    const plan = planNextStep(trial({ progress: progressWith({ operation: switched(), desiredVersion: '1.0.0' }) }));
    expect(plan.step).toEqual({ kind: 'note-desired', version: '1.1.0' });
  });

  it('never writes the running slot and never commits a committed boot (any input)', () => {
    const slot = fc.constantFrom<Slot>('A', 'B');
    const version = fc.constantFrom('1.0.0', '1.1.0', '1.2.0');
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const arbitraryInput = fc.record({
      desired: maybe(fc.record({ version: maybe(version), withImage: fc.boolean() })),
      running: slot,
      active: slot,
      trySlot: maybe(slot),
      lastFailed: maybe(slot),
      sameBoot: fc.boolean(),
      runningVersion: maybe(version),
      slotVersions: fc.record({ A: maybe(version), B: maybe(version) }),
      good: fc.record({ A: fc.boolean(), B: fc.boolean() }),
      operation: maybe(
        fc.record({
          version,
          slot,
          phase: fc.constantFrom('downloading', 'verified', 'switching', 'abandoning' as const),
          reboots: fc.integer({ min: 0, max: 4 }),
          withImage: fc.boolean(),
        }),
      ),
      desiredVersion: maybe(version),
      connected: fc.boolean(),
      commitBlockers: fc.constantFrom([], [failingCheck('web', 'HTTP 503')], [pendingCheck('disk')]),
      neverCommit: fc.boolean(),
      now: fc.integer({ min: 0, max: 600_000 }),
    });
    fc.assert(
      fc.property(arbitraryInput, (a) => {
        const given: PlannerInput = {
          desired:
            a.desired === undefined
              ? undefined
              : a.desired.version === undefined
                ? {}
                : a.desired.withImage
                  ? { version: a.desired.version, image: image(a.desired.version) }
                  : { version: a.desired.version },
          deviceType: 'simulated',
          boot: {
            bootId: a.sameBoot ? 'boot-1' : 'boot-2',
            bootTimeMs: 0,
            runningSlot: a.running,
            activeSlot: a.active,
            ...(a.trySlot === undefined ? {} : { trySlot: a.trySlot }),
            ...(a.lastFailed === undefined ? {} : { lastFailed: a.lastFailed }),
          },
          runningVersion: a.runningVersion,
          progress: {
            slots: {
              A: { ...(a.slotVersions.A === undefined ? {} : { version: a.slotVersions.A }), good: a.good.A },
              B: { ...(a.slotVersions.B === undefined ? {} : { version: a.slotVersions.B }), good: a.good.B },
            },
            ...(a.desiredVersion === undefined ? {} : { desiredVersion: a.desiredVersion }),
            ...(a.operation === undefined
              ? {}
              : {
                  operation: {
                    version: a.operation.version,
                    slot: a.operation.slot,
                    phase: a.operation.phase,
                    bytesWritten: 0,
                    reboots: a.operation.reboots,
                    switchBootId: 'boot-1',
                    ...(a.operation.withImage ? { image: image(a.operation.version) } : {}),
                  },
                }),
          },
          connected: a.connected,
          commitBlockers: a.commitBlockers,
          neverCommit: a.neverCommit,
          commitTimeoutMs: 300_000,
          now: a.now,
        };
        const { step } = planNextStep(given);
        const trialBoot = a.running !== a.active;
        if (step.kind === 'start-download' || step.kind === 'start-switch') expect(step.slot).not.toBe(a.running);
        if (step.kind === 'commit') expect(trialBoot).toBe(true);
        if (step.kind === 'commit') expect(a.neverCommit || !a.connected || a.commitBlockers.length > 0).toBe(false);
        if (step.kind === 'download') expect(given.progress.operation?.slot).not.toBe(a.running);
        if (step.kind === 'idle' && trialBoot) expect(step.wakeAtMs).toBeDefined();
        if (step.kind === 'note-desired') expect(step.version).not.toBe(given.progress.desiredVersion ?? '');
      }),
      { numRuns: 2_000 },
    );
  });
});
