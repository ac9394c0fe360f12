import {describe, expect, test} from 'vitest';
import {analyze, type AnalysisThresholds} from '../../src/memlog/analyze.js';
import {analyzeLog} from '../../src/memlog/analyze-log.js';
import {escapeXml, plotLogSvg, plotSvg} from '../../src/memlog/plot.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {SeriesCollector} from '../../src/memlog/series.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};

/**
 * A minimal XML well-formedness check: one prolog, tags balanced and properly nested, attributes
 * quoted, no raw `<` or `&` outside an entity in text. Returns the element names in document order.
 */
function checkXml(xml: string): string[] {
	let body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
	expect(body.includes('<?')).toBe(false);
	body = body.replace(/<!--[\s\S]*?-->/g, '');
	const stack: string[] = [];
	const names: string[] = [];
	let roots = 0;
	const tag = /<[^>]*>/g;
	let last = 0;
	for (const match of body.matchAll(tag)) {
		const text = body.slice(last, match.index);
		expect(text.includes('<'), `raw < in ${text}`).toBe(false);
		expect(/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text), `raw & in ${text}`).toBe(false);
		last = match.index + match[0].length;
		const t = match[0];
		if (t.startsWith('</')) {
			const name = t.slice(2, -1).trim();
			expect(stack.pop(), `closing ${name}`).toBe(name);
			continue;
		}
		const parsed = /^<([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*="[^"<]*")*)\s*(\/?)>$/.exec(t);
		expect(parsed, `malformed tag ${t}`).not.toBeNull();
		const attributes = parsed![2]!;
		expect(/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(attributes), `raw & in ${t}`).toBe(false);
		names.push(parsed![1]!);
		if (stack.length === 0) roots++;
		if (parsed![3] !== '/') stack.push(parsed![1]!);
	}
	expect(body.slice(last).trim()).toBe('');
	expect(stack).toEqual([]);
	expect(roots).toBe(1);
	return names;
}

function fixture() {
	const c = new SeriesCollector();
	for (let i = 0; i < 60; i++) {
		const ramPercent = i >= 10 && i < 15 ? 90 : i >= 40 && i < 42 ? 88 : 50;
		const record: ReadLogRecord = {
			timestamp: '',
			interval_s: 30,
			memory: {total_gb: 64, used_gb: 32, percent: ramPercent, peak_percent: ramPercent + 2},
			swap: {total_gb: 8, used_gb: 1, percent: 12},
			gpus: [{index: 0, name: 'A100 <80GB> & "co"', memory_used_gb: 1, memory_total_gb: 80, memory_percent: 30 + i}],
		};
		c.add(record, T0 + i * 30_000);
	}
	const series = c.finish();
	return {series, analysis: analyze(series, thresholds)};
}

