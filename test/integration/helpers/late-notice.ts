import pg from 'pg';
import { REVOCATIONS_CHANNEL } from '../../../control-plane/src/cluster/revocation-notices.js';

/** Sends again, as another replica, the notice that `device`'s credential changed: one delivered late. */
export async function announceLate(database: string, device: string): Promise<void> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    await client.query('SELECT pg_notify($1, $2)', [REVOCATIONS_CHANNEL, JSON.stringify({ from: 'late', device })]);
  } finally {
    await client.end();
  }
}
