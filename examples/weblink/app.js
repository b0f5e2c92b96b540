// A training company's course page on the Lectern WebLink API: plain fetch, no build step.
// It does what the production service's website plugins do: a guest token for the site's portal
// from POST /portal/guest, then WebLink GraphQL with `Authorization: Bearer <token>` and
// `weblink-portal: <domain>`. The language switch adds `weblink-content-locale` (French).
//
// Settings come from the address: ?api=http://localhost:3000&portal=www.demo-training.test[&lang=fr].
// Without ?api=, the Lectern that serves the page (at /examples/weblink/), else npm start's address.
/* global window, document, fetch, btoa, URLSearchParams, DOMParser -- a page in the browser */
'use strict';

(function () {
  const params = new URLSearchParams(window.location.search);
  const servedByLectern = /^https?:$/.test(window.location.protocol) && window.location.pathname.startsWith('/examples/weblink/');
  const API = (params.get('api') || (servedByLectern ? window.location.origin : 'http://localhost:3000')).replace(/\/+$/, '');
  const PORTAL = params.get('portal') || 'www.demo-training.test';
  // Locale ids are the same in every Lectern instance: French is Locale 3 (a global id, base64).
  const LOCALES = { en: null, fr: btoa('Locale:3') };

  // The catalogue as the WordPress plugin asks for it: 20 items, courses and learning paths
  // (a union: __typename and inline fragments), prices and images, ordered by name. Like the
  // plugin, `search` travels in the variables without being declared.
  const CATALOGUE_QUERY = `query ($order: CatalogueFieldOrder, $filters: [CatalogueFieldFilter]!, $customFieldFilters: [CustomFieldFilterInput!]!) {
  catalogue(order: $order, first: 20, offset: 0, filters: $filters, customFieldFilters: $customFieldFilters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node { __typename
      ... on Course { id code name description teaserDescription category imageUrl
        priceRange { normalPrice { amount financialUnit { symbol } } } customFieldValues { definitionKey value } }
      ... on LearningPath { id name description lifecycleState category imageUrl
        price { amount financialUnit { symbol } } customFieldValues { definitionKey value } }
    } }
  }
}`;
  const CATALOGUE_VARIABLES = { order: { field: 'name', direction: 'asc' }, filters: [], customFieldFilters: [], search: '' };

  // The dates of the courses (the SDK's events query, all of them at once).
  const EVENTS_QUERY = `query ($order: EventFieldOrder, $filters: [EventFieldFilter!]!) {
  events(first: 100, offset: 0, order: $order, filters: $filters) {
    edges { node { id name price { amount } classroomStart classroomEnd lmsStart lmsEnd start end
      deliveryMethod remainingPlaces location { name } course { id code } } }
  }
}`;
  const EVENTS_VARIABLES = { order: { field: 'id', direction: 'asc' }, filters: [] };

  const TEXT = {
    en: {
      title: 'Our courses',
      loading: 'Loading the catalogue…',
      loaded: (n) => `${n} courses and learning paths`,
      course: 'Course',
      path: 'Learning path',
      noDates: 'No dates scheduled yet: ask us for one.',
      from: 'from',
      to: 'to',
      online: 'Online',
      blended: 'Blended: online part from',
      places: (n) => (n === 1 ? '1 place left' : `${n} places left`),
      full: 'Fully booked',
      days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
      months: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
      failed: 'The catalogue could not be loaded.',
    },
    fr: {
      title: 'Nos formations',
      loading: 'Chargement du catalogue…',
      loaded: (n) => `${n} formations et parcours`,
      course: 'Formation',
      path: 'Parcours',
      noDates: 'Pas encore de date : contactez-nous.',
      from: 'du',
      to: 'au',
      online: 'En ligne',
      blended: 'Mixte : partie en ligne à partir du',
      places: (n) => (n <= 1 ? `${n} place restante` : `${n} places restantes`),
      full: 'Complet',
      days: ['lun.', 'mar.', 'mer.', 'jeu.', 'ven.', 'sam.', 'dim.'],
      months: ['janv.', 'févr.', 'mars', 'avr.', 'mai', 'juin', 'juil.', 'août', 'sept.', 'oct.', 'nov.', 'déc.'],
      failed: 'Le catalogue n’a pas pu être chargé.',
    },
  };

  let lang = params.get('lang') === 'fr' ? 'fr' : 'en';
  let token = null;
  let loading = 0;

  /** A guest token for the portal; the plugins ask again after an hour (tokens last two). */
  async function portalToken(renew) {
    if (token && !renew && Date.now() - token.at < 55 * 60 * 1000) return token.value;
    const res = await fetch(`${API}/portal/guest`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/plain, */*' },
      body: JSON.stringify({ domain: PORTAL }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok || !body.portal_token) throw new Error(`POST /portal/guest for ${PORTAL}: HTTP ${res.status} ${JSON.stringify(body)}`);
    token = { value: body.portal_token, at: Date.now() };
    return token.value;
  }

  /** One WebLink request through the portal; a refused token is renewed once. */
  async function weblink(query, variables, renew = false) {
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Authorization: `Bearer ${await portalToken(renew)}`,
      'weblink-portal': PORTAL,
    };
    if (LOCALES[lang]) headers['weblink-content-locale'] = LOCALES[lang];
    const res = await fetch(`${API}/weblink/graphql/`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    if (res.status === 401 && !renew) return weblink(query, variables, true);
    const body = await res.json().catch(() => ({}));
    if (!res.ok || body.errors) throw new Error(`WebLink: HTTP ${res.status} ${JSON.stringify(body.errors || body)}`);
    return body.data;
  }

  // ---- Formatting: dates as the API gives them (local wall time first), amounts with grouping.

  /** "2027-01-12T09:00:00+00:00" (or without an offset) as its date and time parts, not shifted. */
  function parts(value) {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(value || '');
    return m ? { y: +m[1], mo: +m[2], d: +m[3], time: m[4] ? `${m[4]}:${m[5]}` : null } : null;
  }

  function formatDate(value, withTime = true) {
    const p = parts(value);
    if (!p) return '';
    const t = TEXT[lang];
    const weekday = (new Date(Date.UTC(p.y, p.mo - 1, p.d)).getUTCDay() + 6) % 7;
    const date = `${t.days[weekday]} ${p.d} ${t.months[p.mo - 1]} ${p.y}`;
    return withTime && p.time ? `${date}, ${p.time}` : date;
  }

  function formatMoney(amount, symbol) {
    if (amount === null || amount === undefined || amount === '') return '';
    const n = Number(amount);
    const digits = Number.isInteger(n) ? 0 : 2;
    const number = new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', {
      minimumFractionDigits: digits,
      maximumFractionDigits: 2,
    }).format(n);
    if (!symbol) return number;
    return lang === 'fr' ? `${number}\u00a0${symbol}` : `${symbol}${number}`;
  }

  /** Plain text of the HTML a description holds (never inserted as HTML). */
  const plain = (html) => (html ? new DOMParser().parseFromString(html, 'text/html').body.textContent.trim() : '');

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') node.className = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined && c !== '') node.append(c);
    return node;
  }

  // ---- Rendering

  const startOf = (e) => {
    const method = String(e.deliveryMethod || '').toLowerCase();
    return method === 'lms' ? e.lmsStart || e.start : e.classroomStart || e.start || e.lmsStart;
  };

  function eventLine(e, symbol) {
    const t = TEXT[lang];
    const method = String(e.deliveryMethod || '').toLowerCase();
    let when;
    if (method === 'lms')
      when = `${t.online}: ${t.from} ${formatDate(e.lmsStart || e.start, false)} ${t.to} ${formatDate(e.lmsEnd || e.end, false)}`;
    else when = formatDate(e.classroomStart || e.start);
    const places = typeof e.remainingPlaces === 'number' ? (e.remainingPlaces > 0 ? t.places(e.remainingPlaces) : t.full) : null;
    return el(
      'li',
      { 'data-event': e.id, 'data-start': startOf(e) },
      el('span', { class: 'when' }, when),
      method === 'blended' && e.lmsStart ? el('span', { class: 'where' }, ` (${t.blended} ${formatDate(e.lmsStart, false)})`) : null,
      e.location && e.location.name ? el('span', { class: 'where' }, ` · ${e.location.name}`) : null,
      e.price && e.price.amount !== null && e.price.amount !== undefined
        ? el('span', { class: 'event-price' }, ` · ${formatMoney(e.price.amount, symbol)}`)
        : null,
      places ? el('span', { class: 'places' }, ` · ${places}`) : null,
    );
  }

  function card(node, events) {
    const t = TEXT[lang];
    const isCourse = node.__typename === 'Course';
    const price = isCourse ? node.priceRange && node.priceRange.normalPrice : node.price;
    const symbol = price && price.financialUnit ? price.financialUnit.symbol : '';
    const initials = (node.name || '?')
      .split(/\s+/)
      .map((w) => w[0])
      .join('')
      .slice(0, 3);
    const picture =
      node.imageUrl && /^https?:\/\//.test(node.imageUrl)
        ? el('img', { src: node.imageUrl, alt: '', loading: 'lazy' })
        : el('div', { class: 'placeholder', 'aria-hidden': 'true' }, initials);
    // Placeholder addresses (and broken links) show the initials instead.
    if (picture.tagName === 'IMG')
      picture.addEventListener('error', () => picture.replaceWith(el('div', { class: 'placeholder', 'aria-hidden': 'true' }, initials)), {
        once: true,
      });
    const dates = isCourse
      ? events.length
        ? el('ul', { class: 'dates' }, ...events.map((e) => eventLine(e, symbol)))
        : el('p', { class: 'none' }, t.noDates)
      : null;
    return el(
      'li',
      { class: 'item', 'data-type': node.__typename, 'data-id': node.id, 'data-code': node.code || null },
      picture,
      el(
        'div',
        { class: 'body' },
        el('span', { class: 'kind' }, `${isCourse ? t.course : t.path}${node.category ? ` · ${node.category}` : ''}`),
        el('h2', {}, node.name),
        el('p', { class: 'teaser' }, node.teaserDescription || plain(node.description)),
        price && price.amount !== null && price.amount !== undefined
          ? el('span', { class: 'price' }, formatMoney(price.amount, symbol))
          : null,
        dates,
      ),
    );
  }

  function render(catalogue, events) {
    const byCourse = new Map();
    for (const { node: e } of events.edges) {
      const key = e.course ? e.course.id : null;
      if (!byCourse.has(key)) byCourse.set(key, []);
      byCourse.get(key).push(e);
      if (e.course && e.course.code) byCourse.set(`code:${e.course.code}`, byCourse.get(key));
    }
    const list = document.getElementById('catalogue');
    list.replaceChildren(
      ...catalogue.edges.map(({ node }) => {
        const own = byCourse.get(node.id) || (node.code ? byCourse.get(`code:${node.code}`) : null) || [];
        const upcoming = own.slice().sort((a, b) => String(startOf(a)).localeCompare(String(startOf(b))));
        return card(node, upcoming);
      }),
    );
    document.getElementById('status').textContent = TEXT[lang].loaded(
      catalogue.pageInfo ? catalogue.pageInfo.totalRecords : catalogue.edges.length,
    );
  }

  async function load() {
    const ticket = ++loading;
    const t = TEXT[lang];
    document.documentElement.lang = lang;
    document.getElementById('title').textContent = t.title;
    document.title = `${t.title}: Demo Training Ltd`;
    for (const b of document.querySelectorAll('.languages button')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
    document.body.dataset.state = 'loading';
    document.body.dataset.lang = lang;
    document.getElementById('status').textContent = t.loading;
    const error = document.getElementById('error');
    error.hidden = true;
    try {
      const catalogue = await weblink(CATALOGUE_QUERY, CATALOGUE_VARIABLES);
      const events = await weblink(EVENTS_QUERY, EVENTS_VARIABLES);
      if (ticket !== loading) return; // a newer language choice won
      render(catalogue.catalogue, events.events);
      document.body.dataset.state = 'ready';
    } catch (err) {
      if (ticket !== loading) return;
      document.body.dataset.state = 'error';
      document.getElementById('status').textContent = t.failed;
      error.textContent = String(err && err.message ? err.message : err);
      error.hidden = false;
    }
  }

  for (const b of document.querySelectorAll('.languages button')) {
    b.addEventListener('click', () => {
      if (b.dataset.lang === lang) return;
      lang = b.dataset.lang;
      void load();
    });
  }
  document.getElementById('source').textContent = `${API}, portal ${PORTAL}`;
  void load();
})();
