import type { AppContext } from '../../kit/http/context.js';
import { html, sendPage, type Html } from '../../kit/http/pages.js';
import type { OAuthServers } from './oauth-server.js';

/**
 * `GET /oauth/dev-callback` on the platform address, when OAUTH_DEV_CALLBACK allows it (outside
 * production by default): a callback for trying the authorization code flow by hand. An
 * integration registered with it as its redirect URI
 * (`clients:create --redirect-uri http://localhost:3000/oauth/dev-callback`) comes back here after
 * consent, and the page shows what an application's callback receives (code, state, iss, or the
 * error) and the exact command that exchanges the code, the client's id and the redirect URI
 * filled in, its secret as `$SECRET` (Lectern keeps only the secret's hash).
 *
 * Anyone can make a link to this page with values of their choosing, so: every value is escaped
 * (sendPage's `html`), the page has no script, is never cached, framed or named in a Referer
 * (sendPage's headers), and a command is shown only for a code Lectern issued and can still
 * exchange, with every part of it from Lectern's own records (a crafted link gets no command to
 * copy into a shell). Looking a code up never consumes it.
 */

// What newSecret makes of a code: its prefix and base64url; nothing else is looked up.
const CODE = /^lac_[A-Za-z0-9_-]{20,100}$/;
// Characters a shell takes literally outside quotes.
const SHELL_PLAIN = /^[A-Za-z0-9_\-.:/=@%+,]+$/;

/** One shell word: as is when it is plain, else single-quoted. */
const shellWord = (v: string) => (SHELL_PLAIN.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/** A value from the address bar as shown: at most 300 characters. */
function shown(ctx: AppContext, name: string): string | undefined {
  const v = ctx.query[name];
  const value = Array.isArray(v) ? v.join(', ') : v;
  if (value === undefined || value === '') return undefined;
  return value.length > 300 ? `${value.slice(0, 300)}…` : value;
}

// One click selects the whole command; the code inside does not wrap mid-word like inline code.
const pre = (text: string): Html =>
  html`<pre style="white-space:pre;overflow-x:auto;user-select:all;background:#f0f1f4;padding:.7rem 1rem;border-radius:4px"><code style="background:none;padding:0;word-break:normal">${text}</code></pre>`;

export function devCallbackPage(servers: OAuthServers) {
  return async (ctx: AppContext): Promise<void> => {
    const code = shown(ctx, 'code');
    const state = shown(ctx, 'state');
    const iss = shown(ctx, 'iss');
    const error = shown(ctx, 'error');
    const issNote =
      iss === undefined
        ? '(missing)'
        : iss === servers.issuer
          ? '(this server)'
          : '(not this server: an application must refuse this answer)';
    const received = html`<table>
${code !== undefined ? html`<tr><th>code</th><td><code>${code}</code></td></tr>` : ''}
${error !== undefined ? html`<tr><th>error</th><td><code>${error}</code></td></tr>` : ''}
${error !== undefined && shown(ctx, 'error_description') ? html`<tr><th>error_description</th><td>${shown(ctx, 'error_description')}</td></tr>` : ''}
<tr><th>state</th><td>${state !== undefined ? html`<code>${state}</code> <span class="muted">(an application checks it is the state it sent)</span>` : html`<span class="muted">(none)</span>`}</td></tr>
<tr><th>iss</th><td>${iss !== undefined ? html`<code>${iss}</code> ` : ''}<span class="muted">${issNote}</span></td></tr>
</table>`;
    const intro = html`<p class="muted">Lectern's development callback (<code>OAUTH_DEV_CALLBACK</code>): what an application's callback receives.</p>`;

    if (error !== undefined) {
      return sendPage(
        ctx,
        'Authorization not given',
        html`${intro}${received}<p>No code: the application gets this error instead (<code>access_denied</code> when the user chose Deny).</p>`,
      );
    }
    if (code === undefined) {
      return sendPage(
        ctx,
        'Nothing to show',
        html`${intro}<p class="error">No code here. This is where Lectern sends the browser back after an authorization, with <code>code</code>, <code>state</code> and <code>iss</code>: register it as an application's redirect URI and start the authorization from <code>/oauth/authorize</code>.</p>`,
        { status: 400 },
      );
    }
    const found = CODE.test(code) ? await servers.describeCode(code) : undefined;
    if (!found || found.status !== 'usable') {
      const why = !found
        ? 'It is not a code Lectern issued.'
        : found.status === 'used'
          ? 'It was used already: a code is exchanged once.'
          : found.status === 'expired'
            ? 'It has expired: a code lives 5 minutes.'
            : 'Its application was revoked.';
      return sendPage(
        ctx,
        'This code cannot be exchanged',
        html`${intro}${received}<p class="error">${why} Start the authorization again for a new one.</p>`,
        { status: 400 },
      );
    }
    const tokenEndpoint = `${servers.issuer}/oauth/token`;
    // A client id is newSecret's base64url: safe inside double quotes beside $SECRET.
    const client = /^[A-Za-z0-9_-]+$/.test(found.clientId) ? found.clientId : '$CID';
    const command = [
      `curl -s -X POST ${shellWord(tokenEndpoint)}`,
      `  -u "${client}:$SECRET"`,
      '  -d grant_type=authorization_code',
      `  -d code=${shellWord(code)}`,
      `  -d ${shellWord(`redirect_uri=${found.redirectUri}`)}`,
      ...(found.pkce ? ['  -d code_verifier="$VERIFIER"'] : []),
    ].join(' \\\n');
    const left = Math.max(0, Math.round((found.expiresAt.getTime() - Date.now()) / 1000));
    const graphql = [
      `curl -s -X POST ${shellWord(`${servers.issuer}/graphql`)} -H "Authorization: Bearer $TOKEN"`,
      `  -H 'Content-Type: application/json' -d '{"query":"{ hello }"}'`,
    ].join(' \\\n');
    sendPage(
      ctx,
      'Authorization code received',
      html`${intro}${received}
<p>Exchange the code for tokens: it works once, until ${found.expiresAt.toISOString().slice(11, 19)} UTC (${Math.floor(left / 60)} min ${left % 60} s from now).
<code>$SECRET</code> is the application's secret (the <code>clientSecret</code> that <code>clients:create</code> printed): Lectern keeps only its hash, so it cannot show it.${found.pkce ? html` The authorization was asked with PKCE: <code>$VERIFIER</code> is the code verifier the application kept.` : ''}</p>
${pre(command)}
<p>It answers JSON with an <code>access_token</code> (<code>lat_...</code>, good for an hour) and a <code>refresh_token</code> (<code>lrt_...</code>). Then, with <code>TOKEN</code> set to the access token:</p>
${pre(graphql)}`,
    );
  };
}
