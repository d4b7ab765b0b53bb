/**
 * Who the caller is and what their role lets them do (docs/api.md). The JWT itself is
 * verified before a handler runs (API Gateway's authorizer, or the local emulator).
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { forbidden, HttpError, notFound } from './errors';
import type { Caller, Role } from './resources';

/** OpenID Connect Core §2: `sub` MUST NOT exceed 255 ASCII characters. */
export const MAX_USER_ID_LENGTH = 255;

/**
 * A user id as the API names users (a caller's `sub`, a member's `userId` in a path): 1 to 255
 * code points of well-formed text, no control characters. One rule for both, so every caller
 * can be given a role, and every member named can call.
 */
export function isUserId(value: string): boolean {
  let length = 0;
  for (const _ of value) length++;
  return length >= 1 && length <= MAX_USER_ID_LENGTH && value.isWellFormed() && !/\p{Cc}/u.test(value);
}

export function callerOf(event: APIGatewayProxyEventV2WithJWTAuthorizer): Caller {
  const sub = event.requestContext?.authorizer?.jwt?.claims?.sub;
  if (typeof sub !== 'string' || !isUserId(sub)) {
    throw new HttpError('unauthorized', 'The token has no usable subject (`sub`: 1 to 255 characters, no control characters).', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  return { userId: sub };
}

/**
 * The caller of a request: from the JWT authorizer's claims, as API Gateway passes them. Under
 * `sam local` only (`AWS_SAM_LOCAL=true`, which SAM sets and Lambda never does), SAM runs no
 * authorizer, so an event without its claims has the bearer token checked here first
 * (./sam-local-auth.ts, loaded only then: a deployed function neither loads nor runs it).
 */
export function requestCaller(event: APIGatewayProxyEventV2WithJWTAuthorizer): Caller | Promise<Caller> {
  if (process.env.AWS_SAM_LOCAL !== 'true' || event.requestContext?.authorizer?.jwt) return callerOf(event);
  return import('./sam-local-auth').then(({ samLocalCaller }) => samLocalCaller(event));
}

/**
 * What a request does in a repository: `read` (any member), `write` folders and documents
 * (owner, editor), `manage` the repository itself and its members (owner).
 */
export type Action = 'read' | 'write' | 'manage';

/** The roles that may do each action. */
export const rolesFor: Readonly<Record<Action, readonly Role[]>> = {
  read: ['owner', 'editor', 'viewer'],
  write: ['owner', 'editor'],
  manage: ['owner'],
};

/**
 * Throws unless `role` allows `action`. No role means not a member: the resource is
 * reported as missing (404), exactly as if it did not exist.
 */
export function authorize(role: Role | undefined, action: Action, what: string): asserts role is Role {
  if (!role) throw notFound(what);
  if (!rolesFor[action].includes(role)) {
    throw forbidden(
      action === 'manage'
        ? `Your role "${role}" in this repository does not allow managing it; only an owner may.`
        : `Your role "${role}" in this repository does not allow changes.`,
    );
  }
}
