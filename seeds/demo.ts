import type { Db, Knex } from '../src/platform/db/knex.js';
import { insertCategories } from '../src/modules/categories/categories.data.js';
import { CATEGORY_TRANSLATED } from '../src/modules/categories/categories.service.js';
import {
  appendScoreMapping,
  insertCourseTemplate,
  updateCourseTemplateRow,
} from '../src/modules/course-templates/course-templates.data.js';
import { COURSE_TEMPLATE_TRANSLATED } from '../src/modules/course-templates/course-templates.service.js';
import { firstContactIds, insertCampaign, insertCompanies, insertContacts, insertMarketingActivity } from '../src/modules/crm/crm.data.js';
import { insertDelegates } from '../src/modules/delegates/delegates.data.js';
import { insertDocument } from '../src/modules/documents/documents.data.js';
import { insertEvent, type EventRow, type NewEvent } from '../src/modules/events/events.data.js';
import { appendObjectives, insertLearningPath } from '../src/modules/learning-paths/learning-paths.data.js';
import { LEARNING_PATH_TRANSLATED } from '../src/modules/learning-paths/learning-paths.service.js';
import { enableLocale } from '../src/modules/locales/locales.service.js';
import { insertLocation, type LocationRow } from '../src/modules/locations/locations.data.js';
import { addPortal } from '../src/modules/portals/portals.service.js';
import { priceLevelNamed, setPrice, type PriceOwner } from '../src/modules/pricing/pricing.data.js';
import type { TranslatedKind } from '../src/modules/translations/translations.service.js';
import { upsertTranslation } from '../src/modules/translations/translations.service.js';
import { ConflictError } from '../src/platform/errors.js';
import { insertTaxType } from '../src/modules/tax-types/tax-types.data.js';
import { createPaymentType, createStockItem } from '../src/modules/orders/order-settings.service.js';
import { requestTenantStats } from '../src/modules/tenant-stats/tenant-stats.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { tenantSlugTaken } from '../src/platform/tenancy/tenants.data.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';

/** Local demo credentials, printed by `npm start`. Only ever seeded outside production. */
export const DEMO = {
  slug: 'demo',
  name: 'Demo Training Ltd',
  email: 'admin@demo.test',
  password: 'lectern-demo',
  portal: 'www.demo-training.test',
} as const;

/** Locale ids are the same in every instance (the catalogue of locales): English 1, French 3. */
const ENGLISH = 1;
const FRENCH = 3;

const COMPANIES = [
  {
    name: 'Northwind Logistics',
    code: 'NWL',
    email: 'training@northwind.example',
    tel: '+44 20 7946 0101',
    address_town: 'London',
    address_postcode: 'EC1A 1BB',
    address_country_id: 'GB',
  },
  {
    name: 'Contoso Health',
    code: 'CTH',
    email: 'learning@contoso.example',
    tel: '+44 161 496 0202',
    address_town: 'Manchester',
    address_postcode: 'M1 1AE',
    address_country_id: 'GB',
  },
  {
    name: 'Fabrikam Engineering',
    code: 'FAB',
    email: 'people@fabrikam.example',
    tel: '+353 1 555 0303',
    address_town: 'Dublin',
    address_postcode: 'D02 X285',
    address_country_id: 'IE',
  },
];

const CONTACTS = [
  ['Amelia', 'Hughes', 'Operations Manager', 0],
  ['Oliver', 'Patel', 'Fleet Supervisor', 0],
  ['Isla', 'Murphy', 'Clinical Lead', 1],
  ['George', 'Okafor', 'Ward Manager', 1],
  ['Sofia', 'Kowalska', 'Mechanical Engineer', 2],
  ['Liam', 'Byrne', 'Site Safety Officer', 2],
  ['Chloe', 'Nguyen', 'Trainer', null],
] as const;

/** What the catalogue adds to: the first categories, templates, locations and tax type. */
interface SeededBasics {
  categories: { healthAndSafety: number; leadership: number; firstAid: number };
  templates: { faw: number; teams: number };
  events: { faw: EventRow; teams: EventRow };
  locations: { london: LocationRow; manchester: LocationRow };
  vat: number;
}

