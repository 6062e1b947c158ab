export * from './errors/api-error.js';
