import {Interner} from './interner.js';
import {BYTE, JsonBytes} from './json-bytes.js';
import {JOB_KEYS, KEY_ID, KEY_TABLE} from './record-keys.js';
import type {RecordFields} from './record-fields.js';

// The part of the memory-log byte scanner (scan-line.ts) below the record: the key ids guessed from the line
// before, the strings interned, and the small nested objects `memory.cgroup` and the scheduler's job
// (under its log key, record-keys.ts JOB_KEYS). Same rule as there:
// accept only what JSON.parse + the schema accept (record.ts), and read exactly the values they would.

const {COMMA, OPEN_BRACE, CLOSE_BRACE} = BYTE;

// Read for every key of every line: constants of this module, not imported bindings.
const ID = KEY_ID;
const TABLE = KEY_TABLE;
/** `memory.cgroup.scope` of the ranks' own cgroup. */
const JOB = new TextEncoder().encode('job');

export class KeyedScanner extends JsonBytes {
	/** Slots: 0 the host, 1 the scheduler's job id, 2 + 2i and 3 + 2i the uuid and name of the i-th GPU entry. */
	// biome-ignore lint/style/useConsistentMemberAccessibility: the subclass LineScanner uses it; `protected` has no #private form.
	protected readonly names = new Interner();
	/**
	 * The key ids of the last line in the order met (nested objects included): a writer emits the
	 * same keys in the same order on every line, so the next key is checked against the guess
	 * before it is hashed.
	 */
	#order = new Int32Array(64);
	#at = 0;

	/** At the start of each line. */
	// biome-ignore lint/style/useConsistentMemberAccessibility: the subclass LineScanner uses it; `protected` has no #private form.
	protected startLine(): void {
		this.#at = 0;
	}

	/** The id of the key next (KEY_ID; 0: a key not ours; -1: no key), guessed from the line before. */
	// biome-ignore lint/style/useConsistentMemberAccessibility: the subclass LineScanner uses it; `protected` has no #private form.
	protected keyId(): number {
		const at = this.#at++;
		if (at >= this.#order.length) {
			const bigger = new Int32Array(this.#order.length * 2);
			bigger.set(this.#order);
			this.#order = bigger;
		}
		const guess = this.#order[at]!;
		if (guess > 0 && this.keyIs(TABLE.bytes[guess]!)) return guess;
		const id = this.key() ? TABLE.id(this.strHash, this.buf, this.strStart, this.strEnd) : -1;
		this.#order[at] = id;
		return id;
	}

	/** `memory.cgroup`: the limit the RAM is judged against. The schema requires limit_gb, used_gb and percent. */
	// biome-ignore lint/style/useConsistentMemberAccessibility: the subclass LineScanner uses it; `protected` has no #private form.
	protected cgroup(f: RecordFields): boolean {
		f.resetCgroup();
		if (!this.take(OPEN_BRACE)) return false;
		let seen = 0;
		let job = false;
		let limit = Number.NaN;
		let used = Number.NaN;
		let percent = Number.NaN;
		let peak = Number.NaN;
		if (!this.take(CLOSE_BRACE)) {
			do {
				switch (this.keyId()) {
					case -1:
						return false;
					case ID.scope:
						if (!this.string()) return false;
						job = this.#stringIs(JOB);
						break;
					case ID.path:
						if (!this.string()) return false;
						break;
					case ID.version:
						if (!this.number(false)) return false;
						break;
					case ID.limit_gb:
						if (!this.number(true)) return false;
						limit = this.num;
						seen |= 1;
						break;
					case ID.used_gb:
						if (!this.number(true)) return false;
						used = this.num;
						seen |= 2;
						break;
					case ID.percent:
						if (!this.number(true)) return false;
						percent = this.num;
						seen |= 4;
						break;
					case ID.peak_percent:
						if (!this.number(true)) return false;
						peak = this.num;
						break;
					default:
						if (!this.skip(3)) return false;
				}
			} while (this.take(COMMA));
			if (!this.take(CLOSE_BRACE)) return false;
		}
		if (seen !== 7) return false;
		f.cgroup = true;
		f.cgJob = job;
		f.cgLimit = limit;
		f.cgUsed = used;
		f.cgPercent = percent;
		f.cgPeak = peak;
		return true;
	}

	/**
	 * The job the record was written under, as the `which`-th scheduler's log key holds it: null, or an object where
	 * the schema requires both fields. A null clears only a job the same key named (the last key wins, as in JSON.parse).
	 */
	// biome-ignore lint/style/useConsistentMemberAccessibility: the subclass LineScanner uses it; `protected` has no #private form.
	protected schedulerJob(f: RecordFields, which: number): boolean {
		const key = JOB_KEYS[which]!;
		if (this.nul()) {
			if (f.schedulerKey === key) f.resetScheduler();
			return true;
		}
		if (!this.take(OPEN_BRACE)) return false;
		let seen = 0;
		let job: string | undefined;
		let restarts = Number.NaN;
		if (!this.take(CLOSE_BRACE)) {
			do {
				switch (this.keyId()) {
					case -1:
						return false;
					case ID.job_id:
						if (!this.string()) return false;
						job = this.names.get(this.buf, this.strStart, this.strEnd, 1);
						seen |= 1;
						break;
					case ID.restart_count:
						if (!this.number(true)) return false;
						restarts = this.num;
						seen |= 2;
						break;
					default:
						if (!this.skip(2)) return false;
				}
			} while (this.take(COMMA));
			if (!this.take(CLOSE_BRACE)) return false;
		}
		if (seen !== 3) return false;
		f.setScheduler(key, job, restarts);
		return true;
	}

	/** The last string read is exactly `bytes`. */
	#stringIs(bytes: Uint8Array): boolean {
		if (this.strEnd - this.strStart !== bytes.length) return false;
		for (let i = 0; i < bytes.length; i++) if (this.buf[this.strStart + i] !== bytes[i]) return false;
		return true;
	}
}
