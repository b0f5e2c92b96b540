import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { insertCategories } from '../../src/modules/categories/categories.data.js';
import { updateCourseTemplateRow } from '../../src/modules/course-templates/course-templates.data.js';
import { insertCompanies, insertContacts } from '../../src/modules/crm/crm.data.js';
import { insertDocument } from '../../src/modules/documents/documents.data.js';
import { insertEvent } from '../../src/modules/events/events.data.js';
import { insertPriceLevel, insertRegion, priceLevelNamed, setPrice } from '../../src/modules/pricing/pricing.data.js';
import { insertTaxType } from '../../src/modules/tax-types/tax-types.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Core `courseTemplates` and `courseTemplate(id:)` as integrations call them (real-clients.md
 * section 3): filters typed `[CourseTemplateFieldGraphFilter]!` or without `!`, the order
 * `CourseTemplateFieldGraphOrder` by name, and templates with their image, gallery, learning
 * categories, public prices (`... on Currency { symbol }`), introduction, short code and the
 * learning mode of their events.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const tid = (name: string) => toGlobalId('CourseTemplate', ids[name]!);

test.serial.before(async () => {
  f = await graphqlFixture('gctc');
  const create = async (input: Record<string, unknown>) => {
    const d = await f.data(
      f.admin,
      `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { legacyId } errors { label message } } } }`,
      { input },
    );
    if (d.courseTemplate.create.errors.length) throw new Error(JSON.stringify(d.courseTemplate.create.errors));
    return d.courseTemplate.create.courseTemplate.legacyId as number;
  };
  ids.excel = await create({
    title: 'Excel Basics',
    code: 'XL1',
    shortCode: 'XL',
    eventLearningMode: 'BLENDED',
    lifecycleState: 'published',
    courseText2: '<p>Learn Excel in a day</p>',
    lmsSummary: 'Online modules on formulas',
  });
  ids.word = await create({ title: 'Advanced Word', code: 'WD2', lifecycleState: 'published', courseText2: 'Styles and templates' });
  ids.time = await create({ title: 'Time Management', code: 'TM1', lifecycleState: 'draft' });
  ids.budget = await create({ title: 'Budgeting', code: 'BG1', lifecycleState: 'cancelled', eventLearningMode: 'LMS' });
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const [software] = await insertCategories(db, [{ name: 'Software', priority: 1, introduction: 'Office tools' }]);
    const [spreadsheets] = await insertCategories(db, [
      { name: 'Spreadsheets', priority: 1, introduction: 'Excel and friends', parent_id: software!.id },
    ]);
    ids.software = software!.id;
    ids.spreadsheets = spreadsheets!.id;
    const image = await insertDocument(db, {
      name: 'excel.png',
      description: 'A spreadsheet on a laptop',
      folder: 'Course images',
      url: 'https://cdn.example.com/excel.png',
    });
    ids.image = image.id;
    await updateCourseTemplateRow(db, ids.excel!, { category_id: ids.spreadsheets, image_document_id: image.id });
    const vat = await insertTaxType(db, { name: 'UK VAT', rate: 20 });
    const [company] = await insertCompanies(db, [{ name: 'Acme Training Ltd' }]);
    ids.company = company!.id;
    ids.vat = vat.id;
    const uk = await insertRegion(db, { code: 'UK', name: 'United Kingdom', company_id: company!.id, default_tax_type_id: vat.id });
    const us = await insertRegion(db, { code: 'US', name: 'United States' });
    ids.uk = uk.id;
    ids.us = us.id;
    const normal = (await priceLevelNamed(db, 'Normal'))!;
    const member = await insertPriceLevel(db, 'Member');
    ids.normal = normal.id;
    ids.member = member.id;
    ids.priceGbp = (
      await setPrice(db, 'course_template', ids.excel!, { price_level_id: normal.id, currency_code: 'GBP', amount: '495.00' })
    ).id;
    ids.priceUk = (
      await setPrice(db, 'course_template', ids.excel!, {
        price_level_id: normal.id,
        currency_code: 'GBP',
        amount: '450.00',
        region_id: uk.id,
      })
    ).id;
    ids.priceEur = (
      await setPrice(db, 'course_template', ids.excel!, { price_level_id: member.id, currency_code: 'EUR', amount: '400.50' })
    ).id;
    await setPrice(db, 'course_template', ids.word!, {
      price_level_id: normal.id,
      currency_code: 'USD',
      amount: '100.00',
      region_id: us.id,
    });
    await insertEvent(db, { title: 'Time Management - June', course_template_id: ids.time });
    const [ada, grace] = await insertContacts(db, [
      { first_name: 'Ada', last_name: 'Lovelace' },
      { first_name: 'Grace', last_name: 'Hopper' },
    ]);
    ids.ada = ada!.id;
    ids.grace = grace!.id;
  });
});
test.after.always(async () => f?.close());

