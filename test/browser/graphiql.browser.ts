import test from 'ava';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { GRAPHIQL_PLACEHOLDER, GRAPHIQL_TOKEN_HINT } from '../../src/app/graphql-endpoint.js';
import { createServiceClient } from '../../src/modules/oauth/clients.service.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { PASSWORD } from '../helpers/rest.js';

/**
 * GraphiQL at `GET /graphql` (development) in a real browser: the first screen says how to get a
 * token, with Request Headers open on `Authorization: Bearer `, and sends nothing without one;
 * client credentials exchanged in the page put a token there, then the Docs pane and completion
 * work and queries run with it; on an instance's address, the user signed in to its Control Panel
 * gets a token of their own with one click ("Use my sign-in"), and whoever is not signed in is led
 * to the sign-in and back. `npm run test:browser`; CHROMIUM_PATH names the browser (default
 * /usr/bin/chromium); GRAPHIQL_SCREENSHOT=file.png saves the first screen.
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
  'when GraphiQL opens, then the box says how to get a token, Request Headers is open on Authorization: Bearer, and nothing is sent without a token',
  async (t) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const sent: (string | undefined)[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/graphql' && req.method() === 'POST') sent.push(req.headers().authorization);
    });
    await page.goto(`http://localhost:${f.port}/graphql`);
    await page.locator('#lectern-start').getByText('Every request needs an access token').waitFor();
    t.true((await page.locator('#lectern-start').textContent())!.includes('npm run cli -- --help'));
    // The headers pane is the one shown, with the line to fill; the result pane is empty (no JSON in a string).
    const headers = page.locator('.variable-editor .codemirrorWrap').nth(1);
    await headers.waitFor({ state: 'visible' });
    t.true((await headers.textContent())!.includes(`"Authorization": "${GRAPHIQL_PLACEHOLDER}"`));
    // (CodeMirror's measuring text aside.)
    t.is((await page.locator('.result-window').textContent())!.replace(/x{10}|\u200b/g, '').trim(), '');
    if (process.env.GRAPHIQL_SCREENSHOT) await page.screenshot({ path: process.env.GRAPHIQL_SCREENSHOT });
    // A query run now is answered in the page with what to do.
    await page.locator('.execute-button').click();
    await page.locator('.result-window').getByText('No access token yet').waitFor();
    t.true((await page.locator('.result-window').textContent())!.includes(GRAPHIQL_TOKEN_HINT));
    t.deepEqual(sent, []);
    // Hidden, the box keeps its first line.
    await page.locator('#lectern-hide').click();
    t.false(await page.locator('#lectern-start ul').isVisible());
    t.true(await page.locator('#lectern-start p').first().isVisible());
    await page.context().close();
  },
);

test.serial("when a token that is not valid is pasted, then the server's error is shown as it is, not as JSON in a string", async (t) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://localhost:${f.port}/graphql`);
  const headers = page.locator('.variable-editor .codemirrorWrap').nth(1);
  await paste(page, headers, JSON.stringify({ Authorization: 'Bearer lat_not-a-token' }));
  await page.locator('.result-window').getByText('The access token is not valid').waitFor();
  t.notRegex((await page.locator('.result-window').textContent())!, /\\"/);
  await page.context().close();
});

test.serial(
  'when client credentials are exchanged in the box, then the token is in the headers, the Docs and completion work and queries run with it',
  async (t) => {
    const page = await (await browser.newContext()).newPage();
    const sent: (string | undefined)[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/graphql' && req.method() === 'POST') sent.push(req.headers().authorization);
    });
    await page.goto(`http://localhost:${f.port}/graphql`);
    // A query run before the token: its hint goes once the schema came.
    await page.locator('.execute-button').click();
    await page.locator('.result-window').getByText('No access token yet').waitFor();

    const email = `me-${Date.now()}@gql.test`;
    await f.addUser(f.tenant, email, 'admin');
    const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'GraphiQL', serviceUser: email });
    await page.locator('#lectern-client-id').fill(creds.clientId);
    await page.locator('#lectern-client-secret').fill('not the secret');
    await page.locator('#lectern-client-secret').press('Enter');
    await page.locator('#lectern-token-status.error').waitFor();
    await page.locator('#lectern-client-secret').fill(creds.clientSecret);
    await page.getByRole('button', { name: 'Get a token' }).click();
    await page.locator('#lectern-token-status').getByText('is in Request Headers').waitFor();
    t.is(await page.locator('#lectern-client-secret').inputValue(), '', 'the secret is not kept in the form');
    const headers = page.locator('.variable-editor .codemirrorWrap').nth(1);
    t.regex((await headers.textContent())!, /"Authorization": "Bearer lat_/);
    t.false(page.url().includes('lat_') || page.url().includes('lcs_'), 'no credential in the address');

    // The schema is fetched with it: the Docs pane lists the roots, and the hint is gone.
    await page.locator('.docExplorerShow').click();
    const docs = page.locator('.doc-explorer-contents');
    await docs.getByText('Query', { exact: true }).first().click();
    await docs.getByText('courseTemplates', { exact: true }).first().waitFor();
    // The page clears the hint on its next 300 ms tick after the schema came: wait for it (a
    // timeout fails the test), then check it is gone.
    await page.locator('.result-window').getByText('No access token yet').waitFor({ state: 'detached', timeout: 5000 });

    // Completion from the schema, in the query editor.
    const query = page.locator('.query-editor');
    // Completion opens on a typed letter (a key's keyup), as a person types.
    await paste(page, query, '{ courseTe');
    await page.keyboard.press('m');
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
    const greeting = page.locator('.result-window').getByText(`Hello, ${email}!`);
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
      sent.every((header) => header?.startsWith('Bearer lat_')),
      JSON.stringify(sent),
    );
    await page.context().close();
  },
);

/** Runs what the query editor holds until the result pane shows `expected` (GraphiQL takes an edit in after a debounce). */
async function runUntil(page: Page, expected: string) {
  const seen = page.locator('.result-window').getByText(expected);
  for (let attempt = 1; ; attempt++) {
    await page.locator('.execute-button').click();
    try {
      await seen.waitFor({ timeout: 5000 });
      return;
    } catch (err) {
      if (attempt === 6)
        throw new Error(`no ${expected}; the result pane shows: ${await page.locator('.result-window').textContent()}`, { cause: err });
    }
  }
}

