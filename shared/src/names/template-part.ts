import type { IdRule } from './id-rules.js';

/** One '/'-separated piece of a name template: a literal such as 'devices', or an id variable such as {device}. */
export type TemplatePart = { kind: 'literal'; text: string } | { kind: 'variable'; name: string; rule: IdRule };

const VARIABLE = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export function parsePart(segment: string, rules: Record<string, IdRule>, template: string): TemplatePart {
  const variable = VARIABLE.exec(segment)?.[1];
  if (variable === undefined) {
    if (segment === '' || /[{}]/.test(segment))
      throw new Error(`bad segment "${segment}" in name template "${template}"`);
    return { kind: 'literal', text: segment };
  }
  const rule = rules[variable];
  if (rule === undefined) throw new Error(`no id rule for {${variable}} in name template "${template}"`);
  return { kind: 'variable', name: variable, rule };
}

export const partText = (part: TemplatePart): string => (part.kind === 'literal' ? part.text : `{${part.name}}`);
