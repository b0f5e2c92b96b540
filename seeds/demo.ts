import type { Db, Knex } from '../src/platform/db/knex.js';
import { insertCategories } from '../src/modules/categories/categories.data.js';
import { CATEGORY_TRANSLATED } from '../src/modules/categories/categories.service.js';
import {
  appendScoreMapping,
  courseTemplatesByIds,
  insertCourseTemplate,
  replaceInstructors,
  updateCourseTemplateRow,
} from '../src/modules/course-templates/course-templates.data.js';
import { COURSE_TEMPLATE_TRANSLATED } from '../src/modules/course-templates/course-templates.service.js';
import { firstContactIds, insertCampaign, insertCompanies, insertContacts, insertMarketingActivity } from '../src/modules/crm/crm.data.js';
import { changeAccount, createAccount } from '../src/modules/crm/accounts.service.js';
import type { AccountInput, AddressInput } from '../src/modules/crm/accounts.rules.js';
import { insertDelegate, insertDelegates, type DelegateRow } from '../src/modules/delegates/delegates.data.js';
import { recordAttendance, registerContacts } from '../src/modules/delegates/learners.service.js';
import { documentUrls, insertDocument, setDocumentUrl } from '../src/modules/documents/documents.data.js';
import { eventsByIds, insertEvent, type EventRow, type NewEvent } from '../src/modules/events/events.data.js';
import { createEventSessions, layoutOf, updateSession, type SessionUpdateInput } from '../src/modules/events/sessions.service.js';
import type { SessionRow } from '../src/modules/events/sessions.data.js';
import { appendObjectives, insertLearningPath } from '../src/modules/learning-paths/learning-paths.data.js';
import { LEARNING_PATH_TRANSLATED } from '../src/modules/learning-paths/learning-paths.service.js';
import { enableLocale } from '../src/modules/locales/locales.service.js';
import { insertLocation, type LocationRow } from '../src/modules/locations/locations.data.js';
import { addPortal } from '../src/modules/portals/portals.service.js';
import {
  describePriceLevel,
  insertPriceLevel,
  insertRegion,
  priceLevelNamed,
  setCurrencyActive,
  setPrice,
  type PriceOwner,
} from '../src/modules/pricing/pricing.data.js';
import { addEventStaff, addSessionStaff } from '../src/modules/staff/staff.service.js';
import { createVenue } from '../src/modules/venues/venues.service.js';
import type { Problem } from '../src/platform/problems.js';
import type { TranslatedKind } from '../src/modules/translations/translations.service.js';
import { upsertTranslation } from '../src/modules/translations/translations.service.js';
import { ConflictError } from '../src/platform/errors.js';
import { insertTaxType } from '../src/modules/tax-types/tax-types.data.js';
import { createPaymentType, createStockItem } from '../src/modules/orders/order-settings.service.js';
import { requestTenantStats } from '../src/modules/tenant-stats/tenant-stats.service.js';
import { setUserContact } from '../src/modules/users/users.data.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import { loadConfig, platformBaseUrl, type Config } from '../src/platform/config.js';
import { demoImageUrl, demoPictureFiles } from './images/index.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { activeTenantBySlug, tenantSlugTaken, toTenant } from '../src/platform/tenancy/tenants.data.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';

