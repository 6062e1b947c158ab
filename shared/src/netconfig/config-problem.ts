/** One thing wrong with a piece of device configuration: where (a path inside it) and what. */
export interface ConfigProblem {
  /** e.g. `network.ethernets.eth0.addresses[0]`; empty for the value as a whole */
  path: string;
  message: string;
}

/** `a.b` + `c` → `a.b.c`; indexes as `a.b[0]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** A problem as one line: `path: message`. */
export const problemText = (problem: ConfigProblem): string =>
  problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;

/** A value quoted for a message, cut short so a huge input cannot make a huge error. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const short = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return JSON.stringify(short);
}

/** Collects problems under a base path. */
export class ProblemList {
  readonly problems: ConfigProblem[] = [];

  add(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  get empty(): boolean {
    return this.problems.length === 0;
  }
}
