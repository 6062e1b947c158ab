import type { Logger } from '../../logging/logger.js';
import type { SystemCommands } from '../command-runner.js';
import type { SystemRoot } from '../system-root.js';
import { networkBackend } from './network-backend.js';
import { installFiles, networkStore } from './network-store.js';

export interface RestoreOptions {
  root: SystemRoot;
  deviceRoot: string;
  commands: SystemCommands;
  logger: Logger;
}

/**
 * A trial the device did not live through (power cut, reboot, agent restart) is a failed one: the known-good copy is
 * put back and applied, and the state says why, for the agent to report once it is connected. Run at boot before the
 * agent connects (`droplet restore-config`, ExecStartPre= of droplet.service) and again at the agent's start.
 * Returns true when it restored.
 */
export async function restoreInterruptedTrial(options: RestoreOptions): Promise<boolean> {
  const store = networkStore(options.deviceRoot);
  const state = await store.readState();
  if (state?.phase !== 'trial') return false;
  const backend = await networkBackend(options.root, options.commands);
  const knownGood = await store.readKnownGood();
  await installFiles(options.root, await backend.ownedFiles(), knownGood?.contents ?? []);
  const interfaces = [...new Set([...(state.trial?.interfaces ?? []), ...(knownGood?.interfaces ?? [])])];
  const outcome = await backend.apply(interfaces);
  if (!outcome.ok)
    options.logger.error({ error: outcome.error }, 'applying the known-good network configuration failed');
  const generation = state.trial?.generation ?? state.desiredGeneration;
  const error =
    `the device restarted during the trial of network generation ${generation}; restored the known-good ` +
    `configuration (${knownGood?.source === 'desired' && knownGood.generation !== undefined ? `generation ${knownGood.generation}` : 'the factory one'})`;
  const next = {
    ...state,
    phase: 'rolled-back' as const,
    source: knownGood?.source === 'desired' ? ('known-good' as const) : ('factory' as const),
    error,
  };
  delete next.trial;
  await store.writeState(next);
  options.logger.warn(error);
  return true;
}
