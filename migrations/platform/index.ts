import type { SchemaMigration } from '../../src/db/migration-source.js';
import * as m001 from './001_platform.js';
import * as m002 from './002_legacy_usage.js';
import * as m003 from './003_platform_admins.js';

/** Platform migrations, in order. A test checks that every file in this folder is listed. */
export const platformMigrations: readonly SchemaMigration[] = [m001, m002, m003];