/** The fields the PHP SDK and the WordPress plugin select on each template. */
const TEMPLATE_FIELDS = `id legacyId lifecycleState code title introduction shortCode eventLearningMode
  image { id name description folder { id name } latest { revisionNumber } }
  imageGallery { edges { node { id name description latest { revisionNumber } } } }
  learningCategories { edges { node { id legacyId name description parentCategory { id legacyId name description } } } }
  publicPrices { edges { node { id amount priceLevel { id legacyId name } financialUnit { name __typename ... on Currency { symbol } } region { id name code company { id name } defaultTax { effectiveRate } } } } }
  accountAssociations { edges { node { account { id name } associationType { id name } } } }
  approvedInstructors { edges { node { id firstName lastName } } }`;

type Edge<T> = { node: T };
const titlesOf = (edges: Edge<{ title: string }>[]) => edges.map((e) => e.node.title);

test.serial(
  'when an integration lists templates by name with an empty filter list, then they come by title with their image, gallery, categories and public prices',
  async (t) => {
    const d = await f.data(
      f.admin,
      `query ($order: CourseTemplateFieldGraphOrder $filters: [CourseTemplateFieldGraphFilter]!) {
      courseTemplates(order: $order first: 25 offset: 0 filters: $filters) {
        pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
        edges { node { ${TEMPLATE_FIELDS} } }
      } }`,
      { filters: [], order: { field: 'name', direction: 'asc' } },
    );
    const list = d.courseTemplates;
    t.deepEqual(titlesOf(list.edges), ['Advanced Word', 'Budgeting', 'Excel Basics', 'Time Management']);
    t.like(list.pageInfo, { totalRecords: 4, hasNextPage: false, hasPreviousPage: false });
    const excel = list.edges[2].node;
    const image = { id: toGlobalId('Document', ids.image!), name: 'excel.png', description: 'A spreadsheet on a laptop' };
    t.deepEqual(excel.image, {
      ...image,
      folder: { id: Buffer.from('Folder:Course images').toString('base64'), name: 'Course images' },
      latest: { revisionNumber: 1 },
    });
    t.deepEqual(excel.imageGallery.edges, [{ node: { ...image, latest: { revisionNumber: 1 } } }]);
    t.deepEqual(excel.learningCategories.edges, [
      {
        node: {
          id: toGlobalId('LearningCategory', ids.spreadsheets!),
          legacyId: ids.spreadsheets,
          name: 'Spreadsheets',
          description: 'Excel and friends',
          parentCategory: {
            id: toGlobalId('LearningCategory', ids.software!),
            legacyId: ids.software,
            name: 'Software',
            description: 'Office tools',
          },
        },
      },
    ]);
    const uk = {
      id: toGlobalId('Region', ids.uk!),
      name: 'United Kingdom',
      code: 'UK',
      company: { id: toGlobalId('Company', ids.company!), name: 'Acme Training Ltd' },
      defaultTax: { effectiveRate: 20 },
    };
    const normal = { id: toGlobalId('PriceLevel', ids.normal!), legacyId: ids.normal, name: 'Normal' };
    const pound = { name: 'British Pound', __typename: 'Currency', symbol: '£' };
    t.deepEqual(excel.publicPrices.edges, [
      { node: { id: toGlobalId('Price', ids.priceUk!), amount: '450.00', priceLevel: normal, financialUnit: pound, region: uk } },
      { node: { id: toGlobalId('Price', ids.priceGbp!), amount: '495.00', priceLevel: normal, financialUnit: pound, region: null } },
      {
        node: {
          id: toGlobalId('Price', ids.priceEur!),
          amount: '400.50',
          priceLevel: { id: toGlobalId('PriceLevel', ids.member!), legacyId: ids.member, name: 'Member' },
          financialUnit: { name: 'Euro', __typename: 'Currency', symbol: '€' },
          region: null,
        },
      },
    ]);
    t.like(excel, {
      code: 'XL1',
      lifecycleState: 'published',
      introduction: '<p>Learn Excel in a day</p>',
      shortCode: 'XL',
      eventLearningMode: 'BLENDED',
    });
    t.deepEqual(excel.accountAssociations, { edges: [] });
    t.deepEqual(excel.approvedInstructors, { edges: [] });
    const word = list.edges[0].node;
    t.is(word.image, null);
    t.deepEqual(word.imageGallery.edges, []);
    t.deepEqual(word.learningCategories.edges, []);
    t.like(word.publicPrices.edges[0].node, {
      amount: '100.00',
      financialUnit: { name: 'US Dollar', symbol: '$' },
      region: { code: 'US', company: null, defaultTax: null },
    });
    t.like(word, { shortCode: null, eventLearningMode: 'CLASSROOM', introduction: 'Styles and templates' });
  },
);

