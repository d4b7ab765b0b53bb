/**
 * AWS Signature Version 4 as S3 checks it, for the local S3 emulator (./s3.ts): a request signed
 * in its `Authorization` header, or a presigned URL (`X-Amz-*` query parameters). The emulator
 * verifies every request here before it reaches s3rver, which is run with its own check relaxed:
 * s3rver encodes the canonical query with `encodeURIComponent`, which leaves `!'()*` as they are
 * where SigV4 escapes them (RFC 3986), so a URL presigned with `response-content-disposition:
 * attachment; filename*=UTF-8''…` failed there; and it lets unsigned requests through.
 *
 * Not checked, as on S3 only for requests the functions sign with the SDK: a payload hash given
 * in `x-amz-content-sha256` against the body, and the chunk signatures of `aws-chunked` bodies.
 * Presigned URLs, which carry all client bytes, are `UNSIGNED-PAYLOAD` on S3 too.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A request refused as S3 refuses it: its error code, message and HTTP status. */
export class S3Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'S3Refusal';
  }
}

export interface SignedRequest {
  method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  url: string;
  /** Node's headers: lower-case names. */
  headers: Record<string, string | string[] | undefined>;
}

/** Skew S3 allows between a header-signed request's time and its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

/** RFC 3986 percent-encoding of everything but unreserved characters, as SigV4 canonicalizes. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new S3Refusal('InvalidURI', "Couldn't parse the specified URI.", 400);
  }
}

/** The query's parameters, decoded, in the order sent (a name may repeat). */
export function queryParameters(url: string): [string, string][] {
  const index = url.indexOf('?');
  if (index < 0) return [];
  return url
    .slice(index + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
    });
}

const header = (headers: SignedRequest['headers'], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** `20261125T161500Z` → epoch ms, or NaN. */
function amzTime(value: string | undefined): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return Number.NaN;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

interface Parsed {
  accessKeyId: string;
  scope: { date: string; region: string; service: string; terminator: string };
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  payloadHash: string;
  presigned: boolean;
}

function parseAuthorization(request: SignedRequest, params: [string, string][], body: Uint8Array | undefined): Parsed | undefined {
  const authorization = header(request.headers, 'authorization');
  const query = new Map(params);
  const presigned = query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature') || query.has('X-Amz-Credential');
  if (authorization !== undefined && presigned) {
    throw new S3Refusal('InvalidArgument', 'Only one auth mechanism allowed.', 400);
  }
  if (query.has('Signature') || authorization?.startsWith('AWS ')) {
    throw new S3Refusal(
      'InvalidRequest',
      'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
      400,
    );
  }
  let credential: string | undefined;
  let parsed: Omit<Parsed, 'accessKeyId' | 'scope'>;
  if (authorization !== undefined) {
    const match = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(authorization);
    if (!match) throw new S3Refusal('InvalidArgument', 'Unsupported Authorization Type', 400);
    const parts = new Map(
      match[1]!.split(',').map((part) => {
        const [name, ...rest] = part.trim().split('=');
        return [name!, rest.join('=')] as const;
      }),
    );
    credential = parts.get('Credential');
    const signedHeaders = parts.get('SignedHeaders');
    const signature = parts.get('Signature');
    // S3 takes the payload's hash from a header; other services hash the body they received.
    const payloadHash =
      header(request.headers, 'x-amz-content-sha256') ?? (body ? createHash('sha256').update(body).digest('hex') : undefined);
    if (!credential || !signedHeaders || !signature) {
      throw new S3Refusal('AuthorizationHeaderMalformed', 'The authorization header is malformed.', 400);
    }
    if (!payloadHash) throw new S3Refusal('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256', 400);
    parsed = {
      amzDate: header(request.headers, 'x-amz-date') ?? '',
      signedHeaders: signedHeaders.split(';'),
      signature,
      payloadHash,
      presigned: false,
    };
  } else if (presigned) {
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3Refusal('AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"', 400);
    }
    for (const name of ['X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature']) {
      if (!query.get(name)) {
        throw new S3Refusal(
          'AuthorizationQueryParametersError',
          'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
          400,
        );
      }
    }
    credential = query.get('X-Amz-Credential')!;
    parsed = {
      amzDate: query.get('X-Amz-Date')!,
      signedHeaders: query.get('X-Amz-SignedHeaders')!.split(';'),
      signature: query.get('X-Amz-Signature')!,
      payloadHash: query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
      presigned: true,
    };
  } else {
    return undefined;
  }
  const [accessKeyId, date, region, service, terminator, ...extra] = credential.split('/');
  if (!accessKeyId || !date || !region || !service || terminator !== 'aws4_request' || extra.length > 0) {
    throw new S3Refusal('AuthorizationHeaderMalformed', `The credential is malformed: ${credential}`, 400);
  }
  return { ...parsed, accessKeyId, scope: { date, region, service, terminator } };
}

