import type { SchemaMigration } from '../../src/platform/db/migration-source.js';
import * as m001 from './001_platform.js';
import * as m002 from './002_legacy_usage.js';
import * as m003 from './003_platform_admins.js';
import * as m004 from './004_oauth.js';
import * as m005 from './005_outbox_namespace.js';
import * as m006 from './006_outbox_settled.js';
import * as m007 from './007_portals.js';
import * as m008 from './008_token_changes.js';
import * as m009 from './009_access_generations.js';
import * as m010 from './010_counters.js';
import * as m011 from './011_webhook_log_prunes.js';

/** Platform migrations, in order. A test checks that every file in this folder is listed. */
export const platformMigrations: readonly SchemaMigration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011];
