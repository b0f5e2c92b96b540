import type { GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { wholeConnection, type Page } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { ContactObject } from '../crm/index.graphql.js';
import { contactsByIds, type ContactCard } from '../crm/index.js';
import { instructorsOf } from './course-templates.data.js';

/**
 * A course template's `approvedInstructors { edges { node { id legacyId firstName lastName } } }`:
 * the contacts approved to teach it, which integrations check before staffing an event and extend
 * with `courseTemplate { update(input: { approvedInstructors }) }` (the whole list). Contacts are
 * personal data: a template that lists any needs CONTACT_VIEW to show them.
 */

const LOADER = 'CourseTemplate.instructors';

const instructors = wholeConnection<ContactCard>('ApprovedInstructor', ContactObject);

/** Drops this request's approved instructors read so far (after a write that changed them). */
export const forgetInstructors = (ctx: GraphQLContext): void => ctx.forget(LOADER);

/** `approvedInstructors` of a course template, by contact id, all on one page (a page's templates and contacts in one statement each). */
export const approvedInstructorsField: GraphQLFieldConfig<{ id: number }, GraphQLContext> = {
  // Nullable: without CONTACT_VIEW the field is refused, not the whole template.
  type: instructors.type,
  description: 'The contacts approved to teach it (CONTACT_VIEW when there are any).',
  async resolve(template, _a, ctx): Promise<Page<ContactCard>> {
    const links = await ctx
      .loader(LOADER, (db) =>
        byOwner(
          (ids) => instructorsOf(db, ids),
          (r) => r.course_template_id,
        ),
      )
      .load(template.id);
    if (links.length) requirePermission(ctx, 'CONTACT_VIEW');
    const contacts = ctx.loader('CourseTemplate.instructorContacts', (db) => byId((ids) => contactsByIds(db, ids)));
    const nodes: ContactCard[] = (await Promise.all(links.map((l) => contacts.load(l.contact_id)))).flatMap((c) => (c ? [c] : []));
    return instructors.page(ctx, nodes);
  },
};
