/**
 * The service as the file tools call it: the typed client (lib/client: openapi-fetch over the
 * types generated from openapi.json), and the one error every failed call becomes.
 */
import { createDocumentsClient, type DocumentsClient } from '#lib/client/index';

export { ApiError, expectData, problemOf } from './errors';

export type FilesApi = DocumentsClient;

/** `baseUrl`: the API (e.g. http://127.0.0.1:3000); `token`: a bearer JWT. */
export function createFilesApi(baseUrl: string, token: string): FilesApi {
  return createDocumentsClient(baseUrl.replace(/\/+$/, ''), { token });
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