/** Categories, a campaign, course templates with score mappings, locations, tax types, events and delegates. */
async function seedEvents(db: Db, companyIds: number[]): Promise<SeededBasics> {
  const [hs, lead] = await insertCategories(db, [
    { name: 'Health & Safety', priority: 1, introduction: 'Courses that keep people safe at work.' },
    { name: 'Leadership', priority: 2, introduction: 'Management and leadership skills.' },
  ]);
  const [firstAid] = await insertCategories(db, [{ name: 'First Aid', priority: 1, parent_id: hs!.id }]);
  const campaign = await insertCampaign(db, {
    name: 'Spring 2027 courses',
    description: 'Promote the spring public schedule',
    currency: 'GBP',
    start_date: '2027-01-15',
    end_date: '2027-04-30',
    target_contacts: 500,
  });
  await insertMarketingActivity(db, {
    name: 'March newsletter',
    description: 'Newsletter to past delegates',
    campaign_id: campaign,
    currency: 'GBP',
    cost: '250',
    date: '2027-03-01',
  });
  const faw = await insertCourseTemplate(db, {
    code: 'FAW',
    title: 'First Aid at Work',
    course_text1: '<p>Three days of practical first aid.</p>',
    lifecycle_state: 'published',
    category_id: hs!.id,
  });
  const teams = await insertCourseTemplate(db, {
    code: 'LT1',
    title: 'Leading Teams',
    course_text1: '<p>Two days for new managers.</p>',
    lifecycle_state: 'published',
    category_id: lead!.id,
  });
  for (const mapping of [
    { label: 'Assessment date', type_id: 2 },
    { label: 'Practical passed', type_id: 3 },
    { label: 'Theory score', type_id: 4 },
  ]) {
    await appendScoreMapping(db, faw.id, mapping);
  }
  const london = await insertLocation(db, {
    name: 'Riverside Training Centre',
    address_street: '12 Wharf Road',
    address_town: 'London',
    address_postcode: 'N1 7GR',
    address_country_id: 'GB',
    time_zone_name: 'Europe/London',
  });
  const manchester = await insertLocation(db, {
    name: 'Northern Skills Hub',
    address_street: '3 Deansgate',
    address_town: 'Manchester',
    address_postcode: 'M3 2BW',
    address_country_id: 'GB',
    time_zone_name: 'Europe/London',
  });
  const vat = await insertTaxType(db, { name: 'Standard VAT', rate: 20 });
  await insertTaxType(db, { name: 'Zero rated', rate: 0 });
  const inLondon = {
    location: 'London',
    location_id: london.id,
    time_zone_name: 'Europe/London',
    tax_type_id: vat.id,
    title_cascades: true,
  };
  const fawEvent = await insertEvent(db, {
    ...inLondon,
    course_template_id: faw.id,
    code: 'FAW-LON-2703',
    title: 'First Aid at Work',
    start_date: '2027-03-10',
    end_date: '2027-03-12',
    start_time: '09:00',
    end_time: '17:00',
    classroom_start: '2027-03-10T09:00',
    classroom_end: '2027-03-12T17:00',
    price: '395',
    currency_code: 'GBP',
    delegates_max: 12,
  });
  const teamsEvent = await insertEvent(db, {
    ...inLondon,
    location: 'Manchester',
    location_id: manchester.id,
    course_template_id: teams.id,
    code: 'LT1-MAN-2704',
    title: 'Leading Teams',
    start_date: '2027-04-20',
    end_date: '2027-04-21',
    start_time: '09:30',
    end_time: '16:30',
    classroom_start: '2027-04-20T09:30',
    classroom_end: '2027-04-21T16:30',
    price: '650',
    currency_code: 'GBP',
    delegates_max: 10,
    company_id: companyIds[1],
  });
  // Order setup, so a REST order with a `card` payment gets its invoice, and items can add a book.
  await createPaymentType(db, 'card');
  await createStockItem(db, { name: 'Course book', price: 25 });
  const people = await firstContactIds(db, 2);
  await insertDelegates(db, [
    ...people.map((contact_id) => ({ event_id: fawEvent.id, contact_id })),
    { event_id: fawEvent.id, num_places: 2 },
  ]);
  return {
    categories: { healthAndSafety: hs!.id, leadership: lead!.id, firstAid: firstAid!.id },
    templates: { faw: faw.id, teams: teams.id },
    events: { faw: fawEvent, teams: teamsEvent },
    locations: { london, manchester },
    vat: vat.id,
  };
}

