export { fieldTreeFromZod } from './field-tree.js';
export type { FieldTree, LeafFieldTree, MapFieldTree, ObjectFieldTree } from './field-tree.js';
export { normalizePath, parseFieldMask, toLowerCamel } from './parse-field-mask.js';
export { deletePath, getPath, setPath } from './paths.js';
export { applyUpdateMask, projectFields } from './project.js';
export { anyPathAffected, changedOutside, changedPaths, deepEqual, sortFew } from './diff.js';
export { pathTree, type PathTree } from './path-tree.js';
