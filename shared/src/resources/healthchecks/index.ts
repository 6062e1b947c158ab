export * from './health-check.js';
