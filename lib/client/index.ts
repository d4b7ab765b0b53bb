/**
 * A typed client for the documents service: openapi-fetch over the types openapi-typescript
 * generates from openapi.json (./schema.ts, written by `npm run openapi`). Paths, parameters,
 * bodies and responses are checked by the compiler against the same document the service is
 * tested against.
 *
 *   const api = createDocumentsClient('http://127.0.0.1:3000', { token });
 *   const { data, error } = await api.POST('/', { body: { name: 'Handbook' } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export type DocumentsClient = Client<paths>;

type Schemas = components['schemas'];
export type Repository = Schemas['Repository'];
export type Folder = Schemas['Folder'];
export type Document = Schemas['Document'];
export type DocumentSummary = Schemas['DocumentSummary'];
/** Any problem+json body the API answers with (RFC 9457). */
export type Problem = Schemas[Extract<keyof Schemas, `${string}Problem`>];

export interface DocumentsClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** A bearer JWT, or a function returning the current one (called per request, unless it sets its own). */
  token?: string | (() => string | Promise<string>);
}

export function createDocumentsClient(baseUrl: string, { token, ...options }: DocumentsClientOptions = {}): DocumentsClient {
  const client = createClient<paths>({ baseUrl, ...options });
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        // A request that sets its own Authorization keeps it.
        if (!request.headers.has('Authorization')) {
          request.headers.set('Authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
        }
        return request;
      },
    });
  }
  return client;
}
