import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { createRole } from '../../src/modules/users/roles.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { deliveriesOfWebhook, webhooksByIds } from '../../src/modules/webhooks/webhooks.data.js';
import { createWebhook, sendTestDelivery } from '../../src/modules/webhooks/webhooks.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { Browser } from '../helpers/browser.js';
import { hex, waitFor } from '../helpers/harness.js';
import { PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * The Control Panel's Webhooks section as an administrator uses it in a browser (real HTTP, a
 * cookie jar, the pages' own forms with their CSRF tokens): the list with the latest notices, a
 * webhook's deliveries, Send test, Resend, Disable / Enable; and who may do what. Deliveries go
 * to a receiver on 127.0.0.1 through real workers.
 */
let f: RestFixture;
let workers: RunningWorkers | undefined;
let receiver: http.Server;
let port = 0;
let adminId = 0;
const run = hex(3);
const EVIL = `<script>alert("x")</script> & sync ${run}`;
const ANSWER = '<b>boom</b> & "more"';
const ECHO_QUERY = 'query ($objectid: String!) { echo(value: $objectid) }';
const typeId = (key: string) => Buffer.from(`WebhookType:${key}`, 'utf8').toString('base64');
let failing = 0; // the webhook whose receiver answers 500
let quiet = 0; // a second webhook, for paging and for "another webhook's delivery"

const section = '/control-panel/webhooks';
const host = () => `http://${f.tenant.slug}.localhost:${f.port}`;
const inTenant = <T>(fn: Parameters<typeof withTenant<T>>[2]) => withTenant(f.ctx.rt.knex, f.tenant, fn);
const deliveries = (webhookId: number) => inTenant((db) => deliveriesOfWebhook(db, webhookId, { first: 200, offset: 0 }));
const webhookRow = async (id: number) => (await inTenant((db) => webhooksByIds(db, [id])))[0]!;

async function signedIn(email: string): Promise<Browser> {
  const b = new Browser(f.port);
  const landed = await b.follow(`${host()}${section}`);
  if (!('page' in landed)) throw new Error('expected the sign-in page');
  const res = await b.submit(landed.url, { email, password: PASSWORD });
  if (res.location !== `${host()}${section}`) throw new Error(`sign-in of ${email} failed: ${res.status} ${res.text.slice(0, 500)}`);
  return b;
}

test.serial.before(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/fail') res.writeHead(500, { 'content-type': 'text/html' }).end(ANSWER);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  f = await restFixture('wcp', { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT_MS: '2000' });
  const writer = (userId: number) => ({ tenantId: f.tenant.id, userId, checkQuery: () => null, context: 'graphql' });
  await inTenant(async (db) => {
    const { rows } = await db.raw<{ rows: { id: number }[] }>('select id from users where email = ?', [f.email]);
    adminId = rows[0]!.id;
    const made = await createWebhook(
      db,
      {
        name: EVIL,
        webhookTypeId: typeId('event_updated'),
        query: ECHO_QUERY,
        url: `http://127.0.0.1:${port}/fail`,
        notificationEmails: ['ops@wcp.test'],
      },
      writer(adminId),
    );
    const other = await createWebhook(
      db,
      { name: `Quiet ${run}`, webhookTypeId: typeId('course_template_updated'), query: ECHO_QUERY, url: `http://127.0.0.1:${port}/ok` },
      writer(adminId),
    );
    if (!made.webhook || !other.webhook) throw new Error(JSON.stringify([made.problems, other.problems]));
    failing = made.webhook.id;
    quiet = other.webhook.id;
  });
  workers = startWorkers(f.ctx.rt);
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
  receiver?.close();
});

test.serial('when signed out, then the section sends to sign-in and back to the page asked for', async (t) => {
  const b = new Browser(f.port);
  const res = await b.get(`${host()}${section}/${failing}`);
  t.is(res.status, 302);
  t.is(res.location, `${host()}/control-panel/login?next=${encodeURIComponent(`${section}/${failing}`)}`);
  const post = await b.send('POST', `${host()}${section}/${failing}/disable`, { form: {} });
  t.is(post.status, 403, 'a POST without a CSRF token is refused before anything else');
  t.is((await webhookRow(failing)).lifecycle_state, 'active');
});

