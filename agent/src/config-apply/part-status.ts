import { CONFIGURATION_CONDITION_TYPES } from '@outpost/shared';
import type { ConfigurationPart, ConfigurationPartStatus, ConfigurationSource } from '@outpost/shared';
import type { ConditionUpdate } from '../metrics/conditions.js';

/**
 * The state of one configuration part, as reported in `status.configuration.<part>` and its condition.
 *
 * Generations: `desiredGeneration` is the device's metadata.generation of the first spec in which the part's
 * content took its current form (the agent compares a hash of the part's canonical JSON, so a spec change to
 * another part does not move it); `appliedGeneration` is the desired generation of the content now in force, absent
 * when nothing desired was ever applied (factory) and kept at the last good one after a roll-back.
 */
export type PartPhase =
  | { phase: 'applying' }
  | { phase: 'trial' }
  | { phase: 'applied' }
  | { phase: 'failed'; error: string }
  | { phase: 'rolled-back'; error: string };

export interface PartReport {
  desiredGeneration: number;
  appliedGeneration?: number;
  source: ConfigurationSource;
  phase: PartPhase;
  /** added to the Applied condition's message (e.g. that sshd was not asked under a simulated --system-root) */
  note?: string;
}

/** What `status.configuration.<part>` carries for a report. */
export function partStatus(report: PartReport, now: Date): ConfigurationPartStatus {
  const { phase } = report;
  return {
    desiredGeneration: report.desiredGeneration,
    ...(report.appliedGeneration === undefined ? {} : { appliedGeneration: report.appliedGeneration }),
    source: report.source,
    ...(phase.phase === 'failed' || phase.phase === 'rolled-back' ? { lastError: phase.error } : {}),
    updateTime: now.toISOString(),
  };
}

/** The part's condition: True/Applied, False/Failed, False/RolledBack, Unknown/Applying, Unknown/Trial. */
export function partCondition(part: ConfigurationPart, report: PartReport): ConditionUpdate {
  const type = CONFIGURATION_CONDITION_TYPES[part];
  const { phase } = report;
  switch (phase.phase) {
    case 'applying':
      return {
        type,
        status: 'Unknown',
        reason: 'Applying',
        message: `applying generation ${report.desiredGeneration}`,
      };
    case 'trial':
      return {
        type,
        status: 'Unknown',
        reason: 'Trial',
        message: `generation ${report.desiredGeneration} is on trial until the link to the control plane comes back`,
      };
    case 'applied': {
      const inForce =
        report.appliedGeneration === undefined
          ? `the ${report.source} configuration is in force`
          : `generation ${report.appliedGeneration} is in force`;
      return {
        type,
        status: 'True',
        reason: 'Applied',
        message: report.note === undefined ? inForce : `${inForce} (${report.note})`,
      };
    }
    case 'failed':
      return { type, status: 'False', reason: 'Failed', message: phase.error };
    case 'rolled-back':
      return { type, status: 'False', reason: 'RolledBack', message: phase.error };
  }
}

/** Where a part reports: the agent's status reporter, seen through what the parts need of it. */
export interface PartStatusSink {
  report(part: ConfigurationPart, report: PartReport): void;
}
