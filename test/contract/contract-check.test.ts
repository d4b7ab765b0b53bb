/**
 * The contract check the end-to-end suite runs on every answer (test/support/contract.ts)
 * can fail: each way of breaking openapi.json is caught, and answers that keep it pass.
 */
import { describe, expect, it } from 'vitest';
import { contractViolations, type Exchange } from '#test/support/contract';

const document = {
  id: 'Jx3kQ0nW2b7VtYc9LmA1eQ',
  repositoryId: 'Jx3kQ0nW2b7VtYc9LmA1eQ',
  folderId: 'Jx3kQ0nW2b7VtYc9LmA1eQ',
  name: 'Notes.md',
  contentType: 'text/markdown',
  storage: 'inline',
  content: '# Notes',
  size: 7,
  sha256: 'a'.repeat(64),
  version: 2,
  createdAt: '2026-01-02T03:04:05.678Z',
  createdBy: 'alice',
  updatedAt: '2026-01-02T03:04:06.000Z',
  updatedBy: 'bob',
};
const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const problem = (kind: string, status: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: `urn:problem-type:documents:${kind}`, title: 'Some title', status, detail: 'What happened.', ...extra });
const problemHeaders = { 'content-type': 'application/problem+json', 'cache-control': 'no-store' };

function exchange(path: string, status: number, headers: Record<string, string>, body: unknown, method = 'GET'): Exchange {
  return { method, path, status, headers: new Headers(headers), body: typeof body === 'string' ? body : JSON.stringify(body) };
}
const getDocument = (overrides: { status?: number; headers?: Record<string, string>; body?: unknown } = {}) =>
  exchange('/document/abc', overrides.status ?? 200, overrides.headers ?? { ...json, etag: '"2"' }, overrides.body ?? document);

describe('the contract check', () => {
  it('passes answers that keep openapi.json', () => {
    expect(contractViolations(getDocument())).toEqual([]);
    expect(contractViolations(exchange('/document/abc', 204, { 'cache-control': 'no-store' }, '', 'DELETE'))).toEqual([]);
    expect(contractViolations(exchange('/folder/x/documents', 200, json, { items: [] }))).toEqual([]);
    expect(contractViolations(exchange('/nowhere/at/all/x', 404, problemHeaders, problem('not-found', 404)))).toEqual([]);
    expect(
      contractViolations(
        exchange('/document', 405, { ...problemHeaders, allow: 'POST, PUT' }, problem('method-not-allowed', 405), 'PATCH'),
      ),
    ).toEqual([]);
    // API Gateway's own 401 on AWS: documented as such.
    expect(
      contractViolations(
        exchange('/', 401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }, { message: 'Unauthorized' }),
      ),
    ).toEqual([]);
    // HTTP's own headers need no documentation.
    expect(
      contractViolations(getDocument({ headers: { ...json, etag: '"2"', date: 'x', 'content-length': '9', 'apigw-requestid': 'r' } })),
    ).toEqual([]);
  });

  it('fails an undocumented status', () => {
    expect(contractViolations(getDocument({ status: 418 }))).toEqual([expect.stringMatching(/status 418 is not documented/)]);
    expect(contractViolations(exchange('/', 204, {}, ''))).toEqual([expect.stringMatching(/status 204 is not documented/)]);
    // 403 is no answer of a read.
    expect(contractViolations(getDocument({ status: 403, headers: problemHeaders, body: problem('forbidden', 403) }))).toHaveLength(1);
  });

  it('fails an undocumented field, a missing field, or a wrong type', () => {
    expect(contractViolations(getDocument({ body: { ...document, secret: 1 } }))).toEqual([expect.stringMatching(/additional properties/)]);
    const { sha256: _, ...withoutDigest } = document;
    expect(contractViolations(getDocument({ body: withoutDigest }))).toEqual([
      expect.stringMatching(/must have required property 'sha256'/),
    ]);
    expect(contractViolations(getDocument({ body: { ...document, version: '2' } }))).toEqual([
      expect.stringMatching(/version must be integer/),
    ]);
    expect(contractViolations(getDocument({ body: { ...document, createdAt: '2026-01-02 03:04' } }))).not.toEqual([]);
    // A list item carries no content.
    expect(contractViolations(exchange('/folder/x/documents', 200, json, { items: [document] }))).not.toEqual([]);
  });

  it('fails a missing, malformed or undocumented header', () => {
    expect(contractViolations(getDocument({ headers: json }))).toEqual(['header etag is required']);
    expect(contractViolations(getDocument({ headers: { ...json, etag: 'W/"2"' } }))).toEqual([expect.stringMatching(/^header etag/)]);
    expect(contractViolations(getDocument({ headers: { ...json, etag: '"2"', 'x-powered-by': 'me' } }))).toEqual([
      'header x-powered-by is not documented',
    ]);
    expect(contractViolations(getDocument({ headers: { ...json, etag: '"2"', 'cache-control': 'max-age=60' } }))).toEqual([
      expect.stringMatching(/^header cache-control/),
    ]);
    expect(contractViolations(exchange('/', 401, problemHeaders, problem('unauthorized', 401)))).toEqual([
      'header www-authenticate is required',
    ]);
  });

  it('fails an undocumented media type, a body where none is documented, and errors[] off a validation error', () => {
    expect(
      contractViolations(getDocument({ headers: { 'content-type': 'text/plain', 'cache-control': 'no-store', etag: '"2"' } })),
    ).toEqual([expect.stringMatching(/media type "text\/plain" is not documented/)]);
    expect(contractViolations(exchange('/document/abc', 204, { 'cache-control': 'no-store' }, 'x', 'DELETE'))).toEqual([
      'a body was sent, but none is documented',
    ]);
    const notFound = problem('not-found', 404, { errors: [{ path: 'id', message: 'x' }] });
    expect(contractViolations(getDocument({ status: 404, headers: problemHeaders, body: notFound }))).not.toEqual([]);
    expect(contractViolations(getDocument({ status: 404, headers: problemHeaders, body: problem('conflict', 404) }))).not.toEqual([]);
  });

  it('holds a request no operation matches to the $default route', () => {
    expect(contractViolations(exchange('/nowhere/at/all/x', 200, json, {}))).toEqual([expect.stringMatching(/^\$default: status 200/)]);
    expect(contractViolations(exchange('/document', 405, problemHeaders, problem('method-not-allowed', 405), 'PATCH'))).toEqual([
      'header allow is required',
    ]);
  });
});