test.serial(
  'when an integration looks a template up by an id filter, or by courseTemplate(id:), then it gets the same template',
  async (t) => {
    const byFilter = await f.data(
      f.admin,
      `query ($filters: [CourseTemplateFieldGraphFilter]!) { courseTemplates(filters: $filters) { edges { node { ${TEMPLATE_FIELDS} } } } }`,
      {
        filters: [{ field: 'id', operation: 'eq', value: tid('excel') }],
      },
    );
    t.is(byFilter.courseTemplates.edges.length, 1);
    const byId = await f.data(f.admin, `query ($id: ID!) { courseTemplate(id: $id) { ${TEMPLATE_FIELDS} } }`, { id: tid('excel') });
    t.deepEqual(byId.courseTemplate, byFilter.courseTemplates.edges[0].node);
    t.is(byId.courseTemplate.title, 'Excel Basics');
    // What the customer's sync service reads of one template.
    const acted = await f.data(
      f.admin,
      `query ($id: ID!) { courseTemplate(id: $id) { id code title eventLearningMode shortCode learningCategories { edges { node { name } } } } }`,
      { id: tid('budget') },
    );
    t.deepEqual(acted.courseTemplate, {
      id: tid('budget'),
      code: 'BG1',
      title: 'Budgeting',
      eventLearningMode: 'LMS',
      shortCode: null,
      learningCategories: { edges: [] },
    });
  },
);

test.serial('when a website lists published templates by id, then only the published ones come, in id order', async (t) => {
  const d = await f.data(
    f.admin,
    `query ($order: CourseTemplateFieldGraphOrder $filters: [CourseTemplateFieldGraphFilter]!) { courseTemplates(order: $order first: 10 offset: 0 filters: $filters) { edges { node { title lifecycleState } } } }`,
    {
      filters: [{ field: 'lifecycleState', operation: 'eq', value: 'published' }],
      order: { field: 'id', direction: 'asc' },
    },
  );
  t.deepEqual(titlesOf(d.courseTemplates.edges), ['Excel Basics', 'Advanced Word']);
});

test.serial('when the filters are declared without ! and given, omitted or null, then they apply or list everything', async (t) => {
  const q = `query ($filters: [CourseTemplateFieldGraphFilter], $first: Int) { courseTemplates(filters: $filters, first: $first) { edges { node { id title code lifecycleState } } } }`;
  const search = await f.data(f.admin, q, {
    filters: [
      { field: 'title', operation: 'like', value: '%excel%' },
      { field: 'lifecycleState', operation: 'eq', value: 'published' },
    ],
    first: 20,
  });
  t.deepEqual(search.courseTemplates.edges, [
    { node: { id: tid('excel'), title: 'Excel Basics', code: 'XL1', lifecycleState: 'published' } },
  ]);
  t.is((await f.data(f.admin, q, { first: 20 })).courseTemplates.edges.length, 4);
  t.is((await f.data(f.admin, q, { filters: null })).courseTemplates.edges.length, 4);
  const paged = await f.data(
    f.admin,
    `query ($first: Int!, $offset: Int!) { courseTemplates(first: $first, offset: $offset) { pageInfo { hasNextPage endCursor } edges { node { code } } } }`,
    { first: 3, offset: 0 },
  );
  t.deepEqual(
    paged.courseTemplates.edges.map((e: Edge<{ code: string }>) => e.node.code),
    ['XL1', 'WD2', 'TM1'],
  );
  t.true(paged.courseTemplates.pageInfo.hasNextPage);
});

