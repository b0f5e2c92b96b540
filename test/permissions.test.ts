import test from 'ava';
import { hasPermission } from '../src/platform/permissions.js';

test('admin (*) has every permission; viewer (*_VIEW) every view permission and no edit one', (t) => {
  t.true(hasPermission(['*'], 'COURSE_TEMPLATE_EDIT'));
  t.true(hasPermission(['*_VIEW'], 'LEARNING_PATH_VIEW'));
  t.false(hasPermission(['*_VIEW'], 'LEARNING_PATH_EDIT'));
  t.true(hasPermission(['COURSE_TEMPLATE_VIEW'], 'COURSE_TEMPLATE_VIEW'));
  t.false(hasPermission(['COURSE_TEMPLATE_VIEW'], 'COURSE_TEMPLATE_EDIT'));
  t.false(hasPermission([], 'COURSE_TEMPLATE_VIEW'));
});
