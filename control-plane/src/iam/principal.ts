import type { Grant } from './grant.js';

/** Who is calling: the API key a request authenticated with. */
export interface Principal {
  /** 'apiKeys/<id>' */
  name: string;
  displayName: string;
  grants: readonly Grant[];
}
