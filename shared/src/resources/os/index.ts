export * from './os-catalog.js';
