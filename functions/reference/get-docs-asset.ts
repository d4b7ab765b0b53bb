/**
 * GET /docs/{asset} — Swagger UI's script and style sheet, and the script that starts it.
 * The files are not bundled: they sit beside the deployed bundle (the route's `files`), or
 * in DOCS_ASSETS_DIR locally. Only the allow-listed names are served.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError, problemResponse } from '#core/errors';
import type { Operation } from '#core/http/operation';
import { assetNames, contentTypes, fileAssets, INITIALIZER, initializerScript, PUBLIC_CACHE } from './page';

export const operation = {
  tag: 'Documentation',
  access: 'public',
  example: { request: () => ({ params: { asset: 'init.js' } }) },
  summary: 'A script or style sheet of the reference page',
  pathParameter: { name: 'asset', description: 'A file of the reference page.', enum: assetNames },
  success: {
    status: 200,
    description: 'The file.',
    mediaTypes: { 'text/javascript': {}, 'text/css': {} },
    cacheControl: 'public',
  },
  errors: { 'not-found': 'No such file.' },
} as const satisfies Operation;

const assetsDir = () => process.env.DOCS_ASSETS_DIR ?? dirname(fileURLToPath(import.meta.url));
/** Read once per container: the files never change under a running function. */
const loaded = new Map<string, Promise<string>>();

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const name = event.pathParameters?.asset ?? '';
  let body: string;
  if (name === INITIALIZER) body = initializerScript;
  else if (fileAssets.includes(name)) {
    let loading = loaded.get(name);
    if (!loading) {
      loading = readFile(join(assetsDir(), name), 'utf8');
      loaded.set(name, loading);
      loading.catch(() => loaded.delete(name)); // a failed read is retried, not remembered
    }
    body = await loading;
  } else {
    return problemResponse(new HttpError('not-found', `No documentation asset named "${name}".`));
  }
  return {
    statusCode: 200,
    headers: { 'Content-Type': contentTypes[extname(name)] ?? 'application/octet-stream', 'Cache-Control': PUBLIC_CACHE },
    body,
  };
};
