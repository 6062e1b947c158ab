const SUFFIX_BYTES: Readonly<Record<string, number>> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** A size as journald writes it: "4096", "64K", "500M", "1.5G" (1024-based), in bytes; undefined when malformed. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(text);
  if (match === null) return undefined;
  const bytes = Number(match[1]) * (SUFFIX_BYTES[match[2] ?? ''] ?? Number.NaN);
  return Number.isFinite(bytes) ? Math.floor(bytes) : undefined;
}