/** The address of a demo image (a placeholder host: websites show a broken image or their own fallback). */
const image = (file: string) => `https://images.demo-training.test/${file}`;

/** Where an event takes place: one of the demo's two training centres, or online (an LMS event). */
type Venue = 'london' | 'manchester' | 'online';

/**
 * One scheduled event of a demo course, placed relative to the day the demo is seeded (so its
 * dates are always ahead): `week` weeks after the next Monday, on `weekday` (0 = Monday), for
 * `days` days. An online event is an LMS course open for `days` days; `onlineDaysBefore` makes
 * a classroom event blended (its online part runs in the days before the classroom).
 */
interface DemoEvent {
  venue: Venue;
  week: number;
  weekday?: number;
  days: number;
  hours?: [string, string];
  places: number;
  onlineDaysBefore?: number;
  /** Its own price, when it differs from the course's. */
  amount?: string;
}

interface DemoCourse {
  code: string;
  title: string;
  /** The French title, description and teaser (null: not translated, the authored text is shown). */
  french: { title: string; description: string; teaser: string } | null;
  category: keyof SeededBasics['categories'];
  teaser: string;
  description: string;
  image: string;
  price: { amount: string; currency: 'GBP' | 'EUR' };
  events: DemoEvent[];
}

/** The templates the demo had before its catalogue (their texts and events stay as they were). */
const EXISTING: Record<'FAW' | 'LT1', Pick<DemoCourse, 'french' | 'teaser' | 'image' | 'price' | 'events'>> = {
  FAW: {
    french: null,
    teaser: 'Three days to become your workplace\u2019s qualified first aider, with a certificate valid for three years.',
    image: 'first-aid.jpg',
    price: { amount: '395', currency: 'GBP' },
    events: [{ venue: 'manchester', week: 6, days: 3, places: 12 }],
  },
  LT1: {
    french: {
      title: 'Diriger des \u00e9quipes',
      description: '<p>Deux jours pour les nouveaux managers.</p>',
      teaser: 'Deux jours pour les nouveaux managers : d\u00e9l\u00e9guer, donner du feedback et mener des r\u00e9unions utiles.',
    },
    teaser: 'Two days for new managers: delegation, feedback and meetings that get things done.',
    image: 'leading-teams.jpg',
    price: { amount: '650', currency: 'GBP' },
    events: [{ venue: 'london', week: 4, weekday: 1, days: 2, hours: ['09:30', '16:30'], places: 10 }],
  },
};

