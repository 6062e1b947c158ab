export * from './pod.js';
