/**
 * The generated files, as text: openapi.json (from ./document.ts) and the client's types
 * (lib/client/schema.ts, from openapi.json by openapi-typescript). `npm run openapi` writes
 * them; test/contract/openapi.test.ts regenerates them in memory and fails when the
 * committed ones differ.
 */

import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument, loadOperations } from './document';

const root = new URL('../../', import.meta.url);
export const openApiPath = fileURLToPath(new URL('openapi.json', root));
export const clientTypesPath = fileURLToPath(new URL('lib/client/schema.ts', root));

export async function renderOpenApi(): Promise<string> {
  return `${JSON.stringify(buildOpenApiDocument(await loadOperations()), null, 2)}\n`;
}

/** TypeScript types for openapi-fetch: `paths`, `components`, `operations`. */
export async function renderClientTypes(openApiJson: string): Promise<string> {
  // A default makes a request field optional, not required (openapi-typescript's default is the reverse).
  const ast = await openapiTS(JSON.parse(openApiJson) as Parameters<typeof openapiTS>[0], { silent: true, defaultNonNullable: false });
  return COMMENT_HEADER.replace('openapi-typescript', 'openapi-typescript from openapi.json (npm run openapi)') + astToString(ast);
}
