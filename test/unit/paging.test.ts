import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '#core/errors';
import { decodePageToken, encodePageToken, PAGING_KEY_MAX_AGE_MS } from '#core/paging';

beforeAll(() => {
  process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
});

async function rejection(run: () => Promise<unknown>): Promise<HttpError> {
  try {
    await run();
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('expected a rejection');
}

describe('paging tokens', () => {
  it('round-trips the position for the same list', async () => {
    const token = await encodePageToken('documents:f1', 'D#report');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await decodePageToken('documents:f1', token)).toBe('D#report');
  });

  it('rejects a token from another list', async () => {
    const token = await encodePageToken('documents:f1', 'D#report');
    const error = await rejection(() => decodePageToken('documents:f2', token));
    expect(error.status).toBe(400);
    expect(error.options.errors?.[0]?.path).toBe('nextToken');
  });

  it('rejects every single-character alteration', async () => {
    const token = await encodePageToken('folders:f1', 'F#a');
    for (let i = 0; i < token.length; i++) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      if (altered === token) continue;
      await expect(decodePageToken('folders:f1', altered)).rejects.toThrow(HttpError);
    }
  });

  it('rejects a forged payload without the secret', async () => {
    const payload = Buffer.from(JSON.stringify({ l: 'folders:f1', k: 'F#zzz' })).toString('base64url');
    await expect(decodePageToken('folders:f1', `${payload}.AAAA`)).rejects.toThrow(HttpError);
    await expect(decodePageToken('folders:f1', 'garbage')).rejects.toThrow(HttpError);
    await expect(decodePageToken('folders:f1', 'a.b.c')).rejects.toThrow(HttpError);
  });

  it('rejects a token signed with another secret', async () => {
    const token = await encodePageToken('folders:f1', 'F#a');
    process.env.PAGING_TOKEN_SECRET = 'another-secret';
    try {
      await expect(decodePageToken('folders:f1', token)).rejects.toThrow(HttpError);
    } finally {
      process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
    }
  });
});

describe('paging token signatures', () => {
  it('rejects a signature whose last character differs only in unused bits', async () => {
    process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
    // Try many tokens: for each, every other character in the last position must be refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let n = 0; n < 20; n++) {
      const token = await encodePageToken('folders:f', `F#name${n}`);
      for (const c of alphabet) {
        if (c === token.at(-1)) continue;
        await expect(decodePageToken('folders:f', token.slice(0, -1) + c)).rejects.toThrow(HttpError);
      }
    }
  });
});

/**
 * Deployed, the key is not in the environment: the function reads it from Secrets Manager by
 * the ARN it is given. A stand-in for Secrets Manager's GetSecretValue (its JSON protocol),
 * reached through the SDK's own endpoint variable, counts the reads.
 */
describe('the key read from Secrets Manager', () => {
  const secrets = new Map<string, string>();
  const reads: string[] = [];
  let failing = false;
  let server: Server;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        reads.push(`${request.headers['x-amz-target']} ${SecretId}`);
        const value = secrets.get(SecretId);
        const [status, answer] = failing
          ? [500, { __type: 'InternalServiceError', message: 'down' }]
          : value === undefined
            ? [400, { __type: 'ResourceNotFoundException', message: 'no such secret' }]
            : [200, { ARN: SecretId, Name: 'PagingTokenSecret', SecretString: value, VersionId: 'v1' }];
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_MAX_ATTEMPTS: '1',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    reads.length = 0;
    failing = false;
    delete process.env.PAGING_TOKEN_SECRET;
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
    delete process.env.PAGING_TOKEN_SECRET_ARN;
  });

  /** A token for the same list and position signed with `key` given directly. */
  async function signedWith(key: string, list: string, position: string): Promise<string> {
    const arn = process.env.PAGING_TOKEN_SECRET_ARN;
    process.env.PAGING_TOKEN_SECRET = key;
    try {
      return await encodePageToken(list, position);
    } finally {
      delete process.env.PAGING_TOKEN_SECRET;
      process.env.PAGING_TOKEN_SECRET_ARN = arn;
    }
  }

  it('signs with the secret the ARN names, read once for many requests at once', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PagingTokenSecret-once';
    secrets.set(arn, 'key-from-secrets-manager');
    process.env.PAGING_TOKEN_SECRET_ARN = arn;
    const tokens = await Promise.all(Array.from({ length: 8 }, () => encodePageToken('folders:f', 'F#a')));
    expect(reads).toEqual([`secretsmanager.GetSecretValue ${arn}`]);
    expect(new Set(tokens)).toEqual(new Set([await signedWith('key-from-secrets-manager', 'folders:f', 'F#a')]));
    expect(await decodePageToken('folders:f', tokens[0]!)).toBe('F#a');
    expect(reads).toHaveLength(1);
  });

  it('reads it again after its maximum age, so a changed key needs no deploy', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PagingTokenSecret-age';
    secrets.set(arn, 'first-key');
    process.env.PAGING_TOKEN_SECRET_ARN = arn;
    const first = await encodePageToken('folders:f', 'F#a');
    secrets.set(arn, 'second-key');
    vi.advanceTimersByTime(PAGING_KEY_MAX_AGE_MS - 1_000);
    expect(await encodePageToken('folders:f', 'F#a')).toBe(first);
    expect(reads).toHaveLength(1);
    vi.advanceTimersByTime(2_000);
    expect(await encodePageToken('folders:f', 'F#a')).toBe(await signedWith('second-key', 'folders:f', 'F#a'));
    expect(reads).toHaveLength(2);
    await expect(decodePageToken('folders:f', first)).rejects.toThrow(HttpError);
  });

  it('keeps the key it read when a refresh fails, and answers 503 when it never read one', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PagingTokenSecret-down';
    secrets.set(arn, 'kept-key');
    process.env.PAGING_TOKEN_SECRET_ARN = arn;
    const token = await encodePageToken('folders:f', 'F#a');
    failing = true;
    vi.advanceTimersByTime(PAGING_KEY_MAX_AGE_MS + 1);
    expect(await decodePageToken('folders:f', token)).toBe('F#a');
    expect(reads).toHaveLength(2);
    // It does not ask again on every request while Secrets Manager is failing.
    expect(await decodePageToken('folders:f', token)).toBe('F#a');
    expect(reads).toHaveLength(2);

    process.env.PAGING_TOKEN_SECRET_ARN = `${arn}-never-read`;
    secrets.set(`${arn}-never-read`, 'unread');
    const error = await rejection(() => encodePageToken('folders:f', 'F#a'));
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(503);
  });

  it('prefers PAGING_TOKEN_SECRET when it is set (the local runtime), and reads nothing', async () => {
    process.env.PAGING_TOKEN_SECRET = 'local-key';
    process.env.PAGING_TOKEN_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:unused';
    expect(await encodePageToken('folders:f', 'F#a')).toBe(await signedWith('local-key', 'folders:f', 'F#a'));
    expect(reads).toEqual([]);
  });

  it('fails plainly when it has neither', async () => {
    await expect(encodePageToken('folders:f', 'F#a')).rejects.toThrow(/PAGING_TOKEN_SECRET_ARN/);
  });
});
