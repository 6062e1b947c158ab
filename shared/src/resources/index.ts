export * from './definition.js';
export * from './meta.js';
export * from './devices/index.js';
export * from './os/index.js';
export * from './limits/index.js';
export * from './healthchecks/index.js';
export * from './applications/index.js';