const titles = async (filters: unknown[], order: unknown = { field: 'name', direction: 'asc' }) =>
  titlesOf(
    (
      await f.data(
        f.admin,
        `query ($filters: [CourseTemplateFieldGraphFilter]!, $order: CourseTemplateFieldGraphOrder) { courseTemplates(filters: $filters, order: $order) { edges { node { title } } } }`,
        { filters, order },
      )
    ).courseTemplates.edges,
  );

test.serial(
  'when templates are filtered on name, code or title, introduction and LMS summary, then only those that match come',
  async (t) => {
    t.deepEqual(await titles([{ field: 'name', operation: 'eq', value: 'Budgeting' }]), ['Budgeting']);
    t.deepEqual(await titles([{ field: 'name', operation: 'wordlike', value: 'word' }]), ['Advanced Word']);
    t.deepEqual(await titles([{ field: 'codeOrTitle', operation: 'like', value: '%M%' }]), ['Time Management']);
    t.deepEqual(await titles([{ field: 'codeOrTitle', operation: 'like', value: 'wd%' }]), ['Advanced Word']);
    t.deepEqual(await titles([{ field: 'codeOrTitle', operation: 'eq', value: 'BG1' }]), ['Budgeting']);
    t.deepEqual(await titles([{ field: 'codeOrTitle', operation: 'eq', value: 'Excel Basics' }]), ['Excel Basics']);
    t.deepEqual(await titles([{ field: 'introduction', operation: 'like', value: '%templates%' }]), ['Advanced Word']);
    t.deepEqual(await titles([{ field: 'lmsSummary', operation: 'notnull' }]), ['Excel Basics']);
    t.deepEqual(await titles([{ field: 'shortCode', operation: 'eq', value: 'XL' }]), ['Excel Basics']);
  },
);

test.serial(
  'when templates are filtered on their category, prices, portal validity and events, then only those that match come',
  async (t) => {
    t.deepEqual(
      await titles([{ field: 'learningCategoryId', operation: 'eq', value: toGlobalId('LearningCategory', ids.spreadsheets!) }]),
      ['Excel Basics'],
    );
    t.deepEqual(await titles([{ field: 'learningCategoryId', operation: 'isnull' }]), ['Advanced Word', 'Budgeting', 'Time Management']);
    t.deepEqual(await titles([{ field: 'hasPriceInCurrency', operation: 'eq', value: 'GBP' }]), ['Excel Basics']);
    t.deepEqual(await titles([{ field: 'hasPriceInCurrency', operation: 'eq', value: Buffer.from('Currency:USD').toString('base64') }]), [
      'Advanced Word',
    ]);
    t.deepEqual(await titles([{ field: 'hasPriceInCurrency', operation: 'in', values: ['eur', 'USD'] }]), [
      'Advanced Word',
      'Excel Basics',
    ]);
    t.deepEqual(await titles([{ field: 'hasPriceInCurrency', operation: 'eq', value: 'JPY' }]), []);
    t.deepEqual(await titles([{ field: 'hasPriceInRegion', operation: 'eq', value: toGlobalId('Region', ids.uk!) }]), ['Excel Basics']);
    t.deepEqual(
      await titles([
        { field: 'hasPriceInRegion', operation: 'in', values: [toGlobalId('Region', ids.uk!), toGlobalId('Region', ids.us!)] },
      ]),
      ['Advanced Word', 'Excel Basics'],
    );
    t.deepEqual(await titles([{ field: 'isValidForPortal', operation: 'eq', value: 'true' }]), ['Advanced Word', 'Excel Basics']);
    t.deepEqual(await titles([{ field: 'isValidForPortal', operation: 'eq', value: 'false' }]), ['Budgeting', 'Time Management']);
    t.deepEqual(await titles([{ field: 'withNoEvents', operation: 'eq', value: 'true' }]), ['Advanced Word', 'Budgeting', 'Excel Basics']);
    t.deepEqual(await titles([{ field: 'withNoEvents', operation: 'eq', value: 'false' }]), ['Time Management']);
    t.deepEqual(
      await titles([
        { field: 'createdAt', operation: 'ge', value: '2000-01-01' },
        { field: 'updatedAt', operation: 'lt', value: '2000-01-01' },
      ]),
      [],
    );
    t.is((await titles([{ field: 'createdAt', operation: 'ge', value: '2000-01-01' }])).length, 4);
  },
);

