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
import { contentTypes, fileAssets, INITIALIZER, initializerScript, PUBLIC_CACHE } from './page';

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
