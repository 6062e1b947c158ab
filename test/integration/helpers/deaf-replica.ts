import pg from 'pg';
import { LIVE_LOCK_KEY } from '../../../control-plane/src/cluster/cluster-member.js';
import type { Replica } from './cluster-replicas.js';

/**
 * Runs `revoke` while `replica` does not listen, and resumes it once the revocation notice naming `named` went
 * out: the replica is stopped (SIGSTOP, so it cannot connect again) and every replica's coordination connection
 * (each holds the live lock) is cut; the others connect again. The replica then learns of it only by catching up.
 */
export async function revokeWhileDeaf(
  replica: Replica,
  database: string,
  named: string,
  revoke: () => Promise<unknown>,
): Promise<void> {
  const observer = new pg.Client({ connectionString: database });
  await observer.connect();
  try {
    await observer.query('LISTEN outpost_revocations');
    const announced = new Promise<void>((resolve) =>
      observer.on('notification', (message) => {
        if (message.payload?.includes(named) === true) resolve();
      }),
    );
    const pid = replica.process.child.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      await observer.query(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1::bigint::oid AND objsubid = 1",
        [LIVE_LOCK_KEY],
      );
      await revoke();
      await announced;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  } finally {
    await observer.end();
  }
}
