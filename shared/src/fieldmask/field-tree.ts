import type { ZodType } from 'zod';

/**
 * The set of valid field paths of a resource. Objects have known members (by lowerCamel JSON name),
 * maps accept any key (kept verbatim) with one value tree, and everything else is a leaf (arrays too).
 */
export type FieldTree = ObjectFieldTree | MapFieldTree | LeafFieldTree;
export interface ObjectFieldTree {
  kind: 'object';
  members: Readonly<Record<string, FieldTree>>;
}
export interface MapFieldTree {
  kind: 'map';
  value: FieldTree;
}
export interface LeafFieldTree {
  kind: 'leaf';
}

const LEAF: LeafFieldTree = { kind: 'leaf' };

/** The parts of a zod 4 definition this walk reads. */
interface ZodDefView {
  type: string;
  shape?: Record<string, ZodType>;
  innerType?: ZodType;
  valueType?: ZodType;
  options?: readonly ZodType[];
  left?: ZodType;
  right?: ZodType;
  in?: ZodType;
  out?: ZodType;
  getter?: () => ZodType;
}

const defOf = (schema: ZodType): ZodDefView => schema._zod.def as unknown as ZodDefView;

/** Walks a zod 4 schema: objects, optional/nullable/default/readonly/catch, records (maps), unions, pipes and lazy (recursive) schemas. */
export function fieldTreeFromZod(schema: ZodType): FieldTree {
  return walk(schema, new Map());
}

function walk(schema: ZodType, seen: Map<ZodType, FieldTree>): FieldTree {
  const known = seen.get(schema);
  if (known !== undefined) return known;
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      // Registered before its members are walked, so recursive schemas become a cyclic tree.
      const members: Record<string, FieldTree> = {};
      const tree: ObjectFieldTree = { kind: 'object', members };
      seen.set(schema, tree);
      for (const [key, member] of Object.entries(def.shape ?? {})) members[key] = walk(member, seen);
      return tree;
    }
    case 'record':
    case 'map':
      return def.valueType ? { kind: 'map', value: walk(def.valueType, seen) } : LEAF;
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'promise':
      return def.innerType ? walk(def.innerType, seen) : LEAF;
    case 'lazy': {
      // zod caches the getter's result as `innerType`; a fresh schema per call would never end.
      const inner = (schema._zod as { innerType?: ZodType }).innerType ?? def.getter?.();
      return inner ? walk(inner, seen) : LEAF;
    }
    case 'pipe': {
      // z.preprocess(fn, s) pipes a transform into s; s.transform(fn) pipes s into a transform.
      const side = def.out && defOf(def.out).type !== 'transform' ? def.out : def.in;
      return side ? walk(side, seen) : LEAF;
    }
    case 'union':
      return (def.options ?? []).map((option) => walk(option, seen)).reduce(mergeTrees, LEAF);
    case 'intersection':
      return def.left && def.right ? mergeTrees(walk(def.left, seen), walk(def.right, seen)) : LEAF;
    default:
      return LEAF;
  }
}

/** The union of two trees' paths (options of a union, sides of an intersection). */
function mergeTrees(a: FieldTree, b: FieldTree): FieldTree {
  if (a === b || b.kind === 'leaf') return a;
  if (a.kind === 'leaf') return b;
  if (a.kind === 'map' && b.kind === 'map') return { kind: 'map', value: mergeTrees(a.value, b.value) };
  if (a.kind === 'object' && b.kind === 'object') {
    const members: Record<string, FieldTree> = { ...a.members };
    for (const [key, tree] of Object.entries(b.members)) {
      const existing = members[key];
      members[key] = existing === undefined ? tree : mergeTrees(existing, tree);
    }
    return { kind: 'object', members };
  }
  // An object and a map: any key is possible, known members keep their shape only in the object.
  return a.kind === 'map' ? a : b;
}
