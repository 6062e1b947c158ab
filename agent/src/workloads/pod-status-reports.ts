import type { AgentLink } from '../link/agent-link.js';
import type { WorkloadManager } from './workload-manager.js';

/**
 * Sends `podStatus` messages: the pods that changed (gathered for `debounceMs`), and every pod after each
 * (re)connection, so a change made while offline is reported once the link is back.
 */
export function startPodStatusReports(link: AgentLink, manager: WorkloadManager, debounceMs = 100): () => void {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (!link.connected || pending.size === 0) return;
    const reports = manager.reports([...pending]);
    pending.clear();
    for (let at = 0; at < reports.length; at += 500) {
      link.send({ type: 'podStatus', pods: reports.slice(at, at + 500) });
    }
  };
  const schedule = (): void => {
    timer ??= setTimeout(flush, debounceMs);
  };
  const offChange = manager.onChange((pod) => {
    pending.add(pod);
    schedule();
  });
  const offConnected = link.onConnected(() => {
    for (const report of manager.reports()) pending.add(report.name);
    schedule();
  });
  return () => {
    clearTimeout(timer);
    offChange();
    offConnected();
  };
}