/** The published courses the demo adds, in this order (ids after the existing ones). */
export const DEMO_COURSES: readonly DemoCourse[] = [
  {
    code: 'EFAW',
    title: 'Emergency First Aid at Work',
    french: {
      title: 'Secourisme d\u2019urgence au travail',
      description: '<p>Une journ\u00e9e pour savoir agir en cas d\u2019urgence.</p>',
      teaser: 'Une journ\u00e9e pour g\u00e9rer une urgence au travail en attendant les secours.',
    },
    category: 'firstAid',
    teaser: 'One day to handle an emergency at work until help arrives.',
    description: '<p>One day of practical emergency first aid: CPR, choking, bleeding and shock.</p>',
    image: 'emergency-first-aid.jpg',
    price: { amount: '120', currency: 'GBP' },
    events: [
      { venue: 'london', week: 2, weekday: 1, days: 1, places: 12 },
      { venue: 'manchester', week: 5, weekday: 3, days: 1, places: 12 },
      { venue: 'london', week: 10, weekday: 1, days: 1, places: 12, amount: '135' },
    ],
  },
  {
    code: 'FSA',
    title: 'Fire Safety Awareness',
    french: {
      title: 'Sensibilisation \u00e0 la s\u00e9curit\u00e9 incendie',
      description: '<p>Pr\u00e9venir les incendies et \u00e9vacuer en s\u00e9curit\u00e9.</p>',
      teaser: 'Pr\u00e9venir les incendies, choisir le bon extincteur et \u00e9vacuer tout le monde en s\u00e9curit\u00e9.',
    },
    category: 'healthAndSafety',
    teaser: 'Prevent fires, use the right extinguisher and get everyone out safely.',
    description: '<p>Fire prevention, extinguishers and evacuation, online or in half a day.</p>',
    image: 'fire-safety.jpg',
    price: { amount: '95', currency: 'GBP' },
    events: [
      { venue: 'online', week: 1, days: 28, places: 100 },
      { venue: 'manchester', week: 7, weekday: 2, days: 1, hours: ['09:00', '12:30'], places: 16 },
    ],
  },
  {
    code: 'MHFA',
    title: 'Mental Health First Aid',
    french: {
      title: 'Premiers secours en sant\u00e9 mentale',
      description: '<p>Reconna\u00eetre les signes et apporter une premi\u00e8re aide.</p>',
      teaser: 'Rep\u00e9rer les signes d\u2019une sant\u00e9 mentale fragile et apporter une premi\u00e8re aide en confiance.',
    },
    category: 'firstAid',
    teaser: 'Spot the signs of poor mental health and give first support with confidence.',
    description: '<p>Online preparation, then two days in the classroom.</p>',
    image: 'mental-health.jpg',
    price: { amount: '250', currency: 'GBP' },
    events: [
      { venue: 'london', week: 5, days: 2, places: 16, onlineDaysBefore: 14 },
      { venue: 'manchester', week: 11, days: 2, places: 16 },
    ],
  },
  {
    code: 'MHE',
    title: 'Manual Handling Essentials',
    french: {
      title: 'Manutention : l\u2019essentiel',
      description: '<p>Soulever et porter sans se blesser.</p>',
      teaser: 'Soulever, porter et d\u00e9placer des charges sans se blesser.',
    },
    category: 'healthAndSafety',
    teaser: 'Lift, carry and move loads without injury (priced in euros for our Irish customers).',
    description: '<p>Half theory, half practice, with an assessment.</p>',
    image: 'manual-handling.jpg',
    price: { amount: '140', currency: 'EUR' },
    events: [
      { venue: 'manchester', week: 3, weekday: 2, days: 1, places: 14 },
      { venue: 'london', week: 8, weekday: 4, days: 1, places: 14 },
    ],
  },
  {
    code: 'CFP',
    title: 'Coaching for Performance',
    french: {
      title: 'Coaching pour la performance',
      description: '<p>Des conversations qui font progresser.</p>',
      teaser: 'Des conversations de coaching qui font progresser vos \u00e9quipes.',
    },
    category: 'leadership',
    teaser: 'Coaching conversations that help your team grow.',
    description: '<p>Two days of coaching models and practice with an actor.</p>',
    image: 'coaching.jpg',
    price: { amount: '450', currency: 'GBP' },
    events: [
      { venue: 'london', week: 6, weekday: 2, days: 2, places: 10 },
      { venue: 'manchester', week: 12, weekday: 2, days: 2, places: 10 },
    ],
  },
  {
    code: 'PME',
    title: 'Project Management Essentials',
    french: {
      title: 'Les fondamentaux de la gestion de projet',
      description: '<p>Planifier, suivre et livrer un projet.</p>',
      teaser: 'Planifier, suivre et livrer un projet dans les temps.',
    },
    category: 'leadership',
    teaser: 'Plan, track and deliver projects on time, whatever your method.',
    description: '<p>Three days: scope, plan, risks, stakeholders and delivery.</p>',
    image: 'project-management.jpg',
    price: { amount: '595', currency: 'GBP' },
    events: [
      { venue: 'manchester', week: 4, days: 3, places: 12 },
      { venue: 'london', week: 9, days: 3, places: 12, amount: '625' },
    ],
  },
];

