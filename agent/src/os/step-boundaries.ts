/**
 * The points of an upgrade at which everything before is durable (fault injection kills the agent or cuts
 * the simulated power exactly there: OUTPOST_TEST_EXIT_AT / OUTPOST_TEST_POWER_CUT_AT), in order:
 *
 *  download-started     the operation is recorded, the spare slot marked unbootable, no byte written yet
 *  download-checkpoint  a prefix of the image is fsynced and its length recorded (each checkpoint)
 *  downloaded           the image is complete, its hash and signature verified, recorded
 *  switch-persisted     the switch is recorded (with this boot's id), the bootloader not yet told
 *  switch-requested     the bootloader will try the spare slot once at the next boot
 *  hooks-ran            the on-shutdown hooks ran; the reboot comes next
 *  trial-boot           the agent started in a trial boot of the new slot (once per agent start)
 *  committed            the bootloader has committed the trial slot; the progress not yet updated
 *  converged            the commit is recorded; the new version is reported
 */
export const STEP_BOUNDARIES = [
  'download-started',
  'download-checkpoint',
  'downloaded',
  'switch-persisted',
  'switch-requested',
  'hooks-ran',
  'trial-boot',
  'committed',
  'converged',
] as const;

export type StepBoundary = (typeof STEP_BOUNDARIES)[number];

export function parseStepBoundary(value: string | undefined): StepBoundary | undefined {
  return STEP_BOUNDARIES.find((boundary) => boundary === value);
}
