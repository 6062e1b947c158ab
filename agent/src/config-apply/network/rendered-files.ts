/** A configuration rendered as system files: absolute system paths (before --system-root) and their content. */
export interface RenderedFile {
  path: string;
  content: string;
  mode: number;
}

export type Rendered = { ok: true; files: RenderedFile[] } | { ok: false; error: string };
