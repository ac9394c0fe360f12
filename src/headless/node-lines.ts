import type {Settings} from '../config/schema.js';
import type {GpuState, JobEvent, RankSet, Snapshot} from '../core/types.js';
import {localTime} from '../format/time.js';
import type {MemoryLogRecorder} from '../memlog/recorder.js';
import {
	describeRanksFound,
	eventRecord,
	formatAlertLine,
	formatEventLine,
	formatGpuStateLine,
	formatStatusLine,
} from './format.js';
import type {Print} from './print.js';
import {JobVerdictLines} from './job-verdict-lines.js';
import {READINESS_LINES} from './readiness-lines.js';
import {PROGRESS_LINES} from './progress-lines.js';
import type {Readiness} from '../core/readiness-types.js';
import type {JobProgress} from '../core/progress-types.js';
import {NcclRasLines} from './nccl-ras-lines.js';
import {GpuUnseenLines} from './gpu-unseen-lines.js';
import {HostConsumersLines} from './host-consumers-lines.js';
import {levelRecord} from './level-record.js';

// One node in the headless view: its status line (or JSON record) per log interval, the ranks it found, its job
// events, its GPU reader's changes, its memory read failures and its alerts. With many nodes each line carries the
// node's name (and each event object its host); with one it is the machine's own and says no name.

/** What identifies a GPU reader state for reporting: status, the devices' names, and its message. */
function gpuStateKey(state: GpuState): string {
	switch (state.status) {
		case 'starting':
			return 'starting';
		case 'ok':
			return `ok|${state.gpus.map(g => `${g.index}:${g.name}`).join(',')}|${state.warning ?? ''}`;
		case 'absent':
			return `absent|${state.reason}`;
		case 'error':
			return `error|${state.message}`;
	}
}

export class NodeLines {
	readonly #node: string;
	/** The node's name when there are many (`gpu1 `); '' for the one node. */
	readonly #prefix: string;
	readonly #many: boolean;
	readonly #print: Print;
	readonly #settings: Settings;
	#lastGpuKey: string | null = null;
	#lastRanks: RankSet | null = null;
	readonly #readiness: JobVerdictLines<Readiness>;
	readonly #progress: JobVerdictLines<JobProgress>;
	readonly #ncclRas: NcclRasLines;
	readonly #gpuUnseen: GpuUnseenLines;
	readonly #hostConsumers: HostConsumersLines;
	readonly #offs: (() => void)[] = [];

	constructor(node: string, many: boolean, print: Print, settings: Settings) {
		this.#node = node;
		this.#many = many;
		this.#prefix = many ? `${node} ` : '';
		this.#print = print;
		this.#settings = settings;
		this.#readiness = new JobVerdictLines(print, many ? node : null, READINESS_LINES);
		this.#progress = new JobVerdictLines(print, many ? node : null, PROGRESS_LINES);
		this.#ncclRas = new NcclRasLines(print, many ? node : null);
		this.#gpuUnseen = new GpuUnseenLines(print, many ? node : null);
		this.#hostConsumers = new HostConsumersLines(print, many ? node : null);
	}

	/** Prints the node's records as its log writes them, and its log's trouble. */
	follow(recorder: MemoryLogRecorder): void {
		const print = this.#print;
		this.#offs.push(
			recorder.onRecord((record, snapshot) =>
				print.out(print.json ? JSON.stringify(record) : `${this.#prefix}${formatStatusLine(record, snapshot.metrics)}`),
			),
			recorder.trouble.subscribe(trouble => {
				const node = this.#many ? `${this.#node}: ` : '';
				print.note(`${node}${trouble ?? `memory log ${recorder.path} is writable again`}`);
			}),
		);
	}

	/** The ranks found, the job's events (but those the job level says) and the GPU reader's changes. */
	head(snapshot: Snapshot, jobLevel: (event: JobEvent) => boolean): void {
		const print = this.#print;
		const at = () => localTime(snapshot.time);
		if (snapshot.ranks && snapshot.ranks !== this.#lastRanks) {
			const found = describeRanksFound(this.#lastRanks, snapshot.ranks);
			if (found) print.note(`${at()} ${this.#prefix}${found}`);
			this.#lastRanks = snapshot.ranks;
		}
		// The job's life (exits, ends, stops, stalls, saves, OVERDUE): a line each on stderr, and with --json an
		// object each on stdout between the records, as it happens rather than at the next record.
		for (const event of snapshot.events) {
			// A job's progress verdict has its own line and object, with every figure (progress-lines.ts).
			if (jobLevel(event) || event.kind === 'job-hung' || event.kind === 'job-progressing') continue;
			print.note(`${this.#prefix}${formatEventLine(event)}`);
			print.record(this.#many ? {...eventRecord(event), host: this.#node} : eventRecord(event));
		}
		this.#readiness.update(snapshot);
		this.#progress.update(snapshot);
		this.#ncclRas.update(snapshot);
		// One line per change of the reader's state; a sample or a retry countdown is not a change.
		const gpuKey = gpuStateKey(snapshot.gpu);
		if (gpuKey !== this.#lastGpuKey) {
			const gpuLine = formatGpuStateLine(snapshot.gpu, snapshot.time);
			if (gpuLine) print.note(`${at()} ${this.#prefix}${gpuLine}`);
		}
		this.#lastGpuKey = gpuKey;
		this.#gpuUnseen.update(snapshot);
		this.#hostConsumers.update(snapshot);
	}

	/** A failed memory read and the level changes. */
	tail(snapshot: Snapshot): void {
		const print = this.#print;
		if (snapshot.memoryError)
			print.note(`${localTime(snapshot.time)} ${this.#prefix}cannot read memory: ${snapshot.memoryError}`);
		for (const alert of snapshot.newAlerts)
			print.err(`${this.#prefix}${formatAlertLine(alert, this.#settings.warnMargin)}`);
		for (const alert of snapshot.newAlerts)
			print.record(levelRecord(alert, this.#settings.warnMargin, this.#many ? this.#node : null));
	}

	off(): void {
		for (const off of this.#offs.splice(0)) off();
	}
}
