import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build, type Plugin, type Rollup } from 'vite';

/*
 * The web console bundles this SDK for the browser. A Node-only import in its entry would be
 * swapped for an empty stub by the bundler and break only at run time in the page, so the check
 * is made here: the entry bundles with Node's modules refused outright.
 */

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

function refuseNodeModules(): Plugin {
  return {
    name: 'refuse-node-modules',
    enforce: 'pre',
    resolveId(id, importer) {
      if (builtins.has(id)) this.error(`Node-only import '${id}' in ${importer ?? 'the entry'}`);
      return null;
    },
  };
}

async function bundleForBrowser(entry: string): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: 'silent',
    plugins: [refuseNodeModules()],
    build: {
      write: false,
      minify: false,
      lib: { entry: fileURLToPath(new URL(entry, import.meta.url)), formats: ['es'] },
    },
  })) as Rollup.RollupOutput[];
  return out[0]!.output.map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('\n');
}

describe('the SDK in a browser bundle', () => {
  it('bundles its entry without any Node-only module', async () => {
    const code = await bundleForBrowser('./index.ts');
    expect(code).toContain('class StrataGate');
    expect(code).not.toMatch(/from ["']node:/);
  });

  it('refuses a Node-only module (space ids hash with node:crypto, so they stay a subpath)', async () => {
    await expect(bundleForBrowser('./space-ids.ts')).rejects.toThrow(/Node-only import 'node:/);
  });
});
