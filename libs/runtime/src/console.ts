import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TypedApp } from '@stratagate/http';

/** Where the query role serves the web console. */
export const CONSOLE_PATH = '/console';

/** Where `npm run console:build` (run by `npm install`) writes the console's files. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(
  new URL('../../../apps/console/dist', import.meta.url),
);

/*
 * The console calls the API from the same origin with the key the user typed; nothing else is
 * fetched, so the page may load and reach nothing but this server. Cytoscape and Preact set
 * element styles from script, hence the inline style allowance.
 */
const CSP = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const notBuiltPage = (dir: string) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>StrataGate console: not built</title></head>
  <body>
    <h1>The console is not built</h1>
    <p>This server found no console files in <code>${dir.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</code>.
    <code>npm install</code> builds them; to build them by hand run <code>npm run console:build</code>
    in the StrataGate folder, then reload this page. The API itself works: see <a href="/docs">/docs</a>.</p>
  </body>
</html>
`;

/**
 * `/console`: the built single-page app, outside the API (no key: the page asks for one and
 * sends it with every call). Paths that are not files answer the app's index.html, so a link to a
 * view opens that view; paths under assets/ that are not files stay 404. Without a build, a page
 * says how to make one (503) and the rest of the server works as before.
 */
export function consolePlugin(options: { dir?: string } = {}) {
  const dir = options.dir ?? DEFAULT_CONSOLE_DIR;
  return async (app: TypedApp): Promise<void> => {
    const built = existsSync(`${dir}/index.html`);
    const hide = { schema: { hide: true } };
    app.get(CONSOLE_PATH, hide, async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`));
    if (!built) {
      app.get(`${CONSOLE_PATH}/*`, hide, async (_request, reply) =>
        reply.code(503).type('text/html; charset=utf-8').send(notBuiltPage(dir)),
      );
      return;
    }
    const index = async (reply: FastifyReply) => reply.sendFile('index.html');
    await app.register(fastifyStatic, {
      root: dir,
      prefix: `${CONSOLE_PATH}/`,
      // Files are routed one by one, so anything else reaches the app route below.
      wildcard: false,
      index: false,
      // Set by setHeaders below instead.
      cacheControl: false,
      setHeaders: (reply, path) => {
        reply.header('content-security-policy', CSP);
        // Vite names built assets by content hash: they never change under the same name.
        reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    app.get(`${CONSOLE_PATH}/`, hide, async (_request, reply) => index(reply));
    app.get(`${CONSOLE_PATH}/*`, hide, async (request, reply) => {
      const path = request.url.split('?', 1)[0]!;
      if (path.startsWith(`${CONSOLE_PATH}/assets/`)) {
        return reply.code(404).type('text/plain; charset=utf-8').send('no such console file');
      }
      return index(reply);
    });
  };
}
