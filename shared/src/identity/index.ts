export * from './device-key.js';
export * from './file-device-key.js';
