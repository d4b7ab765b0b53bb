/**
 * npm run openapi: writes openapi.json from the route table and the schemas, and the typed
 * client's types from it. Both files are committed; a test fails when either is stale.
 */
import { writeFile } from 'node:fs/promises';
import { clientTypesPath, openApiPath, renderClientTypes, renderOpenApi } from '#lib/openapi/generate';

const document = await renderOpenApi();
await writeFile(openApiPath, document);
await writeFile(clientTypesPath, await renderClientTypes(document));
console.log(`wrote ${openApiPath} and ${clientTypesPath}`);
