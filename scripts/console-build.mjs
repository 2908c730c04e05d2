// Builds the web console (apps/console) into apps/console/dist, which the query role serves at
// /console. Run by `npm install` (the root `prepare` script) and by `npm run console:build`.
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('../apps/console/', import.meta.url));

let vite;
try {
  vite = await import('vite');
} catch (error) {
  // An install without dev dependencies has no bundler: the server still runs, and /console
  // says how to build it.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  console.warn(
    'console: vite is not installed (dev dependencies left out?); /console stays unbuilt',
  );
  process.exit(0);
}

await vite.build({
  configFile: false,
  root,
  base: '/console/',
  logLevel: 'warn',
  // Preact's automatic JSX runtime through esbuild: no Babel step.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Cytoscape alone is ~400 kB minified; one chunk is fine for a page served from localhost.
    chunkSizeWarningLimit: 1024,
  },
});
console.log(`console: built ${root}dist`);
