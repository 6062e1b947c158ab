import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { KeyRevocationListener } from '../iam/api-key-store.js';
import type { RevocationListener } from '../devices/device-credentials.js';
import type { ClusterMember } from './cluster-member.js';

/** The NOTIFY channel on which a replica tells the others of a key or device credential it revoked. */
export const REVOCATIONS_CHANNEL = 'outpost_revocations';

const NoticeSchema = z.union([
  z.object({ from: z.string().min(1).max(64), apiKey: z.string().regex(/^apiKeys\/[^/]{1,200}$/) }),
  z.object({ from: z.string().min(1).max(64), device: z.string().min(1).max(1000) }),
]);
type Notice = z.infer<typeof NoticeSchema>;

export interface RevocationNoticeOptions {
  keys: {
    onRevoke(listener: KeyRevocationListener): () => void;
    revokedElsewhere(keyName: string): void;
  };
  credentials: {
    onRevoked(listener: RevocationListener): () => void;
    revokedElsewhere(device: string): void;
  };
  cluster: Pick<ClusterMember, 'subscribe' | 'notify'>;
  /**
   * Runs each time this replica listens anew (at start and after a lost coordination connection): what was
   * revoked while it did not listen is found by checking what it holds against the shared store.
   */
  catchUp: () => void;
  onError: (err: unknown, what: string) => void;
}

/**
 * Makes a revocation through any replica reach every replica: each key or device credential revoked (or rotated)
 * here is announced on REVOCATIONS_CHANNEL once its write has committed, and each announcement from another
 * replica is handed to the same listeners a local revocation calls, which close what the key or device holds
 * here (watch streams, the agent link, downloads). A notice that cannot be sent waits for the next connection.
 */
export function shareRevocations(options: RevocationNoticeOptions): () => void {
  const { keys, credentials, cluster, onError } = options;
  const self = randomUUID();
  const pending: Notice[] = [];
  let sending = false;
  const send = async (): Promise<void> => {
    if (sending) return;
    sending = true;
    try {
      while (pending.length > 0) {
        await cluster.notify(REVOCATIONS_CHANNEL, JSON.stringify(pending[0]));
        pending.shift();
      }
    } catch (err) {
      onError(err, 'announcing a revocation (sent again once connected)');
    } finally {
      sending = false;
    }
  };
  const announce = (notice: Notice): void => {
    pending.push(notice);
    void send();
  };
  const received = (payload: string): void => {
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      json = undefined;
    }
    const parsed = NoticeSchema.safeParse(json);
    if (!parsed.success) return onError(new Error(`malformed revocation notice: ${payload}`), 'reading a notice');
    const notice = parsed.data;
    if (notice.from === self) return;
    if ('apiKey' in notice) keys.revokedElsewhere(notice.apiKey);
    else credentials.revokedElsewhere(notice.device);
  };
  const stopKeys = keys.onRevoke((apiKey, origin) => {
    if (origin === 'here') announce({ from: self, apiKey });
  });
  const stopCredentials = credentials.onRevoked((device, origin) => {
    if (origin === 'here') announce({ from: self, device });
  });
  cluster.subscribe(REVOCATIONS_CHANNEL, received, () => {
    options.catchUp();
    void send();
  });
  return () => {
    stopKeys();
    stopCredentials();
  };
}
