import { z } from 'zod';
import { label, message } from './bounds.js';
import { CANONICAL_CODES } from '../errors/api-error.js';

export const errorDetailSchema = z.object({
  status: z.enum(CANONICAL_CODES),
  message,
});

/** Either side's answer to a message it refused (malformed, unknown type, ...); never closes the link. */
export const errorMessageSchema = z.object({
  type: z.literal('error'),
  /** the `id` of the refused message, when it had one */
  refId: label.optional(),
  ...errorDetailSchema.shape,
});

export type ErrorDetail = z.infer<typeof errorDetailSchema>;
export type ErrorMessage = z.infer<typeof errorMessageSchema>;
