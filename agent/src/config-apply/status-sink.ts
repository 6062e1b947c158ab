import type { StatusReporter } from '../metrics/status-reporter.js';
import { partCondition, partStatus } from './part-status.js';
import type { PartStatusSink } from './part-status.js';

/** Reports a part through the agent's status reporter: `status.configuration.<part>` and its condition. */
export function reporterSink(reporter: StatusReporter, now: () => Date = () => new Date()): PartStatusSink {
  return {
    report(part, report) {
      reporter.report({ configuration: { [part]: partStatus(report, now()) } });
      reporter.setCondition(partCondition(part, report));
    },
  };
}