test.serial('when templates are ordered by name or id, ascending or descending, then they come in that order', async (t) => {
  t.deepEqual(await titles([], { field: 'name', direction: 'desc' }), ['Time Management', 'Excel Basics', 'Budgeting', 'Advanced Word']);
  t.deepEqual(await titles([], { field: 'id', direction: 'desc' }), ['Budgeting', 'Time Management', 'Advanced Word', 'Excel Basics']);
  t.deepEqual(await titles([], { field: 'createdAt', direction: 'asc' }), [
    'Excel Basics',
    'Advanced Word',
    'Time Management',
    'Budgeting',
  ]);
});

test.serial(
  'when a filter names something Lectern has no data for, or a currency that is none, then the request fails with a clear message',
  async (t) => {
    const fails = async (filters: unknown[], message: RegExp) => {
      const res = await f.gql(
        f.admin,
        `query ($filters: [CourseTemplateFieldGraphFilter]!) { courseTemplates(filters: $filters) { edges { node { id } } } }`,
        { filters },
      );
      t.is(res.status, 200);
      t.is(res.json.data, null);
      t.regex(res.json.errors[0].message, message);
      t.is(res.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    };
    await fails(
      [{ field: 'scheduleType', operation: 'eq', value: 'fixed' }],
      /scheduleType cannot be filtered on: Lectern has no schedule types/,
    );
    await fails([{ field: 'levelId', operation: 'isnull' }], /levelId cannot be filtered on: Lectern has no course levels/);
    await fails([{ field: 'hasPriceInCurrency', operation: 'eq', value: 'pounds' }], /'pounds' is not a currency/);
    await fails([{ field: 'hasPriceInCurrency', operation: 'like', value: 'G%' }], /hasPriceInCurrency takes eq, in/);
    await fails([{ field: 'withNoEvents', operation: 'eq', value: 'yes' }], /'true' or 'false'/);
    await fails([{ field: 'codeOrTitle', operation: 'wordlike', value: 'Excel' }], /codeOrTitle takes eq, like/);
  },
);

test.serial(
  'when the short code or learning mode is updated, then it is stored; a short code of two lines is refused with a FieldError',
  async (t) => {
    const update = `mutation ($id: ID!, $input: CourseTemplateUpdateInput!) { courseTemplate { update(courseTemplateId: $id, input: $input) { courseTemplate { shortCode eventLearningMode } errors { label message value } } } }`;
    const ok = await f.data(f.admin, update, { id: tid('time'), input: { shortCode: 'TM', eventLearningMode: 'LMS' } });
    t.deepEqual(ok.courseTemplate.update, { courseTemplate: { shortCode: 'TM', eventLearningMode: 'LMS' }, errors: [] });
    const bad = await f.data(f.admin, update, { id: tid('time'), input: { shortCode: 'T\nM', eventLearningMode: 'CLASSROOM' } });
    t.deepEqual(bad.courseTemplate.update, {
      courseTemplate: null,
      errors: [{ label: 'shortCode', message: 'shortCode must be one line of at most 64 characters', value: 'T\nM' }],
    });
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('course_templates').where({ id: ids.time }).first('short_code', 'event_learning_mode'),
    );
    t.deepEqual(stored, { short_code: 'TM', event_learning_mode: 'lms' });
    await f.data(f.admin, update, { id: tid('time'), input: { shortCode: null, eventLearningMode: 'CLASSROOM' } });
  },
);

test.serial(
  'when a role may read templates but not categories, companies or tax types, then those parts are refused and the rest answers',
  async (t) => {
    const token = await f.tokenFor(f.tenant, 'templates-only', ['COURSE_TEMPLATE_VIEW']);
    const res = await f.gql(
      token,
      `query ($id: ID!) { courseTemplate(id: $id) { title learningCategories { edges { node { name } } } publicPrices { edges { node { amount region { code company { name } defaultTax { effectiveRate } } } } } } }`,
      { id: tid('excel') },
    );
    t.is(res.json.data.courseTemplate.title, 'Excel Basics');
    t.is(res.json.data.courseTemplate.learningCategories, null);
    t.deepEqual(res.json.errors.map((e: { message: string }) => e.message.replace(/.*lacks /, '')).sort(), [
      'CATEGORY_VIEW',
      'COMPANY_VIEW',
      'TAX_TYPE_VIEW',
    ]);
    t.deepEqual(
      res.json.data.courseTemplate.publicPrices.edges.map((e: Edge<{ amount: string }>) => e.node.amount),
      ['450.00', '495.00', '400.50'],
    );
    // A template with no category needs no CATEGORY_VIEW to say so.
    const word = await f.data(token, `query ($id: ID!) { courseTemplate(id: $id) { learningCategories { edges { node { name } } } } }`, {
      id: tid('word'),
    });
    t.deepEqual(word.courseTemplate.learningCategories.edges, []);
  },
);

