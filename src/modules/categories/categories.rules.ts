import { problem, type Problem } from '../../platform/problems.js';

/**
 * Rules of categories, the topics of events. A category may be the sub category of another
 * (`parent_id`); the tree must stay a tree.
 */

/**
 * A new parent must not be the category itself or one of its descendants: that would make a
 * cycle. `parentIsSelfOrDescendant` is what the data says of the parent asked for.
 */
export function categoryParentProblems(parentId: number, parentIsSelfOrDescendant: boolean): Problem[] {
  return parentIsSelfOrDescendant ? [problem('parent_id', parentId, 'parent_id would make the category its own ancestor')] : [];
}
