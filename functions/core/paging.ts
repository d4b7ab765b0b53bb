/**
 * Opaque, tamper-proof paging tokens (docs/api.md). A token names the list it belongs to and
 * where the previous page ended, signed with HMAC-SHA256: an altered token, or one from
 * another list, is rejected rather than yielding a wrong page.
 *
 * The key: `PAGING_TOKEN_SECRET` when it is set (the local runtime, the tests, the bench set
 * it); otherwise, deployed, it is read at run time from the Secrets Manager secret that
 * `PAGING_TOKEN_SECRET_ARN` names (only the routes that page have it, and may read it), and
 * kept for PAGING_KEY_MAX_AGE_MS: never in the function's configuration, and a key changed in
 * Secrets Manager reaches every function within that time, without a deploy.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { invalidField, unavailable } from './errors';
import { logger } from './logger';
import { traceClient } from './tracing';

interface TokenPayload {
  /** The list: e.g. `documents:<folderId>`. */
  l: string;
  /** Sort key of the last item returned. */
  k: string;
}

/** How long a key read from Secrets Manager is used before it is read again. */
export const PAGING_KEY_MAX_AGE_MS = 5 * 60_000;
/** After a failed refresh, how long the key read before keeps being used before the next try. */
const RETRY_AFTER_FAILURE_MS = 30_000;

let cached: { secretId: string; key: string; fetchedAt: number } | undefined;
let fetching: { secretId: string; key: Promise<string> } | undefined;
let client: SecretsManagerClient | undefined;

async function fetchKey(secretId: string): Promise<string> {
  // Region and credentials from the function's environment; the SDK's own retries.
  client ??= traceClient(new SecretsManagerClient({}));
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`The secret ${secretId} has no string value`);
  return SecretString;
}

/** The HMAC key (see the top of this file). A key that cannot be read is a 503: nothing was read or written. */
export async function pagingKey(): Promise<string> {
  const local = process.env.PAGING_TOKEN_SECRET;
  if (local) return local;
  const secretId = process.env.PAGING_TOKEN_SECRET_ARN;
  if (!secretId) throw new Error('Neither PAGING_TOKEN_SECRET nor PAGING_TOKEN_SECRET_ARN is set');
  const known = cached?.secretId === secretId ? cached : undefined;
  if (known && Date.now() - known.fetchedAt < PAGING_KEY_MAX_AGE_MS) return known.key;

  // One read at a time, shared by the requests that wait for it.
  let pending = fetching?.secretId === secretId ? fetching.key : undefined;
  if (!pending) {
    const current = { secretId, key: fetchKey(secretId) };
    fetching = current;
    pending = current.key;
    // Registered before any caller awaits the read, so the cache is filled when they resume.
    current.key
      .then(
        (key) => {
          cached = { secretId, key, fetchedAt: Date.now() };
        },
        () => undefined,
      )
      .finally(() => {
        if (fetching === current) fetching = undefined;
      });
  }
  try {
    return await pending;
  } catch (error) {
    if (known) {
      // Keep signing with the key read before (it is still the key unless it was changed) and try again later.
      logger.warn('paging key: refresh failed, using the key read before', { error: error as Error });
      known.fetchedAt = Date.now() - PAGING_KEY_MAX_AGE_MS + RETRY_AFTER_FAILURE_MS;
      return known.key;
    }
    logger.error('paging key: could not read it', { error: error as Error });
    throw unavailable('The service could not read its paging key; retry shortly.');
  }
}

const sign = (key: string, payload: string): string => createHmac('sha256', key).update(payload).digest('base64url');

export async function encodePageToken(list: string, lastKey: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ l: list, k: lastKey } satisfies TokenPayload)).toString('base64url');
  return `${payload}.${sign(await pagingKey(), payload)}`;
}

/** The sort key to resume after, or a 400 on `field` (a change feed's `cursor` is such a token too). */
export async function decodePageToken(list: string, token: string, field = 'nextToken'): Promise<string> {
  const invalid = () => invalidField(field, `is not a ${field === 'nextToken' ? 'token' : field} issued for this list`);
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw invalid();
  // Compare the text, not decoded bytes: base64 decoding ignores a last character's spare bits.
  const expected = Buffer.from(sign(await pagingKey(), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: Partial<TokenPayload>;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenPayload>;
  } catch {
    throw invalid();
  }
  if (decoded.l !== list || typeof decoded.k !== 'string') throw invalid();
  return decoded.k;
}
