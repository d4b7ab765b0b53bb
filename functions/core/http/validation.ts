/**
 * Validates path parameters, query parameters and the parsed body against the endpoint's
 * schemas (core/requests.ts), collecting every problem into one 400 with `errors[]`.
 */
import * as z from 'zod/mini';
import { type FieldError, HttpError, validationError } from '#core/errors';
import { PAYLOAD_TOO_LARGE } from '#core/requests';

/** Any zod schema (classic or mini): the endpoint only parses with it. */
export type Schema = z.core.$ZodType;

export interface InputSchemas {
  params?: Schema;
  query?: Schema;
  body?: Schema;
}

export interface RawInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

export function validateInput(schemas: InputSchemas, raw: RawInput): { params: unknown; query: unknown; body: unknown } {
  const errors: FieldError[] = [];
  let tooLarge: FieldError | undefined;
  const parse = (schema: Schema | undefined, value: unknown, prefix: string) => {
    if (!schema) return undefined;
    const result = z.safeParse(schema, value);
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