test.serial(
  'when an administrator sends a test to a failing receiver, then the list, the deliveries and the notice show it, escaped; Resend puts it back to pending',
  async (t) => {
    const b = await signedIn(f.email);
    const list = await b.get(`${host()}${section}`);
    t.is(list.status, 200, list.text);
    t.true(list.text.includes(`href="${section}/${failing}"`));
    t.true(list.text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; sync'), 'the name is escaped');
    t.false(list.text.includes('<script>'), 'no markup from a name');
    t.true(list.text.includes('Event Updated'));
    t.true(list.text.includes('Course Template Updated'));
    t.true(list.text.includes(`http://127.0.0.1:${port}/fail`));
    t.regex(list.text, /<td>active/);

    const detailUrl = `${host()}${section}/${failing}`;
    const detail = await b.get(detailUrl);
    t.is(detail.status, 200, detail.text);
    t.true(detail.text.includes('Webhook &lt;script&gt;'), 'the title is escaped too');
    const sent = await b.submit(detailUrl, {}, { action: `${section}/${failing}/test` });
    t.is(sent.status, 200, sent.text);
    t.regex(sent.text, /A test delivery \(#\d+\) is queued/);

    // The worker tries twice (one retry after 100 ms) and gives up: failed, with a notice.
    const [failed] = await waitFor(async () => {
      const page = await deliveries(failing);
      return page.rows[0]?.state === 'failed' ? page.rows : undefined;
    }, 'the test delivery to fail');
    t.is(failed!.attempts, 2);
    t.is(failed!.status_code, 500);

    const after = await b.get(detailUrl);
    t.true(after.text.includes(`#${failed!.id}`));
    t.regex(after.text, /<td>failed<br><span class="muted">2 attempts<\/span>/);
    t.regex(after.text, /<td>500<br><span class="muted">\d+ ms<\/span>/);
    t.true(after.text.includes('<td>HTTP 500<details>'), 'the error');
    t.true(after.text.includes('Event Updated, a test (no record)'));
    t.true(after.text.includes('&lt;b&gt;boom&lt;/b&gt; &amp; &quot;more&quot;'), "the receiver's answer is escaped");
    t.false(after.text.includes('<b>boom</b>'));
    t.true(after.text.includes(`name="delivery" value="${failed!.id}"`), 'a failed delivery can be resent');
    t.regex(after.text, /Webhook delivery failed: &lt;script&gt;/, "the webhook's notices, escaped");

    // Without SMTP_URL the notice is only here: in the list's latest notices, not mailed.
    const notices = await b.get(`${host()}${section}`);
    t.regex(
      notices.text,
      /<strong>Webhook delivery failed: &lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; sync [0-9a-f]+<\/strong>/,
    );
    t.regex(notices.text, /failed after 2 attempts: HTTP 500/);
    t.true(notices.text.includes('Not mailed'));
    t.true(notices.text.includes('To ops@wcp.test'));
    t.false(notices.text.includes('<script>'));

    // No worker from here on, so a resent delivery stays pending for the test to see.
    await workers?.close();
    workers = undefined;
    await b.get(detailUrl);
    const resent = await b.submit(detailUrl, {}, { action: `${section}/${failing}/resend`, where: { delivery: String(failed!.id) } });
    t.is(resent.status, 200, resent.text);
    t.true(resent.text.includes(`Delivery #${failed!.id} is queued to be sent again.`));
    const row = (await deliveries(failing)).rows.find((d) => d.id === failed!.id)!;
    t.is(row.state, 'pending');
    t.is(row.resends, 1);
    t.is(row.attempts, 2, 'the attempts it had are kept');
    t.false(resent.text.includes(`name="delivery" value="${failed!.id}"`), 'a pending delivery has no Resend');
  },
);

test.serial(
  'when an administrator disables and enables a webhook, then its state changes, and a disabled one resends nothing',
  async (t) => {
    const b = await signedIn(f.email);
    const detailUrl = `${host()}${section}/${failing}`;
    await b.get(detailUrl);
    const disabled = await b.submit(detailUrl, {}, { action: `${section}/${failing}/disable` });
    t.is(disabled.status, 200, disabled.text);
    t.true(disabled.text.includes('The webhook is disabled'));
    t.is((await webhookRow(failing)).lifecycle_state, 'disabled');
    t.true(disabled.text.includes(`action="${section}/${failing}/enable"`));
    t.false(disabled.text.includes(`action="${section}/${failing}/test"`), 'no test to a disabled webhook');

    // The service refuses to resend while disabled: said on the page, nothing changed.
    const [delivery] = (await deliveries(failing)).rows;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(disabled.text)![1]!;
    const refused = await b.send('POST', `${detailUrl}/resend`, { form: { _csrf: csrf, delivery: String(delivery!.id) } });
    t.is(refused.status, 409);
    t.true(refused.text.includes('Its webhook is disabled: enable it before resending'));

    const enabled = await b.submit(detailUrl, {}, { action: `${section}/${failing}/enable` });
    t.is(enabled.status, 200, enabled.text);
    const row = await webhookRow(failing);
    t.is(row.lifecycle_state, 'active');
    t.is(row.failing_since, null, 'enabled by hand: its failures so far no longer count');
  },
);

test.serial('when a POST carries no CSRF token, or a wrong one, then it is refused and nothing changes', async (t) => {
  const b = await signedIn(f.email);
  for (const form of [{}, { _csrf: 'not-a-token' }] as Record<string, string>[]) {
    const res = await b.send('POST', `${host()}${section}/${failing}/disable`, { form });
    t.is(res.status, 403, JSON.stringify(form));
  }
  t.is((await webhookRow(failing)).lifecycle_state, 'active');
});

test.serial(
  'when a user lacks WEBHOOKS_VIEW, then the section is refused; with WEBHOOKS_VIEW only, it is shown without buttons and actions are refused',
  async (t) => {
    await inTenant(async (db) => {
      await createRole(db, { name: `events-only-${run}`, permissions: ['EVENT_VIEW'] });
      await createUser(db, { email: `events@${run}.test`, password: PASSWORD, role: `events-only-${run}` });
      await createUser(db, { email: `viewer@${run}.test`, password: PASSWORD, role: 'viewer' });
    });
    const outsider = new Browser(f.port);
    const login = await outsider.follow(`${host()}${section}`);
    if (!('page' in login)) throw new Error('expected the sign-in page');
    await outsider.submit(login.url, { email: `events@${run}.test`, password: PASSWORD });
    for (const path of [section, `${section}/${failing}`]) {
      const refused = await outsider.get(`${host()}${path}`);
      t.is(refused.status, 403, path);
      t.true(refused.text.includes('Your role does not have the WEBHOOKS_VIEW permission: ask an administrator of this instance.'));
      t.false(refused.text.includes('sync'), 'nothing of the webhooks shown');
    }

    const viewer = await signedIn(`viewer@${run}.test`);
    const detail = await viewer.get(`${host()}${section}/${failing}`);
    t.is(detail.status, 200);
    t.false(detail.text.includes(`action="${section}/${failing}/disable"`));
    t.false(detail.text.includes('name="delivery"'));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(detail.text)![1]!;
    const refused = await viewer.send('POST', `${host()}${section}/${failing}/disable`, { form: { _csrf: csrf } });
    t.is(refused.status, 403);
    t.true(refused.text.includes('WEBHOOKS_EDIT'));
    t.is((await webhookRow(failing)).lifecycle_state, 'active');
  },
);

test.serial(
  'when a webhook has more than 50 deliveries, then they come 50 a page, newest first, with a link to the older ones',
  async (t) => {
    for (let i = 0; i < 52; i++) {
      await inTenant((db) => sendTestDelivery(db, quiet, null, { tenantId: f.tenant.id, userId: adminId, context: 'control-panel' }));
    }
    const all = (await deliveries(quiet)).rows.map((d) => d.id);
    t.is(all.length, 52);
    const b = await signedIn(f.email);
    const first = await b.get(`${host()}${section}/${quiet}`);
    t.is(first.status, 200);
    const shown = (text: string) => [...text.matchAll(/<tr><td>#(\d+)<br>/g)].map((m) => Number(m[1]));
    t.deepEqual(shown(first.text), all.slice(0, 50));
    t.true(first.text.includes('Deliveries 1–50 of 52'));
    t.true(first.text.includes(`href="${section}/${quiet}?offset=50">Older</a>`));
    const second = await b.get(`${host()}${section}/${quiet}?offset=50`);
    t.deepEqual(shown(second.text), all.slice(50));
    t.true(second.text.includes(`href="${section}/${quiet}">Newer</a>`));
    t.false(second.text.includes('Older'));
  },
);

test.serial('when an id, an offset or a delivery is not right, then 404 or 400 and nothing is resent', async (t) => {
  const b = await signedIn(f.email);
  for (const path of [`${section}/abc`, `${section}/99999999`, `${section}/99999999999`])
    t.is((await b.get(`${host()}${path}`)).status, 404, path);
  t.is((await b.get(`${host()}${section}?offset=-1`)).status, 400);
  t.is((await b.get(`${host()}${section}/${failing}?offset=x`)).status, 400);

  // A delivery of another webhook is not resent from this one's page.
  const [theirs] = (await deliveries(failing)).rows;
  const page = await b.get(`${host()}${section}/${quiet}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const res = await b.send('POST', `${host()}${section}/${quiet}/resend`, { form: { _csrf: csrf, delivery: String(theirs!.id) } });
  t.is(res.status, 404);
  t.like((await deliveries(failing)).rows[0], { id: theirs!.id, state: theirs!.state, resends: theirs!.resends });
  const missing = await b.send('POST', `${host()}${section}/${quiet}/resend`, { form: { _csrf: csrf, delivery: '99999999' } });
  t.is(missing.status, 404);
  t.true(missing.text.includes('Delivery not found'));
});

test.serial(
  'when an administrator fires a manual type for one event from its webhook page, then every active webhook of the type gets a delivery of that event; a bad number or a change type fires nothing',
  async (t) => {
    const writer = { tenantId: f.tenant.id, userId: adminId, checkQuery: () => null, context: 'graphql' as const };
    const [one, two] = await inTenant(async (db) => {
      const made = [];
      for (const name of [`Manual A ${run}`, `Manual B ${run}`]) {
        const r = await createWebhook(
          db,
          { name, webhookTypeId: typeId('manual_event'), query: ECHO_QUERY, url: `http://127.0.0.1:${port}/ok` },
          writer,
        );
        if (!r.webhook) throw new Error(JSON.stringify(r.problems));
        made.push(r.webhook.id);
      }
      return made;
    });
    const b = await signedIn(f.email);
    const detailUrl = `${host()}${section}/${one}`;
    const page = await b.get(detailUrl);
    t.true(page.text.includes(`action="${section}/${one}/fire"`), 'a manual type has the Fire form');
    t.true(page.text.includes('Fire for the event number'));
    t.false((await b.get(`${host()}${section}/${quiet}`)).text.includes('/fire"'), 'a change type has none');

    await b.get(detailUrl);
    const fired = await b.submit(detailUrl, { record: '4242' }, { action: `${section}/${one}/fire` });
    t.is(fired.status, 200, fired.text);
    t.true(fired.text.includes('Manual Event fired for event 4242: 2 deliveries queued.'));
    for (const id of [one!, two!]) {
      const rows = (await deliveries(id)).rows;
      t.is(rows.length, 1, `webhook ${id}`);
      const { rows: events } = await inTenant((db) =>
        db.raw<{ rows: object[] }>('select type_key, record_id, context, actor_user_id from webhook_events where id = ?', [
          rows[0]!.event_id,
        ]),
      );
      t.deepEqual(events, [{ type_key: 'manual_event', record_id: 4242, context: 'control-panel', actor_user_id: adminId }]);
    }

    for (const record of ['', 'abc', '0', '-3', '99999999999']) {
      await b.get(detailUrl);
      const refused = await b.submit(detailUrl, { record }, { action: `${section}/${one}/fire` });
      t.is(refused.status, 400, record);
      t.true(refused.text.includes('Give the number of the event: a whole number from 1.'), record);
    }
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await b.get(`${host()}${section}/${quiet}`)).text)![1]!;
    const notManual = await b.send('POST', `${host()}${section}/${quiet}/fire`, { form: { _csrf: csrf, record: '4242' } });
    t.is(notManual.status, 409);
    t.true(notManual.text.includes('Only a manual webhook type is fired by hand.'));
    // Disabled, it has no Fire, and a POST all the same is refused.
    await inTenant((db) => db('webhooks').where({ id: one }).update({ lifecycle_state: 'disabled' }));
    const off = await b.get(detailUrl);
    t.false(off.text.includes(`action="${section}/${one}/fire"`));
    const csrfOff = /name="_csrf" value="([^"]+)"/.exec(off.text)![1]!;
    const disabled = await b.send('POST', `${detailUrl}/fire`, { form: { _csrf: csrfOff, record: '4242' } });
    t.is(disabled.status, 409);
    t.true(disabled.text.includes('The webhook is disabled: enable it before firing it.'));
    t.is((await deliveries(one!)).rows.length, 1, 'nothing more was queued');
  },
);
