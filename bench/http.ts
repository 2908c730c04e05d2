import { Pool } from 'undici';

/**
 * The load generator's HTTP client: one keep-alive undici pool per server, with as many
 * connections as requests in flight. `fetch` costs the bench process ~0.7 ms of CPU per request
 * on these 2-core machines, CPU the server under test then lacks and time that sequential
 * latency samples include; `Pool.request` costs a fraction of that.
 */
const pools = new Map<string, Pool>();

function pool(url: string): Pool {
  let p = pools.get(url);
  if (!p) {
    p = new Pool(url, { connections: 128, pipelining: 1 });
    pools.set(url, p);
  }
  return p;
}

export interface BenchResponse {
  status: number;
  body: string;
}

export async function request(
  url: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  key: string,
  body?: string,
): Promise<BenchResponse> {
  const res = await pool(url).request({
    method,
    path,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.statusCode, body: await res.body.text() };
}

/** Closes every pool, so their idle sockets do not keep the bench process alive. */
export async function closeClients(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map((p) => p.close()));
}
