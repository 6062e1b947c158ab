export * from './channel-frame.js';
export * from './flow-control.js';
export * from './channel.js';
export * from './channel-table.js';
export * from './transfer/entry-path.js';
export * from './transfer/transfer-records.js';
export * from './transfer/tree-sender.js';
export * from './transfer/tree-writer.js';
