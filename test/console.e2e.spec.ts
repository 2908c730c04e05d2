import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createOfflineProvider, ModelError, type ModelPort } from '@stratagate/model';
import { DEFAULT_CONSOLE_DIR } from '@stratagate/runtime';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * The web console in Debian's Chromium against a node this file starts: the flows an operator
 * goes through, each through the same API agents use. Without /usr/bin/chromium (`.ci/run`
 * installs it) the suite is skipped, saying so.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `SKIPPING the console browser tests: ${CHROMIUM} is missing (apt-get install chromium)`,
  );
}

const SPACE = 'console-e2e';
const BROKEN = 'console-broken';
const SECRET = 'console-secret';
const TOPICS = 'console-topics';
const SAID = [
  'Our project Atlas uses npm.',
  'The Atlas team meets on Mondays in Lisbon.',
  'We switched Atlas to pnpm because installs are faster.',
  'Caroline leads the Atlas release in June.',
];

/** The offline model, except that a summary of a block saying "BROKEN" fails while `failing`. */
function modelWithABrokenBlock() {
  const offline = createOfflineProvider();
  const state = { failing: true };
  const model: ModelPort = {
    ...offline,
    name: 'console-test',
    async summarizeBlock(input, options) {
      if (state.failing && input.messages.some((m) => m.content.includes('BROKEN'))) {
        throw new ModelError('upstream returned 500', 'http_500', true);
      }
      return offline.summarizeBlock(input, options);
    },
  };
  return { model, state };
}

