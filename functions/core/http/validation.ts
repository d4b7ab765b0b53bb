/**
 * Validates path parameters, query parameters and the parsed body against the endpoint's
 * schemas (core/schemas.ts), collecting every problem into one 400 with `errors[]`.
 */
import type { z } from 'zod';
import { HttpError, validationError, type FieldError } from '../errors';
import { PAYLOAD_TOO_LARGE } from '../schemas';

export interface InputSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

export interface RawInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

export function validateInput(schemas: InputSchemas, raw: RawInput): { params: unknown; query: unknown; body: unknown } {
  const errors: FieldError[] = [];
  let tooLarge: FieldError | undefined;
  const parse = (schema: z.ZodType | undefined, value: unknown, prefix: string) => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const error = { path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'), message: issue.message };
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) errors.push({ path: [prefix, key].filter(Boolean).join('.'), message: 'is not a known field' });
        continue;
      }
      if (issue.code === 'custom' && issue.params?.status === PAYLOAD_TOO_LARGE.status) tooLarge ??= error;
      errors.push(error);
    }
    return undefined;
  };
  const params = parse(schemas.params, raw.params ?? {}, '');
  const query = parse(schemas.query, raw.query ?? {}, '');
  const body = parse(schemas.body, raw.body, '');
  if (tooLarge) throw new HttpError('payload-too-large', `${tooLarge.path} ${tooLarge.message}.`);
  if (errors.length > 0) throw validationError(errors);
  return { params, query, body };
}
