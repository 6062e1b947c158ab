/**
 * `attachment` with the file's name (RFC 6266): `filename` in printable ASCII (others replaced by `_`, as a header
 * value cannot carry them), and the exact name UTF-8 percent-encoded in `filename*`, which browsers prefer.
 */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
