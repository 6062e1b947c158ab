/** How the agent reboots or powers off the device (issue 6 commands and the OS upgrade use it). */
export interface Power {
  /** Reboots the device. Resolves once the reboot is under way; the agent is torn down by it. */
  reboot(): Promise<void>;
  /** Powers the device off. */
  poweroff(): Promise<void>;
}

/** Runs the user's on-shutdown hooks before an agent-initiated reboot or power-off (hooks/ provides it). */
export type ShutdownHooks = () => Promise<void>;
