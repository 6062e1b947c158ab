import { describe, expect, it } from 'vitest';
import { chooseBootSlot } from '../../src/os/boot/try-once.js';
import type { TryOnceEnv } from '../../src/os/boot/try-once.js';

const env = (overrides: Partial<TryOnceEnv> = {}): TryOnceEnv => ({
  activeSlot: 'A',
  tryCount: 0,
  maxTries: 1,
  ...overrides,
});

describe('the try-once selection (the GRUB script of images/)', () => {
  it.each([
    { name: 'no try: the active slot', given: env(), slot: 'A', trial: 0, after: env() },
    {
      name: 'a try with tries left: the trial slot, counted',
      given: env({ trySlot: 'B' }),
      slot: 'B',
      trial: 1,
      after: env({ trySlot: 'B', tryCount: 1 }),
    },
    {
      name: 'tries used up: fall back and record the failed slot',
      given: env({ trySlot: 'B', tryCount: 1 }),
      slot: 'A',
      trial: 0,
      after: env({ lastFailed: 'B' }),
    },
    {
      name: 'max_tries 2: a second try',
      given: env({ trySlot: 'B', tryCount: 1, maxTries: 2 }),
      slot: 'B',
      trial: 2,
      after: env({ trySlot: 'B', tryCount: 2, maxTries: 2 }),
    },
    {
      name: 'from slot B, trying A',
      given: env({ activeSlot: 'B', trySlot: 'A', lastFailed: 'A' }),
      slot: 'A',
      trial: 1,
      after: env({ activeSlot: 'B', trySlot: 'A', tryCount: 1, lastFailed: 'A' }),
    },
  ] as const)('$name', ({ given, slot, trial, after }) => {
    const choice = chooseBootSlot(given);
    expect(choice).toEqual({ slot, trial, env: after });
  });

  it('a try that never commits is booted max_tries times, then abandoned', () => {
    let state = env({ trySlot: 'B', maxTries: 3 });
    const booted: string[] = [];
    for (let boot = 0; boot < 5; boot++) {
      const choice = chooseBootSlot(state);
      booted.push(choice.slot);
      state = choice.env;
    }
    expect(booted).toEqual(['B', 'B', 'B', 'A', 'A']);
    expect(state.lastFailed).toBe('B');
  });
});