test.serial(
  "when someone not signed in opens an instance's GraphiQL, signs in through its link and clicks Use my sign-in, then queries run as them",
  async (t) => {
    const email = `signed-in-${Date.now()}@gql.test`;
    await f.addUser(f.tenant, email, 'viewer');
    const base = `http://${f.tenant.slug}.localhost:${f.port}`;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const sent: (string | undefined)[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/graphql' && req.method() === 'POST') sent.push(req.headers().authorization);
    });
    await page.goto(`${base}/graphql`);
    const box = page.locator('#lectern-start');
    await box.getByText('You are not signed in to this instance').waitFor();
    t.is(await page.locator('#lectern-use-sign-in').count(), 0);
    if (process.env.GRAPHIQL_SCREENSHOT)
      await page.screenshot({ path: process.env.GRAPHIQL_SCREENSHOT.replace(/\.png$/, '-instance.png') });

    await box.getByRole('link', { name: 'sign in to its Control Panel' }).click();
    await page.waitForURL(/\/control-panel\/login/);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/graphql`);

    await page.getByRole('button', { name: 'Use my sign-in' }).click();
    await page.locator('#lectern-token-status').getByText(`A token for ${email} is in Request Headers`).waitFor();
    const headers = page.locator('.variable-editor .codemirrorWrap').nth(1);
    t.regex((await headers.textContent())!, /"Authorization": "Bearer lat_/);
    t.false(page.url().includes('lat_'), 'no token in the address');
    if (process.env.GRAPHIQL_SCREENSHOT)
      await page.screenshot({ path: process.env.GRAPHIQL_SCREENSHOT.replace(/\.png$/, '-signed-in.png') });

    // The schema comes with the token (the Docs list the roots), and queries run as the user.
    await page.locator('.docExplorerShow').click();
    await page.locator('.doc-explorer-contents').getByText('Query', { exact: true }).first().waitFor();
    await paste(page, page.locator('.query-editor'), '{ hello }');
    await runUntil(page, `Hello, ${email}!`);
    t.true(sent.length >= 2 && sent.every((h) => h?.startsWith('Bearer lat_')), JSON.stringify(sent));
    await page.context().close();
  },
);

test.serial("when a page of another instance's address asks for a token for the user signed in here, then it gets none", async (t) => {
  const email = `victim-${Date.now()}@gql.test`;
  const userId = await f.addUser(f.tenant, email, 'viewer');
  const base = `http://${f.tenant.slug}.localhost:${f.port}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/control-panel/login?next=%2Fgraphql`);
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/graphql`);
  // The same browser, on a page of another address of the same site (another instance's).
  const other = await f.ctx.freshTenant('gqlx');
  await page.goto(`http://${other.slug}.localhost:${f.port}/graphql`);
  // The browser sends the session's cookie (the two addresses are the same site). The answer would
  // not be readable here anyway (no CORS): what matters is that the server issued nothing.
  const issued = () =>
    f.ctx.rt.knex('platform.oauth_tokens').where({ tenant_id: f.tenant.id, user_id: userId }).count<{ count: string }[]>();
  const before = Number((await issued())[0]!.count);
  const read = await page.evaluate(
    (url) =>
      fetch(url, { method: 'POST', credentials: 'include', body: new URLSearchParams({ _csrf: 'x' }) }).then(
        (res) => res.text(),
        (err: Error) => `not readable: ${err.message}`,
      ),
    `${base}/graphql/sign-in-token`,
  );
  t.notRegex(read, /lat_/);
  t.is(Number((await issued())[0]!.count), before, 'no token issued');
  // The same browser back on this instance's GraphiQL: its button works (the refusal above was the origin's).
  await page.goto(`${base}/graphql`);
  await page.getByRole('button', { name: 'Use my sign-in' }).click();
  await page.locator('#lectern-token-status').getByText(`A token for ${email} is in Request Headers`).waitFor();
  t.is(Number((await issued())[0]!.count), before + 1);
  await context.close();
});
