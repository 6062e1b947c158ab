import type { SerializedResponse } from './watch-types.js';

const MAX_ENTRIES = 512;
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * Live responses already serialised, shared by the watchers of one kind (see WatchOptions.memo). Bounded by
 * count and by bytes, oldest out: 512 responses of a 7 MB document would otherwise be kept 3.5 GB.
 */
export class ResponseMemo {
  private readonly lines = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  /** Looks a serialised response up, or builds, keeps and returns it. */
  get(key: string, build: () => string): SerializedResponse {
    let ndjson = this.lines.get(key);
    if (ndjson === undefined) {
      ndjson = build();
      this.lines.set(key, ndjson);
      this.bytes += ndjson.length;
      // the newest stays even when it alone is over the bound: every watcher of this change is about to ask
      while (this.lines.size > 1 && (this.lines.size > this.maxEntries || this.bytes > this.maxBytes)) {
        const [oldest, line] = this.lines.entries().next().value as [string, string];
        this.lines.delete(oldest);
        this.bytes -= line.length;
      }
    }
    return { ndjson };
  }

  get size(): number {
    return this.lines.size;
  }
}