describe('plotSvg', () => {
	test('is well-formed XML with text escaped', () => {
		const {series, analysis} = fixture();
		const svg = plotSvg(series, analysis, thresholds);
		const names = checkXml(svg);
		expect(names[0]).toBe('svg');
		expect(svg).toContain('A100 &lt;80GB&gt; &amp; &quot;co&quot;');
		expect(svg).not.toContain('<80GB>');
	});

	test('one panel per metric, each with a dashed threshold line, value and peak lines, time labels', () => {
		const {series, analysis} = fixture();
		const svg = plotSvg(series, analysis, thresholds);
		const panels = [...svg.matchAll(/<g class="panel" data-metric="([^"]+)">/g)].map(m => m[1]);
		expect(panels).toEqual(['ram', 'swap', 'gpu0']);
		expect(svg.match(/<line class="threshold"[^>]*stroke-dasharray/g)).toHaveLength(3);
		expect(svg.match(/<path class="value" d="M/g)).toHaveLength(3);
		expect(svg.match(/<path class="peak" d="M/g)).toHaveLength(3);
		expect(svg).toContain('>10:00</text>');
		expect(svg).toContain('>10:29</text>');
	});

	test('episodes are shaded: two for RAM, none for swap or GPU 0', () => {
		const {series, analysis} = fixture();
		const svg = plotSvg(series, analysis, thresholds);
		const panel = (id: string) => svg.split(`data-metric="${id}"`)[1]!.split('</g>')[0]!;
		// RAM peaks 92 for records 10–14 and 90 for 40–41: two episodes.
		expect(panel('ram').match(/<rect class="episode"/g)).toHaveLength(2);
		expect(panel('swap').match(/<rect class="episode"/g)).toBeNull();
		// GPU 0 reaches 30 + 59 = 89 < 90: no episode.
		expect(panel('gpu0').match(/<rect class="episode"/g)).toBeNull();
		// The RAM threshold line sits at 85 % of the panel height (y = bottom − 0.85 × 140).
		const frame = /<rect class="frame" x="\d+" y="(\d+)"/.exec(panel('ram'))!;
		const bottom = Number(frame[1]) + 140;
		const y = Number(/<line class="threshold"[^>]* y1="([\d.]+)"/.exec(panel('ram'))![1]);
		expect(y).toBeCloseTo(bottom - 0.85 * 140, 1);
	});

	test('a gap in the log breaks the line', () => {
		const c = new SeriesCollector();
		for (const s of [0, 30, 60, 90, 3600, 3630, 3660])
			c.add({timestamp: '', interval_s: 30, memory: {total_gb: 1, used_gb: 0.5, percent: 50}}, T0 + s * 1000);
		const series = c.finish();
		const svg = plotSvg(series, analyze(series, thresholds), thresholds);
		checkXml(svg);
		const d = /<path class="value" d="([^"]*)"/.exec(svg)![1]!;
		expect(d.match(/M/g)).toHaveLength(2);
	});

	test('an empty log is still a valid document', () => {
		const series = new SeriesCollector().finish();
		checkXml(plotSvg(series, analyze(series, thresholds), thresholds));
	});

	test('time labels are distinct at any span: seconds for a span of seconds, dates for a span of days', () => {
		// Issue 16: a 2 m 07 s log was labelled `22:07 22:07 22:08 22:08 22:09`.
		const labelsOver = (spanMs: number) => {
			const c = new SeriesCollector();
			for (let k = 0; k <= 8; k++) {
				c.add({timestamp: '', memory: {total_gb: 1, used_gb: 0.5, percent: 50}}, T0 + 7000 + (spanMs * k) / 8);
			}
			const series = c.finish();
			const svg = plotSvg(series, analyze(series, thresholds), thresholds);
			return [...svg.matchAll(/<text class="time"[^>]*>([^<]*)<\/text>/g)].map(m => m[1]!);
		};
		const spans = [3, 400, 2000, 30_000, 127_000, 1_800_000, 86_400_000, 5 * 86_400_000, 400 * 86_400_000];
		for (const span of spans) {
			const labels = labelsOver(span);
			expect(labels.length, `span ${span} ms`).toBeGreaterThanOrEqual(2);
			expect(new Set(labels).size, `span ${span} ms: ${labels.join(' ')}`).toBe(labels.length);
		}
		expect(labelsOver(127_000)).toEqual(['10:00:07', '10:00:38', '10:01:10', '10:01:42', '10:02:14']);
		expect(labelsOver(30_000)[4]).toBe('10:00:37');
		// A day or more names the day of each label; a span across a new year, the year.
		for (const label of labelsOver(86_400_000)) expect(label).toMatch(/^11-2[23] \d\d:\d\d$/);
		expect(labelsOver(400 * 86_400_000)[4]).toMatch(/^2027-12-27 /);
	});

	test('escapeXml', () => {
		expect(escapeXml(`<a b="c" & 'd'>`)).toBe('&lt;a b=&quot;c&quot; &amp; &apos;d&apos;&gt;');
	});
});

describe('plotLogSvg', () => {
	/** node-a at 50 % RAM, node-b crossing 85 % (records 10–14), "x<y" with no RAM but a GPU: 20 records each. */
	function hosts() {
		const c = new SeriesCollector();
		for (let i = 0; i < 20; i++) {
			const t = T0 + i * 30_000;
			const ram = (percent: number) => ({total_gb: 64, used_gb: 32, percent});
			c.add({timestamp: '', host: 'node-a', interval_s: 30, memory: ram(50)}, t);
			c.add({timestamp: '', host: 'node-b', interval_s: 30, memory: ram(i >= 10 && i < 15 ? 90 : 60)}, t);
			const gpus = [{index: 0, memory_used_gb: 1, memory_total_gb: 80, memory_percent: 40}];
			c.add({timestamp: '', host: 'x<y', interval_s: 30, memory: null, gpus}, t);
		}
		return c.finish();
	}

	test('a panel per metric with one line per host that has it, episodes in its colour, a legend worst first', () => {
		const svg = plotLogSvg(analyzeLog(hosts(), thresholds));
		const names = checkXml(svg);
		expect(names[0]).toBe('svg');
		const legend = [...svg.matchAll(/<g class="legend" data-host="([^"]*)">/g)].map(m => m[1]);
		expect(legend).toEqual(['node-b', 'node-a', 'x&lt;y']);
		const panels = [...svg.matchAll(/<g class="panel" data-metric="([^"]+)">/g)].map(m => m[1]);
		expect(panels).toEqual(['ram', 'gpu0']);
		const panel = (id: string) => svg.split(`data-metric="${id}"`)[1]!.split('</g>')[0]!;
		const lines = (id: string) =>
			[...panel(id).matchAll(/<path class="peak" data-host="([^"]*)" d="M/g)].map(m => m[1]);
		expect(lines('ram')).toEqual(['node-b', 'node-a']);
		expect(lines('gpu0')).toEqual(['x&lt;y']);
		// node-b's one episode, shaded in node-b's colour (the first host's, as its legend swatch).
		const swatch = /<g class="legend" data-host="node-b"><rect [^>]*fill="(#[0-9a-f]+)"/.exec(svg)![1];
		expect([...panel('ram').matchAll(/<rect class="episode"[^>]* fill="(#[0-9a-f]+)"/g)].map(m => m[1])).toEqual([
			swatch,
		]);
		expect(panel('ram')).toContain('<title>node-b: ');
	});

	test('a host whose records start later is not shaded before its first sample', () => {
		// node-a from 10:00, node-b from 10:05, above 85 % from its first record on (issue 16: shaded before the data).
		const c = new SeriesCollector();
		for (let i = 0; i < 20; i++) {
			const memory = (percent: number) => ({total_gb: 64, used_gb: 32, percent});
			c.add({timestamp: '', host: 'node-a', interval_s: 30, memory: memory(50)}, T0 + i * 30_000);
			if (i >= 10) c.add({timestamp: '', host: 'node-b', interval_s: 30, memory: memory(90)}, T0 + i * 30_000);
		}
		const svg = plotLogSvg(analyzeLog(c.finish(), thresholds));
		const firstX = Number(/<path class="peak" data-host="node-b" d="M([\d.]+) /.exec(svg)![1]);
		const frame = /<rect class="frame" x="(\d+)" y="\d+" width="(\d+)"/.exec(svg)!;
		const lastX = Number(frame[1]) + Number(frame[2]);
		const rects = [...svg.matchAll(/<rect class="episode" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)];
		expect(rects).toHaveLength(1);
		const [, x, w] = rects[0]!;
		expect(Number(x)).toBeCloseTo(firstX, 1);
		expect(Number(x) + Number(w)).toBeLessThanOrEqual(lastX + 0.05);
	});

	test('one host (or --host) draws exactly what plotSvg draws', () => {
		const log = analyzeLog(hosts(), thresholds, {host: 'node-b'});
		const [only] = log.hosts;
		expect(plotLogSvg(log)).toBe(plotSvg(only!.series, only!.analysis, thresholds));
	});
});
