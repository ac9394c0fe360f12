import {BYTE} from './json-bytes.js';
import {GPU_FIELDS, JOB_KEY_FROM, KEY_ID, MEMORY_FIELDS, SWAP_FIELDS, type ObjectSpec} from './record-keys.js';
import type {RecordFields} from './record-fields.js';
import {outOfRange} from './plausible.js';
import {KeyedScanner} from './scan-keyed.js';

// A byte-level scanner for one line of traintop's own JSON Lines memory log, for `--analyze` on
// million-record logs: JSON.parse built an object tree per record only for us to read a dozen
// numbers out of it, and was most of the run time. The scanner checks the whole line against the
// JSON grammar and the record schema while it reads, converts only the numbers the analysis uses,
// and allocates nothing for a typical record.
//
// The rule that keeps it honest: it ACCEPTS A SUBSET of what JSON.parse + the schema accept, and
// for what it accepts it yields exactly the values they would (test/memlog/scan-line.test.ts
// checks both on random and corrupted records). Whatever it is not sure of (an escape in a string,
// a non-empty `alerts`, a wrong type, deep nesting, a value out of range) makes it return false; the
// reader then takes the slow path, which also gives the reason when the line is bad.

const {COMMA, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET} = BYTE;

// Read for every key of every line: constants of this module, like the bytes above, not imported bindings.
const ID = KEY_ID;
const MEMORY = MEMORY_FIELDS;
const SWAP = SWAP_FIELDS;
const GPU = GPU_FIELDS;
const JOB_FROM = JOB_KEY_FROM;

export class LineScanner extends KeyedScanner {
	/** #numbers' output, reused. */
	readonly #values = new Float64Array(8);

