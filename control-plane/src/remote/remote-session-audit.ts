import { randomBytes } from 'node:crypto';
import type { RemoteSession } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';

/** What a session is when it starts. */
export interface SessionStart {
  device: string;
  kind: NonNullable<RemoteSession['kind']>;
  keyId: string;
  command?: string;
  target?: string;
}

/** How it ended, and what went through. */
export interface SessionEnd {
  ending: NonNullable<RemoteSession['ending']>;
  bytesIn: number;
  bytesOut: number;
  exitCode?: number;
  error?: string;
  transcript?: string;
  transcriptTruncated?: boolean;
}

/** The audit trail of remote sessions (issue 21): one RemoteSession record each, written as the system. */
export class RemoteSessionAudit {
  constructor(
    private readonly sessions: ResourceHandle<RemoteSession>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Records a session that starts now (state ACTIVE); answers its name. */
  started(start: SessionStart): string {
    const started = this.now();
    const id = `${started.getTime().toString(36)}-${randomBytes(4).toString('hex')}`;
    const name = `${start.device}/remoteSessions/${id}`;
    const record: RemoteSession = {
      name,
      ...start,
      startTime: started.toISOString(),
      bytesIn: 0,
      bytesOut: 0,
      state: 'ACTIVE',
    };
    this.sessions.put(record);
    return name;
  }

  /** Records the end of a session. */
  ended(name: string, end: SessionEnd): void {
    const ended = this.now();
    this.sessions.patch(name, (doc) => {
      const startTime = doc.startTime === undefined ? ended.getTime() : Date.parse(doc.startTime);
      return {
        ...doc,
        ...end,
        state: 'ENDED',
        endTime: ended.toISOString(),
        durationSeconds: Math.max(0, (ended.getTime() - startTime) / 1000),
      };
    });
  }
}
