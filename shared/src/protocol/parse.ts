import type { z } from 'zod';
import { AGENT_MESSAGE_TYPES, agentMessageSchema } from './agent-messages.js';
import type { AgentMessage } from './agent-messages.js';
import { SERVER_MESSAGE_TYPES, serverMessageSchema } from './server-messages.js';
import type { ServerMessage } from './server-messages.js';
import { MAX_LABEL_CHARS } from './bounds.js';
import { MAX_TEXT_FRAME_BYTES } from './wire.js';

export type ParseResult<M> =
  | { ok: true; message: M }
  /** refId: the refused message's `id`, when one could be read, for the `error` reply */
  | { ok: false; error: string; refId?: string };

/** Validates one text frame from an agent; never throws. */
export const parseAgentMessage = (text: string): ParseResult<AgentMessage> =>
  parseMessage(text, agentMessageSchema, AGENT_MESSAGE_TYPES, 'agent');

/** Validates one text frame from the server; never throws. */
export const parseServerMessage = (text: string): ParseResult<ServerMessage> =>
  parseMessage(text, serverMessageSchema, SERVER_MESSAGE_TYPES, 'server');

/** The text frame of a message (the inverse of the parsers). */
export const encodeMessage = (message: AgentMessage | ServerMessage): string => JSON.stringify(message);

/** Builds the `error` reply for a frame a parser refused. */
export function refusalOf(failure: { error: string; refId?: string }): {
  type: 'error';
  status: 'INVALID_ARGUMENT';
  message: string;
  refId?: string;
} {
  const reply = { type: 'error' as const, status: 'INVALID_ARGUMENT' as const, message: failure.error };
  return failure.refId === undefined ? reply : { ...reply, refId: failure.refId };
}

function parseMessage<M>(
  text: string,
  schema: z.ZodType<M>,
  knownTypes: readonly string[],
  from: string,
): ParseResult<M> {
  if (exceedsFrameLimit(text)) {
    return { ok: false, error: `message too large: more than ${MAX_TEXT_FRAME_BYTES} bytes` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `message is not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'message must be a JSON object' };
  }
  const fields = value as Record<string, unknown>;
  // echoed in the `error` reply only when the reply stays valid
  const refId = typeof fields['id'] === 'string' && fields['id'].length <= MAX_LABEL_CHARS ? fields['id'] : undefined;
  const refused = (error: string): ParseResult<M> =>
    refId === undefined ? { ok: false, error } : { ok: false, error, refId };

  const type = fields['type'];
  if (typeof type !== 'string') return refused('message needs a string "type"');
  if (!knownTypes.includes(type)) {
    return refused(`unknown ${from} message type "${type}" (expected one of ${knownTypes.join(', ')})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return refused(`invalid "${type}" message: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, message: parsed.data };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      return `${path.replace(/^\./, '') || '(message)'}: ${issue.message}`;
    })
    .join('; ');
}

/** A UTF-16 unit takes 1 to 3 UTF-8 bytes, so the exact byte count is needed only near the limit. */
function exceedsFrameLimit(text: string): boolean {
  if (text.length > MAX_TEXT_FRAME_BYTES) return true;
  if (text.length * 3 <= MAX_TEXT_FRAME_BYTES) return false;
  return new TextEncoder().encode(text).length > MAX_TEXT_FRAME_BYTES;
}
