import { randomUUID } from 'node:crypto';
import { ApiError, unavailable } from '@outpost/shared';
import type { ResultMessage } from '@outpost/shared';
import type { AgentSession } from './agent-session.js';

interface Pending {
  deviceName: string;
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Commands sent over a device's live link, each answered by a `result` with the same id. */
export class CommandDispatcher {
  private readonly pending = new Map<string, Pending>();

  send(
    session: AgentSession | undefined,
    deviceName: string,
    command: string,
    args: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    if (!session)
      return Promise.reject(unavailable(`device "${deviceName}" is offline: the command needs it connected`));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          unavailable(`device "${deviceName}" did not answer "${command}" within ${Math.round(timeoutMs / 1000)} s`),
        );
      }, timeoutMs);
      this.pending.set(id, { deviceName, resolve, reject, timer });
      if (!session.send({ type: 'command', id, command, ...(args === undefined ? {} : { args }) })) {
        this.settle(id, () => unavailable(`device "${deviceName}" disconnected`));
      }
    });
  }

  /** Settles the command a result answers; results for unknown ids are ignored. */
  onResult(deviceName: string, result: ResultMessage): void {
    const entry = this.pending.get(result.id);
    if (!entry || entry.deviceName !== deviceName) return;
    this.pending.delete(result.id);
    clearTimeout(entry.timer);
    if (result.ok) entry.resolve(result.data);
    else entry.reject(new ApiError(result.error!.status, `device: ${result.error!.message}`));
  }

  /** Fails every command still waiting on a device whose link went away. */
  onDisconnected(deviceName: string): void {
    for (const [id, entry] of this.pending) {
      if (entry.deviceName === deviceName) this.settle(id, () => unavailable(`device "${deviceName}" disconnected`));
    }
  }

  private settle(id: string, error: () => Error): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.reject(error());
  }
}