/** What the demo catalogue holds, for the pages and tests that show it. */
export interface DemoCatalogue {
  courses: {
    id: number;
    code: string;
    title: string;
    frenchTitle: string | null;
    price: { amount: string; currency: string };
    events: { id: number; code: string; venue: Venue | 'existing'; deliveryMethod: string; start: string; amount: string }[];
  }[];
  learningPaths: {
    id: number;
    code: string;
    name: string;
    frenchName: string;
    isBundle: boolean;
    price: { amount: string; currency: string };
  }[];
}

const DAY_MS = 86_400_000;
const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const plusDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);

/** The Monday after `today` (a UTC date): the demo's schedule starts there. */
function mondayAfter(today: Date): Date {
  const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  return plusDays(d, 7 - ((d.getUTCDay() + 6) % 7));
}

/** The columns of a demo event (times are local to Europe/London, as the locations are). */
function eventColumns(
  basics: SeededBasics,
  template: { id: number; code: string; title: string },
  e: DemoEvent,
  monday: Date,
  price: { amount: string; currency: string },
): NewEvent {
  const first = plusDays(monday, e.week * 7 + (e.weekday ?? 0));
  const last = plusDays(first, e.days - 1);
  const [from, to] = e.hours ?? ['09:00', '17:00'];
  const where = e.venue === 'online' ? null : basics.locations[e.venue];
  const common = {
    course_template_id: template.id,
    title: template.title,
    title_cascades: true,
    code: `${template.code}-${e.venue === 'online' ? 'ONL' : e.venue === 'london' ? 'LON' : 'MAN'}-${isoDate(first).replace(/-/g, '').slice(2)}`,
    time_zone_name: 'Europe/London',
    tax_type_id: basics.vat,
    price: e.amount ?? price.amount,
    currency_code: price.currency,
    delegates_max: e.places,
  };
  if (!where) {
    // Online only: an LMS course open for `days` days (from the morning of the first to the evening of the last).
    return {
      ...common,
      delivery_method: 'lms',
      is_lms: true,
      is_online: true,
      start_date: isoDate(first),
      end_date: isoDate(last),
      lms_start: `${isoDate(first)}T${from}`,
      lms_end: `${isoDate(last)}T${to}`,
    };
  }
  const classroom = {
    location: where.address_town,
    location_id: where.id,
    end_date: isoDate(last),
    start_time: from,
    end_time: to,
    classroom_start: `${isoDate(first)}T${from}`,
    classroom_end: `${isoDate(last)}T${to}`,
  };
  if (!e.onlineDaysBefore) return { ...common, ...classroom, delivery_method: 'classroom', start_date: isoDate(first) };
  // Blended: online preparation in the days before the classroom.
  const online = plusDays(first, -e.onlineDaysBefore);
  return {
    ...common,
    ...classroom,
    delivery_method: 'blended',
    is_lms: true,
    start_date: isoDate(online),
    lms_start: `${isoDate(online)}T${from}`,
    lms_end: `${isoDate(plusDays(first, -1))}T${to}`,
  };
}

/** When a website says an event starts: in the classroom, else online (a local date-time). */
const startOf = (e: EventRow) => e.classroom_start ?? e.lms_start ?? `${e.start_date}T00:00`;

/**
 * The public catalogue a training company's website shows: published course templates with
 * teasers, images and Normal prices (GBP, one in EUR), their events over the months after
 * `today` in both centres (one online, one blended), two learning paths (one a bundle) with
 * their objectives and prices, and French translations of courses, paths and categories (French
 * is enabled). Adds to what {@link seedEvents} made, after it, so the ids it gave stay the same.
 */
