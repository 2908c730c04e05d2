import type { TypedApp } from '@stratagate/http';

export interface LandingOptions {
  /** The roles this process runs (ingest, query, projector, consolidator). */
  roles: readonly string[];
  version: string;
  /** Where a console is served, once there is one: only then does the page link it. */
  consolePath?: string;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The small HTML page at `/`: what runs here and where to go next. */
export function landingPage(options: LandingOptions): string {
  const links = [
    ...(options.consolePath
      ? [[options.consolePath, 'Console: what the agents remember, and why (sign in with a key)']]
      : []),
    ['/docs', 'API reference (try it out with your key)'],
    ['/openapi.json', 'OpenAPI document'],
  ]
    .map(([href, label]) => `<li><a href="${escape(href!)}">${escape(label!)}</a></li>`)
    .join('\n      ');
  const roles = options.roles.map((r) => `<li>${escape(r)}</li>`).join('');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>StrataGate</title>
  </head>
  <body>
    <h1>StrataGate ${escape(options.version)}</h1>
    <p>Long-term memory for AI agents: conversations go in as turns, and come back as recall,
    search and evidence an agent can cite. Every <code>/v1</code> request needs
    <code>Authorization: Bearer &lt;api key&gt;</code>.</p>
    <h2>Running here</h2>
    <ul>${roles}</ul>
    <ul>
      ${links}
    </ul>
  </body>
</html>
`;
}

/** `GET /`: the landing page, outside the API (no key, not in the OpenAPI document). */
export function landingPlugin(options: LandingOptions) {
  const page = landingPage(options);
  return async (app: TypedApp): Promise<void> => {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(page),
    );
  };
}
