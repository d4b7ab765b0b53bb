import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorize, callerOf } from '#core/auth';
import { statusOf } from '#test/support/errors';

const eventWithSub = (sub: unknown) =>
  ({ requestContext: { authorizer: { jwt: { claims: { sub }, scopes: null } } } }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

describe('the caller', () => {
  it('is the token subject', () => {
    expect(callerOf(eventWithSub('alice'))).toEqual({ userId: 'alice' });
    expect(callerOf(eventWithSub('a'.repeat(255)))).toEqual({ userId: 'a'.repeat(255) });
  });

  it('is refused (401) without a usable subject', () => {
    for (const sub of [undefined, '', 42, 'a'.repeat(256), 'bad\ud800']) expect(statusOf(() => callerOf(eventWithSub(sub)))).toBe(401);
  });

  it('is any sub a member can be named by: 255 characters counted in code points, no control characters', () => {
    expect(callerOf(eventWithSub('\u{1F600}'.repeat(255)))).toEqual({ userId: '\u{1F600}'.repeat(255) }); // 510 UTF-16 units
    expect(callerOf(eventWithSub('auth0|bob@example.com: Zoë'))).toEqual({ userId: 'auth0|bob@example.com: Zoë' });
    for (const sub of ['\u{1F600}'.repeat(256), 'a\u0000', 'tab\there', 'a\u0085', 'a\u007f']) {
      expect(
        statusOf(() => callerOf(eventWithSub(sub))),
        JSON.stringify(sub),
      ).toBe(401);
    }
  });
});

describe('roles', () => {
  it('let every member read, owners and editors write, and hide the resource from others', () => {
    expect(statusOf(() => authorize('viewer', 'read', 'Folder'))).toBe('ok');
    expect(statusOf(() => authorize('editor', 'write', 'Folder'))).toBe('ok');
    expect(statusOf(() => authorize('owner', 'write', 'Folder'))).toBe('ok');
    expect(statusOf(() => authorize('viewer', 'write', 'Folder'))).toBe(403);
    expect(statusOf(() => authorize(undefined, 'read', 'Folder'))).toBe(404);
    expect(statusOf(() => authorize(undefined, 'write', 'Folder'))).toBe(404);
  });
});