/** Local demo credentials, printed by `npm start`. Only ever seeded outside production. */
export const DEMO = {
  slug: 'demo',
  name: 'Demo Training Ltd',
  email: 'admin@demo.test',
  password: 'lectern-demo',
  portal: 'www.demo-training.test',
  /** Its second website, for its courses (Core's `portals` lists both). */
  coursesPortal: 'courses.demo-training.test',
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

/**
 * The contacts: [first name, last name, job title, company (an index of COMPANIES; null: the demo's
 * own people, staff), columns of their own]. The demo's own people: Chloe teaches and is staff,
 * Marcus is a freelance trainer (an instructor, not staff), Priya runs the courses (staff, an
 * administrator of the instance: the demo admin user is her). Added at the end: ids stay.
 */
const CONTACTS: readonly (readonly [
  string,
  string,
  string,
  number | null,
  { middle_name?: string; is_tutor?: boolean; is_staff?: boolean; is_admin?: number }?,
])[] = [
  ['Amelia', 'Hughes', 'Operations Manager', 0],
  ['Oliver', 'Patel', 'Fleet Supervisor', 0, { middle_name: 'James' }],
  ['Isla', 'Murphy', 'Clinical Lead', 1],
  ['George', 'Okafor', 'Ward Manager', 1],
  ['Sofia', 'Kowalska', 'Mechanical Engineer', 2],
  ['Liam', 'Byrne', 'Site Safety Officer', 2],
  ['Chloe', 'Nguyen', 'Trainer', null],
  ['Marcus', 'Reid', 'Freelance Trainer', null, { is_staff: false }],
  ['Priya', 'Shah', 'Training Administrator', null, { is_tutor: false, is_admin: 1 }],
];

/** The rooms of a training centre (Core's `venues`). */
interface CentreVenues {
  mainHall: number;
  room2: number;
  trainingSuite: number;
  toBeConfirmed?: number;
}

/** What the catalogue adds to: the first categories, templates, locations, venues, tax type and learners. */
interface SeededBasics {
  categories: { healthAndSafety: number; leadership: number; firstAid: number };
  templates: { faw: number; teams: number };
  events: { faw: EventRow; teams: EventRow };
  locations: { london: LocationRow; manchester: LocationRow };
  venues: { london: CentreVenues; manchester: CentreVenues; clientSite: number };
  vat: number;
  /** The named learners of the London First Aid at Work event (its first two contacts). */
  fawLearners: DelegateRow[];
}

/** Fails the seed with what a service refused: the demo's writes go through the rules, and must pass them. */
function must<T extends { problems: Problem[] }>(what: string, answer: T): T {
  if (answer.problems.length) throw new Error(`demo ${what}: ${JSON.stringify(answer.problems)}`);
  return answer;
}

/**
 * The rooms of the two training centres (the last of London's a placeholder while a room is
 * booked) and one venue of no centre: a customer's own premises.
 */
async function seedVenues(db: Db, london: LocationRow, manchester: LocationRow): Promise<SeededBasics['venues']> {
  const venue = async (name: string, description: string | null, location: LocationRow | null) =>
    must(`venue ${name}`, await createVenue(db, { name, description, location: location ? { id: location.id } : null })).venue!.id;
  return {
    london: {
      mainHall: await venue('Main Hall', 'Ground floor, seats 40: projector, first aid manikins and a defibrillator trainer.', london),
      room2: await venue('Room 2', 'First floor, seats 12 around one table.', london),
      trainingSuite: await venue('Training Suite', 'Second floor, seats 20, with a breakout room.', london),
      toBeConfirmed: await venue('To be confirmed', 'A room at the centre, named once it is booked.', london),
    },
    manchester: {
      mainHall: await venue('Main Hall', 'Seats 30, step-free access.', manchester),
      room2: await venue('Room 2', 'Seats 10.', manchester),
      trainingSuite: await venue('Training Suite', 'Seats 16, with a practical area for manual handling.', manchester),
    },
    clientSite: await venue('Client site', "At the customer's premises: the address is in the joining instructions.", null),
  };
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
  const venues = await seedVenues(db, london, manchester);
  const vat = await insertTaxType(db, { name: 'Standard VAT', rate: 20 });
  await insertTaxType(db, { name: 'Zero rated', rate: 0 });
  const inLondon = {
    location: 'London',
    location_id: london.id,
    venue_id: venues.london.mainHall,
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
    venue_id: null,
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
  const fawLearners: DelegateRow[] = [];
  for (const contact_id of people)
    fawLearners.push(await insertDelegate(db, { event_id: fawEvent.id, contact_id, registration_id: null, comms_contact_id: null }));
  await insertDelegates(db, [{ event_id: fawEvent.id, num_places: 2 }]);
  return {
    categories: { healthAndSafety: hs!.id, leadership: lead!.id, firstAid: firstAid!.id },
    templates: { faw: faw.id, teams: teams.id },
    events: { faw: fawEvent, teams: teamsEvent },
    locations: { london, manchester },
    venues,
    vat: vat.id,
    fawLearners,
  };
}

/**
 * Where the demo's pictures are served unless told: the platform address of the embedded default
 * (`http://localhost:3000`), as the configuration's defaults make it.
 */
const defaultImagesBase = () => platformBaseUrl(loadConfig({}));

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
  /** single: each of its events is one session (Core `sessionLayout`); else one a day. */
  sessionLayout?: 'single';
}

/** The templates the demo had before its catalogue (their texts and events stay as they were). */
const EXISTING: Record<'FAW' | 'LT1', Pick<DemoCourse, 'french' | 'teaser' | 'image' | 'price' | 'events'>> = {
  FAW: {
    french: null,
    teaser: 'Three days to become your workplace\u2019s qualified first aider, with a certificate valid for three years.',
    image: 'first-aid.svg',
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
    image: 'leading-teams.svg',
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
    image: 'emergency-first-aid.svg',
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
    image: 'fire-safety.svg',
    price: { amount: '95', currency: 'GBP' },
    sessionLayout: 'single',
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
    image: 'mental-health.svg',
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
    image: 'manual-handling.svg',
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
    image: 'coaching.svg',
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
    image: 'project-management.svg',
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
    // The London courses in the Main Hall, Manchester's in its Training Suite.
    venue_id: e.venue === 'london' ? basics.venues.london.mainHall : basics.venues.manchester.trainingSuite,
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
async function seedCatalogue(db: Db, basics: SeededBasics, today: Date, imagesBase: string): Promise<DemoCatalogue> {
  await enableLocale(db, 'fr');
  const normal = (await priceLevelNamed(db, 'Normal'))!.id;
  const monday = mondayAfter(today);
  const priced = (owner: PriceOwner, id: number, price: { amount: string; currency: string }) =>
    setPrice(db, owner, id, { price_level_id: normal, currency_code: price.currency, amount: price.amount });
  const picture = (file: string, name: string) =>
    insertDocument(db, { name, url: demoImageUrl(imagesBase, file), folder: DEMO_PICTURES_FOLDER, description: `Image of ${name}` });
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
      ...(course.sessionLayout ? { session_layout: course.sessionLayout } : {}),
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
      image: 'workplace-safety.svg',
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
      image: 'new-manager.svg',
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

/** A postal address as an account write takes it (the country an ISO code, as the GraphQL face decodes it). */
const address = (a: Omit<AddressInput, 'country'> & { country: string }): AddressInput => ({
  ...a,
  country: { given: a.country, code: a.country },
});

/**
 * Accounts as integrators read them: the customers' addresses (two lines, a region, a province
 * code and a contact person; a billing address for Northwind, a shipping one for Contoso), a
 * partner that books for its own clients, and the demo's own trading company (the UK region's).
 * Written through the account rules, as `account { create update }` writes them.
 */
async function seedAccounts(db: Db, companyIds: number[]): Promise<{ trading: number; partner: number }> {
  const [northwind, contoso, fabrikam] = companyIds as [number, number, number];
  const change = async (id: number, input: AccountInput) => must(`account ${id}`, await changeAccount(db, id, input));
  await change(northwind, {
    postalAddresses: [
      {
        usage: 'default',
        address: address({
          lines: ['Northwind House', '1 Long Lane'],
          town: 'London',
          region: 'Greater London',
          postcode: 'EC1A 1BB',
          country: 'GB',
          provinceCode: 'LND',
          contactPerson: 'Amelia Hughes',
        }),
      },
      {
        usage: 'billing',
        address: address({
          lines: ['Accounts Payable', 'PO Box 4410'],
          town: 'London',
          postcode: 'EC1P 1AA',
          country: 'GB',
          contactPerson: 'Finance team',
        }),
      },
    ],
  });
  await change(contoso, {
    website: 'https://www.contoso-health.example',
    postalAddresses: [
      {
        usage: 'default',
        address: address({
          lines: ['Contoso House', '10 Piccadilly'],
          town: 'Manchester',
          region: 'Greater Manchester',
          postcode: 'M1 1AE',
          country: 'GB',
          provinceCode: 'MAN',
          contactPerson: 'Isla Murphy',
        }),
      },
      {
        usage: 'shipping',
        address: address({
          lines: ['Goods In, Learning Centre', 'Oxford Road'],
          town: 'Manchester',
          postcode: 'M13 9WL',
          country: 'GB',
          contactPerson: 'George Okafor',
        }),
      },
    ],
  });
  await change(fabrikam, {
    postalAddresses: [
      {
        usage: 'default',
        address: address({
          lines: ['Block B, Fabrikam Park', 'Sir John Rogerson\u2019s Quay'],
          town: 'Dublin',
          region: 'County Dublin',
          postcode: 'D02 X285',
          country: 'IE',
          provinceCode: 'D',
          contactPerson: 'Sofia Kowalska',
        }),
      },
    ],
  });
  const create = async (input: AccountInput) => must(`account ${input.name}`, await createAccount(db, input)).account!.id;
  const partner = await create({
    name: 'Pinnacle Training Partners',
    emailAddress: 'bookings@pinnacle-training.example',
    website: 'https://www.pinnacle-training.example',
    isPartner: true,
    postalAddresses: [
      {
        usage: 'default',
        address: address({
          lines: ['Suite 5, Pinnacle House', '22 Park Row'],
          town: 'Leeds',
          region: 'West Yorkshire',
          postcode: 'LS1 5JL',
          country: 'GB',
          contactPerson: 'Bookings desk',
        }),
      },
    ],
  });
  const trading = await create({
    name: DEMO.name,
    emailAddress: 'accounts@demo.test',
    website: `https://${DEMO.portal}`,
    postalAddresses: [
      {
        usage: 'default',
        address: address({ lines: ['Riverside Training Centre', '12 Wharf Road'], town: 'London', postcode: 'N1 7GR', country: 'GB' }),
      },
    ],
  });
  return { trading, partner };
}

/**
 * The reference data behind prices: what the Normal level is for and a Member level; the UK (the
 * demo's trading company, Standard VAT) and Ireland as regions, with regional Normal prices
 * beside the ones for every region (websites keep showing those); US dollars known but not in use.
 */
async function seedPriceReference(db: Db, basics: SeededBasics, catalogue: DemoCatalogue, trading: number): Promise<void> {
  const normal = (await priceLevelNamed(db, 'Normal'))!;
  await describePriceLevel(db, normal.id, 'The price websites show');
  const member = await insertPriceLevel(db, 'Member', 'For members of a partner scheme: about 15% off the Normal price');
  const uk = await insertRegion(db, { code: 'UK', name: 'United Kingdom', company_id: trading, default_tax_type_id: basics.vat });
  const ie = await insertRegion(db, { code: 'IE', name: 'Ireland' });
  const course = (code: string) => catalogue.courses.find((c) => c.code === code)!;
  for (const [code, region] of [
    ['FAW', uk],
    ['EFAW', uk],
    ['MHE', ie],
  ] as const) {
    const c = course(code);
    await setPrice(db, 'course_template', c.id, {
      price_level_id: normal.id,
      currency_code: c.price.currency,
      amount: c.price.amount,
      region_id: region.id,
    });
  }
  for (const [code, amount] of [
    ['FAW', '335'],
    ['EFAW', '99'],
  ] as const) {
    await setPrice(db, 'course_template', course(code).id, { price_level_id: member.id, currency_code: 'GBP', amount });
  }
  await setCurrencyActive(db, 'USD', false);
}

/**
 * The schedule as integrators sync it: every event's sessions (as `createClassroom`,
 * `createBlended` and `createLMS` make them: one a day, one over an online period, one for Fire
 * Safety's single layout), some published, one moved to another room, one cancelled; instructors
 * and an administrator on events and sessions (booked through the staff rules: nobody teaches two
 * sessions at once); learners with attendance, a cancelled one, one on two events, one whose
 * access expires. The instructors' bookings hold whatever day the demo is seeded: Chloe teaches
 * the London First Aid at Work (Wednesday to Friday, fixed dates) and the blended Mental Health
 * First Aid (Monday and Tuesday), Marcus day 2 of the first (a Thursday) and an Emergency First
 * Aid (a Tuesday).
 */
async function seedSchedule(
  db: Db,
  basics: SeededBasics,
  catalogue: DemoCatalogue,
  contacts: Record<string, number>,
  today: Date,
): Promise<void> {
  // Sessions for every event, in id order.
  const eventIds = catalogue.courses.flatMap((c) => c.events.map((e) => e.id)).sort((a, b) => a - b);
  const events = new Map((await eventsByIds(db, eventIds)).map((e) => [e.id, e]));
  const templateIds = [...new Set([...events.values()].map((e) => e.course_template_id!))];
  const templates = new Map((await courseTemplatesByIds(db, templateIds)).map((t) => [t.id, t]));
  const sessions = new Map<number, SessionRow[]>();
  for (const id of eventIds) {
    const event = events.get(id)!;
    sessions.set(id, await createEventSessions(db, event, layoutOf(templates.get(event.course_template_id!))));
  }
  const course = (code: string) => catalogue.courses.find((c) => c.code === code)!;
  const faw = basics.events.faw.id;
  const mhfa = course('MHFA').events[0]!.id; // blended, London
  const efaw = course('EFAW').events[0]!.id; // London, a Tuesday
  const pme = course('PME').events[1]!.id; // London, three days
  const fsaOnline = course('FSA').events[0]!.id; // online (LMS)
  const change = async (session: SessionRow, input: SessionUpdateInput) =>
    must(`session ${session.id}`, await updateSession(db, session.id, input, []));
  const [fawDay1, fawDay2, fawDay3] = sessions.get(faw)!;
  for (const s of [fawDay1!, fawDay2!, fawDay3!, ...sessions.get(mhfa)!, ...sessions.get(efaw)!]) {
    await change(s, { lifecycleState: 'published' });
  }
  // Day 2's practical is in the Training Suite; the events' other sessions are where their event is.
  await change(fawDay2!, { venue: { id: basics.venues.london.trainingSuite } });
  await change(sessions.get(pme)!.at(-1)!, { lifecycleState: 'cancelled' });

  // Staff: who teaches and who runs the courses.
  const { Chloe: chloe, Marcus: marcus, Priya: priya } = contacts as Record<'Chloe' | 'Marcus' | 'Priya', number>;
  must(
    'staff of First Aid at Work',
    await addEventStaff(
      db,
      [
        { eventId: faw, contactId: chloe!, staffType: 'instructor', notes: 'Lead trainer' },
        { eventId: faw, contactId: priya!, staffType: 'administrator', notes: 'Joining instructions and certificates' },
        { eventId: faw, contactId: marcus!, staffType: 'instructor', requiredSessionsOnly: true, notes: 'Assesses the practical on day 2' },
      ],
      true,
    ),
  );
  must('staff of day 2', await addSessionStaff(db, { sessionId: fawDay2!.id, contactIds: [marcus!], staffType: 'instructor' }));
  must(
    'staff of Mental Health First Aid',
    await addEventStaff(
      db,
      [
        { eventId: mhfa, contactId: chloe!, staffType: 'instructor' },
        { eventId: mhfa, contactId: priya!, staffType: 'administrator' },
      ],
      true,
    ),
  );
  const efawSession = sessions.get(efaw)![0]!;
  must(
    'instructor of Emergency First Aid',
    await addSessionStaff(db, { sessionId: efawSession.id, contactIds: [marcus!], staffType: 'instructor' }),
  );
  must(
    'administrator of Emergency First Aid',
    await addSessionStaff(db, { sessionId: efawSession.id, contactIds: [priya!], staffType: 'administrator' }),
  );
  await replaceInstructors(db, basics.templates.faw, [chloe!, marcus!]);
  await replaceInstructors(db, course('MHFA').id, [chloe!]);
  await replaceInstructors(db, course('EFAW').id, [marcus!]);

  // Learners: attendance at First Aid at Work (both on day 1, Amelia on day 2 and Oliver not).
  const [amelia, oliver] = basics.fawLearners as [DelegateRow, DelegateRow];
  for (const [learner, session, attended] of [
    [amelia, fawDay1!, true],
    [oliver, fawDay1!, true],
    [amelia, fawDay2!, true],
    [oliver, fawDay2!, false],
  ] as const) {
    must(
      `attendance of learner ${learner.id}`,
      await recordAttendance(db, {
        learner: { id: learner.id, given: learner.id },
        session: { id: session.id, given: session.id },
        attended,
      }),
    );
  }
  // Amelia has places on two events; Isla joins her on the blended course.
  must(
    'learners of Mental Health First Aid',
    await registerContacts(
      db,
      { id: mhfa, given: mhfa },
      { contacts: [contacts.Amelia!, contacts.Isla!].map((id) => ({ id, given: id })) },
    ),
  );
  // A cancelled place (learner { reactivate } brings it back), and online access that ends.
  const lms = events.get(fsaOnline)!;
  await insertDelegates(db, [
    { event_id: basics.events.teams.id, contact_id: contacts.George!, cancelled_date: isoDate(today) },
    {
      event_id: fsaOnline,
      contact_id: contacts.Sofia!,
      expires_at: `${isoDate(plusDays(new Date(`${lms.end_date}T00:00:00Z`), 30))}T23:59:59`,
    },
  ]);
}

/** What the demo holds: its catalogue, and the contact the demo admin user is. */
export interface DemoContent extends DemoCatalogue {
  adminContactId: number;
}

/**
 * The demo's content in a tenant: companies, contacts, categories, course templates, events,
 * delegates, order settings, and the public catalogue (prices, images, learning paths, French
 * translations), its events scheduled after `today`; then what integrators read of people and
 * the schedule (accounts' addresses, venues, sessions, staff, learners' attendance, regions, price
 * levels). Tests use it to get a tenant like the demo. Its pictures' documents are absolute addresses
 * under `imagesBase`, Lectern's platform address (where src/app/demo-images.ts serves seeds/images/).
 */
export async function seedDemoContent(db: Db, today = new Date(), imagesBase = defaultImagesBase()): Promise<DemoContent> {
  const companyIds = await insertCompanies(db, COMPANIES);
  const contactIds = await insertContacts(
    db,
    CONTACTS.map(([first, last, job, company, own]) => ({
      first_name: first,
      last_name: last,
      job_title: job,
      email: `${first.toLowerCase()}.${last.toLowerCase()}@${company === null ? 'demo.test' : COMPANIES[company]!.email.split('@')[1]}`,
      company_id: company === null ? null : companyIds[company]!.id,
      organisation: company === null ? DEMO.name : COMPANIES[company]!.name,
      is_tutor: company === null,
      is_staff: company === null,
      ...own,
    })),
  );
  const contacts = Object.fromEntries(CONTACTS.map(([first], i) => [first, contactIds[i]!.id]));
  const basics = await seedEvents(
    db,
    companyIds.map((c) => c.id),
  );
  const catalogue = await seedCatalogue(db, basics, today, imagesBase);
  const { trading } = await seedAccounts(
    db,
    companyIds.map((c) => c.id),
  );
  await seedPriceReference(db, basics, catalogue, trading);
  await seedSchedule(db, basics, catalogue, contacts, today);
  return { ...catalogue, adminContactId: contacts.Priya! };
}

const DEMO_PICTURES_FOLDER = 'Catalogue images';

/** The demo's pictures as seeded before Lectern served them (a host that never existed), and as served since. */
const DEMO_PICTURE = /^(?:https:\/\/images\.demo-training\.test\/([a-z-]+)\.jpg|https?:\/\/[^/]+\/demo-images\/([a-z-]+)\.svg)$/;

/**
 * Points the demo's pictures at `base`: a demo seeded on another port, or before Lectern served
 * its pictures, shows them again. Only the demo's own documents move: in its pictures' folder, at
 * an address of one of its pictures.
 */
export async function pointDemoPictures(db: Db, base: string): Promise<number> {
  const files = demoPictureFiles();
  let moved = 0;
  for (const { id, url, folder } of await documentUrls(db)) {
    if (folder !== DEMO_PICTURES_FOLDER) continue;
    const m = DEMO_PICTURE.exec(url);
    const file = m && `${m[1] ?? m[2]}.svg`;
    if (!file || !files.has(file) || url === demoImageUrl(base, file)) continue;
    await setDocumentUrl(db, id, demoImageUrl(base, file));
    moved++;
  }
  return moved;
}

/**
 * Creates the `demo` tenant with an admin user (Priya Shah's: `users` names her), its content
 * ({@link seedDemoContent}, events scheduled from today) and its portals: its website's
 * (`www.demo-training.test`) and its courses site (`courses.demo-training.test`). Its pictures
 * are served by Lectern at `config`'s platform address (the process's configuration unless given).
 * Returns undefined when the tenant already exists: a second `npm start` keeps the data it has,
 * but points the demo's pictures at this start's address ({@link pointDemoPictures}).
 */
export async function seedDemo(knex: Knex, config: Config = loadConfig()): Promise<Tenant | undefined> {
  if (await tenantSlugTaken(knex, DEMO.slug)) {
    const row = await activeTenantBySlug(knex, DEMO.slug);
    if (row) await withTenant(knex, toTenant(row), (db) => pointDemoPictures(db, platformBaseUrl(config)));
    return undefined;
  }
  const tenant = await createTenant(knex, { slug: DEMO.slug, name: DEMO.name });
  await withTenant(knex, tenant, async (db) => {
    const content = await seedDemoContent(db, new Date(), platformBaseUrl(config));
    const admin = await createUser(db, { email: DEMO.email, password: DEMO.password, role: 'admin' });
    await setUserContact(db, admin.id, content.adminContactId);
    await requestTenantStats(db, tenant.id);
  });
  // The demo's website, for the WebLink example page (examples/weblink) and the plugins' way in,
  // and its courses site (Core's `portals` lists both).
  for (const domain of [DEMO.portal, DEMO.coursesPortal]) {
    await addPortal(knex, tenant, { domain, createdBy: 'seed:demo' }).catch((err: unknown) => {
      // Another instance of this database has it already: the demo goes without.
      if (!(err instanceof ConflictError)) throw err;
    });
  }
  return tenant;
}
