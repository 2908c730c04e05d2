/**
 * Takes the console screenshots shown in the README (docs/console/*.png): a node on an in-memory
 * store with a small conversation, the console in Debian's Chromium. Run with
 * `npm run console:screenshots` after `npm run console:build`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startTestNode } from '@stratagate/runtime/testing';

const OUT = join(import.meta.dirname, '..', 'docs', 'console');
const SPACE = 'acme';
const SAID = [
  ['Caroline', 'Our project Atlas uses npm for installs.'],
  ['Caroline', 'The Atlas team meets on Mondays in Lisbon with Dmitri.'],
  ['Caroline', 'We switched Atlas to pnpm because installs are faster.'],
  ['Dmitri', 'I moved to Porto last month and now lead the Atlas release.'],
  ['Caroline', 'The Atlas release is planned for June 12.'],
  ['Dmitri', 'Atlas now deploys on Fly.io instead of Heroku.'],
] as const;

async function main() {
  await mkdir(OUT, { recursive: true });
  const t = await startTestNode('console_screenshots', {
    listen: true,
    embedded: true,
    config: { STRATAGATE_LOG_LEVEL: 'silent' },
  });
  const sg = t.client;
  await sg.call('configureSpace', { spaceId: SPACE, body: { blockSize: 2 } });
  for (const [i, [name, content]] of SAID.entries()) {
    await sg.call('recordTurn', {
      spaceId: SPACE,
      body: {
        threadId: 'planning',
        occurredAt: `2023-05-0${i + 1}T10:00:00Z`,
        messages: [
          { role: 'user', name, content },
          { role: 'assistant', content: 'Noted.' },
        ],
      },
    });
  }
  await sg.waitUntilSettled(SPACE);
  // The topic directory is built after extraction and the graph; the topics shot needs it.
  for (;;) {
    const { topicJobs } = await sg.call('getSpaceStatus', { spaceId: SPACE });
    if (topicJobs.status === 'idle' && topicJobs.unassignedEvents === 0) break;
    if (topicJobs.status === 'failed') throw new Error(`topic job failed: ${topicJobs.lastError}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await sg.call('createProfile', { profileId: 'caroline' });
  await sg.call('editProfileField', {
    profileId: 'caroline',
    body: { field: 'preferredLanguage', value: 'English', expectedRevision: null },
  });

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const base = `${t.node.url}/console`;
  const shot = (name: string, p: Page = page) =>
    p.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
  try {
    await page.goto(`${base}/`);
    await page.getByLabel('API key').fill(t.key);
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: SPACE }).waitFor();
    await page.goto(`${base}/spaces/${SPACE}/threads/planning`);
    const first = page.getByRole('article').first();
    await first.waitFor();
    await first.getByRole('button', { name: 'L5' }).click();
    await first.getByRole('status').waitFor();
    await shot('thread-blocks');

    await page.goto(`${base}/spaces/${SPACE}/events`);
    await page.locator('ol.timeline').waitFor();
    await shot('memory-events');
    await page.locator('ol.timeline a').filter({ hasText: /pnpm/i }).first().click();
    await page.locator('ol.sources blockquote').first().waitFor();
    await shot('memory-event-sources');

    await page.goto(`${base}/spaces/${SPACE}/topics`);
    await page.locator('ol.topics > li').first().waitFor();
    await shot('topics');
    await page.locator('ol.topics > li a').first().click();
    await page.locator('#topic-title').waitFor();
    await page.getByRole('button', { name: "Search this topic's events" }).click();
    await page.locator('.topic-batch ol.hits > li').first().waitFor();
    await page.screenshot({ path: join(OUT, 'topic-chapter.png'), fullPage: true });

    await page.goto(`${base}/spaces/${SPACE}/graph`);
    await page.locator('.graph canvas').first().waitFor();
    const options = await page.locator('#graph-node option').allTextContents();
    const atlas = options.find((o) => o.startsWith('Atlas')) ?? options[1];
    if (atlas) await page.locator('#graph-node').selectOption({ label: atlas });
    await shot('graph');

    await page.goto(`${base}/spaces/${SPACE}/search`);
    await page.getByLabel('Thread').fill('assistant');
    await page.getByLabel('Query').fill('Atlas package manager');
    await page.getByRole('button', { name: 'Search' }).click();
    const hit = page.locator('ol.hits > li').first();
    await hit.waitFor();
    await hit.getByRole('checkbox').check();
    await page.getByLabel('Why they fit').fill('names the package manager');
    await page.getByRole('button', { name: 'Assess batch' }).click();
    await page.getByText('Assessed:').waitFor();
    await page.getByRole('button', { name: /^Adopt/ }).click();
    await page.locator('tr.weight-change').first().waitFor();
    await page.screenshot({ path: join(OUT, 'search-gate.png'), fullPage: true });

    await page.goto(`${base}/spaces/${SPACE}/jobs`);
    await page.getByText('Derivation jobs').waitFor();
    await shot('jobs');

    await page.goto(`${base}/spaces/${SPACE}/imports`);
    await page.getByLabel('Export to import').fill(
      JSON.stringify(
        {
          format: 'stratagate.external-memory.v2',
          sourceType: 'external_ai_memory_export',
          sourceSystem: 'OtherAI',
          coverage: 'partial',
          candidates: [
            {
              memoryKind: 'fact',
              category: 'project',
              title: 'Project Atlas switched to pnpm',
              summary: 'Project Atlas now installs with pnpm.',
              scope: 'project',
            },
            {
              memoryKind: 'preference',
              category: 'preference',
              title: 'Caroline prefers short answers',
              summary: 'Caroline likes answers in three sentences or fewer.',
              scope: 'user',
            },
          ],
        },
        null,
        2,
      ),
    );
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /^Import/ }).waitFor();
    await page.getByText(/items:/).waitFor();
    await shot('import-preview');

    await page.goto(`${base}/profiles/caroline`);
    await page.getByText('Fields').waitFor();
    await shot('profile');

    const narrow = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await narrow.goto(`${base}/`);
    await narrow.getByLabel('API key').fill(t.key);
    await narrow.getByRole('button', { name: 'Sign in' }).click();
    await narrow.goto(`${base}/spaces/${SPACE}/events`);
    await narrow.locator('ol.timeline').waitFor();
    await shot('narrow-memory-events', narrow);
  } catch (error) {
    await page.screenshot({ path: join(OUT, 'failed.png') });
    throw error;
  } finally {
    await browser.close();
    await t.stop();
  }
  console.log(`screenshots in ${OUT}`);
}

await main();