describe.skipIf(!hasChromium)(`web console in Chromium (${describeBackend()})`, () => {
  let t: TestNode;
  let otherKey: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const broken = modelWithABrokenBlock();
  const url = (path: string) => `${t.node.url}/console${path}`;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_CONSOLE_DIR, 'index.html'))) {
      // `npm install` builds it; a checkout that skipped install scripts builds it here.
      await promisify(execFile)('npm', ['run', 'console:build'], {
        cwd: join(import.meta.dirname, '..'),
      });
    }
    t = await startTestNode('console_e2e', { listen: true, model: broken.model });
    await t.client.call('configureSpace', { spaceId: SPACE, body: { blockSize: 2 } });
    for (const [i, content] of SAID.entries()) {
      await t.client.call('recordTurn', {
        spaceId: SPACE,
        body: {
          threadId: 's1',
          occurredAt: `2023-05-0${i + 1}T10:00:00Z`,
          messages: [
            { role: 'user', name: 'Caroline', content },
            { role: 'assistant', content: 'Noted.' },
          ],
        },
      });
    }
    await t.client.call('configureSpace', { spaceId: BROKEN, body: { blockSize: 1 } });
    await t.client.call('recordTurn', {
      spaceId: BROKEN,
      body: {
        threadId: 'b1',
        occurredAt: '2023-05-01T10:00:00Z',
        messages: [{ role: 'user', content: 'This block is BROKEN for the summariser.' }],
      },
    });
    otherKey = (await t.node.apiKeys.create('console-other-tenant', 'console test')).key;
    const other = await t.request(
      'POST',
      `/v1/spaces/${SECRET}/turns`,
      {
        threadId: 'x',
        occurredAt: '2023-05-01T10:00:00Z',
        messages: [{ role: 'user', content: 'Another tenant says hello.' }],
      },
      otherKey,
    );
    expect(other.status).toBe(202);
    await t.settle(SPACE);
    // Settled with its summary failed for good (three attempts, backing off 1 s then 2 s).
    expect(await t.client.waitUntilSettled(BROKEN)).toMatchObject({ summaryJobs: { failed: 1 } });
    await t.settle(SECRET, otherKey);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Failed API calls are expected here (a wrong key, a space of another tenant); uncaught
    // errors and anything the page's content security policy blocked are not.
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) {
        problems.push(message.text());
      }
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('GET / links the console; /console without a key asks for one', async () => {
    await page.goto(`${t.node.url}/`);
    await page.getByRole('link', { name: /Console/ }).click();
    await page.getByLabel('API key').waitFor();
    expect(page.url()).toBe(url('/'));
  });

  it('a wrong key shows a clear sign-in error and stays on sign-in', async () => {
    await page.getByLabel('API key').fill('sg_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/Sign-in failed: that API key was not accepted/);
    expect(await page.getByLabel('API key').isVisible()).toBe(true);
  });

  it('signs in, opens a thread and expands a block to the raw messages', async () => {
    // By keyboard: Enter in the key field submits the form.
    await page.getByLabel('API key').fill(t.key);
    await page.getByLabel('API key').press('Enter');
    await page.getByRole('link', { name: SPACE }).click();
    await page.getByRole('link', { name: 's1' }).click();
    const first = page.getByRole('article').first();
    await first.waitFor();
    // The whole ladder is there, one rung marked as the block's current level.
    const ladder = first.getByRole('group', { name: /Expand turns/ });
    expect(await ladder.getByRole('button').allTextContents()).toEqual([
      'L0',
      'L1',
      'L2',
      'L3',
      'L4',
      'L5',
    ]);
    expect(await ladder.locator('[aria-pressed="true"]').count()).toBe(1);
    await ladder.getByRole('button', { name: 'L5' }).click();
    await first.getByRole('status').filter({ hasText: 'to L5' }).waitFor();
    expect(await first.locator('pre').textContent()).toContain(SAID[0]);
    expect(await ladder.locator('[aria-pressed="true"]').textContent()).toBe('L5');
  });

  it('follows a memory event to its source message, forgets it and restores it', async () => {
    await page
      .getByRole('navigation', { name: 'Space views' })
      .getByRole('link', { name: 'Memory events' })
      .click();
    const timeline = page.locator('ol.timeline');
    await timeline.waitFor();
    await timeline.getByRole('link').filter({ hasText: /pnpm/i }).first().click();
    const source = page.locator('ol.sources blockquote').first();
    await source.waitFor();
    expect(await source.textContent()).toBe(SAID[2]);
    const title = page.locator('#event-title');
    await page.getByRole('button', { name: 'Forget' }).click();
    await title.locator('.badge', { hasText: 'forgotten' }).waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await title.locator('.badge', { hasText: 'active' }).waitFor();
    expect(await page.getByRole('button', { name: 'Forget' }).isVisible()).toBe(true);
  });

  it('runs a search, assesses and adopts a result, and shows the weight change', async () => {
    await page
      .getByRole('navigation', { name: 'Space views' })
      .getByRole('link', { name: 'Search' })
      .click();
    await page.getByLabel('Thread').fill('s2');
    await page.getByLabel('Query').fill('Atlas package manager pnpm');
    await page.getByRole('button', { name: 'Search' }).click();
    const hit = page.locator('ol.hits > li').filter({ hasText: /pnpm/i }).first();
    await hit.waitFor();
    await hit.getByRole('checkbox').check();
    await page.getByLabel('Why they fit').fill('says Atlas switched to pnpm');
    await page.getByRole('button', { name: 'Assess batch' }).click();
    await page.getByText('Assessed: sufficient').waitFor();
    await page.getByRole('button', { name: 'Adopt 1 selected' }).click();
    const change = page.locator('tr.weight-change').first();
    await change.waitFor();
    const mentions = (await change.locator('td').nth(1).textContent())!;
    const [before, after] = mentions.split('→').map((n) => Number(n.trim()));
    expect(after).toBe(before! + 1);
  });

  it('opens a chapter, follows a member to its event and searches the topic', async () => {
    // The offline topic builder groups the events once extraction and the graph are done.
    for (;;) {
      await t.settle(SPACE);
      const { topicJobs } = await t.client.call('getSpaceStatus', { spaceId: SPACE });
      if (topicJobs.status === 'idle' && topicJobs.unassignedEvents === 0) break;
      expect(topicJobs.status).not.toBe('failed');
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(url(`/spaces/${SPACE}/topics`));
    const chapter = page.locator('ol.topics > li').first().getByRole('link');
    await chapter.waitFor();
    expect(await chapter.textContent()).toMatch(/^1\. \S/);
    await chapter.click();
    await page.locator('#topic-title').waitFor();
    const member = page.locator('ul.members a').first();
    const title = (await member.textContent())!;
    await member.click();
    await page.locator('#event-title', { hasText: title }).waitFor();
    expect(page.url()).toMatch(new RegExp(`/console/spaces/${SPACE}/events/evt_`));
    await page.goBack();
    await page.getByLabel('Thread').fill('s3');
    await page.getByRole('button', { name: "Search this topic's events" }).click();
    const batch = page.locator('.topic-batch');
    await batch.getByRole('heading', { name: /^Batch \S+/ }).waitFor();
    expect(await batch.locator('ol.hits strong').allTextContents()).toContain(title);
    expect(await page.getByText('it opens an evidence batch').isVisible()).toBe(true);
  });

  it("draws the graph and shows a node's facts with links to their source events", async () => {
    await page.goto(url(`/spaces/${SPACE}/graph`));
    await page.locator('.graph canvas').first().waitFor();
    const picker = page.getByLabel('Node', { exact: true });
    const atlas = (await picker.locator('option').allTextContents()).find((o) =>
      o.startsWith('Atlas'),
    );
    expect(atlas).toBeDefined();
    await picker.selectOption({ label: atlas! });
    const detail = page.locator('article.node-detail');
    await detail.getByRole('heading', { name: /Atlas/ }).waitFor();
    await detail.getByRole('link', { name: /^evt_/ }).first().click();
    await page.locator('#event-title').waitFor();
    expect(page.url()).toMatch(new RegExp(`/console/spaces/${SPACE}/events/evt_`));
  });

  it('previews an import, changes a decision, confirms, commits and undoes it', async () => {
    const exported = {
      format: 'stratagate.external-memory.v2',
      sourceType: 'external_ai_memory_export',
      sourceSystem: 'OtherAI',
      coverage: 'partial',
      candidates: [
        {
          memoryKind: 'fact',
          category: 'preference',
          title: 'Caroline bakes sourdough',
          summary: 'Caroline bakes sourdough bread every Sunday.',
          scope: 'user',
        },
        {
          memoryKind: 'fact',
          category: 'project',
          title: 'Atlas has a mascot',
          summary: 'Project Atlas has a heron as its mascot.',
          scope: 'project',
        },
      ],
    };
    await page.goto(url(`/spaces/${SPACE}/imports`));
    await page.getByLabel('Export to import').fill(JSON.stringify(exported));
    await page.getByRole('button', { name: 'Preview' }).click();
    const title = page.locator('#import-title');
    await title.waitFor();
    await page.getByLabel('Decision for item 1').selectOption('IGNORE');
    await page.getByRole('button', { name: 'Confirm decisions' }).click();
    await title.locator('.badge', { hasText: 'ready' }).waitFor();
    expect(await page.getByLabel('Decision for item 1').inputValue()).toBe('IGNORE');
    await page.getByRole('button', { name: 'Commit' }).click();
    // A commit answers once the read model holds it; on a busy shared server that can take
    // more than one 10 s wait, which the console's client sends again for.
    await title.locator('.badge', { hasText: 'committed' }).waitFor({ timeout: 60_000 });
    const result = page.locator('.commit-result');
    await result.waitFor();
    expect(await result.textContent()).toMatch(/^Committed: added 1 and changed 0 events/);
    const titles = async () =>
      (
        await t.client.call('listMemoryEvents', { spaceId: SPACE, status: 'active', limit: 200 })
      ).events.map((e) => e.title);
    await t.client.waitUntilSettled(SPACE);
    expect(await titles()).toContain('Caroline bakes sourdough');
    expect(await titles()).not.toContain('Atlas has a mascot');
    await page.getByRole('button', { name: 'Undo' }).click();
    await title.locator('.badge', { hasText: 'undone' }).waitFor();
    await t.client.waitUntilSettled(SPACE);
    expect(await titles()).not.toContain('Caroline bakes sourdough');
  });

  it('shows a profile with its history', async () => {
    await t.client.call('createProfile', { profileId: 'caroline' });
    await t.client.call('editProfileField', {
      profileId: 'caroline',
      body: { field: 'homeCity', value: 'Lisbon', expectedRevision: null },
    });
    await page.goto(url('/profiles'));
    await page.getByLabel('Profile id').fill('caroline');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('row', { name: /homeCity Lisbon/ }).waitFor();
    await page.locator('ol.timeline li', { hasText: 'homeCity' }).waitFor();
    expect(await page.getByText('Pending proposals').isVisible()).toBe(true);
  });

  it('shows a failed derivation job and retries it until it succeeds', async () => {
    await page.goto(url(`/spaces/${BROKEN}/jobs`));
    const retry = page.getByRole('button', { name: 'Retry summary for turns 1–1' });
    await retry.waitFor();
    broken.state.failing = false;
    await retry.click();
    await page.getByText('Retry of the summary job for turns 1–1 requested.').waitFor();
    // Live refresh: the failure leaves the list, and the summary counts as done once it is.
    await page.getByText('No failed jobs.').waitFor();
    await page.getByRole('row', { name: 'summary 0 1 0' }).waitFor({ timeout: 60_000 });
    const ctx = await t.client.call('getThreadContext', { spaceId: BROKEN, threadId: 'b1' });
    expect(ctx.pendingBlocks).toEqual([]);
    expect(ctx.blocks).toHaveLength(1);
  });

  it('shows a failed topic job and retries it', { timeout: 120_000 }, async () => {
    // A node of its own: its topic model fails until told otherwise, on a clock moved by hand
    // so the back-off between attempts passes at once.
    let clock = Date.parse('2026-06-01T09:00:00Z');
    let failing = true;
    const offline = createOfflineProvider();
    const model: ModelPort = {
      ...offline,
      async buildTopics(input, options) {
        if (failing) throw new Error('the topic model is down');
        return offline.buildTopics!(input, options);
      },
    };
    const n = await startTestNode('console_topics', {
      listen: true,
      model,
      now: () => new Date(clock),
      config: { STRATAGATE_TOPIC_BUILDER: 'model' },
    });
    const topicJob = async (want: string, attempts: number) => {
      for (;;) {
        const s = await n.request('GET', `/v1/spaces/${TOPICS}/status`);
        const job = s.status === 200 ? s.body.topicJobs : null;
        if (job?.status === want && job.attempts === attempts) return;
        clock += 5 * 60_000;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const tab = await browser.newPage();
    try {
      await n.client.call('configureSpace', { spaceId: TOPICS, body: { blockSize: 1 } });
      await n.client.call('recordTurn', {
        spaceId: TOPICS,
        body: {
          threadId: 'kitchen',
          occurredAt: '2026-06-01T08:00:00Z',
          messages: [{ role: 'user', name: 'Ana', content: 'We renovate the kitchen in July.' }],
        },
      });
      // Failed for good: its three attempts are spent, and it waits for a person.
      await topicJob('failed', 3);
      await tab.goto(`${n.node.url}/console/spaces/${TOPICS}/jobs`);
      await tab.getByLabel('API key').fill(n.key);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByText('the topic model is down').waitFor();
      failing = false;
      await tab.getByRole('button', { name: 'Retry topic job' }).click();
      await tab.getByText('Retry of the topic job requested.').waitFor();
      await topicJob('idle', 0);
      await tab.locator('.topic-jobs .badge', { hasText: 'idle' }).waitFor();
      expect(await tab.getByRole('button', { name: 'Retry topic job' }).count()).toBe(0);
    } finally {
      await tab.close();
      await n.stop();
    }
  });

  it("shows another tenant's space as not found", async () => {
    await page.goto(url(`/spaces/${SECRET}`));
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.locator('body').textContent()).not.toContain('Another tenant says hello');
  });

  it('ran every view without an uncaught error or anything blocked by its policy', () => {
    expect(problems).toEqual([]);
  });
});
