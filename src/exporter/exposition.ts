import {Gauge, Registry} from 'prom-client';
import {FAMILIES, type FamilyName} from './families.js';
import type {Sample} from './samples.js';

// The samples in Prometheus's text format (0.0.4), written by prom-client (its escaping of label values, its number
// format, its HELP and TYPE lines). A registry per scrape, with only the families that have a series: prom-client
// writes an unlabelled gauge that was never set as 0, and an unknown value must be absent, never 0.

export const CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const BY_NAME = new Map<string, (typeof FAMILIES)[number]>(FAMILIES.map(family => [family.name, family]));

export async function exposition(samples: readonly Sample[], many: boolean): Promise<string> {
	const registry = new Registry();
	const gauges = new Map<FamilyName, Gauge>();
	for (const sample of samples) {
		let gauge = gauges.get(sample.family);
		if (!gauge) {
			const family = BY_NAME.get(sample.family)!;
			const labelNames = many && family.node ? ['node', ...family.labels] : [...family.labels];
			gauge = new Gauge({name: family.name, help: family.help, labelNames, registers: [registry]});
			gauges.set(sample.family, gauge);
		}
		gauge.set(sample.labels, sample.value);
	}
	return registry.metrics();
}
