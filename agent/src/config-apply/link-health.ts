/**
 * What the configuration parts know of the link to the control plane (the agent's OS core never imports its link):
 * whether it is up, and each `welcome` (the control plane accepted the device again).
 */
export interface LinkHealth {
  isConnected(): boolean;
  /** calls `listener` at every welcome; returns the unsubscribe function */
  onWelcome(listener: () => void): () => void;
}
