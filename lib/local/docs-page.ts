import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { securityHeaders } from '#lib/http/responses';

/**
 * GET /docs under `npm start`: the API description rendered by Scalar, whose browser bundle is
 * served from node_modules (a development dependency), nothing from a CDN; its web fonts are off
 * so that the page makes no request beyond this server. Deployed stages serve /v1/spec only.
 */

export const DOCS_PATH = '/docs';
const SCRIPT_PATH = '/docs/scalar.js';
const SCALAR_BUNDLE = new URL(
  '../../node_modules/@scalar/api-reference/dist/browser/standalone.js',
  import.meta.url,
);

const startScript = `
      Scalar.createApiReference('#reference', {
        url: '/v1/spec',
        withDefaultFonts: false,
        hideClientButton: true,
        telemetry: false,
        // A local reference of this API: none of Scalar's hosted products (its AI agent, MCP, deploy toolbar).
        agent: { disabled: true },
        mcp: { disabled: true },
        showToolbar: 'never',
        showDeveloperTools: 'never',
        // Operations are grouped by tag; Scalar would show only the first group's until clicked.
        defaultOpenAllTags: true,
      });
    `;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Notifications and embedding admin API: reference</title>
    <!-- No icon: an empty one spares the browser's request for /favicon.ico, which no route serves. -->
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${SCRIPT_PATH}"></script>
    <script>${startScript}</script>
  </body>
</html>
`;

/**
 * The page runs this server's script and its own inline start (by hash) and talks to this server
 * only; Scalar sets styles inline and shows images as data URLs.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(startScript).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

let script: Promise<string> | undefined;

/** The answer to a request for the reference page or its script, or undefined for any other path. */
export async function docsPage(
  method: string,
  path: string,
): Promise<APIGatewayProxyStructuredResultV2 | undefined> {
  if (method !== 'GET') return undefined;
  if (path === DOCS_PATH) {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy,
        ...securityHeaders,
      },
      body: page,
    };
  }
  if (path === SCRIPT_PATH) {
    script ??= readFile(SCALAR_BUNDLE, 'utf8');
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', ...securityHeaders },
      body: await script,
    };
  }
  return undefined;
}
