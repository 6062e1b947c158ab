export * from './definition.js';
export * from './meta.js';
