export * from './errors/api-error.js';
export * from './names/index.js';
export * from './query/index.js';
export * from './fieldmask/index.js';
export * from './resources/index.js';
export * from './client/index.js';
export * from './protocol/index.js';
export * from './files/atomic-file.js';
