export * from './device.js';
export { withOsReadyReason } from './os-ready-reason.js';
export * from './update-policy.js';
export * from './remote-session.js';
