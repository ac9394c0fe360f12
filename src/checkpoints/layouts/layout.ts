// What every checkpoint layout implements, and the helpers they share. A layout sees one directory's entries (those
// no earlier layout claimed) and reads further only through LayoutIO, so it can be tested with a fake.

import type {CheckpointKind, CheckpointMetric, CheckpointStatus, DeclaredRetention} from '../../core/types.js';
import type {FileSlice, JsonRead} from '../file-reads.js';
import type {Entry} from '../fs.js';
import type {RetentionRule} from '../rules.js';

export type {FileSlice, JsonRead} from '../file-reads.js';
export type {Entry} from '../fs.js';

/** File-system reads a layout may make (checkpoints/fs.ts and file-reads.ts provide the real ones). None of them throws. */
export interface LayoutIO {
	/** Entries of a directory, or null when it cannot be listed. */
	list(dir: string): Promise<Entry[] | null>;
	/** Names in a directory, sorted, without an lstat each (cheap for a dir of 100 shards), or null. */
	names(dir: string): Promise<string[] | null>;
	/** One path's entry (lstat, following a symlink for type and size), or null when it does not exist. */
	entry(file: string): Promise<Entry | null>;
	readJson(file: string): Promise<JsonRead>;
	/** The first maxBytes as UTF-8, or null. */
	readText(file: string, maxBytes?: number): Promise<string | null>;
	/** Up to count bytes from the start or the end of a file, or null. */
	readRange(file: string, count: number, from: 'head' | 'tail'): Promise<Buffer | null>;
	/** Up to count bytes at a byte offset (fewer at the end), with the file's size, or null: a zip's members. */
	readAt(file: string, offset: number, count: number): Promise<FileSlice | null>;
}

/** One directory being scanned. */
export interface ScanDir {
	/** Absolute. */
	readonly path: string;
	/** Relative to the run dir ('' for the run dir itself), for warnings. */
	readonly rel: string;
	/** Entries no earlier layout claimed, sorted by name. Symlinks to directories outside the run dir are left out. */
	readonly entries: readonly Entry[];
}

/** A checkpoint as a layout recognises it; the scan adds bytes, and the mtime when `time` is null. */
export interface Found {
	readonly entry: Entry;
	readonly step: number | null;
	readonly epoch: number | null;
	/** Epoch ms from the layout's own metadata; null: use the entry's mtime. */
	readonly time: number | null;
	readonly status: CheckpointStatus;
	readonly kind: CheckpointKind;
	readonly loss: number | null;
	/** The monitored score in its name (`val_loss=0.32`), for top-k rules; null when there is none. */
	readonly metric: CheckpointMetric | null;
	readonly warnings: readonly string[];
	/** The job's own words for why it saved (the seed metadata's `reason`); absent when it records none. */
	readonly reason?: string;
}

export interface LayoutResult {
	readonly found: readonly Found[];
	/** Problems with the directory's own files (a malformed checkpoint_metadata.json). */
	readonly warnings: readonly string[];
	/** What the run's own files say about this framework's retention (keep-N, the monitored metric); null: nothing. */
	readonly declared: DeclaredRetention | null;
}

export interface Layout {
	/** Short id, as ScannedCheckpoint.layout and `--json`'s layouts: seed, huggingface, lightning… */
	readonly name: string;
	/** The framework's own name, for people: "Hugging Face Trainer". */
	readonly title: string;
	find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult>;
	/** What the framework's next save deletes among one group's checkpoints (checkpoints/rules.ts has the common ones). */
	readonly retention: RetentionRule;
}

export const NOTHING: LayoutResult = {found: [], warnings: [], declared: null};

/** A Found with defaults: unknown step, epoch, time (mtime), kind, loss and metric; complete; no warnings. */
export function found(entry: Entry, fields: Partial<Omit<Found, 'entry'>> = {}): Found {
	return {
		entry,
		step: null,
		epoch: null,
		time: null,
		status: 'complete',
		kind: 'unknown',
		loss: null,
		metric: null,
		warnings: [],
		...fields,
	};
}

/** A regex capture as a non-negative safe integer, or null. */
export function intOf(text: string | undefined): number | null {
	if (text === undefined) return null;
	const value = Number(text);
	return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A finite number from JSON, or null. */
export function numberOf(value: unknown): number | null {
	return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The name relative to the run dir, for warnings. */
export function relName(dir: ScanDir, name: string): string {
	return dir.rel === '' ? name : `${dir.rel}/${name}`;
}

const EOCD = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EOCD_SIZE = 22;
const EOCD_WINDOW = 64 * 1024;

/**
 * Whether a torch.save zip ends with its end-of-central-directory record: at size − 22 (torch writes no comment),
 * else anywhere in the last 64 KiB. A file too short for one, or unreadable, has none.
 */
export async function hasZipEnd(io: LayoutIO, file: string): Promise<boolean> {
	const last = await io.readRange(file, EOCD_SIZE, 'tail');
	if (last === null || last.length < EOCD_SIZE) return false;
	if (last.subarray(0, 4).equals(EOCD)) return true;
	const window = await io.readRange(file, EOCD_WINDOW, 'tail');
	return window?.includes(EOCD) === true;
}

/** Whether a file starts like a zip (a torch.save archive rather than a legacy pickle, which has no end record). */
export async function startsAsZip(io: LayoutIO, file: string): Promise<boolean> {
	const head = await io.readRange(file, 4, 'head');
	return head?.equals(ZIP_MAGIC) === true;
}

export const TRUNCATED = 'truncated: no zip end record';

/** Whether a tag read from a file (DeepSpeed's `latest`, fvcore's `last_checkpoint`) looks like a name to quote. */
export function nameLike(text: string): boolean {
	return /^[\w.=+-]{1,100}$/.test(text);
}
