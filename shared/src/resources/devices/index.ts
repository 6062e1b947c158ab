export * from './device.js';
