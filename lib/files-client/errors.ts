/**
 * The one error every failed call of the file tools becomes, in the CLI and in the web app alike
 * (no Node.js API here: web/ imports it).
 */

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