	/**
	 * Scans buf[start, end) — one line without its newline — into `f`. True when the line is a
	 * memory record this scanner vouches for; false means: ask JSON.parse.
	 */
	scan(buf: Buffer, start: number, end: number, f: RecordFields): boolean {
		this.reset(buf, start, end);
		this.startLine();
		f.reset();
		if (!this.#record(f)) return false;
		this.space();
		// A value out of range goes to the slow path too, which skips the record and names the value.
		return this.pos === this.end && outOfRange(f) === null;
	}

	#record(f: RecordFields): boolean {
		if (!this.take(OPEN_BRACE)) return false;
		if (this.take(CLOSE_BRACE)) return false;
		let hasTimestamp = false;
		let hasMemory = false;
		do {
			const id = this.keyId();
			switch (id) {
				case -1:
					return false;
				case ID.timestamp:
					if (!this.string()) return false;
					f.time = this.date();
					hasTimestamp = !Number.isNaN(f.time);
					if (!hasTimestamp) return false;
					break;
				case ID.host:
					if (!this.string()) return false;
					f.host = this.names.get(this.buf, this.strStart, this.strEnd, 0);
					break;
				case ID.interval_s:
					if (!this.number(true)) return false;
					f.interval = this.num;
					break;
				case ID.samples:
					if (!this.number(false)) return false;
					break;
				case ID.memory: {
					f.resetMemory();
					hasMemory = true;
					if (this.nul()) break;
					const v = this.#values;
					if (!this.#numbers(MEMORY, v, f)) return false;
					f.memory = true;
					f.memPercent = v[0]!;
					f.memUsed = v[1]!;
					f.memPeak = v[2]!;
					break;
				}
				case ID.swap: {
					f.resetSwap();
					if (this.nul()) break;
					const v = this.#values;
					if (!this.#numbers(SWAP, v)) return false;
					f.swap = true;
					f.swapPercent = v[0]!;
					f.swapTotal = v[1]!;
					f.swapPeak = v[2]!;
					break;
				}
				case ID.gpu: {
					f.resetGpu();
					if (this.nul()) break;
					const v = this.#values;
					if (!this.#numbers(GPU, v)) return false;
					f.gpu = true;
					f.gpuPercent = v[0]!;
					f.gpuPeak = v[1]!;
					break;
				}
				case ID.gpus:
					f.devices = 0;
					if (!this.#gpus(f)) return false;
					break;
				case ID.gpu_status:
				case ID.gpu_message:
					if (!this.string()) return false;
					break;
				case ID.alerts:
					// Level changes are rare and hold strings of every kind: only an empty list is ours to vouch for.
					if (!this.take(OPEN_BRACKET) || !this.take(CLOSE_BRACKET)) return false;
					break;
				default:
					if (!(id >= JOB_FROM ? this.schedulerJob(f, id - JOB_FROM) : this.skip(1))) return false;
			}
		} while (this.take(COMMA));
		return this.take(CLOSE_BRACE) && hasTimestamp && hasMemory;
	}

	/**
	 * An object of numbers described by `spec` (memory, swap, the GPU aggregate): each field's value
	 * into `values` at its position (NaN when absent or only checked); unknown keys skipped; false
	 * when a number is malformed or a required field is missing. With `f` (memory) its `cgroup` goes to `f`.
	 */
	#numbers(spec: ObjectSpec, values: Float64Array, f: RecordFields | null = null): boolean {
		if (!this.take(OPEN_BRACE)) return false;
		let seen = 0;
		if (!this.take(CLOSE_BRACE)) {
			do {
				const id = this.keyId();
				if (id === -1) return false;
				if (id === ID.cgroup && f !== null) {
					if (!this.cgroup(f)) return false;
					continue;
				}
				const i = id === 0 ? -1 : spec.slot[id]!;
				if (i < 0) {
					if (!this.skip(2)) return false;
					continue;
				}
				const convert = spec.convert[i]!;
				if (!this.number(convert)) return false;
				if (convert) values[i] = this.num;
				seen |= 1 << i;
			} while (this.take(COMMA));
			if (!this.take(CLOSE_BRACE)) return false;
		}
		// Absent optional fields read as NaN.
		for (let i = 0; i < spec.convert.length; i++) if ((seen & (1 << i)) === 0) values[i] = Number.NaN;
		return (seen & spec.required) === spec.required;
	}

	#gpus(f: RecordFields): boolean {
		if (!this.take(OPEN_BRACKET)) return false;
		if (this.take(CLOSE_BRACKET)) return true;
		do {
			if (!this.#device(f)) return false;
		} while (this.take(COMMA));
		return this.take(CLOSE_BRACKET);
	}

	/** One entry of `gpus`. */
	#device(f: RecordFields): boolean {
		if (!this.take(OPEN_BRACE)) return false;
		if (this.take(CLOSE_BRACE)) return false;
		const slot = f.devices;
		let seen = 0;
		let index = Number.NaN;
		let percent = Number.NaN;
		let peak = Number.NaN;
		let uuid: string | null = null;
		let name: string | null = null;
		let threshold = Number.NaN;
		do {
			switch (this.keyId()) {
				case -1:
					return false;
				case ID.index:
					if (!this.number(true)) return false;
					index = this.num;
					seen |= 1;
					break;
				case ID.memory_percent:
					if (!this.numberOrNull(true)) return false;
					percent = this.num;
					seen |= 2;
					break;
				case ID.memory_used_gb:
					if (!this.numberOrNull(false)) return false;
					seen |= 4;
					break;
				case ID.memory_total_gb:
					if (!this.numberOrNull(false)) return false;
					seen |= 8;
					break;
				case ID.peak_memory_percent:
					if (!this.numberOrNull(true)) return false;
					peak = this.num;
					break;
				case ID.utilization_percent:
					if (!this.numberOrNull(false)) return false;
					break;
				case ID.threshold:
					// The schema's z.number(): null is no threshold of a record it accepts.
					if (!this.number(true)) return false;
					threshold = this.num;
					break;
				case ID.uuid:
					if (this.nul()) uuid = null;
					else if (this.string()) uuid = this.names.get(this.buf, this.strStart, this.strEnd, 2 + 2 * slot);
					else return false;
					break;
				case ID.name:
					if (this.nul()) name = null;
					else if (this.string()) name = this.names.get(this.buf, this.strStart, this.strEnd, 3 + 2 * slot);
					else return false;
					break;
				default:
					if (!this.skip(3)) return false;
			}
		} while (this.take(COMMA));
		if (!this.take(CLOSE_BRACE) || seen !== 15) return false;
		f.addDevice(index, percent, peak, uuid, name, threshold);
		return true;
	}
}
