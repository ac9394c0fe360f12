import {readFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {FAMILIES} from '../../src/exporter/families.js';
import {ROOT} from '../helpers/dist.js';
import {type PrometheusServer, prometheusBinary, startPrometheus} from '../helpers/prometheus-server.js';

// docs/grafana-dashboard.json, the one-page dashboard for `traintop --listen`: valid JSON Grafana imports (schema
// 39, its Prometheus data source as the ${DS_PROMETHEUS} input, host and job variables from label_values), every
// metric name its queries use one the exporter serves (its own table, src/exporter/families.ts), matched only on
// labels that family has, and every query valid PromQL as a real Prometheus (Debian's 2.42) parses it. That each query
// finds data on a real scrape of a real job is test/exporter/prometheus.test.ts's.

interface Target {
	readonly expr: string;
	readonly refId: string;
	readonly datasource?: {readonly uid?: string};
}
interface Panel {
	readonly id: number;
	readonly type: string;
	readonly title: string;
	readonly gridPos: {readonly x: number; readonly y: number; readonly w: number; readonly h: number};
	readonly datasource?: {readonly type?: string; readonly uid?: string};
	readonly targets?: readonly Target[];
}
interface Variable {
	readonly name: string;
	readonly type: string;
	readonly definition?: string;
	readonly query?: {readonly query?: string} | string;
}
interface Dashboard {
	readonly schemaVersion: number;
	readonly title: string;
	readonly __inputs: readonly {readonly name: string; readonly type: string; readonly pluginId: string}[];
	readonly templating: {readonly list: readonly Variable[]};
	readonly panels: readonly Panel[];
}

const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as Dashboard;

/** Each family the exporter serves (src/exporter/families.ts) with its labels: `node` too on a node's families. */
const SERVED: ReadonlyMap<string, readonly string[]> = new Map(
	FAMILIES.map(family => [family.name, [...family.labels, ...(family.node ? ['node'] : [])]]),
);
/** The label Prometheus adds to every series it scrapes. */
const SCRAPED = ['instance'];

/** Grafana's import replaces this with the data source the user picks (the `__inputs` entry's name). */
const DS_INPUT = ['$', '{DS_PROMETHEUS}'].join('');

const queries = (): {panel: Panel; expr: string}[] =>
	dashboard.panels.flatMap(panel => (panel.targets ?? []).map(target => ({panel, expr: target.expr})));
const variableQuery = (v: Variable): string => (typeof v.query === 'string' ? v.query : (v.query?.query ?? ''));
const namesIn = (expr: string): string[] => [...expr.matchAll(/\btraintop_\w+/g)].map(m => m[0]);
/** `name{label op "value", …}` selectors in a query: each name with the labels it is matched on. */
const selectors = (expr: string): {name: string; labels: string[]}[] =>
	[...expr.matchAll(/\b(traintop_\w+)\{([^}]*)\}/g)].map(m => ({
		name: m[1] ?? '',
		labels: [...(m[2] ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map(l => l[1] ?? ''),
	}));

describe('docs/grafana-dashboard.json', () => {
	test('a dashboard Grafana imports: schema 39, the Prometheus input, host and job variables, one page', () => {
		expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
		expect(dashboard.__inputs).toContainEqual(
			expect.objectContaining({name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus'}),
		);
		const variables = new Map(dashboard.templating.list.map(v => [v.name, variableQuery(v)]));
		expect(variables.get('host')).toMatch(/^label_values\(traintop_\w+.*, host\)$/);
		expect(variables.get('job')).toMatch(/^label_values\(traintop_\w+.*, job\)$/);
		for (const panel of dashboard.panels) {
			expect(panel.datasource?.uid, panel.title).toBe(DS_INPUT);
			for (const target of panel.targets ?? []) expect(target.datasource?.uid, panel.title).toBe(DS_INPUT);
			expect(panel.targets?.length ?? 0, `${panel.title} has a query`).toBeGreaterThan(0);
		}
		// Unique ids; inside 24 columns; no two panels overlap; one screen high (about 30 rows of 30 px).
		expect(new Set(dashboard.panels.map(p => p.id)).size).toBe(dashboard.panels.length);
		const cells = new Set<string>();
		for (const {title, gridPos} of dashboard.panels) {
			expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
			expect(gridPos.y + gridPos.h, title).toBeLessThanOrEqual(32);
			for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++) {
				for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
					expect(cells.has(`${x},${y}`), `${title} overlaps another panel at ${x},${y}`).toBe(false);
					cells.add(`${x},${y}`);
				}
			}
		}
	});

	test('every metric its queries and variables use is one the exporter serves, matched on labels it has', () => {
		const used = new Set<string>();
		const all = [
			...queries(),
			...dashboard.templating.list.map(v => ({panel: {title: `variable ${v.name}`} as Panel, expr: variableQuery(v)})),
		];
		for (const {panel, expr} of all) {
			const names = namesIn(expr);
			expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
			for (const name of names) {
				expect([...SERVED.keys()], `${panel.title}: ${expr}`).toContain(name);
				used.add(name);
			}
			for (const {name, labels} of selectors(expr)) {
				for (const label of labels)
					expect([...(SERVED.get(name) ?? []), ...SCRAPED], `${panel.title}: ${expr}`).toContain(label);
			}
		}
		// The names the dashboard is for are all on it.
		for (const name of [
			'traintop_ram_used_percent',
			'traintop_swap_used_percent',
			'traintop_gpu_memory_used_percent',
			'traintop_gpu_utilization_percent',
			'traintop_rank_rss_bytes',
			'traintop_rank_pss_bytes',
			'traintop_job_rss_bytes',
			'traintop_ram_limit_bytes',
			'traintop_checkpoint_last_save_age_seconds',
			'traintop_checkpoint_overdue',
			'traintop_checkpoint_saves_until_full',
			'traintop_job_readiness',
			'traintop_job_progress',
			'traintop_snapshot_age_seconds',
			'traintop_scrape_duration_seconds',
		]) {
			expect([...used]).toContain(name);
		}
	});

	const binary = prometheusBinary();
	if (binary === null) console.log('PromQL check skipped: no prometheus binary (Debian: apt-get install prometheus)');
	describe.skipIf(binary === null)('its queries, parsed by a real Prometheus', () => {
		let prometheus: PrometheusServer | null = null;
		beforeAll(async () => {
			prometheus = await startPrometheus({targets: []});
		}, 90_000);
		afterAll(async () => {
			await prometheus?.close();
		});

		test('every query is valid PromQL (the variables as Grafana sends "All": .*)', async () => {
			for (const {panel, expr} of queries()) {
				const promql = expr.replaceAll('$host', '.*').replaceAll('$job', '.*');
				await expect(prometheus!.query(promql), `${panel.title}: ${promql}`).resolves.toBeInstanceOf(Array);
			}
		});
	});
});
