export * from './device.js';
export { withOsReadyReason } from './os-ready-reason.js';
export { withFailingHealthCheckCount } from './failing-health-checks.js';
export * from './update-policy.js';
export * from './remote-session.js';
