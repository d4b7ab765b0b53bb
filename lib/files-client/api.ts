/**
 * The service as the file tools call it: the typed client (lib/client: openapi-fetch over the
 * types generated from openapi.json), and the one error every failed call becomes.
 */
import { createDocumentsClient, type DocumentsClient } from '#lib/client/index';

export type FilesApi = DocumentsClient;

/** `baseUrl`: the API (e.g. http://127.0.0.1:3000); `token`: a bearer JWT. */
export function createFilesApi(baseUrl: string, token: string): FilesApi {
  return createDocumentsClient(baseUrl.replace(/\/+$/, ''), { token });
}

/** A problem+json answer, as far as the tools read one (API Gateway's own 401 and 429 are `{message}`). */
interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
}

/** An answer the tools cannot go on from: its status and, when the service sent one, its problem+json. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly problem?: Partial<Problem>;
  constructor(
    readonly what: string,
    readonly status: number,
    body?: unknown,
  ) {
    const problem = problemOf(body);
    super(`${what}: ${status}${problem?.title ? ` ${problem.title}` : ''}${problem?.detail ? `: ${problem.detail}` : ''}`);
    this.problem = problem;
  }
}

/** An error body as a problem (API Gateway's own 401 and 429 are `{message}`: its message is the title). */
export function problemOf(body: unknown): Partial<Problem> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, ...rest } = body as Partial<Problem> & { message?: string };
  return message && !rest.title ? { ...rest, title: message } : rest;
}

/** The `data` of a successful answer, or an ApiError naming `what` was asked. */
export function expectData<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined && answer.response.ok) return answer.data;
  throw new ApiError(what, answer.response.status, answer.error);
}

/** The API and token the tools use, from the environment as lib/client/example.ts has them: API (default the local service) and TOKEN. */
export function filesApiFromEnvironment(environment = process.env): FilesApi {
  const token = environment.TOKEN?.trim();
  if (!token) throw new UsageError('TOKEN is not set: for the local service, TOKEN=$(npm run --silent token -- <user>)');
  return createFilesApi(environment.API || 'http://127.0.0.1:3000', token);
}

/** Wrong arguments or environment: one line for the user, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
