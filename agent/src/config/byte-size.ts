const UNITS: Readonly<Record<string, number>> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Bytes from `1073741824`, `512M`, `1G`, `64KiB` (binary units); undefined when not a positive size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$/i.exec(text);
  if (match === null) return undefined;
  const bytes = Math.floor(Number(match[1]) * (UNITS[(match[2] ?? '').toUpperCase()] ?? 1));
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}
