import type { SchemaMigration } from '../../src/platform/db/migration-source.js';
import * as m001 from './001_core.js';
import * as m002 from './002_events_crm.js';
import * as m003 from './003_event_delete_restrict.js';
import * as m004 from './004_orders.js';
import * as m005 from './005_translations.js';
import * as m006 from './006_default_delivery_locale.js';
import * as m007 from './007_event_delivery.js';
import * as m008 from './008_event_references.js';
import * as m009 from './009_catalogue.js';
import * as m010 from './010_teaser_translations.js';
import * as m011 from './011_event_core.js';
import * as m012 from './012_course_template_core.js';
import * as m013 from './013_reference_core.js';
import * as m014 from './014_category_translations.js';
import * as m015 from './015_identity_changes.js';
import * as m016 from './016_identity_generation.js';
import * as m017 from './017_webhooks.js';
import * as m018 from './018_people_schedule.js';
import * as m020 from './020_staff.js';
import * as m022 from './022_learners.js';

/** Tenant migrations, in order; each runs once per tenant schema. A test checks this list is complete. */
export const tenantMigrations: readonly SchemaMigration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m007,
  m008,
  m009,
  m010,
  m011,
  m012,
  m013,
  m014,
  m015,
  m016,
  m017,
  m018,
  m020,
  m022,
];
