export { perAttempt } from '../../../control-plane/test/helpers/per-attempt.js';
