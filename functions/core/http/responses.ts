/** Success responses: JSON bodies, `Location` on 201, `ETag` on documents. */
import type { Document, DocumentSummary } from '#core/types';

export interface EndpointResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, headers?: Record<string, string>): EndpointResponse => ({ status: 200, body, headers });

export const created = (location: string, body: unknown, headers?: Record<string, string>): EndpointResponse => ({
  status: 201,
  body,
  headers: { Location: location, ...headers },
});

export const noContent = (): EndpointResponse => ({ status: 204 });

export const etagOf = (document: Pick<DocumentSummary, 'version'>) => `"${document.version}"`;

/** A document response: 200, or 201 with `Location` when it was just created. */
export function documentResponse(document: Document, status: 200 | 201 = 200): EndpointResponse {
  const headers = { ETag: etagOf(document) };
  return status === 201 ? created(`/document/${document.id}`, document, headers) : ok(document, headers);
}