test.serial(
  'when a page of templates selects images, categories and prices, then it costs as many statements for 4 templates as for 2',
  async (t) => {
    const statementsFor = async (first: number) => {
      const { sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
        f.data(
          f.admin,
          `query ($first: Int) { courseTemplates(first: $first, order: {field: name, direction: desc}) { edges { node { ${TEMPLATE_FIELDS} } } } }`,
          { first },
        ),
      );
      return { count: sql.length, edges: d.courseTemplates.edges.length };
    };
    // Both pages hold Excel Basics (image, category, prices in two regions): the larger adds templates without.
    // The token and its user are read on first use only (then cached): counted after that.
    await statementsFor(1);
    const small = await statementsFor(2);
    const large = await statementsFor(4);
    t.is(small.edges, 2);
    t.is(large.edges, 4);
    t.is(large.count, small.count, `statements: ${small.count} for 2, ${large.count} for 4`);
  },
);

test.serial(
  'when a sync service adds a public price with a Decimal string and then changes its amount, then the template lists it with that amount',
  async (t) => {
    const add = `mutation ($courseTemplateId: ID!, $priceLevelId: ID!, $amount: Decimal!, $financialUnitId: ID!, $regionId: ID!) {
    courseTemplate { addPublicPrices(input: {courseTemplateId: $courseTemplateId, priceLevelId: $priceLevelId, amount: $amount, financialUnitId: $financialUnitId, regionId: $regionId}) { prices { id amount } errors { label message value } } } }`;
    const gbp = Buffer.from('Currency:GBP').toString('base64');
    const added = await f.data(f.admin, add, {
      courseTemplateId: tid('time'),
      priceLevelId: toGlobalId('PriceLevel', ids.member!),
      amount: '495.00',
      financialUnitId: gbp,
      regionId: toGlobalId('Region', ids.uk!),
    });
    t.deepEqual(added.courseTemplate.addPublicPrices.errors, []);
    const [price] = added.courseTemplate.addPublicPrices.prices;
    t.is(price.amount, '495.00');
    const update = `mutation ($coursePriceId: ID!, $amount: Decimal!) { courseTemplate { updatePrices(input: {coursePriceId: $coursePriceId, amount: $amount}) { errors { label message value } } } }`;
    t.deepEqual((await f.data(f.admin, update, { coursePriceId: price.id, amount: 520.5 })).courseTemplate.updatePrices.errors, []);
    const listed = await f.data(
      f.admin,
      `query ($id: ID!) { courseTemplate(id: $id) { publicPrices { edges { node { id amount priceLevel { name } financialUnit { ... on Currency { symbol } } region { code } } } } } }`,
      { id: tid('time') },
    );
    t.deepEqual(listed.courseTemplate.publicPrices.edges, [
      { node: { id: price.id, amount: '520.50', priceLevel: { name: 'Member' }, financialUnit: { symbol: '£' }, region: { code: 'UK' } } },
    ]);
  },
);

