import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret, signatureHeaders } from '../../src/modules/webhooks/webhook-signature.js';

/**
 * Standard Webhooks signing (src/modules/webhooks/webhook-signature.ts), checked against the
 * `standardwebhooks` library a receiver would use. Pure, no network.
 */

const body = JSON.stringify({
  metadata: { webhook_id: 'Webhook:7', is_retry: false },
  payload: { data: { node: { title: 'Ünïcode €' } } },
});

test('when a secret is made, then it is whsec_ and the base64 of 32 random bytes, different each time', (t) => {
  const a = newSigningSecret();
  const b = newSigningSecret();
  t.regex(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(a.slice('whsec_'.length), 'base64').length, 32);
  t.not(a, b);
});

test('when Lectern signs with one secret, then standardwebhooks verify accepts the body and headers', (t) => {
  const secret = newSigningSecret();
  const headers = signatureHeaders([secret], 'msg_01', new Date(), body);
  t.deepEqual(Object.keys(headers).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp']);
  t.is(headers['webhook-id'], 'msg_01');
  t.regex(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  t.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
});

test('when Lectern signs, then the signature is exactly what the library computes for the same id, time and body', (t) => {
  const secret = newSigningSecret();
  const at = new Date('2030-01-02T03:04:05.678Z');
  const headers = signatureHeaders([secret], 'msg_02', at, body);
  t.is(headers['webhook-timestamp'], '1893553445', 'integer seconds, the milliseconds dropped');
  t.is(headers['webhook-signature'], new Webhook(secret).sign('msg_02', at, body));
});

test('when a webhook has two secrets during a rotation, then a receiver holding either one verifies', (t) => {
  const old = newSigningSecret();
  const next = newSigningSecret();
  const headers = signatureHeaders([old, next], 'msg_03', new Date(), body);
  const parts = headers['webhook-signature'].split(' ');
  t.is(parts.length, 2);
  t.true(parts.every((p) => p.startsWith('v1,')));
  t.notThrows(() => new Webhook(old).verify(body, headers), 'the first secret of the pair');
  t.notThrows(() => new Webhook(next).verify(body, headers), 'the second secret of the pair');
});

test('when the body is changed or the receiver holds another secret, then verify refuses', (t) => {
  const secret = newSigningSecret();
  const headers = signatureHeaders([secret], 'msg_04', new Date(), body);
  t.throws(() => new Webhook(secret).verify(body.replace('Webhook:7', 'Webhook:8'), headers), { message: /signature/i });
  t.throws(() => new Webhook(newSigningSecret()).verify(body, headers), { message: /signature/i });
  t.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_05' }), { message: /signature/i });
});

test('when the secrets are missing or malformed, then signing throws (a programming error, never an unsigned request)', (t) => {
  t.throws(() => signatureHeaders([], 'msg_06', new Date(), body), { message: /no signing secret/i });
  t.throws(() => signatureHeaders(['not-a-secret'], 'msg_06', new Date(), body), { message: /whsec_/ });
  t.throws(() => signatureHeaders(['whsec_!!!'], 'msg_06', new Date(), body), { message: /base64/ });
  t.throws(() => signatureHeaders(['whsec_AAAA'], 'msg_06', new Date(), body), { message: /bytes/ });
  t.throws(() => signatureHeaders([newSigningSecret()], 'msg 06', new Date(), body), { message: /id/ });
  t.throws(() => signatureHeaders([newSigningSecret()], 'msg_06', new Date(Number.NaN), body), { message: /timestamp/ });
});
