import type { Knex } from '../../platform/db/knex.js';
import { listQuery, type FilterValue } from '../../kit/graphql/lists.js';
import { ContactObject, primeContacts } from './contacts.graphql.js';
import { Contact, CONTACT_ACCOUNT_NAME_SQL, whereStaffRoles, type ContactCard } from './crm.data.js';

/**
 * `contacts(filters, first, offset, after)`: the contacts of REST v2 `crm/contacts` (CONTACT_VIEW),
 * with the filters integrations send (real-clients.md section 5.B): a name as written (`name like
 * "Ada Lovelace"`: first and last name with one space, no `%` added), the staff flags, a staff
 * role's name, an e-mail address, an account. Ordered by id, so a cursor loop meets contacts
 * added meanwhile at its end.
 */

/** `staffRoleName`: see {@link whereStaffRoles} for the names. */
function staffRole(q: Knex.QueryBuilder, _db: Knex, operation: string, value: FilterValue | FilterValue[]): void {
  whereStaffRoles(
    q,
    (Array.isArray(value) ? value : [value]).map((v) => String(v)),
    operation === 'eq' || operation === 'in',
  );
}

export const contactsQuery = listQuery<ContactCard>({
  typeName: 'Contact',
  table: Contact.tableName,
  permission: 'CONTACT_VIEW',
  node: () => ContactObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Contact', orderable: true },
    name: {
      column: 'first_name',
      kind: 'text',
      expression: `trim(concat_ws(' ', nullif(trim(t.first_name), ''), nullif(trim(t.last_name), '')))`,
      orderable: true,
      description: 'First and last name with a space between ("Ada Lovelace"); `like` takes the value as given (add `%` for a part).',
    },
    firstName: { column: 'first_name', kind: 'text', orderable: true },
    lastName: { column: 'last_name', kind: 'text', orderable: true },
    emailAddress: {
      column: 'email',
      kind: 'text',
      expression: 'lower(t.email)',
      normalize: (v) => v.toLowerCase(),
      orderable: true,
      description: 'Compared without regard to case.',
    },
    isInstructor: { column: 'is_tutor', kind: 'bool', description: '"true" or "false": teaches (REST is_tutor).' },
    isStaff: { column: 'is_staff', kind: 'bool', description: '"true" or "false" (REST is_staff).' },
    isAdmin: { column: 'is_admin', kind: 'bool', expression: '(t.is_admin > 0)', description: '"true" or "false" (REST is_admin > 0).' },
    isStaffOrInstructor: { column: 'is_staff', kind: 'bool', expression: '(t.is_staff or t.is_tutor)' },
    staffRoleName: {
      column: 'is_tutor',
      kind: 'text',
      apply: staffRole,
      operations: ['eq', 'ne', 'in', 'notin'],
      description: '"Instructor" (isInstructor) or "Administrator" (isAdmin), without regard to case; another name matches no contact.',
    },
    accountId: { column: 'company_id', kind: 'ref', refType: 'Account', description: 'An Account id (REST company_id).' },
    accountName: { column: 'company_id', kind: 'text', expression: CONTACT_ACCOUNT_NAME_SQL, permission: 'COMPANY_VIEW' },
    createdAt: { column: 'created_on', kind: 'datetime', orderable: true },
  },
  prime: primeContacts,
});
