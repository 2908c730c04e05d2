/** `npm run client:generate`: rewrites the client's generated files from the served document. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { servedOpenApiDocument } from '@stratagate/runtime';
import { generateClientSources } from './generate.ts';

const repoRoot = join(import.meta.dirname, '../../../..');

const doc = await servedOpenApiDocument();
const errors = await readFile(join(repoRoot, 'docs/api-errors.md'), 'utf8');
const files = await generateClientSources(doc, errors, repoRoot);
for (const [file, text] of Object.entries(files)) {
  const path = join(repoRoot, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  console.log(`wrote ${file}`);
}