test.serial(
  'when a price names no price level, currency or region, or an amount out of range, then it is refused with FieldErrors and nothing is written',
  async (t) => {
    const add = `mutation ($input: CourseTemplateAddPublicPricesInput!) { courseTemplate { addPublicPrices(input: $input) { prices { id } errors { label message value } } } }`;
    const input = {
      courseTemplateId: tid('budget'),
      priceLevelId: toGlobalId('PriceLevel', 9999),
      amount: '1.234',
      financialUnitId: 'XXX',
      regionId: toGlobalId('Location', 1),
    };
    const refused = await f.data(f.admin, add, { input });
    t.deepEqual(refused.courseTemplate.addPublicPrices, {
      prices: null,
      errors: [
        { label: 'amount', message: 'amount must be from 0 to 9999999999.99, with at most 2 decimals', value: '1.234' },
        { label: 'priceLevelId', message: 'Price Level not found', value: input.priceLevelId },
        { label: 'financialUnitId', message: 'Currency not found', value: 'XXX' },
        { label: 'regionId', message: 'Region not found', value: input.regionId },
      ],
    });
    const negative = await f.data(f.admin, add, {
      input: { ...input, priceLevelId: toGlobalId('PriceLevel', ids.normal!), amount: '-5', financialUnitId: 'EUR', regionId: null },
    });
    t.deepEqual(
      negative.courseTemplate.addPublicPrices.errors.map((e: { label: string }) => e.label),
      ['amount'],
    );
    const noTemplate = await f.data(f.admin, add, { input: { ...input, courseTemplateId: toGlobalId('CourseTemplate', 99999) } });
    t.deepEqual(noTemplate.courseTemplate.addPublicPrices.errors, [
      { label: 'courseTemplateId', message: 'Course Template not found', value: toGlobalId('CourseTemplate', 99999) },
    ]);
    const update = await f.data(
      f.admin,
      `mutation { courseTemplate { updatePrices(input: {coursePriceId: "${toGlobalId('Price', 99999)}", amount: "1.00"}) { errors { label message value } } } }`,
    );
    t.deepEqual(update.courseTemplate.updatePrices.errors, [
      { label: 'coursePriceId', message: 'Price not found', value: toGlobalId('Price', 99999) },
    ]);
    const notDecimal = await f.gql(f.admin, add, { input: { ...input, amount: 'lots' } });
    t.is(notDecimal.json.data, undefined);
    t.regex(notDecimal.json.errors[0].message, /"lots".*Decimal/);
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('prices').where({ course_template_id: ids.budget }).count('* as n').first(),
    );
    t.is(Number(stored!.n), 0);
  },
);

test.serial(
  "when a sync service finds an instructor missing from a template's approved list and sends the whole list, then the template lists those contacts",
  async (t) => {
    const approved = async (id: string) =>
      (
        await f.data(
          f.admin,
          `query ($courseId: String!) { courseTemplates(filters: [{ field: id, operation: eq, value: $courseId }]) { edges { node { approvedInstructors { edges { node { id legacyId firstName lastName } } } } } } }`,
          { courseId: id },
        )
      ).courseTemplates.edges[0].node.approvedInstructors.edges.map(
        (e: Edge<{ id: string; legacyId: number; firstName: string; lastName: string }>) => e.node,
      );
    const update = `mutation ($courseTemplateId: ID!, $approvedInstructorIds: [ID!]!) { courseTemplate { update(courseTemplateId: $courseTemplateId, input: { approvedInstructors: $approvedInstructorIds }) { courseTemplate { id lifecycleState } errors { label message value } } } }`;
    const ada = toGlobalId('Contact', ids.ada!);
    const grace = toGlobalId('Contact', ids.grace!);
    t.deepEqual(await approved(tid('word')), []);
    const first = await f.data(f.admin, update, { courseTemplateId: tid('word'), approvedInstructorIds: [ada] });
    t.deepEqual(first.courseTemplate.update, { courseTemplate: { id: tid('word'), lifecycleState: 'published' }, errors: [] });
    await f.data(f.admin, update, { courseTemplateId: tid('word'), approvedInstructorIds: [ada, grace, ada] });
    t.deepEqual(await approved(tid('word')), [
      { id: ada, legacyId: ids.ada, firstName: 'Ada', lastName: 'Lovelace' },
      { id: grace, legacyId: ids.grace, firstName: 'Grace', lastName: 'Hopper' },
    ]);
    // Another template's list is its own.
    t.deepEqual(await approved(tid('excel')), []);
    const unknown = toGlobalId('Contact', 99999);
    const refused = await f.data(f.admin, update, {
      courseTemplateId: tid('word'),
      approvedInstructorIds: [grace, unknown, toGlobalId('Location', ids.ada!)],
    });
    t.deepEqual(refused.courseTemplate.update, {
      courseTemplate: null,
      errors: [
        { label: 'approvedInstructors[1]', message: 'Contact not found', value: unknown },
        { label: 'approvedInstructors[2]', message: 'Contact not found', value: toGlobalId('Location', ids.ada!) },
      ],
    });
    t.is((await approved(tid('word'))).length, 2, 'a refused write changes nothing');
    await f.data(f.admin, update, { courseTemplateId: tid('word'), approvedInstructorIds: [] });
    t.deepEqual(await approved(tid('word')), []);
  },
);