/**
 * Checks a request's signature, its time and (presigned) its expiry, as S3 does. Returns the
 * access key that signed it; undefined for an unsigned request (the caller decides: the bucket
 * is private, so the emulator refuses those). `secretOf` gives a key's secret, or undefined
 * for an unknown key; it may throw (an expired session token), before the request's time is looked at.
 */
export function verifySignature(
  request: SignedRequest,
  secretOf: (accessKeyId: string) => string | undefined,
  now: number = Date.now(),
  /** Another service than S3 (`rds-data`: ./data-api.ts), with the body it received. */
  other?: { service: string; body: Uint8Array },
): string | undefined {
  const params = queryParameters(request.url);
  const auth = parseAuthorization(request, params, other?.body);
  const service = other?.service ?? 's3';
  if (!auth) return undefined;

  const time = amzTime(auth.amzDate);
  if (Number.isNaN(time)) {
    throw auth.presigned
      ? new S3Refusal('AuthorizationQueryParametersError', "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"", 400)
      : new S3Refusal('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header', 403);
  }
  if (auth.scope.date !== auth.amzDate.slice(0, 8)) {
    throw new S3Refusal('SignatureDoesNotMatch', 'The date of the credential scope does not match the request date.', 403);
  }
  if (auth.scope.service !== service) {
    throw new S3Refusal('SignatureDoesNotMatch', `The credential scope names service "${auth.scope.service}", not "${service}".`, 403);
  }
  // The credentials first (a temporary key's token, which `secretOf` may refuse as expired), then the request's own time.
  const secret = secretOf(auth.accessKeyId);
  if (secret === undefined) {
    throw new S3Refusal('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', 403);
  }
  if (auth.presigned) {
    const expires = Number(new Map(params).get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1) {
      throw new S3Refusal('AuthorizationQueryParametersError', 'X-Amz-Expires must be a positive integer', 400);
    }
    if (expires > MAX_EXPIRES_SECONDS) {
      throw new S3Refusal('AuthorizationQueryParametersError', 'X-Amz-Expires must be less than a week (in seconds)', 400);
    }
    if (time - MAX_SKEW_MS > now) throw new S3Refusal('AccessDenied', 'Request is not valid yet', 403);
    if (now > time + expires * 1000) throw new S3Refusal('AccessDenied', 'Request has expired', 403);
  } else if (Math.abs(now - time) > MAX_SKEW_MS) {
    throw new S3Refusal('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', 403);
  }
  if (!auth.signedHeaders.includes('host')) {
    throw new S3Refusal('AccessDenied', 'The host header must be signed.', 403);
  }

  const path = request.url.split('?')[0]!;
  const canonicalUri = path
    .split('/')
    .map((segment) => uriEncode(decode(segment)))
    .join('/');
  const canonicalQuery = params
    .filter(([name]) => !(auth.presigned && name === 'X-Amz-Signature'))
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = auth.signedHeaders
    .map((name) => `${name}:${(header(request.headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    auth.signedHeaders.join(';'),
    auth.payloadHash,
  ].join('\n');
  const scope = `${auth.scope.date}/${auth.scope.region}/${auth.scope.service}/${auth.scope.terminator}`;
  const stringToSign = ['AWS4-HMAC-SHA256', auth.amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(auth.scope.date).digest();
  for (const part of [auth.scope.region, auth.scope.service, auth.scope.terminator]) key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  const given = Buffer.from(auth.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new S3Refusal(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      403,
    );
  }
  return auth.accessKeyId;
}