async function seedCatalogue(db: Db, basics: SeededBasics, today: Date): Promise<DemoCatalogue> {
  await enableLocale(db, 'fr');
  const normal = (await priceLevelNamed(db, 'Normal'))!.id;
  const monday = mondayAfter(today);
  const priced = (owner: PriceOwner, id: number, price: { amount: string; currency: string }) =>
    setPrice(db, owner, id, { price_level_id: normal, currency_code: price.currency, amount: price.amount });
  const picture = (file: string, name: string) =>
    insertDocument(db, { name, url: image(file), folder: 'Catalogue images', description: `Image of ${name}` });
  const translate = async ({ entity, lockOwner }: TranslatedKind, id: number, texts: Record<string, string>) => {
    const { problems } = await upsertTranslation(db, entity, lockOwner, id, { id: FRENCH }, { texts }, async () => []);
    if (problems.length) throw new Error(`demo translation of ${entity.entityName} ${id}: ${JSON.stringify(problems)}`);
  };
  // The categories' French names (First Aid has no introduction to translate: absent falls back to none).
  for (const [id, texts] of [
    [
      basics.categories.healthAndSafety,
      { name: 'Sant\u00e9 et s\u00e9curit\u00e9', description: 'Des formations pour travailler en s\u00e9curit\u00e9.' },
    ],
    [
      basics.categories.leadership,
      { name: 'Management et leadership', description: 'Les comp\u00e9tences du management et du leadership.' },
    ],
    [basics.categories.firstAid, { name: 'Secourisme' }],
  ] as const) {
    await translate(CATEGORY_TRANSLATED, id, texts);
  }

  const courses: DemoCatalogue['courses'] = [];
  const schedule = async (template: { id: number; code: string; title: string }, course: Pick<DemoCourse, 'price' | 'events'>) => {
    const made: DemoCatalogue['courses'][number]['events'] = [];
    for (const e of course.events) {
      const event = await insertEvent(db, eventColumns(basics, template, e, monday, course.price));
      await priced('event', event.id, { amount: event.price!, currency: course.price.currency });
      made.push({
        id: event.id,
        code: event.code!,
        venue: e.venue,
        deliveryMethod: event.delivery_method,
        start: startOf(event),
        amount: event.price!,
      });
    }
    return made;
  };

  // The two templates the demo had: a teaser, an image, a price, and more dates.
  for (const [code, id, event] of [
    ['FAW', basics.templates.faw, basics.events.faw],
    ['LT1', basics.templates.teams, basics.events.teams],
  ] as const) {
    const course = EXISTING[code];
    const doc = await picture(course.image, event.title);
    const template = await updateCourseTemplateRow(db, id, {
      teaser_description: course.teaser,
      image_document_id: doc.id,
      ...(course.french ? { locale_id: ENGLISH } : {}),
    });
    if (course.french)
      await translate(COURSE_TEMPLATE_TRANSLATED, id, {
        title: course.french.title,
        courseText1: course.french.description,
        teaserDescription: course.french.teaser,
      });
    await priced('course_template', id, course.price);
    await priced('event', event.id, { amount: event.price!, currency: event.currency_code! });
    const existing = {
      id: event.id,
      code: event.code!,
      venue: 'existing' as const,
      deliveryMethod: event.delivery_method,
      start: startOf(event),
      amount: event.price!,
    };
    courses.push({
      id,
      code,
      title: template.title,
      frenchTitle: course.french?.title ?? null,
      price: course.price,
      events: [existing, ...(await schedule({ id, code, title: template.title }, course))],
    });
  }

  for (const course of DEMO_COURSES) {
    const doc = await picture(course.image, course.title);
    const template = await insertCourseTemplate(db, {
      code: course.code,
      title: course.title,
      course_text1: course.description,
      teaser_description: course.teaser,
      image_document_id: doc.id,
      lifecycle_state: 'published',
      category_id: basics.categories[course.category],
      locale_id: ENGLISH,
    });
    if (course.french)
      await translate(COURSE_TEMPLATE_TRANSLATED, template.id, {
        title: course.french.title,
        courseText1: course.french.description,
        teaserDescription: course.french.teaser,
      });
    await priced('course_template', template.id, course.price);
    courses.push({
      id: template.id,
      code: course.code,
      title: course.title,
      frenchTitle: course.french?.title ?? null,
      price: course.price,
      events: await schedule({ id: template.id, code: course.code, title: course.title }, course),
    });
  }

  const byCode = (code: string) => courses.find((c) => c.code === code)!;
  const paths = [
    {
      code: 'WSP',
      name: 'Workplace Safety Pathway',
      frenchName: 'Parcours s\u00e9curit\u00e9 au travail',
      description: 'Emergency first aid, fire safety and manual handling: the essentials for every site, at your own pace.',
      frenchDescription: 'Secourisme d\u2019urgence, s\u00e9curit\u00e9 incendie et manutention : l\u2019essentiel pour chaque site.',
      isBundle: false,
      category: basics.categories.healthAndSafety,
      image: 'workplace-safety.jpg',
      price: { amount: '299', currency: 'GBP' },
      objectives: [
        { event_id: byCode('EFAW').events[0]!.id },
        { course_template_id: byCode('FSA').id },
        { course_template_id: byCode('MHE').id },
      ],
    },
    {
      code: 'NMB',
      name: 'New Manager Bundle',
      frenchName: 'Pack nouveau manager',
      description: 'Leading Teams, Coaching for Performance and Project Management Essentials, booked together at a bundle price.',
      frenchDescription: 'Diriger des \u00e9quipes, coaching et gestion de projet, r\u00e9serv\u00e9s ensemble \u00e0 un prix group\u00e9.',
      isBundle: true,
      category: basics.categories.leadership,
      image: 'new-manager.jpg',
      price: { amount: '1495', currency: 'GBP' },
      objectives: [
        { event_id: byCode('LT1').events[1]!.id },
        { event_id: byCode('CFP').events[0]!.id },
        { course_template_id: byCode('PME').id },
      ],
    },
  ];
  const learningPaths: DemoCatalogue['learningPaths'] = [];
  for (const p of paths) {
    const doc = await picture(p.image, p.name);
    const path = await insertLearningPath(db, {
      code: p.code,
      name: p.name,
      description: p.description,
      locale_id: ENGLISH,
      lifecycle_state: 'active',
      is_bundle: p.isBundle,
      category_id: p.category,
      image_document_id: doc.id,
    });
    await appendObjectives(db, path.id, p.objectives);
    await translate(LEARNING_PATH_TRANSLATED, path.id, { name: p.frenchName, description: p.frenchDescription });
    await priced('learning_path', path.id, p.price);
    learningPaths.push({ id: path.id, code: p.code, name: p.name, frenchName: p.frenchName, isBundle: p.isBundle, price: p.price });
  }
  return { courses, learningPaths };
}

