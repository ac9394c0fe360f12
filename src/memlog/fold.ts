// How many series `--analyze` keeps apart. Each distinct host and each distinct GPU index of a log becomes its own
// series, with its own arrays, analysis and report section: a log of 20,000 GPU indices once took 4 GB and 14 s, one
// of 20,000 hosts printed a 420,000-line report. Past a cap, the rest go into one series each (`(other hosts)`,
// `gpu-other`), and the report says how many went there. The caps are far above any real node (8–16 GPUs) or job
// (a log per node, a few hundred nodes).

import {gpuMetricId} from '../core/metric-id.js';
import type {MetricBuilder} from './metric-builder.js';

/** Hosts kept apart, in the order met (and the one `--host` names, wherever it comes). */
export const MAX_HOSTS = 256;
/** GPU indices kept apart, in the order met. */
export const MAX_GPUS = 32;
/** The series the hosts past MAX_HOSTS go into: no host name has spaces or parentheses (as by-host.ts NO_HOST). */
export const OTHER_HOSTS = '(other hosts)';
/** The metric the GPUs past MAX_GPUS go into: each record's highest of them. */
export const OTHER_GPUS_ID = 'gpu-other';
/** Distinct folded names told apart for the count; past it the count says "at least". Bounds the count's memory. */
const MAX_COUNTED = 100_000;

/** What went into one fold. */
export interface Folded {
	/** `hosts` or `gpus`. */
	readonly kind: 'hosts' | 'gpus';
	/** Distinct hosts (names) or GPUs (indices) folded; at least this many when `at_least`. */
	readonly count: number;
	readonly at_least: boolean;
	/** Records (hosts) or GPU readings (gpus) that went in. */
	readonly points: number;
	/** The series they went into: OTHER_HOSTS or OTHER_GPUS_ID. */
	readonly into: string;
	/** How many were kept apart (the cap). */
	readonly kept: number;
}

/** Counts what goes into one fold, in bounded memory. */
class Fold<K> {
	readonly #seen = new Set<K>();
	#atLeast = false;
	#points = 0;
	readonly #kind: Folded['kind'];
	readonly #into: string;
	readonly #kept: number;

	constructor(kind: Folded['kind'], into: string, kept: number) {
		this.#kind = kind;
		this.#into = into;
		this.#kept = kept;
	}

	add(key: K): void {
		this.#points++;
		if (this.#seen.has(key)) return;
		if (this.#seen.size < MAX_COUNTED) this.#seen.add(key);
		else this.#atLeast = true;
	}

	/** null when nothing was folded. */
	result(): Folded | null {
		if (this.#points === 0) return null;
		return {
			kind: this.#kind,
			count: this.#seen.size,
			at_least: this.#atLeast,
			points: this.#points,
			into: this.#into,
			kept: this.#kept,
		};
	}
}

/** Host names to series ids: the first MAX_HOSTS apart (and `keep`), every other one the id of OTHER_HOSTS. */
export class HostIds {
	readonly names: string[] = [];
	readonly #ids = new Map<string, number>();
	readonly #keep: string | undefined;
	#other = -1;
	readonly fold = new Fold<string>('hosts', OTHER_HOSTS, MAX_HOSTS);

	constructor(keep?: string) {
		this.#keep = keep;
	}

	/** The host's id; a new one is the next index of `names`. */
	idOf(name: string): number {
		const known = this.#ids.get(name);
		if (known !== undefined) return known;
		if (this.#ids.size - (this.#other < 0 ? 0 : 1) >= MAX_HOSTS && name !== this.#keep) {
			this.fold.add(name);
			if (this.#other < 0) this.#other = this.#add(OTHER_HOSTS);
			return this.#other;
		}
		return this.#add(name);
	}

	/** The id of OTHER_HOSTS: its records are of many hosts, so time going back there is no restart. */
	isFolded(id: number): boolean {
		return id >= 0 && id === this.#other;
	}

	#add(name: string): number {
		const id = this.names.length;
		this.names.push(name);
		this.#ids.set(name, id);
		return id;
	}
}

/** GPU indices to their series: the first MAX_GPUS met apart, every other one OTHER_GPUS_ID's. */
export class GpuIds {
	/** By index (sparse): a record's GPUs are looked up without a string or a map per device. */
	readonly #metrics: MetricBuilder[] = [];
	#apart = 0;
	readonly other = OTHER_GPUS_ID;
	readonly fold = new Fold<number>('gpus', OTHER_GPUS_ID, MAX_GPUS);

	/** The series of GPU `index` (`gpu0`…, or OTHER_GPUS_ID past the cap), made by `make` the first time. */
	metricOf(index: number, make: (id: string) => MetricBuilder): MetricBuilder {
		const known = this.#metrics[index];
		if (known) return known;
		if (this.#apart >= MAX_GPUS) {
			this.fold.add(index);
			return make(OTHER_GPUS_ID);
		}
		this.#apart++;
		const metric = make(gpuMetricId(index));
		this.#metrics[index] = metric;
		return metric;
	}
}

/**
 * "19,744 more hosts into '(other hosts)' (256 kept apart)"; one line per fold (each fits an 80-column report after
 * its 9-column label), none when nothing was folded. The record and reading counts are in the JSON.
 */
export function foldedText(folded: readonly Folded[]): string[] {
	return folded.map(f => {
		const count = `${f.count.toLocaleString('en')}${f.at_least ? '+' : ''}`;
		if (f.kind === 'hosts')
			return `${count} more host${f.count === 1 ? '' : 's'} into '${f.into}' (${f.kept} kept apart)`;
		return `${count} more GPU${f.count === 1 ? '' : 's'} into 'GPU (other)', each record's highest (${f.kept} kept)`;
	});
}
