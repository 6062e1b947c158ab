/** A figure's goal as text: '<20', '<=5', '>1000', '=0'. */
export type Goal = `${'<' | '<=' | '>' | '>=' | '='}${number}`;

export interface FigureOptions {
  goal?: Goal;
  unit?: string;
  /** how many measurements the figure summarizes */
  samples?: number;
}

export interface Reporter {
  /** one JSON line on stdout: {"bench","figure","value","goal"?,"met"?,...} */
  figure(name: string, value: number, options?: FigureOptions): void;
  /** a human progress line on stderr */
  progress(message: string): void;
  /** the figures whose goal was missed so far */
  missed(): string[];
}

/**
 * Figures of one benchmark. `context` fields go into every line after "bench" (e.g. `{ n: 1000 }` for a run at
 * one fleet size; make one reporter per context).
 */
export function createReporter(bench: string, context: Readonly<Record<string, string | number>> = {}): Reporter {
  const started = performance.now();
  const missed: string[] = [];
  const contextText = Object.entries(context)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  return {
    figure(name, value, options = {}) {
      const line: Record<string, unknown> = { bench, ...context, figure: name, value: round(value) };
      if (options.goal !== undefined) {
        const met = meetsGoal(value, options.goal);
        line['goal'] = options.goal;
        line['met'] = met;
        if (!met) missed.push(contextText === '' ? name : `${name} (${contextText})`);
      }
      if (options.unit !== undefined) line['unit'] = options.unit;
      if (options.samples !== undefined) line['samples'] = options.samples;
      process.stdout.write(JSON.stringify(line) + '\n');
    },
    progress(message) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
      process.stderr.write(`[${bench} ${seconds}s] ${message}\n`);
    },
    missed: () => [...missed],
  };
}

export function meetsGoal(value: number, goal: Goal): boolean {
  const match = /^(<=|>=|<|>|=)(.+)$/.exec(goal);
  if (!match) return false;
  const target = Number(match[2]);
  switch (match[1]) {
    case '<':
      return value < target;
    case '<=':
      return value <= target;
    case '>':
      return value > target;
    case '>=':
      return value >= target;
    default:
      return value === target;
  }
}

/** Three decimals at most: figures are read by people and compared across runs, not summed. */
const round = (value: number): number => (Number.isFinite(value) ? Math.round(value * 1000) / 1000 : value);