/**
 * The demo's content in a tenant: companies, contacts, categories, course templates, events,
 * delegates, order settings, and the public catalogue (prices, images, learning paths, French
 * translations), its events scheduled after `today`. Tests use it to get a tenant like the demo.
 */
export async function seedDemoContent(db: Db, today = new Date()): Promise<DemoCatalogue> {
  const companyIds = await insertCompanies(db, COMPANIES);
  await insertContacts(
    db,
    CONTACTS.map(([first, last, job, company]) => ({
      first_name: first,
      last_name: last,
      job_title: job,
      email: `${first.toLowerCase()}.${last.toLowerCase()}@${company === null ? 'demo.test' : COMPANIES[company]!.email.split('@')[1]}`,
      company_id: company === null ? null : companyIds[company]!.id,
      organisation: company === null ? DEMO.name : COMPANIES[company]!.name,
      is_tutor: company === null,
      is_staff: company === null,
    })),
  );
  const basics = await seedEvents(
    db,
    companyIds.map((c) => c.id),
  );
  return seedCatalogue(db, basics, today);
}

/**
 * Creates the `demo` tenant with an admin user, its content ({@link seedDemoContent}, events
 * scheduled from today) and its website's portal (`www.demo-training.test`). Returns undefined
 * when the tenant already exists (a second `npm start` keeps the data it has).
 */
export async function seedDemo(knex: Knex): Promise<Tenant | undefined> {
  if (await tenantSlugTaken(knex, DEMO.slug)) return undefined;
  const tenant = await createTenant(knex, { slug: DEMO.slug, name: DEMO.name });
  await withTenant(knex, tenant, async (db) => {
    await seedDemoContent(db);
    await createUser(db, { email: DEMO.email, password: DEMO.password, role: 'admin' });
    await requestTenantStats(db, tenant.id);
  });
  // The demo's website, for the WebLink example page (examples/weblink) and the plugins' way in.
  await addPortal(knex, tenant, { domain: DEMO.portal, createdBy: 'seed:demo' }).catch((err: unknown) => {
    // Another instance of this database has it already: the demo goes without.
    if (!(err instanceof ConflictError)) throw err;
  });
  return tenant;
}