test.serial(
  'when a role may read templates but not contacts, then approved instructors are refused and the template still answers',
  async (t) => {
    const update = `mutation ($id: ID!, $ids: [ID!]) { courseTemplate { update(courseTemplateId: $id, input: { approvedInstructors: $ids }) { courseTemplate { approvedInstructors { edges { node { firstName } } } } errors { message } } } }`;
    const written = await f.data(f.admin, update, { id: tid('budget'), ids: [toGlobalId('Contact', ids.grace!)] });
    t.deepEqual(written.courseTemplate.update.courseTemplate.approvedInstructors.edges, [{ node: { firstName: 'Grace' } }]);
    const token = await f.tokenFor(f.tenant, 'no-contacts', ['COURSE_TEMPLATE_VIEW']);
    const res = await f.gql(token, `query ($id: ID!) { courseTemplate(id: $id) { title approvedInstructors { edges { node { id } } } } }`, {
      id: tid('budget'),
    });
    t.deepEqual(res.json.data.courseTemplate, { title: 'Budgeting', approvedInstructors: null });
    t.regex(res.json.errors[0].message, /CONTACT_VIEW/);
    const cleared = await f.data(f.admin, update, { id: tid('budget'), ids: null });
    t.deepEqual(cleared.courseTemplate.update.courseTemplate.approvedInstructors.edges, []);
  },
);

test.serial(
  'when a role may edit templates but not read contacts names approved instructors, then it is refused alike for contacts that exist and do not, and nothing is written',
  async (t) => {
    const token = await f.tokenFor(f.tenant, 'edit-no-contacts', ['COURSE_TEMPLATE_VIEW', 'COURSE_TEMPLATE_EDIT']);
    const update = `mutation ($id: ID!, $input: CourseTemplateUpdateInput!) { courseTemplate { update(courseTemplateId: $id, input: $input) { courseTemplate { shortCode } errors { label message } } } }`;
    const answers = [];
    for (const contact of [toGlobalId('Contact', ids.ada!), toGlobalId('Contact', 99999)]) {
      const res = await f.gql(token, update, { id: tid('excel'), input: { shortCode: 'NEW', approvedInstructors: [contact] } });
      t.deepEqual(res.json.data, { courseTemplate: { update: null } });
      answers.push(res.json.errors.map((e: { message: string; extensions: { code: string } }) => [e.extensions.code, e.message]));
    }
    t.deepEqual(answers[0], [['FORBIDDEN', 'You do not have permission to do this: your role lacks CONTACT_VIEW']]);
    t.deepEqual(answers[1], answers[0], 'a missing contact is refused as an existing one is');
    const created = await f.gql(
      token,
      `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } } } }`,
      { input: { title: 'Sneaky', approvedInstructors: [] } },
    );
    t.is(created.json.errors[0].extensions.code, 'FORBIDDEN');
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
      instructors: await db('course_template_instructors').where({ course_template_id: ids.excel }).select('contact_id'),
      excel: await db('course_templates').where({ id: ids.excel }).first('short_code'),
      sneaky: await db('course_templates').where({ title: 'Sneaky' }).first('id'),
    }));
    t.deepEqual(stored, { instructors: [], excel: { short_code: 'XL' }, sneaky: undefined });
    // The rest of the template stays writable without CONTACT_VIEW.
    const other = await f.data(token, update, { id: tid('excel'), input: { shortCode: 'XL' } });
    t.deepEqual(other.courseTemplate.update, { courseTemplate: { shortCode: 'XL' }, errors: [] });
  },
);

test.serial('when a role may read templates but not events filters on withNoEvents, then it is refused, as the events are', async (t) => {
  const token = await f.tokenFor(f.tenant, 'templates-no-events', ['COURSE_TEMPLATE_VIEW']);
  const query = `query ($filters: [CourseTemplateFieldGraphFilter]!) { courseTemplates(filters: $filters) { edges { node { title } } } }`;
  for (const value of ['true', 'false']) {
    const res = await f.gql(token, query, { filters: [{ field: 'withNoEvents', operation: 'eq', value }] });
    t.is(res.json.data, null);
    t.deepEqual(
      res.json.errors.map((e: { extensions: { code: string; permission: string } }) => [e.extensions.code, e.extensions.permission]),
      [['FORBIDDEN', 'EVENT_VIEW']],
    );
  }
  // Its other filters answer.
  const d = await f.data(token, query, { filters: [{ field: 'isValidForPortal', operation: 'eq', value: 'true' }] });
  t.deepEqual(titlesOf(d.courseTemplates.edges).sort(), ['Advanced Word', 'Excel Basics']);
});
