/** Ends a command with this exit status (after it printed why): a halted rollout (3), an interrupted one (130). */
export class ExitStatus extends Error {
  override readonly name = 'ExitStatus';

  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}
