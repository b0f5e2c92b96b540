import test from 'ava';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { GRAPHIQL_PLACEHOLDER, GRAPHIQL_TOKEN_HINT } from '../../src/app/graphql-endpoint.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * GraphiQL at `GET /graphql` (development) in a real browser: the page opens with the placeholder
 * token in its headers pane and says what to paste instead of sending it; once a token is
 * pasted, the Docs pane and completion work and queries run with it.
 * `npm run test:browser`; CHROMIUM_PATH names the browser (default /usr/bin/chromium).
 */
let f: GraphQLFixture;
let browser: Browser;

test.serial.before(async () => {
  f = await graphqlFixture('gql');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
test.after.always(async () => {
  await browser?.close();
  await f?.close();
});

/** Replaces the text of one of GraphiQL's editors as a paste does. */
async function paste(page: Page, editor: Locator, text: string) {
  await editor.locator('.CodeMirror').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

test.serial(
  'when a token is pasted into the headers, then the Docs and completion work and queries run with it; the placeholder never reaches the server',
  async (t) => {
    const page = await (await browser.newContext()).newPage();
    const sent: (string | undefined)[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/graphql' && req.method() === 'POST') sent.push(req.headers().authorization);
    });
    await page.goto(`http://localhost:${f.port}/graphql`);
    // At load: the hint in the result pane, not a request with the placeholder.
    await page.locator('.result-window').getByText('Replace <access token>').waitFor();
    t.true((await page.locator('.result-window').textContent())!.includes(GRAPHIQL_TOKEN_HINT));
    await page.locator('.docExplorerShow').click();
    await page
      .locator('.doc-explorer')
      .getByText(/error fetching schema/i)
      .waitFor();
    t.deepEqual(sent, []);

    await page.getByText('Request Headers', { exact: true }).click();
    // The secondary editors: query variables, then request headers (shown when its tab is picked).
    const headers = page.locator('.variable-editor .codemirrorWrap').nth(1);
    t.true((await headers.textContent())!.includes(GRAPHIQL_PLACEHOLDER));
    await paste(page, headers, JSON.stringify({ Authorization: `Bearer ${f.admin}` }));
    // The schema is fetched again: the Docs pane lists the roots, and the hint is gone.
    const docs = page.locator('.doc-explorer-contents');
    await docs.getByText('Query', { exact: true }).first().click();
    await docs.getByText('courseTemplates', { exact: true }).first().waitFor();
    t.true((await docs.textContent())!.includes('locales'));
    // The page clears the hint on its next 300 ms tick after the schema came: wait for it (a
    // timeout fails the test), then check it is gone.
    await page.locator('.result-window').getByText('Replace <access token>').waitFor({ state: 'detached', timeout: 5000 });
    t.false((await page.locator('.result-window').textContent())!.includes(GRAPHIQL_TOKEN_HINT));

    // Completion from the schema, in the query editor.
    const query = page.locator('.query-editor');
    await paste(page, query, '{ courseTem');
    await page.locator('.CodeMirror-hints').getByText('courseTemplates', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.CodeMirror-hints').waitFor({ state: 'detached' });

    await paste(page, query, '{ hello }');
    // The editor holds exactly the query before it is run (a completion popup can swallow keys).
    const queryText = () =>
      page
        .locator('.query-editor .CodeMirror')
        .first()
        .evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
    t.is(await queryText(), '{ hello }');
    // GraphiQL takes an edit into the query it runs after a debounce: a click before that runs the
    // text before the edit (here the unfinished `{ courseTem`). Run it again until the edit is in.
    const greeting = page.locator('.result-window').getByText(/Hello, admin-\d+@gql\.test!/);
    for (let attempt = 1; ; attempt++) {
      await page.locator('.execute-button').click();
      try {
        await greeting.waitFor({ timeout: 5000 });
        break;
      } catch (err) {
        if (attempt === 6)
          throw new Error(
            `no greeting; the result pane shows: ${await page.locator('.result-window').textContent()}; the query: ${await queryText()}`,
            { cause: err },
          );
      }
    }
    t.true(sent.length >= 2, `requests: ${sent.length}`);
    t.true(
      sent.every((header) => header === `Bearer ${f.admin}`),
      JSON.stringify(sent),
    );
    await page.context().close();
  },
);
