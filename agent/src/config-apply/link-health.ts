/**
 * What the configuration parts know of the link to the control plane (the agent's OS core never imports its link):
 * whether it is up, each `welcome` (the control plane accepted the device again), and a way to ask for a fresh
 * connection, whose welcome proves that a new configuration still reaches the control plane.
 */
export interface LinkHealth {
  isConnected(): boolean;
  /** calls `listener` at every welcome; returns the unsubscribe function */
  onWelcome(listener: () => void): () => void;
  /** drops the connection (if any) so that the link connects afresh */
  reconnect(): void;
}
