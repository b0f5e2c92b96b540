import { problem, type Problem } from '../../platform/problems.js';
import type { TranslatableEntity } from '../translations/index.js';

/**
 * Rules of categories, the topics of events. A category may be the sub category of another
 * (`parent_id`); the tree must stay a tree. Its name and introduction have translations, by the
 * rules of all translations (translations.rules.ts).
 */

/**
 * The translatable face of a category (Core: LearningCategoryTranslation). The name is one line of
 * at most 255 characters, as a category's own; the description (the category's introduction) at
 * most 10,000, stored as given, as REST stores the introduction. Categories have no primary locale
 * (any locale the instance supports may hold a translation) and no custom field values.
 */
export const CATEGORY_TRANSLATIONS = {
  entityName: 'Learning Category',
  idLabel: 'learningCategoryId',
  fields: {
    name: { column: 'name', richText: false, singleLine: true, maxLength: 255 },
    description: { column: 'introduction', richText: false, maxLength: 10000 },
  },
  kind: 'category',
  primaryLocale: false,
} as const satisfies TranslatableEntity;

/**
 * A new parent must not be the category itself or one of its descendants: that would make a
 * cycle. `parentIsSelfOrDescendant` is what the data says of the parent asked for.
 */
export function categoryParentProblems(parentId: number, parentIsSelfOrDescendant: boolean): Problem[] {
  return parentIsSelfOrDescendant ? [problem('parent_id', parentId, 'parent_id would make the category its own ancestor')] : [];
}
