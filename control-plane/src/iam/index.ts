export * from './api-key-store.js';
export * from './authenticate-request.js';
export * from './authorizer.js';
export * from './grant.js';
export * from './permission-match.js';
export * from './principal.js';
export * from './routes.js';
