import type {MetricKind, MetricSeries} from './metric-series.js';
import {grow, resize} from './typed-arrays.js';

// One metric's points as they are collected: growable typed arrays (doubling) that stay dense and
// share one array for value and peak until a record needs otherwise, and the final, time-sorted
// MetricSeries made from them.

/** A growable column of numbers for one metric. */
export class MetricBuilder {
	readonly id: string;
	readonly kind: MetricKind;
	uuid: string | null = null;
	name: string | null = null;
	/** By host id + 1, as MetricSeries.hostUuid / hostName. */
	readonly hostUuid: (string | undefined)[] = [];
	readonly hostName: (string | undefined)[] = [];
	count = 0;
	/** null while dense (point i is record i). */
	record: Uint32Array | null = null;
	value: Float32Array;
	/** null while every peak equals its value. */
	peak: Float32Array | null = null;
	usedGb: Float32Array | null;
	/** A single GPU's own threshold per point (NaN: the record gave none); null while no record gave one. */
	threshold: Float32Array | null = null;

	constructor(id: string, kind: MetricKind, withGb: boolean, capacity: number) {
		this.id = id;
		this.kind = kind;
		this.value = new Float32Array(capacity);
		this.usedGb = withGb ? new Float32Array(capacity) : null;
	}

	/** Room for `capacity` points without growing. */
	reserve(capacity: number): void {
		this.value = resize(this.value, capacity);
		if (this.record) this.record = resize(this.record, capacity);
		if (this.peak) this.peak = resize(this.peak, capacity);
		if (this.usedGb) this.usedGb = resize(this.usedGb, capacity);
		if (this.threshold) this.threshold = resize(this.threshold, capacity);
	}

	lastRecord(): number {
		return this.count === 0 ? -1 : this.record ? this.record[this.count - 1]! : this.count - 1;
	}

	push(record: number, value: number, peak: number, usedGb = 0, threshold = Number.NaN): void {
		const i = this.count;
		if (i >= this.value.length) {
			const size = i + 1;
			this.value = grow(this.value, size);
			if (this.record) this.record = grow(this.record, size);
			if (this.peak) this.peak = grow(this.peak, size);
			if (this.usedGb) this.usedGb = grow(this.usedGb, size);
			if (this.threshold) this.threshold = grow(this.threshold, size);
		}
		if (!this.record && record !== i) {
			this.record = new Uint32Array(this.value.length);
			for (let k = 0; k < i; k++) this.record[k] = k;
		}
		if (this.record) this.record[i] = record;
		this.value[i] = value;
		if (!this.peak && Math.fround(peak) !== this.value[i]) {
			this.peak = new Float32Array(this.value.length);
			this.peak.set(this.value.subarray(0, i));
		}
		if (this.peak) this.peak[i] = peak;
		if (this.usedGb) this.usedGb[i] = usedGb;
		// Most logs name no GPU's own threshold: no column for them.
		if (!this.threshold && !Number.isNaN(threshold))
			this.threshold = new Float32Array(this.value.length).fill(Number.NaN, 0, i);
		if (this.threshold) this.threshold[i] = threshold;
		this.count = i + 1;
	}

	/**
	 * The last point becomes the higher of it and this reading (a series of several GPUs holds each record's highest):
	 * value and peak each the higher, the threshold of the reading whose peak is higher.
	 */
	raiseLast(value: number, peak: number, threshold = Number.NaN): void {
		const i = this.count - 1;
		const record = this.lastRecord();
		const oldValue = this.value[i]!;
		const oldPeak = (this.peak ?? this.value)[i]!;
		const oldThreshold = this.threshold?.[i] ?? Number.NaN;
		const higher = Math.fround(peak) > oldPeak;
		this.count = i;
		this.push(record, Math.max(value, oldValue), Math.max(peak, oldPeak), 0, higher ? threshold : oldThreshold);
	}

	/** The final series; `inverse` maps an old record index to its new (sorted) one. */
	build(inverse: Uint32Array | null): MetricSeries {
		const n = this.count;
		let record = this.record?.subarray(0, n) ?? null;
		let value = this.value.subarray(0, n);
		let peak = this.peak?.subarray(0, n) ?? value;
		let usedGb = this.usedGb?.subarray(0, n) ?? null;
		let threshold = this.threshold?.subarray(0, n) ?? null;
		if (inverse) {
			const keys = new Uint32Array(n);
			for (let i = 0; i < n; i++) keys[i] = inverse[record ? record[i]! : i]!;
			const order = new Uint32Array(n);
			for (let i = 0; i < n; i++) order[i] = i;
			order.sort((a, b) => keys[a]! - keys[b]!);
			const permute = (source: Float32Array) => {
				const out = new Float32Array(n);
				for (let i = 0; i < n; i++) out[i] = source[order[i]!]!;
				return out;
			};
			const newRecord = new Uint32Array(n);
			for (let i = 0; i < n; i++) newRecord[i] = keys[order[i]!]!;
			record = newRecord;
			const samePeak = peak === value;
			value = permute(value);
			peak = samePeak ? value : permute(peak);
			usedGb = usedGb && permute(usedGb);
			threshold = threshold && permute(threshold);
		}
		const {id, kind, uuid, name, hostUuid, hostName} = this;
		return {id, kind, uuid, name, count: n, record, value, peak, usedGb, threshold, hostUuid, hostName};
	}
}
