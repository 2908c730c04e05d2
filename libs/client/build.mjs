// `npm run build -w @stratagate/client`: compiles the client to dist/ and writes the manifest
// it is published with (`npm publish libs/client/dist`): the same package, pointing at the
// compiled JavaScript instead of the TypeScript sources the workspace runs on.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dirname;
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(here, '../../node_modules/typescript/bin/tsc'), '-p', join(here, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);

const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const entry = (name) => ({ types: `./${name}.d.ts`, default: `./${name}.js` });
const published = {
  ...manifest,
  exports: { '.': entry('index'), './space-ids': entry('space-ids') },
  types: './index.d.ts',
  private: undefined,
  scripts: undefined,
};
writeFileSync(join(dist, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
copyFileSync(join(here, 'README.md'), join(dist, 'README.md'));
console.log(`built ${dist}`);
