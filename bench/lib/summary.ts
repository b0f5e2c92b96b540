import { readFile } from 'node:fs/promises';

/**
 * The summary table of `npm run bench -- all`: every row of the speed targets (issue 27's table,
 * docs/benchmarks.md "Every row in one run"), read back from the results files the benchmarks of
 * that run wrote, each with its floor and goal and whether the floor is met. A row whose figure a
 * benchmark did not write (it failed, or was not run) says so rather than guessing.
 */

type Figures = Record<string, unknown>;
type Better = 'higher' | 'lower';

export interface SummaryRow {
  row: string;
  bench: string;
  /** Whether a larger figure is better (a ratio to a floor) or a smaller one (memory, slow-down). */
  better: Better;
  floor: number;
  goal: number;
  unit: '' | 'x' | ' MB';
  measure(figures: Figures): { value: number; note?: string } | undefined;
}

/** `at(o, 'a', 'b')`: o.a.b, or undefined when any step is missing. */
function at(o: unknown, ...keys: (string | number)[]): unknown {
  let v = o;
  for (const k of keys) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Lectern's rate over another server's for one REST request type. */
function restRatio(request: string, other = 'one') {
  return (f: Figures) => {
    const lectern = num(at(f, 'results', request, 'lectern', 'rps'));
    const peer = num(at(f, 'results', request, other, 'rps'));
    return lectern !== undefined && peer ? { value: round2(lectern / peer) } : undefined;
  };
}

/** A row whose figure is one value its benchmark wrote, at `path`, with a note read from the same figures. */
function figure(path: string[], note?: (f: Figures) => string | undefined) {
  return (f: Figures) => {
    const value = num(at(f, ...path));
    return value === undefined ? undefined : { value, note: note?.(f) };
  };
}

/** The tenancy bench's tenant count, as a row's note. */
const tenantsNote = (f: Figures) => {
  const tenants = num(at(f, 'tenants'));
  return tenants ? `${tenants} tenants` : undefined;
};

/** The orders bench's entry for one queue backend. */
function ordersRun(f: Figures, backend: 'redis' | 'postgres'): Figures | undefined {
  const runs = at(f, 'results');
  return Array.isArray(runs) ? (runs.find((r) => at(r, 'backend') === backend) as Figures | undefined) : undefined;
}

function ordersVsFloor(backend: 'redis' | 'postgres') {
  return (f: Figures) => {
    const run = ordersRun(f, backend);
    const e2e = num(at(run, 'endToEnd', 'ordersPerSecond'));
    const floor = num(at(run, 'floor', 'ordersPerSecond'));
    const sqlFloor = num(at(run, 'sqlFloor', 'ordersPerSecond'));
    if (e2e === undefined || !floor) return undefined;
    return { value: round2(e2e / floor), note: sqlFloor ? `${round2(e2e / sqlFloor)} of the hand-written SQL floor` : undefined };
  };
}

export const SUMMARY_ROWS: SummaryRow[] = [
  {
    row: 'REST GET :id / one-statement bare (contacts)',
    bench: 'rest',
    better: 'higher',
    floor: 0.6,
    goal: 0.8,
    unit: '',
    measure: restRatio('GET :id'),
  },
  {
    row: 'REST GET :id of an event category (with its sub-categories) / one-statement bare',
    bench: 'rest',
    better: 'higher',
    floor: 0.6,
    goal: 0.8,
    unit: '',
    measure: restRatio('GET category :id'),
  },
  { row: 'REST POST / one-statement bare', bench: 'rest', better: 'higher', floor: 0.6, goal: 0.8, unit: '', measure: restRatio('POST') },
  {
    row: 'REST GET list (100) / one-statement bare',
    bench: 'rest',
    better: 'higher',
    floor: 0.6,
    goal: 0.8,
    unit: '',
    measure: restRatio('GET list'),
  },
  {
    row: 'GraphQL `courseTemplates(first: 50)` / PostGraphile 5 (goal at an equal or lower p99)',
    bench: 'graphql',
    better: 'higher',
    floor: 1.5,
    goal: 2,
    unit: 'x',
    measure: (f) => {
      const value = num(at(f, 'ratios', 'lecternVsPostgraphile'));
      const q = 'courseTemplates(first: 50)';
      const p99 = num(at(f, 'results', q, 'lectern', 'p99ms'));
      const peerP99 = num(at(f, 'results', q, 'postgraphile', 'p99ms'));
      return value === undefined
        ? undefined
        : { value, note: p99 !== undefined && peerP99 !== undefined ? `p99 ${p99} / ${peerP99} ms` : undefined };
    },
  },
  {
    row: 'GraphQL SDK page (25) / one hand-written statement',
    bench: 'graphql',
    better: 'higher',
    floor: 0.7,
    goal: 0.8,
    unit: '',
    measure: figure(['ratios', 'sdkLecternVsBare']),
  },
  {
    row: 'Orders end to end / the floor of the three transactions, Redis',
    bench: 'orders',
    better: 'higher',
    floor: 0.6,
    goal: 0.8,
    unit: '',
    measure: ordersVsFloor('redis'),
  },
  {
    row: 'Orders end to end / the floor of the three transactions, PostgreSQL backend',
    bench: 'orders',
    better: 'higher',
    floor: 0.6,
    goal: 0.8,
    unit: '',
    measure: ordersVsFloor('postgres'),
  },
  {
    row: 'Orders end to end, orders/s on 2 workers / BullMQ no-op jobs/s (Redis)',
    bench: 'orders',
    better: 'higher',
    floor: 0.1,
    goal: 0.25,
    unit: '',
    measure: (f) => {
      const run = ordersRun(f, 'redis');
      const e2e = num(at(run, 'endToEnd', 'ordersPerSecond'));
      const noop = num(at(run, 'noop', 'jobsPerSecond'));
      return e2e !== undefined && noop ? { value: round2(e2e / noop), note: `${Math.round(e2e)} / ${Math.round(noop)}` } : undefined;
    },
  },
  {
    row: 'WebLink `catalogue(first: 20)` with / without `weblink-content-locale`',
    bench: 'weblink',
    better: 'higher',
    floor: 0.9,
    goal: 0.95,
    unit: '',
    measure: figure(['ratio']),
  },
  {
    row: 'p50 at many warm tenants / 1 tenant',
    bench: 'tenancy',
    better: 'lower',
    floor: 1.1,
    goal: 1.05,
    unit: '',
    measure: figure(['p50Ratio'], tenantsNote),
  },
  {
    row: 'PostgreSQL memory per web connection at many warm tenants',
    bench: 'tenancy',
    better: 'lower',
    floor: 30,
    goal: 10,
    unit: ' MB',
    measure: figure(['postgresMemoryPerWebConnection', 'many', 'meanMb'], tenantsNote),
  },
  {
    row: "Quiet tenant's order p99 during a 10,000-order flood / idle",
    bench: 'fairness',
    better: 'lower',
    floor: 2,
    goal: 1.5,
    unit: 'x',
    measure: (f) => {
      const flood = num(at(f, 'flood', 'stored', 'p99ms'));
      const idle = num(at(f, 'idle', 'stored', 'p99ms'));
      return flood !== undefined && idle ? { value: round2(flood / idle), note: `${flood} / ${idle} ms` } : undefined;
    },
  },
];

export interface SummaryLine {
  row: string;
  bench: string;
  value?: number;
  note?: string;
  floor: number;
  goal: number;
  better: Better;
  /** 'goal' / 'floor' when reached, 'below' when not, 'not measured' when no figure was written. */
  standing: 'goal' | 'floor' | 'below' | 'not measured';
}

/** Each row against the last results file of its benchmark (bench name to file path). */
export async function summarise(files: Map<string, string>): Promise<SummaryLine[]> {
  const figures = new Map<string, Figures>();
  for (const [bench, file] of files) {
    try {
      figures.set(bench, (JSON.parse(await readFile(file, 'utf8')) as { figures: Figures }).figures);
    } catch {
      // unreadable: its rows say not measured
    }
  }
  return SUMMARY_ROWS.map((r) => {
    const f = figures.get(r.bench);
    const m = f ? r.measure(f) : undefined;
    const reaches = (target: number) => (m ? (r.better === 'higher' ? m.value >= target : m.value <= target) : false);
    const standing = !m ? 'not measured' : reaches(r.goal) ? 'goal' : reaches(r.floor) ? 'floor' : 'below';
    return { row: r.row, bench: r.bench, value: m?.value, note: m?.note, floor: r.floor, goal: r.goal, better: r.better, standing };
  });
}

/** The summary as a Markdown table, in the layout of docs/benchmarks.md. */
export function summaryTable(lines: SummaryLine[]): string {
  const unitOf = (row: string) => SUMMARY_ROWS.find((r) => r.row === row)?.unit ?? '';
  const fmt = (n: number, unit: string) => `${n}${unit}`;
  return [
    '| row | measured | floor | goal | standing |',
    '|---|---|---|---|---|',
    ...lines.map((l) => {
      const unit = unitOf(l.row);
      const measured =
        l.value === undefined ? `not measured (${l.bench} wrote no figure)` : `**${fmt(l.value, unit)}**${l.note ? ` (${l.note})` : ''}`;
      const standing = l.standing === 'goal' ? 'goal met' : l.standing === 'floor' ? 'floor met' : l.standing;
      return `| ${l.row} | ${measured} | ${fmt(l.floor, unit)} | ${fmt(l.goal, unit)} | ${standing} |`;
    }),
  ].join('\n');
}
