/** The one WebSocket every agent keeps open to the control plane. */
export const AGENT_CONNECT_PATH = '/v1/agent:connect';

/** Largest text frame (one JSON message) either side accepts, in UTF-8 bytes. */
export const MAX_TEXT_FRAME_BYTES = 1024 * 1024;

/**
 * The agent treats a link as dead after this many heartbeat intervals without any message from the
 * server (the server pings every heartbeat); the server marks a device Offline after two missed pongs.
 */
export const DEAD_LINK_HEARTBEATS = 2.5;
