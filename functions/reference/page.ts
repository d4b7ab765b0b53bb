/**
 * What the docs handlers serve: the reference page (Swagger UI, from the project's own
 * `swagger-ui-dist`, never a CDN) and the headers that go with it. Plain handlers: no token,
 * no database, no middy (API Gateway binds no authorizer to public routes).
 */
import { referenceAssetFiles } from '#functions/routes';

/** Lives in the code, not in swagger-ui-dist: points Swagger UI at this API's document. */
export const initializerScript = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;
export const INITIALIZER = 'init.js';

/**
 * The file assets: the basenames of the `files` the route table lists for the asset route
 * (copied beside the bundle on AWS). Anything else is 404: no path ever reaches the disk.
 */
export const fileAssets: readonly string[] = referenceAssetFiles.map((file) => file.slice(file.lastIndexOf('/') + 1));
export const assetNames: readonly string[] = [...fileAssets, INITIALIZER];

/** Relative URLs: the page works at `/docs` on any host, under any base path. */
export const pageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Documents service API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/${INITIALIZER}"></script>
</body>
</html>
`;

/** Only this origin's scripts; Swagger UI sets inline styles and uses data: images. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Public documents change with each deployment: caches may keep them for a short while. */
export const PUBLIC_CACHE = 'public, max-age=300';

export const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
